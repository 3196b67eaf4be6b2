// Sending side of the RDMA engine: builds packets for the router's engine port with the
// formats of the C++ model (runtime/rdma, docs/rdma.md). Between packets, queued
// replies (DONE / ERR) go first; then the data packets of the current stream; a new
// stream (the initiator's put, or the GETRESP answer to a queued get request) starts
// only when the previous one has ended, so streams never interleave at a target. The
// initiator's get is a single GETREQ packet (11 payload words for a block-stride get: the
// plain 7 and block, count, remote stride, local stride); the target answers a block-stride
// get with a block-stride GETRESP stream (9-word start, as a block-stride PUT). Stream data are read ahead through the
// memory read port (pipelined, in order) into a FIFO, and a data packet is offered
// only once its whole payload is there, so packets reach the link without gaps.
`default_nettype none
module rdma_engine_tx #(
    parameter integer PF_DEPTH = 32  // read-ahead FIFO, words (power of 2, >= 16)
) (
    // get requests (rdma_tx_cmd_ports.vh), a 4-byte memory word a read, a word a beat to the router
    input  wire [325:0] rq_data,
    input  wire [31:0]  mem_rd_readdata,
    output reg  [31:0]  inj_data,
    `include "rdma_tx_cmd_ports.vh"
);
    `include "rdma_packet.vh"
    `include "rdma_ctrl_words.vh"
    localparam [1:0] S_IDLE = 2'd0, S_SMALL = 2'd1, S_DATA = 2'd2, S_EVT = 2'd3;
    localparam integer PW = $clog2(PF_DEPTH);

    reg [1:0]  st_reg;
    reg [383:0] sw_reg;  // the control packet, word k at 32 * k
    localparam integer RQ_LSB = 0;
    `include "rdma_rq_fields.vh"
    reg [3:0]  s_cnt_reg, s_idx_reg;
    reg [4:0]  d_n_reg, d_idx_reg;
    reg [PW:0] pf_used_reg;
    wire [31:0] pf_dout;
    wire        pf_empty;
    wire [PW:0] pf_count;
    wire        pf_full_unused;
    wire        pf_pop = st_reg == S_DATA && d_idx_reg != 5'd0 && inj_valid && inj_ready;

    wire pf_ready, pf_valid;
    shell_fifo #(.DATA_WIDTH(32), .FIFO_DEPTH(PF_DEPTH)) u_pf (
        .clk(clk), .rst(rst), .s_axis_tvalid(mem_rd_readdatavalid), .s_axis_tready(pf_ready), .s_axis_tdata(mem_rd_readdata),
        .m_axis_tvalid(pf_valid), .m_axis_tready(pf_pop), .m_axis_tdata(pf_dout), .level(pf_count));
    assign pf_full_unused = !pf_ready;
    assign pf_empty = !pf_valid;

    // the stream being sent and its read-ahead, a word a read (shared with the wide sender)
    wire        sa;
    wire [5:0]  s_dst;
    wire [63:0] pk_left, rd_left;
    wire        notify;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] rd_blk, rd_brem;  // the wide sender's read sizes
    /* verilator lint_on UNUSEDSIGNAL */
    assign dbg = {s_dst, sa, st_reg};
    assign mem_rd_read = rd_left != 64'd0 && pf_used_reg < PF_DEPTH[PW:0];
    wire rd_acc = mem_rd_read && !mem_rd_waitrequest;
    rdma_tx_stream u_stream (
        .clk(clk), .rst(rst), .idle(st_reg == S_IDLE), .rp_empty(rp_empty), .rp_pop(rp_pop), .c_valid(c_valid),
        .c_take(c_take), .c_get(c_get), .rq_empty(rq_empty), .rq_pop(rq_pop), .c_dst(c_dst), .c_local(c_local),
        .c_len(c_len), .c_block(c_block), .c_lstride(c_lstride), .q_src(q_src), .q_remote(q_remote), .q_len(q_len),
        .q_block(q_block), .q_rstride(q_rstride), .active(sa), .dst(s_dst), .left(pk_left), .notify(notify),
        .ev_data(ev_data), .sent(st_reg == S_DATA && inj_valid && inj_ready && d_idx_reg == d_n_reg),
        .sent_bytes({57'd0, d_n_reg, 2'd0}), .rd_acc(rd_acc), .rd_n(5'd1), .rd_cur(mem_rd_address),
        .rd_left(rd_left), .rd_blk(rd_blk), .rd_brem(rd_brem));

    wire [4:0] next_n = pk_left >= 64'd64 ? 5'd16 : {1'b0, pk_left[5:2]};
    // the packet after the current one (pk_left less this packet's payload)
    wire [63:0] left_after = pk_left - {57'd0, d_n_reg, 2'd0};
    wire [4:0] after_n = left_after >= 64'd64 ? 5'd16 : {1'b0, left_after[5:2]};
    function automatic [31:0] hdr(input [5:0] dst, input [3:0] typ, input [4:0] words, input [5:0] src);
        hdr = rdma_hdr(dst, src, typ, 1'b0, words, 10'd0);
    endfunction

    always @(*) begin
        inj_valid = 1'b0;
        inj_data = 32'd0;
        inj_last = 1'b0;
        if (st_reg == S_SMALL) begin
            inj_valid = 1'b1;
            inj_data = sw_reg[32 * s_idx_reg +: 32];
            inj_last = s_idx_reg == s_cnt_reg - 4'd1;
        end else if (st_reg == S_DATA) begin
            inj_valid = d_idx_reg == 5'd0 || !pf_empty;
            inj_data = d_idx_reg == 5'd0 ? hdr(s_dst, RDMA_T_DATA, d_n_reg, card_id) : pf_dout;
            inj_last = d_idx_reg == d_n_reg;
        end
    end

    always @(posedge clk) begin
        c_take <= 1'b0;
        rp_pop <= 1'b0;
        rq_pop <= 1'b0;
        ev_push <= 1'b0;
        if (rst) begin
            st_reg <= S_IDLE; s_cnt_reg <= 4'd0; s_idx_reg <= 4'd0; d_n_reg <= 5'd0; d_idx_reg <= 5'd0;
            pf_used_reg <= {PW+1{1'b0}};
        end else begin
            pf_used_reg <= pf_used_reg + {{PW{1'b0}}, rd_acc} - {{PW{1'b0}}, pf_pop};
            case (st_reg)
                S_IDLE: begin
                    s_idx_reg <= 4'd0;
                    if (!rp_empty && !rp_pop) begin
                        sw_reg[95:0] <= {rdma_reply_words(rp_data[39:8], rp_data[7:0]),
                                         hdr(rp_data[49:44], rp_data[43:40], 5'd2, card_id)};
                        s_cnt_reg <= 4'd3;
                        rp_pop <= 1'b1;
                        st_reg <= S_SMALL;
                    end else if (sa) begin
                        if ({{32-PW-1{1'b0}}, pf_count} >= {27'd0, next_n}) begin
                            d_n_reg <= next_n;
                            d_idx_reg <= 5'd0;
                            st_reg <= S_DATA;
                        end
                    end else if (c_valid && !c_take) begin
                        c_take <= 1'b1;
                        st_reg <= S_SMALL;
                        if (c_get) begin
                            sw_reg <= {rdma_getreq_words(c_op, c_remote, c_len, c_local, c_block, c_count, c_rstride,
                                                         c_lstride, 9'd0),
                                       hdr(c_dst, RDMA_T_GETREQ, c_block != 32'd0 ? 5'd11 : 5'd7, card_id)};
                            s_cnt_reg <= c_block != 32'd0 ? 4'd12 : 4'd8;
                        end else begin
                            sw_reg[319:0] <= {rdma_start_words(c_op, c_remote, c_len, c_block, c_rstride),
                                              hdr(c_dst, RDMA_T_PUT, c_block != 32'd0 ? 5'd9 : 5'd5, card_id)};
                            s_cnt_reg <= c_block != 32'd0 ? 4'd10 : 4'd6;  // and u_stream starts the put
                        end
                    end else if (!rq_empty && !rq_pop) begin
                        rq_pop <= 1'b1;
                        st_reg <= S_SMALL;
                        sw_reg[319:0] <= {rdma_start_words(q_op, q_local, q_len, q_block, q_lstride),
                                          hdr(q_src, RDMA_T_GETRESP, q_block != 32'd0 ? 5'd9 : 5'd5, card_id)};
                        s_cnt_reg <= q_block != 32'd0 ? 4'd10 : 4'd6;  // and u_stream starts the answer
                    end
                end
                S_SMALL: if (inj_ready) begin
                    s_idx_reg <= s_idx_reg + 4'd1;
                    if (s_idx_reg == s_cnt_reg - 4'd1) st_reg <= S_IDLE;
                end
                S_DATA: if (inj_valid && inj_ready) begin
                    d_idx_reg <= d_idx_reg + 5'd1;
                    if (d_idx_reg == d_n_reg) begin
                        if (pk_left == {57'd0, d_n_reg, 2'd0}) begin  // u_stream: the stream's end
                            st_reg <= notify ? S_EVT : S_IDLE;
                        end else if (rp_empty && {{32-PW-1{1'b0}}, pf_count} > {27'd0, after_n}) begin
                            // the next packet of the stream is all there: its header follows at
                            // once, so back-to-back packets lose no cycle at the router's port
                            d_n_reg <= after_n;
                            d_idx_reg <= 5'd0;
                        end else begin
                            st_reg <= S_IDLE;
                        end
                    end
                end
                default: begin  // S_EVT
                    ev_push <= 1'b1;
                    st_reg <= S_IDLE;
                end
            endcase
        end
    end
    initial begin
        if (PF_DEPTH < 16 || (PF_DEPTH & (PF_DEPTH - 1)) != 0) $error("%m: PF_DEPTH must be a power of 2 >= 16");
    end
endmodule
`default_nettype wire
