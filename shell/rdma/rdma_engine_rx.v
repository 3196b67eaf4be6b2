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
    // a word a beat from the router; the memory write port's address and 4-byte words; get
    // requests {src 6, op 32, remote 64, len 64, local 64, block 32, rstride 32, lstride 32}
    input  wire [31:0] ej_data,
    output reg  [63:0] mem_wr_address,
    output reg         mem_wr_write,
    output reg  [31:0] mem_wr_writedata,
    output wire [325:0] rq_data,
    `include "rdma_rx_reply_ports.vh"
);
    `include "rdma_packet.vh"
    localparam [2:0] R_HDR = 3'd0, R_PAY = 3'd1, R_EXEC = 3'd2, R_DATA = 3'd3, R_END = 3'd6;

    reg [2:0]  st_reg, st_next;
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
    // the next values of the working stream after one data word
    wire        k_take = k_act_reg && k_rem_reg != 64'd0;
    wire        k_wr = k_take && !k_disc_reg;
    wire        blk_end = k_blk_reg != 32'd0 && k_brem_reg == 32'd4;
    wire [63:0] k_bstart_n = k_bstart_reg + {32'd0, k_stride_reg};
    wire [63:0] k_rem_n = k_rem_reg - 64'd4;
    wire [63:0] k_cur_n = blk_end ? k_bstart_n : k_cur_reg + 64'd4;
    wire [31:0] k_brem_n = blk_end ? k_blk_reg : k_brem_reg - 32'd4;

    // control packets, stream starts and ends, the stream table (shared with the wide receiver)
    wire        c_done, fin;
    wire        c_start = ej_valid && ej_last
                          && ((st_reg == R_HDR && ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] != RDMA_T_DATA)
                              || st_reg == R_PAY);
    wire [2:0]  c_state;
    wire [450:0] t_stream;
    wire [8:0]  rq_pkt;  // the wide sender's packet size: this engine's sender uses 16 words
    assign dbg = st_reg == R_EXEC ? c_state : st_reg;
    rdma_rx_ctrl #(.MEM_BYTES(MEM_BYTES)) u_ctrl (
        .clk(clk), .rst(rst), .start(c_start), .pk_src(h_src_reg),
        .pk_type(h_type_reg), .pk_words(h_words_reg),
        .w({32'd0, w[10], w[9], w[8], w[7], w[6], w[5], w[4], w[3], w[2], w[1], w[0]}), .hold(1'b0),
        .done(c_done), .state(c_state), .fin(fin), .fin_put(k_put_reg), .fin_src(h_src_reg), .fin_op(k_op_reg),
        .fin_base(k_base_reg), .fin_len(k_len_reg), .rd_src(ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W]),
        .rd_stream(t_stream), .upd(st_reg == R_DATA && ej_valid && ej_ready && ej_last), .upd_src(h_src_reg),
        .upd_cur(k_take ? k_cur_n : k_cur_reg), .upd_rem(k_take ? k_rem_n : k_rem_reg),
        .upd_bstart(k_take && blk_end ? k_bstart_n : k_bstart_reg), .upd_brem(k_take ? k_brem_n : k_brem_reg),
        .clr(st_reg == R_END), .clr_src(h_src_reg), .q_op(q_op), .q_live(q_live), .comp_valid(comp_valid),
        .comp_op(comp_op), .comp_code(comp_code), .rp_push(rp_push), .rp_data(rp_data), .rp_full(rp_full),
        .rq_push(rq_push), .rq_data({rq_data, rq_pkt}), .rq_full(rq_full), .ev_push(ev_push), .ev_data(ev_data));
    /* verilator lint_off UNUSEDSIGNAL */
    wire        unused_pkt = &{1'b0, rq_pkt};
    /* verilator lint_on UNUSEDSIGNAL */
    // the end of a stream: its data in memory before DONE or the completion; a discarded
    // stream just ends
    assign fin = st_reg == R_END && !k_disc_reg && !mem_wr_pending && (!k_put_reg || !rp_full);

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

    always @(*) begin
        st_next = st_reg;
        case (st_reg)
            R_HDR: if (ej_valid) begin
                if (ej_last) st_next = ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_DATA ? R_HDR : R_EXEC;
                else st_next = ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_DATA ? R_DATA : R_PAY;
            end
            R_PAY: if (ej_valid && ej_last) st_next = R_EXEC;
            R_DATA: if (ej_valid && ej_ready && ej_last) st_next = k_take && k_rem_n == 64'd0 ? R_END : R_HDR;
            R_END: if (k_disc_reg || fin) st_next = R_HDR;
            R_EXEC: if (c_done) st_next = R_HDR;
            default: st_next = R_HDR;
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            st_reg <= R_HDR;
            idx_reg <= 4'd0; h_src_reg <= 6'd0; h_type_reg <= 4'd0; h_words_reg <= 5'd0;
        end else begin
            st_reg <= st_next;
            case (st_reg)
                R_HDR: if (ej_valid) begin
                    h_src_reg <= ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W];
                    h_type_reg <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
                    h_words_reg <= ej_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W];
                    idx_reg <= 4'd0;
                    {k_act_reg, k_put_reg, k_disc_reg, k_op_reg, k_base_reg, k_len_reg, k_cur_reg, k_rem_reg,
                     k_bstart_reg, k_blk_reg, k_brem_reg, k_stride_reg} <= t_stream;
                end
                R_PAY: if (ej_valid) begin
                    if (idx_reg <= 4'd10) w[idx_reg] <= ej_data;
                    if (idx_reg != 4'd15) idx_reg <= idx_reg + 4'd1;
                end
                R_DATA: if (ej_valid && ej_ready && k_take) begin
                    k_rem_reg <= k_rem_n;
                    k_cur_reg <= k_cur_n;
                    k_brem_reg <= k_brem_n;
                    if (blk_end) k_bstart_reg <= k_bstart_n;
                end
                default: ;
            endcase
        end
    end
endmodule
`default_nettype wire
