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

    reg [2:0]  st;
    assign dbg = st;
    assign mem_wr_flush = st == R_END;
    reg [5:0]  h_src;
    reg [3:0]  h_type;
    reg [4:0]  h_words;
    reg [3:0]  idx;
    reg [31:0] w [0:10];
    // the stream of the packet being received (working copy)
    reg        k_act, k_put, k_disc;
    reg [31:0] k_op, k_blk, k_brem, k_stride;
    reg [63:0] k_base, k_len, k_cur, k_rem, k_bstart;
    // stream set-up and block-stride check (len / block by shift-subtract)
    reg [63:0] dq, dr;
    reg [6:0]  di;
    reg        bad;

    wire [63:0] a_addr = {w[2], w[1]};
    wire [63:0] a_len = {w[4], w[3]};
    wire [63:0] a_blk = {w[6], w[5]};
    wire [63:0] a_stride = {w[8], w[7]};
    wire        strided = (h_type == RDMA_T_PUT || h_type == RDMA_T_GETRESP) && h_words >= 5'd9;
    // a block-stride GETREQ: w[7] block, w[8] count, w[9] stride here, w[10] stride at the initiator
    wire        g_strided = h_words >= 5'd11;
    wire [63:0] g_span = {32'd0, w[8] - 32'd1} * {32'd0, w[9]} + {32'd0, w[7]};
    wire        g_bad = w[7] == 32'd0 || w[7][1:0] != 2'd0 || w[9][1:0] != 2'd0 || w[10][1:0] != 2'd0
                        || w[9] < w[7] || w[10] < w[7] || w[8] == 32'd0 || a_len != {32'd0, w[7]} * {32'd0, w[8]}
                        || a_addr[1:0] != 2'd0 || a_addr > MEM_BYTES || g_span > MEM_BYTES - a_addr;
    wire        bad_plain = a_addr[1:0] != 2'd0 || a_len[1:0] != 2'd0 || a_len == 64'd0 || a_addr > MEM_BYTES
                            || a_len > MEM_BYTES - a_addr;
    wire        bad_stride = a_blk == 64'd0 || a_blk[1:0] != 2'd0 || a_stride[1:0] != 2'd0 || a_stride < a_blk
                             || a_blk[63:32] != 32'd0 || a_stride[63:32] != 32'd0;
    wire [63:0] span = (dq - 64'd1) * {32'd0, a_stride[31:0]} + a_blk;  // dq < 2^32 when used
    assign q_op = w[0];
    wire        mine = q_live;
    // the next values of the working stream after one data word
    wire        k_take = k_act && k_rem != 64'd0;
    wire        k_wr = k_take && !k_disc;
    wire        blk_end = k_blk != 32'd0 && k_brem == 32'd4;
    wire [63:0] k_bstart_n = k_bstart + {32'd0, k_stride};
    wire [63:0] k_rem_n = k_rem - 64'd4;

    always @(*) begin
        ej_ready = 1'b0;
        mem_wr_write = 1'b0;
        mem_wr_address = k_cur;
        mem_wr_writedata = ej_data;
        case (st)
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
            st <= R_HDR;
            for (i = 0; i < 64; i = i + 1) s_act[i] <= 1'b0;
            comp_op <= 32'd0; comp_code <= 8'd0; rp_data <= 50'd0; rq_data <= 326'd0; ev_data <= 138'd0;
            idx <= 4'd0; h_src <= 6'd0; h_type <= 4'd0; h_words <= 5'd0; bad <= 1'b0;
            dq <= 64'd0; dr <= 64'd0; di <= 7'd0;
        end else begin
            case (st)
                R_HDR: if (ej_valid) begin
                    h_src <= ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W];
                    h_type <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
                    h_words <= ej_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W];
                    idx <= 4'd0;
                    k_act <= s_act[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_put <= s_put[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_disc <= s_disc[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_op <= s_op[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_base <= s_base[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_len <= s_len[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_cur <= s_cur[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_rem <= s_rem[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_bstart <= s_bstart[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_blk <= s_blk[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_brem <= s_brem[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    k_stride <= s_stride[ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]];
                    if (ej_last) st <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_DATA ? R_HDR : R_EXEC;
                    else st <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_DATA ? R_DATA : R_PAY;
                end
                R_PAY: if (ej_valid) begin
                    if (idx <= 4'd10) w[idx] <= ej_data;
                    if (idx != 4'd15) idx <= idx + 4'd1;
                    if (ej_last) st <= R_EXEC;
                end
                R_DATA: if (ej_valid && ej_ready) begin
                    if (k_take) begin
                        k_rem <= k_rem_n;
                        if (blk_end) begin
                            k_bstart <= k_bstart_n;
                            k_cur <= k_bstart_n;
                            k_brem <= k_blk;
                        end else begin
                            k_cur <= k_cur + 64'd4;
                            k_brem <= k_brem - 32'd4;
                        end
                    end
                    if (ej_last) begin
                        s_rem[h_src] <= k_take ? k_rem_n : k_rem;
                        s_cur[h_src] <= !k_take ? k_cur : blk_end ? k_bstart_n : k_cur + 64'd4;
                        s_bstart[h_src] <= k_take && blk_end ? k_bstart_n : k_bstart;
                        s_brem[h_src] <= !k_take ? k_brem : blk_end ? k_blk : k_brem - 32'd4;
                        st <= k_take && k_rem_n == 64'd0 ? R_END : R_HDR;
                    end
                end
                R_END: begin
                    // the stream of h_src ended with this packet
                    s_act[h_src] <= 1'b0;
                    if (!k_disc && mem_wr_pending) begin
                        st <= R_END;  // the data must be in memory before DONE or completion
                    end else if (k_disc) begin
                        st <= R_HDR;
                    end else if (k_put) begin
                        if (!rp_full) begin
                            ev_push <= 1'b1;
                            ev_data <= {RDMA_T_PUT, h_src, k_base, k_len};
                            rp_push <= 1'b1;
                            rp_data <= {h_src, RDMA_T_DONE, k_op, 8'd0};
                            st <= R_HDR;
                        end
                    end else begin
                        comp_valid <= 1'b1;
                        comp_op <= k_op;
                        comp_code <= 8'd0;
                        st <= R_HDR;
                    end
                end
                R_EXEC: begin
                    st <= R_HDR;
                    case (h_type)
                        RDMA_T_PUT, RDMA_T_GETRESP: begin
                            bad <= bad_plain;
                            if (strided && !bad_plain && !bad_stride) begin
                                dq <= a_len; dr <= 64'd0; di <= 7'd0;
                                st <= R_DIV;
                            end else begin
                                bad <= bad_plain || (strided && bad_stride);
                                st <= R_CHK;
                            end
                        end
                        RDMA_T_GETREQ: begin
                            if (g_strided ? g_bad : bad_plain) begin
                                if (!rp_full) begin
                                    rp_push <= 1'b1;
                                    rp_data <= {h_src, RDMA_T_ERR, w[0], E_REMOTE_RANGE};
                                end else st <= R_EXEC;
                            end else if (!rq_full) begin
                                rq_push <= 1'b1;
                                rq_data <= {h_src, w[0], a_addr, a_len, {w[6], w[5]}, g_strided ? w[7] : 32'd0, w[9],
                                            w[10]};
                            end else st <= R_EXEC;
                        end
                        RDMA_T_DONE, RDMA_T_ERR: begin
                            comp_valid <= 1'b1;
                            comp_op <= w[0];
                            comp_code <= h_type == RDMA_T_DONE ? 8'd0 : w[1][7:0];
                        end
                        default: ;  // stray or unknown: ignored
                    endcase
                end
                R_DIV: begin
                    // restoring division len / block, one quotient bit per cycle
                    if (di == 7'd64) begin
                        bad <= dr != 64'd0 || dq[63:32] != 32'd0 || dq == 64'd0;
                        st <= R_CHK;
                    end else begin
                        if ({dr[62:0], dq[63]} >= a_blk) begin
                            dr <= {dr[62:0], dq[63]} - a_blk;
                            dq <= {dq[62:0], 1'b1};
                        end else begin
                            dr <= {dr[62:0], dq[63]};
                            dq <= {dq[62:0], 1'b0};
                        end
                        di <= di + 7'd1;
                    end
                end
                R_CHK: begin
                    // stream set-up; a bad PUT answers ERR (a bad GETRESP is dropped silently)
                    if (h_type == RDMA_T_PUT && (bad || (strided && span > MEM_BYTES - a_addr)) && rp_full) begin
                        st <= R_CHK;
                    end else begin
                        st <= R_HDR;
                        s_act[h_src] <= 1'b1;
                        s_put[h_src] <= h_type == RDMA_T_PUT;
                        s_op[h_src] <= w[0];
                        s_base[h_src] <= a_addr;
                        s_len[h_src] <= a_len;
                        s_cur[h_src] <= a_addr;
                        s_rem[h_src] <= a_len;
                        s_bstart[h_src] <= a_addr;
                        s_blk[h_src] <= strided ? a_blk[31:0] : 32'd0;
                        s_brem[h_src] <= a_blk[31:0];
                        s_stride[h_src] <= a_stride[31:0];
                        if (h_type == RDMA_T_PUT) begin
                            s_disc[h_src] <= bad || (strided && span > MEM_BYTES - a_addr);
                            if (bad || (strided && span > MEM_BYTES - a_addr)) begin
                                rp_push <= 1'b1;
                                rp_data <= {h_src, RDMA_T_ERR, w[0], E_REMOTE_RANGE};
                            end
                        end else begin
                            s_disc[h_src] <= bad || !mine;
                        end
                    end
                end
                default: st <= R_HDR;
            endcase
        end
    end
endmodule
`default_nettype wire
