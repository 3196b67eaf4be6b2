// Receiving side of the wide RDMA engine (rdma_engine with LANES = 16 or 32): the packets
// of rdma_engine_rx, LANES words a beat, written to memory a 64-byte line per cycle.
//
// Two halves. The ejection half takes a beat per cycle: a control packet (one beat) is
// acted on as in rdma_engine_rx (stream set-up with range checks and the block-stride
// divider, GETREQ range check and queueing, DONE / ERR completion); a DATA packet's payload
// words go into a word buffer (rdma_wbuf: up to LANES words in, 16 out a cycle) and a
// {source, words} descriptor into a small queue. The writer half takes the descriptors
// in order, loads the source's stream state (address, bytes left, block position) and
// moves up to 16 words a cycle from the buffer into a two-line window at the stream's
// address: when the window's first line is complete it leaves as one line write with
// byte enables (the memory write port), and the window moves on a line. So any 4-byte
// alignment and any beat boundary still gives a line per cycle. A partial line stays in
// the window across packets of the same stream (the next packet continues it); it is
// written out when a packet of another stream arrives, at a block-stride jump and at the
// stream's end. At the end of a stream the writer raises mem_wr_flush and waits for
// mem_wr_pending to fall before the DONE (put) or the completion (get), as the word
// engine does: "done" means in memory.
//
// A new stream's set-up waits until the writer holds no packet of the same source (none
// queued, none being written, its end not pending), so a stream's state is never replaced
// under packets still in the buffer; other sources' packets go on being written meanwhile,
// so puts arriving from many cards do not drain the buffer at every start (the sort's
// single pass, docs/rdma_rtl.md). A GETREQ's optional last payload word (8 words, or 12 for block-stride) is
// the initiator's DATA packet size; without it (the C++ model, the word engine) the answer
// uses 16-word packets.
`default_nettype none
module rdma_engine_wrx #(
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000,  // card memory (bytes): the remote range limit
    parameter integer LANES = 16,                   // words per beat (16 or 32)
    parameter integer BUF_DEPTH = 256               // words between the ejection and the writer
) (
    // LANES words a beat from the router; the memory write port's address and 64-byte lines
    // with byte enables; get requests {..., lstride 32, pkt 9}: the initiator's packet size last
    input  wire [32*LANES-1:0] ej_data,
    output wire [63:0]  mem_wr_address,
    output wire         mem_wr_write,
    output wire [511:0] mem_wr_writedata,
    output wire [63:0]  mem_wr_byteenable,
    output wire [334:0] rq_data,
    `include "rdma_rx_reply_ports.vh"
);
    `include "rdma_packet.vh"
    localparam [2:0] R_HDR = 3'd0, R_SKIP = 3'd1, R_EXEC = 3'd2, R_DATA = 3'd3;
    localparam [1:0] W_IDLE = 2'd0, W_PKT = 2'd1, W_END = 2'd2;
    localparam integer BW = $clog2(BUF_DEPTH);
    localparam integer LW = $clog2(LANES);
    localparam integer DQ = 16;  // packet descriptors queued

    // ---- ejection half -----------------------------------------------------------------
    reg [2:0]  st_reg;
    reg [1:0]  w_st_reg;
    wire [2:0] c_state;
    assign dbg = st_reg == R_EXEC ? c_state : st_reg;
    reg [5:0]  h_src_reg;
    reg [3:0]  h_type_reg;
    reg [4:0]  h_words_reg;
    reg [8:0]  e_left_reg;    // payload words of the DATA packet still to come
    reg [31:0] w [0:11];
    wire [3:0] hd_type = ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
    wire [5:0] hd_src = ej_data[RDMA_HDR_SRC_LSB +: RDMA_HDR_SRC_W];
    wire [8:0] hd_n = rdma_words(ej_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W]);

    // word buffer and packet descriptors between the halves
    wire [BW:0]   b_count;
    wire [511:0]  b_head;
    reg  [LW:0]   b_push_n;
    reg  [32*LANES-1:0] b_push_data;
    reg  [4:0]    b_pop_n;
    rdma_wbuf #(.DEPTH(BUF_DEPTH), .IN(LANES), .OUT(16)) u_buf (
        .clk(clk), .rst(rst), .push_n(b_push_n), .push_data(b_push_data), .pop_n(b_pop_n), .head(b_head),
        .count(b_count));
    wire [31:0]   b_count32 = {{31-BW{1'b0}}, b_count};
    reg  [14:0]   dq_mem [0:DQ-1];  // {source 6, payload words 9}
    reg  [4:0]    dq_wr_reg, dq_rd_reg;
    wire          dq_empty = dq_wr_reg == dq_rd_reg;
    wire          dq_room = dq_wr_reg - dq_rd_reg != DQ[4:0];
    wire          b_room = b_count32 + LANES <= BUF_DEPTH;
    wire [14:0]   dq_head = dq_mem[dq_rd_reg[3:0]];
    wire [8:0]    first_n = hd_n < LANES[8:0] - 9'd1 ? hd_n : LANES[8:0] - 9'd1;
    wire [8:0]    beat_n = e_left_reg < LANES[8:0] ? e_left_reg : LANES[8:0];
    always @(*) begin
        ej_ready = 1'b0;
        b_push_n = {LW+1{1'b0}};
        b_push_data = ej_data;
        case (st_reg)
            R_HDR: begin
                if (hd_type == RDMA_T_DATA) begin
                    ej_ready = b_room && dq_room;
                    b_push_n = ej_valid && ej_ready ? first_n[LW:0] : {LW+1{1'b0}};
                    b_push_data = ej_data >> 32;
                end else begin
                    ej_ready = 1'b1;
                end
            end
            R_SKIP: ej_ready = 1'b1;
            R_DATA: begin
                ej_ready = b_room;
                b_push_n = ej_valid && ej_ready ? beat_n[LW:0] : {LW+1{1'b0}};
            end
            default: ej_ready = 1'b0;
        endcase
    end

    // ---- writer half -------------------------------------------------------------------
    reg        k_act_reg, k_put_reg, k_disc_reg, k_end_reg;
    reg [31:0] k_op_reg, k_blk_reg, k_brem_reg, k_stride_reg;
    reg [63:0] k_base_reg, k_len_reg, k_cur_reg, k_rem_reg, k_bstart_reg;
    reg [5:0]  k_src_reg;
    reg [8:0]  k_left_reg;   // words of the packet still in the buffer
    // the window: two lines from win_line, word valid bits, the next word's position
    reg [1023:0] win_data_reg;
    reg [31:0]   win_wv_reg;
    reg [57:0]   win_line_reg;
    reg [4:0]    win_p_reg;
    reg [5:0]    win_src_reg;
    reg          fl_reg;      // the window is being written out
    // the line being written
    reg          out_valid_reg;
    reg [57:0]   out_line_reg;
    reg [511:0]  out_data_reg;
    reg [63:0]   out_be_reg;
    assign mem_wr_write = out_valid_reg;
    assign mem_wr_address = {out_line_reg, 6'd0};
    assign mem_wr_writedata = out_data_reg;
    assign mem_wr_byteenable = out_be_reg;
    wire         out_free = !out_valid_reg || !mem_wr_waitrequest;
    assign mem_wr_flush = w_st_reg == W_END;

    // this cycle's words: k of the packet's words in the buffer, at most 16, at most to the
    // block's or the stream's end
    wire [31:0] avail32 = b_count32 < {23'd0, k_left_reg} ? b_count32 : {23'd0, k_left_reg};
    wire [4:0]  avail = avail32 > 32'd16 ? 5'd16 : avail32[4:0];
    wire        k_take = k_act_reg && k_rem_reg != 64'd0;
    wire        k_wr = k_take && !k_disc_reg;
    wire [63:0] lim = k_wr && k_blk_reg != 32'd0 ? {32'd0, k_brem_reg} : k_rem_reg;  // bytes before a jump
    wire [4:0]  k_n = !k_take ? avail : lim >= {57'd0, avail, 2'b00} ? avail : lim[6:2];
    wire        jump = k_wr && ((k_blk_reg != 32'd0 && {25'd0, k_n, 2'b00} == k_brem_reg)
                                || {57'd0, k_n, 2'b00} == k_rem_reg);
    wire        go = w_st_reg == W_PKT && !fl_reg && out_free && k_left_reg != 9'd0 && avail != 5'd0;
    wire        wr_go = go && k_wr;
    // the window with this cycle's words
    wire        win_empty = win_wv_reg == 32'd0;
    wire [4:0]  p0 = win_empty ? {1'b0, k_cur_reg[5:2]} : win_p_reg;
    wire [57:0] base = win_empty ? k_cur_reg[63:6] : win_line_reg;
    reg  [1023:0] nd;
    reg  [31:0]   nv;
    integer i;
    always @(*) begin
        nd = win_data_reg;
        nv = win_wv_reg;
        for (i = 0; i < 32; i = i + 1)
            if (i >= {27'd0, p0} && i < {27'd0, p0} + {27'd0, k_n}) begin
                nd[32 * i +: 32] = b_head[32 * (i - {27'd0, p0}) +: 32];
                nv[i] = 1'b1;
            end
    end
    wire [5:0]  p1 = {1'b0, p0} + {1'b0, k_n};
    function automatic [63:0] be_of(input [15:0] wv);
        integer b;
        for (b = 0; b < 16; b = b + 1) be_of[4 * b +: 4] = {4{wv[b]}};
    endfunction
    // the writer's line this cycle: line 0 of the new window when full or at a jump, or a
    // flush step's line 0
    wire        emit_take = wr_go && (p1 >= 6'd16 || jump);
    wire        emit_fl = fl_reg && out_free && win_wv_reg[15:0] != 16'd0;
    always @(*) b_pop_n = go ? k_n : 5'd0;

    // the stream's state after this cycle's words
    wire        blk_jump = k_wr && k_blk_reg != 32'd0 && {25'd0, k_n, 2'b00} == k_brem_reg;
    wire [63:0] k_rem_post = k_take ? k_rem_reg - {57'd0, k_n, 2'b00} : k_rem_reg;
    wire [63:0] k_bstart_post = blk_jump ? k_bstart_reg + {32'd0, k_stride_reg} : k_bstart_reg;
    wire [63:0] k_cur_post = !k_wr ? k_cur_reg : blk_jump ? k_bstart_post : k_cur_reg + {57'd0, k_n, 2'b00};
    wire [31:0] k_brem_post = !k_wr ? k_brem_reg : blk_jump ? k_blk_reg : k_brem_reg - {25'd0, k_n, 2'b00};
    wire        k_end_post = k_end_reg || (k_take && {57'd0, k_n, 2'b00} == k_rem_reg);
    // the packet's last words: the next packet of the same stream, if queued, continues at
    // once (a 64-byte packet costs the writer one cycle)
    wire        pkt_done = go && k_left_reg == {4'd0, k_n};
    wire        chain = pkt_done && !k_end_post && !dq_empty && dq_head[14:9] == k_src_reg;

    // the end of a stream: the data in memory, then DONE and the event, or the completion
    wire        end_ready = w_st_reg == W_END && !fl_reg && !out_valid_reg && (k_disc_reg || !mem_wr_pending);
    wire        end_fires = end_ready && !k_disc_reg && (!k_put_reg || !rp_full);
    // whether the writer still holds a packet of source h_src (the control packet's): queued,
    // being written, or its stream's end pending
    reg         src_held;
    integer     q;
    always @(*) begin
        src_held = w_st_reg != W_IDLE && k_src_reg == h_src_reg;
        for (q = 0; q < DQ; q = q + 1)
            if (q[4:0] < dq_wr_reg - dq_rd_reg && dq_mem[dq_rd_reg[3:0] + q[3:0]][14:9] == h_src_reg) src_held = 1'b1;
    end

    // control packets, stream starts and ends, the stream table (shared with the word
    // receiver); a new stream's set-up waits until the writer holds no packet that could
    // belong to the source's previous stream (src_held)
    wire        c_done;
    wire [450:0] t_stream;
    wire        c_start = ej_valid && ej_last && ((st_reg == R_HDR && hd_type != RDMA_T_DATA) || st_reg == R_SKIP);
    rdma_rx_ctrl #(.MEM_BYTES(MEM_BYTES)) u_ctrl (
        .clk(clk), .rst(rst), .start(c_start), .pk_src(h_src_reg), .pk_type(h_type_reg), .pk_words(h_words_reg),
        .w({w[11], w[10], w[9], w[8], w[7], w[6], w[5], w[4], w[3], w[2], w[1], w[0]}), .hold(src_held),
        .done(c_done), .state(c_state), .fin(end_fires), .fin_put(k_put_reg), .fin_src(k_src_reg), .fin_op(k_op_reg),
        .fin_base(k_base_reg), .fin_len(k_len_reg), .rd_src(dq_head[14:9]), .rd_stream(t_stream),
        .upd(w_st_reg == W_PKT && (k_left_reg == 9'd0 || (pkt_done && !chain))), .upd_src(k_src_reg),
        .upd_cur(k_cur_post), .upd_rem(k_rem_post), .upd_bstart(k_bstart_post), .upd_brem(k_brem_post),
        .clr(w_st_reg == W_END), .clr_src(k_src_reg), .q_op(q_op), .q_live(q_live), .comp_valid(comp_valid),
        .comp_op(comp_op), .comp_code(comp_code), .rp_push(rp_push), .rp_data(rp_data), .rp_full(rp_full),
        .rq_push(rq_push), .rq_data(rq_data), .rq_full(rq_full), .ev_push(ev_push), .ev_data(ev_data));

    always @(posedge clk) begin
        if (rst) begin
            st_reg <= R_HDR; w_st_reg <= W_IDLE;
            h_src_reg <= 6'd0; h_type_reg <= 4'd0; h_words_reg <= 5'd0; e_left_reg <= 9'd0;
            dq_wr_reg <= 5'd0; dq_rd_reg <= 5'd0;
            win_wv_reg <= 32'd0; win_p_reg <= 5'd0; win_line_reg <= 58'd0; win_src_reg <= 6'd0; fl_reg <= 1'b0;
            out_valid_reg <= 1'b0; out_line_reg <= 58'd0; out_be_reg <= 64'd0;
            k_act_reg <= 1'b0; k_put_reg <= 1'b0; k_disc_reg <= 1'b0; k_end_reg <= 1'b0; k_left_reg <= 9'd0;
            k_src_reg <= 6'd0;
        end else begin
            // ---- ejection half
            case (st_reg)
                R_HDR: if (ej_valid && ej_ready) begin
                    h_src_reg <= hd_src;
                    h_type_reg <= hd_type;
                    h_words_reg <= ej_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W];
                    if (hd_type == RDMA_T_DATA) begin
                        dq_mem[dq_wr_reg[3:0]] <= {hd_src, hd_n};
                        dq_wr_reg <= dq_wr_reg + 5'd1;
                        e_left_reg <= hd_n - first_n;
                        st_reg <= ej_last ? R_HDR : R_DATA;
                    end else begin
                        for (i = 0; i < 12; i = i + 1) w[i] <= ej_data[32 * (i + 1) +: 32];
                        st_reg <= ej_last ? R_EXEC : R_SKIP;
                    end
                end
                R_SKIP: if (ej_valid && ej_last) st_reg <= R_EXEC;
                R_DATA: if (ej_valid && ej_ready) begin
                    e_left_reg <= e_left_reg - beat_n;
                    if (ej_last) st_reg <= R_HDR;
                end
                R_EXEC: if (c_done) st_reg <= R_HDR;
                default: st_reg <= R_HDR;
            endcase

            // ---- writer half: the line register
            if (out_valid_reg && !mem_wr_waitrequest) out_valid_reg <= 1'b0;
            if (emit_fl) begin
                out_valid_reg <= 1'b1;
                out_line_reg <= win_line_reg;
                out_data_reg <= win_data_reg[511:0];
                out_be_reg <= be_of(win_wv_reg[15:0]);
            end else if (emit_take) begin
                out_valid_reg <= 1'b1;
                out_line_reg <= base;
                out_data_reg <= nd[511:0];
                out_be_reg <= be_of(nv[15:0]);
            end
            // a flush step: line 0 written (or empty), the window moves on a line
            if (fl_reg && out_free) begin
                win_data_reg <= {512'd0, win_data_reg[1023:512]};
                win_wv_reg <= {16'd0, win_wv_reg[31:16]};
                win_line_reg <= win_line_reg + 58'd1;
                if (win_wv_reg[31:16] == 16'd0) fl_reg <= 1'b0;
            end
            case (w_st_reg)
                W_IDLE: if (!dq_empty && !fl_reg) begin
                    if (!win_empty && win_src_reg != dq_head[14:9]) begin
                        fl_reg <= 1'b1;  // another stream's partial line goes first
                    end else begin
                        dq_rd_reg <= dq_rd_reg + 5'd1;
                        k_src_reg <= dq_head[14:9];
                        k_left_reg <= dq_head[8:0];
                        {k_act_reg, k_put_reg, k_disc_reg, k_op_reg, k_base_reg, k_len_reg, k_cur_reg, k_rem_reg,
                         k_bstart_reg, k_blk_reg, k_brem_reg, k_stride_reg} <= t_stream;
                        k_end_reg <= 1'b0;
                        w_st_reg <= W_PKT;
                    end
                end
                W_PKT: begin
                    if (k_left_reg == 9'd0 || (pkt_done && !chain)) begin
                        // the packet is done: its stream's state back (u_ctrl), or the stream's end
                        w_st_reg <= k_end_post ? W_END : W_IDLE;
                    end
                    if (chain) begin
                        dq_rd_reg <= dq_rd_reg + 5'd1;
                        k_left_reg <= dq_head[8:0];
                    end else if (go) begin
                        k_left_reg <= k_left_reg - {4'd0, k_n};
                    end
                    if (go) begin
                        k_rem_reg <= k_rem_post;
                        k_cur_reg <= k_cur_post;
                        k_bstart_reg <= k_bstart_post;
                        k_brem_reg <= k_brem_post;
                        k_end_reg <= k_end_post;
                        if (k_wr) begin
                            win_src_reg <= k_src_reg;
                            if (p1 >= 6'd16) begin
                                // line 0 written: the window moves on a line
                                win_data_reg <= {512'd0, nd[1023:512]};
                                win_wv_reg <= {16'd0, nv[31:16]};
                                win_line_reg <= base + 58'd1;
                                win_p_reg <= p1[4:0] - 5'd16;
                                if (jump && p1 != 6'd16) fl_reg <= 1'b1;  // the rest of line 1 too
                            end else if (jump) begin
                                win_wv_reg <= 32'd0;  // line 0 written as it is
                            end else begin
                                win_data_reg <= nd;
                                win_wv_reg <= nv;
                                win_line_reg <= base;
                                win_p_reg <= p1[4:0];
                            end
                        end
                    end
                end
                default: begin  // W_END: the stream of k_src ended with this packet (u_ctrl answers)
                    if (end_ready && (k_disc_reg || end_fires)) w_st_reg <= W_IDLE;
                end
            endcase
        end
    end
    initial begin
        if (LANES != 16 && LANES != 32) $error("%m: LANES=%0d must be 16 or 32", LANES);
        if (BUF_DEPTH < 2 * LANES || (BUF_DEPTH & (BUF_DEPTH - 1)) != 0)
            $error("%m: BUF_DEPTH=%0d must be a power of 2 >= 2 * LANES", BUF_DEPTH);
    end
endmodule
`default_nettype wire
