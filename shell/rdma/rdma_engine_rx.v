// Receiving side of the RDMA engine: takes packets from the router's engine port and
// acts on them, with the packet formats of the C++ model (runtime/rdma, docs/rdma.md).
// A stream start (PUT, GETRESP; one with 9 payload words is block-stride) sets up the
// per-source stream state after a range check; DATA packets are written to memory
// through the write port (one word per cycle, stalled by waitrequest); the end of a
// PUT stream raises a target event and answers DONE, the end of a GETRESP stream
// completes the initiator's get. GETREQ packets (11 payload words: block-stride, with
// block, count and both strides) are range-checked and queued for the
// sender; DONE / ERR complete the initiator's operation. A bad range answers ERR
// REMOTE_RANGE and the stream's data are discarded. The ejection port is stalled only
// by the memory and by full reply / request queues (each initiator has one operation
// outstanding, so queues as deep as the card count never fill).
`default_nettype none
module rdma_engine_rx #(
    parameter [63:0] MEM_BYTES = 64'h2_0000_0000  // card memory (bytes): the remote range limit
) (
    input  wire        clk,
    input  wire        rst,
    // packets from the router
    input  wire        ej_valid,
    output reg         ej_ready,
    input  wire [31:0] ej_data,
    input  wire        ej_last,
    // memory write port (byte address, 4-byte words)
    output reg  [63:0] mem_wr_address,
    output reg         mem_wr_write,
    output reg  [31:0] mem_wr_writedata,
    input  wire        mem_wr_waitrequest,
    output wire        mem_wr_flush,    // a stream ended: write out what the memory side holds
    input  wire        mem_wr_pending,  // written words not yet accepted by the memory
    // the initiator: is operation q_op outstanding there; completions (it drops stale ones)
    output wire [31:0] q_op,
    input  wire        q_live,
    output reg         comp_valid,
    output reg  [31:0] comp_op,
    output reg  [7:0]  comp_code,
    // replies (DONE / ERR) for the sender
    output reg         rp_push,
    output reg  [49:0] rp_data,   // {dst 6, type 4, op 32, code 8}
    input  wire        rp_full,
    // get requests for the sender
    output reg         rq_push,
    output reg  [325:0] rq_data,  // {src 6, op 32, remote 64, len 64, local 64, block 32, rstride 32, lstride 32}
    input  wire        rq_full,
    // target events: a put received
    output reg         ev_push,
    output reg  [137:0] ev_data,  // {kind 4, peer 6, addr 64, len 64}
    output wire [2:0]   dbg       // receiver state
);
    `include "rdma_packet.vh"
    localparam [2:0] R_HDR = 3'd0, R_PAY = 3'd1, R_EXEC = 3'd2, R_DATA = 3'd3, R_DIV = 3'd4, R_CHK = 3'd5,
                     R_END = 3'd6;
    localparam [7:0] E_REMOTE_RANGE = 8'd2;

    // per-source stream state
    reg        s_act [0:63];
    reg        s_put [0:63];
    reg        s_disc [0:63];
    reg [31:0] s_op [0:63];
    reg [63:0] s_base [0:63];
    reg [63:0] s_len [0:63];
    reg [63:0] s_cur [0:63];
    reg [63:0] s_rem [0:63];
    reg [63:0] s_bstart [0:63];
    reg [31:0] s_blk [0:63];
    reg [31:0] s_brem [0:63];
    reg [31:0] s_stride [0:63];

    reg [2:0]  st_reg;
    assign dbg = st_reg;
    assign mem_wr_flush = st_reg == R_END;
    reg [5:0]  h_src_reg;
    reg [3:0]  h_type_reg;
    reg [4:0]  h_words_reg;
    reg [3:0]  idx_reg;
    reg [31:0] w [0:10];
    // the stream of the packet being received (working copy)
    reg        k_act_reg, k_put_reg, k_disc_reg;
    reg [31:0] k_op_reg, k_blk_reg, k_brem_reg, k_stride_reg;
    reg [63:0] k_base_reg, k_len_reg, k_cur_reg, k_rem_reg, k_bstart_reg;
    // stream set-up: a bad range found by the checks below
    reg        bad_reg;

    // range checks and the block-stride divider (shared with the other engine's receiver)
    wire [63:0] a_addr, a_len;
    wire [31:0] a_blk, a_stride;
    wire        strided, g_strided, bad_plain, bad_stride, span_bad, g_bad, div_done, div_bad;
    rdma_start_check #(.MEM_BYTES(MEM_BYTES)) u_chk (
        .clk(clk), .rst(rst), .w({w[10], w[9], w[8], w[7], w[6], w[5], w[4], w[3], w[2], w[1]}), .typ(h_type_reg),
        .words(h_words_reg),
        .div_start(st_reg == R_EXEC && strided && !bad_plain && !bad_stride), .div_step(st_reg == R_DIV),
        .div_done(div_done), .div_bad(div_bad), .a_addr(a_addr), .a_len(a_len), .a_blk(a_blk), .a_stride(a_stride),
        .strided(strided), .g_strided(g_strided), .bad_plain(bad_plain), .bad_stride(bad_stride), .span_bad(span_bad),
        .g_bad(g_bad));
    assign q_op = w[0];
    wire        mine = q_live;
    // the next values of the working stream after one data word
    wire        k_take = k_act_reg && k_rem_reg != 64'd0;
    wire        k_wr = k_take && !k_disc_reg;
    wire        blk_end = k_blk_reg != 32'd0 && k_brem_reg == 32'd4;
    wire [63:0] k_bstart_n = k_bstart_reg + {32'd0, k_stride_reg};
    wire [63:0] k_rem_n = k_rem_reg - 64'd4;

    always @(*) begin
        ej_ready = 1'b0;
        mem_wr_write = 1'b0;
        mem_wr_address = k_cur_reg;
        mem_wr_writedata = ej_data;
        case (st_reg)
            R_HDR, R_PAY: ej_ready = 1'b1;
            R_DATA: begin
                mem_wr_write = ej_valid && k_wr;
                ej_ready = !k_wr || !mem_wr_waitrequest;
            end
            default: ej_ready = 1'b0;
        endcase
    end

    integer i;
    always @(posedge clk) begin
        comp_valid <= 1'b0;
        rp_push <= 1'b0;
        rq_push <= 1'b0;
        ev_push <= 1'b0;
        if (rst) begin
            st_reg <= R_HDR;
            for (i = 0; i < 64; i = i + 1) s_act[i] <= 1'b0;
            comp_op <= 32'd0; comp_code <= 8'd0; rp_data <= 50'd0; rq_data <= 326'd0; ev_data <= 138'd0;
            idx_reg <= 4'd0; h_src_reg <= 6'd0; h_type_reg <= 4'd0; h_words_reg <= 5'd0; bad_reg <= 1'b0;
        end else begin
            case (st_reg)
                R_HDR: if (ej_valid) begin
                    h_src_reg <= ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W];
                    h_type_reg <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
                    h_words_reg <= ej_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W];
                    idx_reg <= 4'd0;
                    k_act_reg <= s_act[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_put_reg <= s_put[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_disc_reg <= s_disc[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_op_reg <= s_op[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_base_reg <= s_base[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_len_reg <= s_len[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_cur_reg <= s_cur[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_rem_reg <= s_rem[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_bstart_reg <= s_bstart[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_blk_reg <= s_blk[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_brem_reg <= s_brem[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_stride_reg <= s_stride[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    if (ej_last) st_reg <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_DATA ? R_HDR : R_EXEC;
                    else st_reg <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_DATA ? R_DATA : R_PAY;
                end
                R_PAY: if (ej_valid) begin
                    if (idx_reg <= 4'd10) w[idx_reg] <= ej_data;
                    if (idx_reg != 4'd15) idx_reg <= idx_reg + 4'd1;
                    if (ej_last) st_reg <= R_EXEC;
                end
                R_DATA: if (ej_valid && ej_ready) begin
                    if (k_take) begin
                        k_rem_reg <= k_rem_n;
                        if (blk_end) begin
                            k_bstart_reg <= k_bstart_n;
                            k_cur_reg <= k_bstart_n;
                            k_brem_reg <= k_blk_reg;
                        end else begin
                            k_cur_reg <= k_cur_reg + 64'd4;
                            k_brem_reg <= k_brem_reg - 32'd4;
                        end
                    end
                    if (ej_last) begin
                        s_rem[h_src_reg] <= k_take ? k_rem_n : k_rem_reg;
                        s_cur[h_src_reg] <= !k_take ? k_cur_reg : blk_end ? k_bstart_n : k_cur_reg + 64'd4;
                        s_bstart[h_src_reg] <= k_take && blk_end ? k_bstart_n : k_bstart_reg;
                        s_brem[h_src_reg] <= !k_take ? k_brem_reg : blk_end ? k_blk_reg : k_brem_reg - 32'd4;
                        st_reg <= k_take && k_rem_n == 64'd0 ? R_END : R_HDR;
                    end
                end
                R_END: begin
                    // the stream of h_src ended with this packet
                    s_act[h_src_reg] <= 1'b0;
                    if (!k_disc_reg && mem_wr_pending) begin
                        st_reg <= R_END;  // the data must be in memory before DONE or completion
                    end else if (k_disc_reg) begin
                        st_reg <= R_HDR;
                    end else if (k_put_reg) begin
                        if (!rp_full) begin
                            ev_push <= 1'b1;
                            ev_data <= {RDMA_T_PUT, h_src_reg, k_base_reg, k_len_reg};
                            rp_push <= 1'b1;
                            rp_data <= {h_src_reg, RDMA_T_DONE, k_op_reg, 8'd0};
                            st_reg <= R_HDR;
                        end
                    end else begin
                        comp_valid <= 1'b1;
                        comp_op <= k_op_reg;
                        comp_code <= 8'd0;
                        st_reg <= R_HDR;
                    end
                end
                R_EXEC: begin
                    st_reg <= R_HDR;
                    case (h_type_reg)
                        RDMA_T_PUT, RDMA_T_GETRESP: begin
                            bad_reg <= bad_plain;
                            if (strided && !bad_plain && !bad_stride) begin
                                st_reg <= R_DIV;  // u_chk loads len / block
                            end else begin
                                bad_reg <= bad_plain || (strided && bad_stride);
                                st_reg <= R_CHK;
                            end
                        end
                        RDMA_T_GETREQ: begin
                            if (g_strided ? g_bad : bad_plain) begin
                                if (!rp_full) begin
                                    rp_push <= 1'b1;
                                    rp_data <= {h_src_reg, RDMA_T_ERR, w[0], E_REMOTE_RANGE};
                                end else st_reg <= R_EXEC;
                            end else if (!rq_full) begin
                                rq_push <= 1'b1;
                                rq_data <= {h_src_reg, w[0], a_addr, a_len, {w[6], w[5]}, g_strided ? w[7] : 32'd0, w[9],
                                            w[10]};
                            end else st_reg <= R_EXEC;
                        end
                        RDMA_T_DONE, RDMA_T_ERR: begin
                            comp_valid <= 1'b1;
                            comp_op <= w[0];
                            comp_code <= h_type_reg == RDMA_T_DONE ? 8'd0 : w[1][7:0];
                        end
                        default: ;  // stray or unknown: ignored
                    endcase
                end
                R_DIV: if (div_done) begin  // u_chk: len / block, a quotient bit per cycle
                    bad_reg <= div_bad;
                    st_reg <= R_CHK;
                end
                R_CHK: begin
                    // stream set-up; a bad PUT answers ERR (a bad GETRESP is dropped silently)
                    if (h_type_reg == RDMA_T_PUT && (bad_reg || span_bad) && rp_full) begin
                        st_reg <= R_CHK;
                    end else begin
                        st_reg <= R_HDR;
                        s_act[h_src_reg] <= 1'b1;
                        s_put[h_src_reg] <= h_type_reg == RDMA_T_PUT;
                        s_op[h_src_reg] <= w[0];
                        s_base[h_src_reg] <= a_addr;
                        s_len[h_src_reg] <= a_len;
                        s_cur[h_src_reg] <= a_addr;
                        s_rem[h_src_reg] <= a_len;
                        s_bstart[h_src_reg] <= a_addr;
                        s_blk[h_src_reg] <= strided ? a_blk : 32'd0;
                        s_brem[h_src_reg] <= a_blk;
                        s_stride[h_src_reg] <= a_stride;
                        if (h_type_reg == RDMA_T_PUT) begin
                            s_disc[h_src_reg] <= bad_reg || span_bad;
                            if (bad_reg || span_bad) begin
                                rp_push <= 1'b1;
                                rp_data <= {h_src_reg, RDMA_T_ERR, w[0], E_REMOTE_RANGE};
                            end
                        end else begin
                            s_disc[h_src_reg] <= bad_reg || !mine;
                        end
                    end
                end
                default: st_reg <= R_HDR;
            endcase
        end
    end
endmodule
`default_nettype wire
