// Sending side of the wide RDMA engine (rdma_engine with LANES = 16 or 32): the packets of
// rdma_engine_tx, LANES words a beat (header in lane 0 of the first beat, unused lanes
// zero), and data read from memory a 64-byte line at a time. Control packets (PUT /
// GETRESP starts, GETREQ, DONE, ERR: at most 13 words) leave as one beat. A stream's DATA
// packets carry the operation's packet size (c_pkt words, 16..256; bulk WORDS codes above
// 16) and a shorter tail: whole 16-word units while more than 16 words are left, then the
// rest. A GETREQ carries the initiator's packet size in an extra payload word (8 words, 12
// for block-stride), and the target answers with packets of that size.
//
// Read-ahead: line requests cover the stream's words -- one request per line and block,
// so a block may start and end mid-line -- and each request's {first word, words} waits in
// a small queue until its line returns (in order, any latency); those words enter a word
// buffer (rdma_wbuf) that takes up to 16 words and gives up to LANES words a cycle, so the
// stream comes out contiguous at any 4-byte alignment. A request is made only when the
// buffer has room for its words (counting those in flight), so returned lines never wait,
// and a packet is offered only once its whole payload is in the buffer, so the link sees
// no gaps. With the buffer covering the memory's round trip (PF_DEPTH words >= latency x
// 16 + two packets) a stream moves a line per cycle.
`default_nettype none
module rdma_engine_wtx #(
    parameter integer LANES = 16,     // words per beat (16 or 32)
    parameter integer PF_DEPTH = 2048,// read-ahead buffer, words (power of 2, >= 512)
    parameter integer RD_LINES = 128  // line reads in flight (power of 2)
) (
    input  wire [8:0]   c_pkt,      // payload words per DATA packet (16..256, a multiple of 16)
    // get requests (rdma_tx_cmd_ports.vh) with the initiator's packet size (pkt 9) last, a
    // 64-byte line a read, LANES words a beat to the router
    input  wire [334:0] rq_data,
    input  wire [511:0] mem_rd_readdata,
    output reg  [32*LANES-1:0] inj_data,
    `include "rdma_tx_cmd_ports.vh"
);
    `include "rdma_packet.vh"
    `include "rdma_ctrl_words.vh"
    localparam [1:0] S_IDLE = 2'd0, S_SMALL = 2'd1, S_DATA = 2'd2, S_EVT = 2'd3;
    localparam integer PW = $clog2(PF_DEPTH);
    localparam integer LW = $clog2(LANES);
    localparam integer QA = $clog2(RD_LINES);

    reg [1:0]  st_reg;
    reg [415:0] sw_reg;  // the control packet, word k at 32 * k
    reg [3:0]  s_cnt_reg;  // control packet: words after the header
    localparam integer RQ_LSB = 9;
    `include "rdma_rq_fields.vh"
    wire [8:0]  q_pkt = rq_data[8:0];
    reg [8:0]  pkt_reg;      // the stream's packet size, words
    reg [8:0]  d_n_reg, d_sent_reg;  // the DATA packet: payload words, words sent
    reg        d_first_reg;
    reg [PW:0] pf_resv_reg;  // words in the buffer or on their way
    wire [PW:0]         pf_count;
    wire [32*LANES-1:0] pf_head;
    reg  [LW:0]         pf_pop_n;
    reg  [4:0]          pf_push_n;
    reg  [511:0]        pf_push_data;
    rdma_wbuf #(.DEPTH(PF_DEPTH), .IN(16), .OUT(LANES)) u_pf (
        .clk(clk), .rst(rst), .push_n(pf_push_n), .push_data(pf_push_data), .pop_n(pf_pop_n), .head(pf_head),
        .count(pf_count));

    // the stream being sent and its read-ahead (shared with the word sender); line requests:
    // the words of the current line that belong to the stream
    wire        sa, notify;
    wire [5:0]  s_dst;
    wire [63:0] pk_left, rd_left;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [63:0] rd_cur;  // bits 1:0 zero: word-aligned streams
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] rd_blk, rd_brem;
    assign dbg = {s_dst, sa, st_reg};
    wire [4:0]  rd_room = 5'd16 - {1'b0, rd_cur[5:2]};  // words from the address to the line's end
    wire [63:0] rd_lim = rd_blk != 32'd0 ? {32'd0, rd_brem} : rd_left;  // bytes before a jump
    wire [4:0]  rd_n = rd_lim >= {57'd0, rd_room, 2'b00} ? rd_room : rd_lim[6:2];
    reg  [8:0]  rq_mem [0:RD_LINES-1];  // {first word 4, words - 1 4}: what each line in flight brings
    reg  [QA:0] rq_wr_reg, rq_rd_reg;
    wire        rq_room = rq_wr_reg - rq_rd_reg != RD_LINES[QA:0];
    assign mem_rd_read = rd_left != 64'd0 && rq_room
                         && {{31-PW{1'b0}}, pf_resv_reg} + {27'd0, rd_n} <= PF_DEPTH;
    assign mem_rd_address = {rd_cur[63:6], 6'd0};
    wire        rd_acc = mem_rd_read && !mem_rd_waitrequest;
    wire [8:0]  rq_head = rq_mem[rq_rd_reg[QA-1:0]];
    always @(*) begin
        pf_push_n = mem_rd_readdatavalid ? {1'b0, rq_head[3:0]} + 5'd1 : 5'd0;
        pf_push_data = mem_rd_readdata >> {rq_head[7:4], 5'd0};
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire rq_unused = rq_head[8];
    /* verilator lint_on UNUSEDSIGNAL */

    // the size of the next packet of a stream with `left` bytes to go: the packet size, or
    // whole 16-word units, or the last words
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [8:0] pkt_words(input [63:0] left, input [8:0] pkt);  // left: a multiple of 4
        if (left[63:2] >= {53'd0, pkt}) pkt_words = pkt;
        else if (left[63:2] > 62'd16) pkt_words = {left[10:6], 4'd0};
        else pkt_words = left[10:2];
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    wire [8:0]  next_n = pkt_words(pk_left, pkt_reg);
    wire [63:0] left_after = pk_left - {53'd0, d_n_reg, 2'd0};
    wire [8:0]  after_n = pkt_words(left_after, pkt_reg);
    function automatic [31:0] hdr(input [5:0] dst, input [3:0] typ, input [8:0] words, input [5:0] src);
        hdr = rdma_hdr(dst, src, typ, 1'b0, rdma_words_code(words), 10'd0);
    endfunction

    // the beat on the port; a DATA beat pops the words it carries
    integer j;
    wire [8:0] d_rest = d_n_reg - d_sent_reg;  // payload words of the packet still to send
    wire [8:0] beat_cap = d_first_reg ? LANES[8:0] - 9'd1 : LANES[8:0];
    wire [8:0] beat_n = d_rest < beat_cap ? d_rest : beat_cap;
    always @(*) begin
        inj_valid = 1'b0;
        inj_data = {32*LANES{1'b0}};
        inj_last = 1'b0;
        pf_pop_n = {LW+1{1'b0}};
        if (st_reg == S_SMALL) begin
            inj_valid = 1'b1;
            for (j = 0; j < 13; j = j + 1)
                if (j <= {28'd0, s_cnt_reg}) inj_data[32 * j +: 32] = sw_reg[32 * j +: 32];
            inj_last = 1'b1;
        end else if (st_reg == S_DATA) begin
            inj_valid = 1'b1;  // the whole payload is in the buffer
            if (d_first_reg) begin
                inj_data[31:0] = hdr(s_dst, RDMA_T_DATA, d_n_reg, card_id);
                for (j = 1; j < LANES; j = j + 1)
                    if (j <= {23'd0, beat_n}) inj_data[32 * j +: 32] = pf_head[32 * (j - 1) +: 32];
            end else begin
                for (j = 0; j < LANES; j = j + 1)
                    if (j < {23'd0, beat_n}) inj_data[32 * j +: 32] = pf_head[32 * j +: 32];
            end
            inj_last = beat_n == d_rest;
            if (inj_ready) pf_pop_n = beat_n[LW:0];
        end
    end

    rdma_tx_stream #(.READ_AHEAD(1)) u_stream (
        .clk(clk), .rst(rst), .idle(st_reg == S_IDLE), .rp_empty(rp_empty), .rp_pop(rp_pop), .c_valid(c_valid),
        .c_take(c_take), .c_get(c_get), .rq_empty(rq_empty), .rq_pop(rq_pop), .c_dst(c_dst), .c_local(c_local),
        .c_len(c_len), .c_block(c_block), .c_lstride(c_lstride), .q_src(q_src), .q_remote(q_remote), .q_len(q_len),
        .q_block(q_block), .q_rstride(q_rstride), .active(sa), .dst(s_dst), .left(pk_left), .notify(notify),
        .ev_data(ev_data), .sent(st_reg == S_DATA && inj_ready && inj_last), .sent_bytes({53'd0, d_n_reg, 2'd0}),
        .rd_acc(rd_acc), .rd_n(rd_n), .rd_cur(rd_cur), .rd_left(rd_left), .rd_blk(rd_blk), .rd_brem(rd_brem));

    always @(posedge clk) begin
        c_take <= 1'b0;
        rp_pop <= 1'b0;
        rq_pop <= 1'b0;
        ev_push <= 1'b0;
        if (rst) begin
            st_reg <= S_IDLE; s_cnt_reg <= 4'd0; pkt_reg <= 9'd16;
            d_n_reg <= 9'd0; d_sent_reg <= 9'd0; d_first_reg <= 1'b0;
            pf_resv_reg <= {PW+1{1'b0}}; rq_wr_reg <= {QA+1{1'b0}}; rq_rd_reg <= {QA+1{1'b0}};
        end else begin
            if (rd_acc) begin
                rq_mem[rq_wr_reg[QA-1:0]] <= {1'b0, rd_cur[5:2], rd_n[3:0] - 4'd1};
                rq_wr_reg <= rq_wr_reg + 1'b1;
            end
            if (mem_rd_readdatavalid) rq_rd_reg <= rq_rd_reg + 1'b1;
            pf_resv_reg <= pf_resv_reg + (rd_acc ? {{PW-4{1'b0}}, rd_n} : {PW+1{1'b0}}) - {{PW-LW{1'b0}}, pf_pop_n};
            case (st_reg)
                S_IDLE: begin
                    if (!rp_empty && !rp_pop) begin
                        sw_reg[95:0] <= {rdma_reply_words(rp_data[39:8], rp_data[7:0]),
                                         hdr(rp_data[49:44], rp_data[43:40], 9'd2, card_id)};
                        s_cnt_reg <= 4'd2;
                        rp_pop <= 1'b1;
                        st_reg <= S_SMALL;
                    end else if (sa) begin
                        if ({{31-PW{1'b0}}, pf_count} >= {23'd0, next_n}) begin
                            d_n_reg <= next_n;
                            d_sent_reg <= 9'd0;
                            d_first_reg <= 1'b1;
                            st_reg <= S_DATA;
                        end
                    end else if (c_valid && !c_take) begin
                        c_take <= 1'b1;
                        st_reg <= S_SMALL;
                        if (c_get) begin
                            // the packet size goes last: a word after the request the model knows
                            sw_reg <= {23'd0, c_pkt, rdma_getreq_words(c_op, c_remote, c_len, c_local, c_block, c_count,
                                                                       c_rstride, c_lstride, c_pkt),
                                       hdr(c_dst, RDMA_T_GETREQ, c_block != 32'd0 ? 9'd12 : 9'd8, card_id)};
                            s_cnt_reg <= c_block != 32'd0 ? 4'd12 : 4'd8;
                        end else begin
                            sw_reg[319:0] <= {rdma_start_words(c_op, c_remote, c_len, c_block, c_rstride),
                                              hdr(c_dst, RDMA_T_PUT, c_block != 32'd0 ? 9'd9 : 9'd5, card_id)};
                            s_cnt_reg <= c_block != 32'd0 ? 4'd9 : 4'd5;
                            pkt_reg <= c_pkt;  // and u_stream starts the put
                        end
                    end else if (!rq_empty && !rq_pop) begin
                        rq_pop <= 1'b1;
                        st_reg <= S_SMALL;
                        sw_reg[319:0] <= {rdma_start_words(q_op, q_local, q_len, q_block, q_lstride),
                                          hdr(q_src, RDMA_T_GETRESP, q_block != 32'd0 ? 9'd9 : 9'd5, card_id)};
                        s_cnt_reg <= q_block != 32'd0 ? 4'd9 : 4'd5;
                        pkt_reg <= q_pkt;  // and u_stream starts the answer
                    end
                end
                S_SMALL: if (inj_ready) st_reg <= S_IDLE;
                S_DATA: if (inj_ready) begin
                    d_first_reg <= 1'b0;
                    d_sent_reg <= d_sent_reg + beat_n;
                    if (inj_last) begin
                        if (left_after == 64'd0) begin  // u_stream: the stream's end
                            st_reg <= notify ? S_EVT : S_IDLE;
                        end else if (rp_empty && {{31-PW{1'b0}}, pf_count} >= {23'd0, after_n} + {23'd0, beat_n}) begin
                            // the next packet of the stream is all there: its header beat follows at
                            // once, so back-to-back packets lose no cycle at the router's port
                            d_n_reg <= after_n;
                            d_sent_reg <= 9'd0;
                            d_first_reg <= 1'b1;
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
        if (LANES != 16 && LANES != 32) $error("%m: LANES=%0d must be 16 or 32", LANES);
        if (PF_DEPTH < 512 || (PF_DEPTH & (PF_DEPTH - 1)) != 0) $error("%m: PF_DEPTH=%0d must be a power of 2 >= 512", PF_DEPTH);
        if (RD_LINES < 2 || (RD_LINES & (RD_LINES - 1)) != 0) $error("%m: RD_LINES=%0d must be a power of 2 >= 2", RD_LINES);
    end
endmodule
`default_nettype wire
