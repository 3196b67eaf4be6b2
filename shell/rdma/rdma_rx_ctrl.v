// Control side of both RDMA engines' receivers (rdma_engine_rx, rdma_engine_wrx): what a
// control packet does once the receiver has it whole, and what a data stream's end sends.
// A stream start (PUT, GETRESP; 9 payload words: block-stride) is range-checked (with the
// block-stride divider of rdma_start_check) and written to the per-source stream table
// (rdma_rx_streams, read and updated by the receiver's data path through the ports here);
// a bad PUT answers ERR REMOTE_RANGE and its data are discarded, a bad GETRESP or one for
// an operation no longer outstanding is discarded silently. A GETREQ is range-checked
// and queued for the sender, or answered ERR; DONE / ERR complete the initiator's
// operation. At a stream's end (fin) a PUT answers DONE and raises a target event, a
// GETRESP completes the initiator's get. The receiver waits from `start` to `done`; the
// states keep the receivers' codes (2 execute, 4 divide, 5 set up) for RDMA_ENG_STATE.
`default_nettype none
module rdma_rx_ctrl #(
    parameter [63:0] MEM_BYTES = 64'h2_0000_0000  // card memory (bytes): the remote range limit
) (
    input  wire         clk,
    input  wire         rst,
    // the control packet: header fields, payload words 0..11 (word 0 low)
    input  wire         start,
    input  wire [5:0]   pk_src,
    input  wire [3:0]   pk_type,
    input  wire [4:0]   pk_words,
    input  wire [383:0] w,
    input  wire         hold,      // a stream's set-up waits (the receiver still holds its data)
    output wire         done,      // the packet's work ends this cycle
    output wire [2:0]   state,
    // a data stream's end (not with rp_full for a PUT): its DONE and event, or completion
    input  wire         fin,
    input  wire         fin_put,
    input  wire [5:0]   fin_src,
    input  wire [31:0]  fin_op,
    input  wire [63:0]  fin_base,
    input  wire [63:0]  fin_len,
    // the stream table (rdma_rx_streams) for the receiver's data path
    `include "rdma_rx_stream_ports.vh"
    // the initiator: is operation q_op outstanding there; completions (it drops stale ones)
    output wire [31:0]  q_op,
    input  wire         q_live,
    output reg          comp_valid,
    output reg  [31:0]  comp_op,
    output reg  [7:0]   comp_code,
    // replies (DONE / ERR) for the sender
    output reg          rp_push,
    output reg  [49:0]  rp_data,   // {dst 6, type 4, op 32, code 8}
    input  wire         rp_full,
    // get requests for the sender
    output reg          rq_push,
    output reg  [334:0] rq_data,  // {src 6, op 32, remote 64, len 64, local 64, block 32, rstride 32, lstride 32, pkt 9}
    input  wire         rq_full,
    // target events: a put received
    output reg          ev_push,
    output reg  [137:0] ev_data   // {kind 4, peer 6, addr 64, len 64}
);
    `include "rdma_packet.vh"
    localparam [2:0] C_IDLE = 3'd0, C_EXEC = 3'd2, C_DIV = 3'd4, C_CHK = 3'd5;
    localparam [7:0] E_REMOTE_RANGE = 8'd2;

    reg [2:0]  st_reg, st_next;
    reg        bad_reg;    // a bad range found by the checks
    assign state = st_reg;
    wire [31:0] w0 = w[31:0];
    assign q_op = w0;

    wire [63:0] a_addr, a_len;
    wire [31:0] a_blk, a_stride;
    wire        strided, g_strided, bad_plain, bad_stride, span_bad, g_bad, div_done, div_bad;
    wire        div_go = strided && !bad_plain && !bad_stride;
    rdma_start_check #(.MEM_BYTES(MEM_BYTES)) u_chk (
        .clk(clk), .rst(rst), .w(w[351:32]), .typ(pk_type), .words(pk_words),
        .div_start(st_reg == C_EXEC && !fin && div_go), .div_step(st_reg == C_DIV),
        .div_done(div_done), .div_bad(div_bad), .a_addr(a_addr), .a_len(a_len), .a_blk(a_blk), .a_stride(a_stride),
        .strided(strided), .g_strided(g_strided), .bad_plain(bad_plain), .bad_stride(bad_stride), .span_bad(span_bad),
        .g_bad(g_bad));
    // the initiator's DATA packet size in a GETREQ: its last payload word, if sent (16 without)
    function automatic [8:0] norm_pkt(input [31:0] x);
        if (x == 32'd0 || x > 32'd256) norm_pkt = 9'd256;
        else if (x < 32'd16) norm_pkt = 9'd16;
        else norm_pkt = {x[8:4], 4'd0};
    endfunction
    wire [8:0]  g_pkt = pk_words == 5'd12 ? norm_pkt(w[383:352]) : pk_words == 5'd8 ? norm_pkt(w[255:224]) : 9'd16;
    wire        g_fail = g_strided ? g_bad : bad_plain;
    wire        set_bad = bad_reg || span_bad;
    // a stream's end goes first: its reply and completion use the ports this cycle
    wire        exec = st_reg == C_EXEC && !fin;
    wire        set = st_reg == C_CHK && !hold && !(pk_type == RDMA_T_PUT && set_bad && rp_full);
    wire        start_like = pk_type == RDMA_T_PUT || pk_type == RDMA_T_GETRESP;
    wire        queued = pk_type != RDMA_T_GETREQ || !(g_fail ? rp_full : rq_full);
    assign done = (exec && !start_like && queued) || set;

    rdma_rx_streams u_streams (
        .clk(clk), .rst(rst), .set(set), .set_src(pk_src), .set_put(pk_type == RDMA_T_PUT),
        .set_disc(pk_type == RDMA_T_PUT ? set_bad : bad_reg || !q_live), .set_op(w0), .set_addr(a_addr),
        .set_len(a_len), .set_blk(strided ? a_blk : 32'd0), .set_brem(a_blk), .set_stride(a_stride),
        .upd(upd), .upd_src(upd_src), .upd_cur(upd_cur), .upd_rem(upd_rem), .upd_bstart(upd_bstart),
        .upd_brem(upd_brem), .clr(clr), .clr_src(clr_src), .rd_src(rd_src), .rd_stream(rd_stream));

    always @(*) begin
        st_next = st_reg;
        case (st_reg)
            C_IDLE: if (start) st_next = C_EXEC;
            C_EXEC: if (!fin) begin
                case (pk_type)
                    RDMA_T_PUT, RDMA_T_GETRESP: st_next = div_go ? C_DIV : C_CHK;  // u_chk: len / block
                    RDMA_T_GETREQ: st_next = queued ? C_IDLE : C_EXEC;
                    default: st_next = C_IDLE;  // DONE / ERR; stray or unknown types are ignored
                endcase
            end
            C_DIV: if (div_done) st_next = C_CHK;  // a quotient bit per cycle
            C_CHK: if (set) st_next = C_IDLE;
            default: st_next = C_IDLE;
        endcase
    end

    always @(posedge clk) begin
        comp_valid <= 1'b0;
        rp_push <= 1'b0;
        rq_push <= 1'b0;
        ev_push <= 1'b0;
        if (rst) begin
            st_reg <= C_IDLE;
            comp_op <= 32'd0; comp_code <= 8'd0; rp_data <= 50'd0; rq_data <= 335'd0; ev_data <= 138'd0;
            bad_reg <= 1'b0;
        end else begin
            st_reg <= st_next;
            if (fin && fin_put) begin
                ev_push <= 1'b1;
                ev_data <= {RDMA_T_PUT, fin_src, fin_base, fin_len};
                rp_push <= 1'b1;
                rp_data <= {fin_src, RDMA_T_DONE, fin_op, 8'd0};
            end else if (fin) begin
                comp_valid <= 1'b1;
                comp_op <= fin_op;
                comp_code <= 8'd0;
            end
            if (exec && start_like)
                bad_reg <= bad_plain || (strided && bad_stride);
            if (exec && pk_type == RDMA_T_GETREQ) begin
                if (g_fail && !rp_full) begin
                    rp_push <= 1'b1;
                    rp_data <= {pk_src, RDMA_T_ERR, w0, E_REMOTE_RANGE};
                end else if (!g_fail && !rq_full) begin
                    rq_push <= 1'b1;
                    rq_data <= {pk_src, w0, a_addr, a_len, w[223:160], g_strided ? w[255:224] : 32'd0, w[319:288],
                                w[351:320], g_pkt};
                end
            end
            if (exec && (pk_type == RDMA_T_DONE || pk_type == RDMA_T_ERR)) begin
                comp_valid <= 1'b1;
                comp_op <= w0;
                comp_code <= pk_type == RDMA_T_DONE ? 8'd0 : w[39:32];
            end
            if (st_reg == C_DIV && div_done) bad_reg <= div_bad;
            if (set && pk_type == RDMA_T_PUT && set_bad) begin
                rp_push <= 1'b1;
                rp_data <= {pk_src, RDMA_T_ERR, w0, E_REMOTE_RANGE};
            end
        end
    end
endmodule
`default_nettype wire
