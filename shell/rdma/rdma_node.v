// One card's RDMA side: the engine (rdma_engine) on the local port of the card's
// network (rdma_card_net: router + P link ports), and with STREAM = 1 a stream endpoint
// pair (rdma_stream) sharing that port (rdma_local_mux). The routing table is written through
// cfg_we/cfg_addr/cfg_port (port P = this card, > P = no route); the engine keeps a
// copy of which cards have a route, so a transfer to an absent card fails at once
// (NO_ROUTE) instead of blocking the router. With STREAM = 1 and LANES > 1 two more
// endpoint pairs carry a reduction's partial sums and an allreduce's result (rd_*;
// rdma_reduce on their core side): the sums' pair shares the stream side of the port by
// stream id, the result's pair has the router's second local port to itself.
//
// LANES = 1: a word per cycle everywhere. LANES = 16 or 32 (512- and 1024-bit networks for
// 40 and 100 Gb/s lines): the wide engine (rdma_engine with LANES: beats on the router's
// port, 64-byte lines on the memory ports, bulk DATA packets of cmd_pkt_words) sits on the
// local port directly; so does the cascade's stream endpoint pair (rdma_stream_wide: up to a
// beat a cycle, bulk STREAM packets), sharing the port with the engine at beat level
// (rdma_local_mux with LANES); so do the reductions' two pairs, 16 words a cycle each, the
// result's on the second local port (its STREAM2 packets).
`default_nettype none
module rdma_node #(
    parameter integer P = 4,                       // link ports
    parameter integer WINDOW = 8,                  // go-back-N replay window per port
    parameter integer VC_BUF = 4,                  // input buffer per VC, packets
    parameter integer TIMEOUT = 512,               // link replay timeout, cycles
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000, // card memory, bytes
    parameter integer OP_TIMEOUT = 2000000,        // operation timeout, cycles
    parameter integer QUEUE_DEPTH = 256,           // engine reply / request queues (>= cards x MAX_OPS)
    parameter integer EVENT_DEPTH = 16,            // engine target events
    parameter integer MAX_OPS = 4,                 // engine operations in flight
    parameter integer PF_DEPTH = 32,               // engine read-ahead, words (covers the memory's read latency;
                                                   // LANES > 1: at least 512, below that 2048, see rdma_engine)
    parameter integer STREAM = 0,                  // 1: stream endpoints on the local port
    parameter integer STREAM_DEPTH = 256,          // their receive FIFO, words (credits: the round trip), LANES = 1
    parameter integer STREAM_LINE_DEPTH = LANES > 16 ? 8192 : 4096,  // LANES > 1: each wide pair's
                                                   // receive buffer, words: the round trip of 3 hops at the line
    parameter integer LANES = 1,                   // words per beat of the network and the engine: 1, 16, 32
    parameter integer MAX_WORDS = LANES > 1 ? 256 : 16  // largest DATA payload the link ports hold (words)
) (
    `include "rdma_node_ports.vh"
    // memory
    output wire [63:0]     mem_rd_address,
    output wire            mem_rd_read,
    input  wire            mem_rd_waitrequest,
    input  wire [(LANES > 1 ? 512 : 32)-1:0] mem_rd_readdata,  // a word, or a 64-byte line when LANES > 1
    input  wire            mem_rd_readdatavalid,
    output wire [63:0]     mem_wr_address,
    output wire            mem_wr_write,
    output wire [(LANES > 1 ? 512 : 32)-1:0] mem_wr_writedata,
    output wire [(LANES > 1 ? 64 : 4)-1:0]   mem_wr_byteenable,  // all ones when LANES = 1
    input  wire            mem_wr_waitrequest,
    output wire            mem_wr_flush,
    input  wire            mem_wr_pending
);
    reg  [63:0] route_ok_reg;
    integer r;
    always @(posedge clk) begin  // one enable per entry: a write at a variable bit maps deeper
        if (rst) route_ok_reg <= 64'd0;
        else
            for (r = 0; r < 64; r = r + 1)
                if (cfg_we && cfg_addr == r[5:0]) route_ok_reg[r] <= {28'd0, cfg_port} <= P;
    end

    // the router's side of the local port, LANES words a beat
    wire                w_inj_valid, w_inj_ready, w_inj_last, w_ej_valid, w_ej_ready, w_ej_last;
    wire [32*LANES-1:0] w_inj_data, w_ej_data;
    // the router's second local port (the allreduce result's pair; a wide stream build only)
    localparam integer LOCALS = STREAM != 0 && LANES > 1 ? 2 : 1;
    wire                w2_inj_valid, w2_inj_ready, w2_inj_last, w2_ej_valid, w2_ej_ready, w2_ej_last;
    wire [32*LANES-1:0] w2_inj_data, w2_ej_data;
    // the engine's side
    wire                e_inj_valid, e_inj_ready, e_inj_last, e_ej_valid, e_ej_ready;
    wire [32*LANES-1:0] e_inj_data;
    rdma_engine #(.MEM_BYTES(MEM_BYTES), .OP_TIMEOUT(OP_TIMEOUT), .QUEUE_DEPTH(QUEUE_DEPTH),
                  .EVENT_DEPTH(EVENT_DEPTH), .MAX_OPS(MAX_OPS), .PF_DEPTH(PF_DEPTH), .LANES(LANES)) u_engine (
        .clk(clk), .rst(rst), .card_id(card_id), .route_ok(route_ok_reg), .cmd_valid(cmd_valid), .cmd_ready(cmd_ready),
        .cmd_get(cmd_get), .cmd_dst(cmd_dst), .cmd_local(cmd_local), .cmd_remote(cmd_remote), .cmd_len(cmd_len),
        .cmd_block(cmd_block), .cmd_count(cmd_count), .cmd_local_stride(cmd_local_stride),
        .cmd_remote_stride(cmd_remote_stride), .cmd_pkt_words(cmd_pkt_words), .op_id(op_id), .busy(busy), .done(done),
        .done_op(done_op), .done_code(done_code), .ops_done(ops_done), .evt_valid(evt_valid), .evt_data(evt_data),
        .evt_ready(evt_ready), .evt_lost(evt_lost), .mem_rd_address(mem_rd_address), .mem_rd_read(mem_rd_read),
        .mem_rd_waitrequest(mem_rd_waitrequest), .mem_rd_readdata(mem_rd_readdata),
        .mem_rd_readdatavalid(mem_rd_readdatavalid), .mem_wr_address(mem_wr_address), .mem_wr_write(mem_wr_write),
        .mem_wr_writedata(mem_wr_writedata), .mem_wr_byteenable(mem_wr_byteenable),
        .mem_wr_waitrequest(mem_wr_waitrequest), .mem_wr_flush(mem_wr_flush),
        .mem_wr_pending(mem_wr_pending), .inj_valid(e_inj_valid),
        .inj_ready(e_inj_ready), .inj_data(e_inj_data), .inj_last(e_inj_last), .ej_valid(e_ej_valid),
        .ej_ready(e_ej_ready), .ej_data(w_ej_data), .ej_last(w_ej_last), .dbg_state(eng_dbg), .dbg_slots(eng_slots));

    generate
        if (STREAM != 0) begin : g_stream
            // the local port shared by the engine (a) and the stream side (b: a word a cycle on a
            // 32-bit port, the cascade's pair; beats on a wide one, the cascade's and the
            // reductions' pairs, split by stream id)
            wire                s_inj_valid, s_inj_ready, s_inj_last, s_ej_valid, s_ej_ready;
            wire [32*LANES-1:0] s_inj_data;
            rdma_local_mux #(.LANES(LANES)) u_mux (
                .clk(clk), .rst(rst), .inj_valid(w_inj_valid), .inj_ready(w_inj_ready), .inj_data(w_inj_data),
                .inj_last(w_inj_last), .ej_valid(w_ej_valid), .ej_ready(w_ej_ready), .ej_data(w_ej_data),
                .ej_last(w_ej_last), .a_inj_valid(e_inj_valid), .a_inj_ready(e_inj_ready), .a_inj_data(e_inj_data),
                .a_inj_last(e_inj_last), .a_ej_valid(e_ej_valid), .a_ej_ready(e_ej_ready),
                .b_inj_valid(s_inj_valid), .b_inj_ready(s_inj_ready), .b_inj_data(s_inj_data),
                .b_inj_last(s_inj_last), .b_ej_valid(s_ej_valid), .b_ej_ready(s_ej_ready));
            if (LANES == 1) begin : g_word
                // the stream side of the local port, a word per cycle: the cascade's pair only
                // (no reductions on a 32-bit port)
                assign s_ej_ready = 1'b1;
                rdma_stream #(.RX_DEPTH(STREAM_DEPTH)) u_stream (
                    .clk(clk), .rst(rst), .card_id(card_id), .tx_dst(st_tx_dst), .tx_sid(st_tx_sid),
                    .rx_peer(st_rx_peer), .rx_sid(st_rx_sid), .s_valid(st_s_valid), .s_ready(st_s_ready),
                    .s_data(st_s_data), .s_last(st_s_last), .m_valid(st_m_valid), .m_ready(st_m_ready),
                    .m_data(st_m_data), .m_last(st_m_last), .inj_valid(s_inj_valid), .inj_ready(s_inj_ready),
                    .inj_data(s_inj_data), .inj_last(s_inj_last), .ej_valid(s_ej_valid), .ej_data(w_ej_data),
                    .ej_last(w_ej_last), .rx_overflow(st_errors[0]), .rx_misrouted(st_errors[1]));
                assign st_m_words = 6'd1;
                /* verilator lint_off UNUSEDSIGNAL */
                wire unused_w = &{1'b0, st_s_words, st_m_want};  // a word at a time
                /* verilator lint_on UNUSEDSIGNAL */
            end else begin : g_wide
                // the stream side of the local port in beats: the cascade's endpoint pair and the
                // reductions' two (sums, result), all rdma_stream_wide, split by stream id bits 7
                // and 6 (rdma_local_mux with BY_SID); every endpoint always takes what arrives
                wire c_inj_valid, c_inj_ready, c_inj_last, c_ej_valid;
                wire [32*LANES-1:0] c_inj_data;
                // the reductions' pairs: 0 the sums (to NEXT, from PREV; on this port, beside the
                // cascade's), 1 an allreduce's result (to PREV, from NEXT; STREAM2 packets on the
                // second local port, so the two streams of a card in the middle of an allreduce
                // do not share one port's beats)
                wire [1:0]            p_inj_valid, p_inj_ready, p_inj_last, p_ej_valid, p_ej_last, p_s_valid;
                wire [1:0]            p_s_ready, p_s_last, p_m_valid, p_m_ready, p_m_last;
                wire [2*32*LANES-1:0] p_inj_data, p_ej_data, p_s_data, p_m_data;
                wire [11:0]           p_tx_dst, p_rx_peer, p_s_words, p_m_want, p_m_words;
                wire [15:0]           p_sid;
                wire [3:0]            p_err;
                rdma_local_mux #(.LANES(LANES), .BY_SID(1)) u_smux (
                    .clk(clk), .rst(rst), .inj_valid(s_inj_valid), .inj_ready(s_inj_ready), .inj_data(s_inj_data),
                    .inj_last(s_inj_last), .ej_valid(s_ej_valid), .ej_ready(s_ej_ready), .ej_data(w_ej_data),
                    .ej_last(w_ej_last), .a_inj_valid(c_inj_valid), .a_inj_ready(c_inj_ready), .a_inj_data(c_inj_data),
                    .a_inj_last(c_inj_last), .a_ej_valid(c_ej_valid), .a_ej_ready(1'b1),
                    .b_inj_valid(p_inj_valid[0]), .b_inj_ready(p_inj_ready[0]), .b_inj_data(p_inj_data[0 +: 32*LANES]),
                    .b_inj_last(p_inj_last[0]), .b_ej_valid(p_ej_valid[0]), .b_ej_ready(1'b1));
                rdma_stream_wide #(.LANES(LANES), .RX_DEPTH(STREAM_LINE_DEPTH)) u_stream (
                    .clk(clk), .rst(rst), .card_id(card_id), .tx_dst(st_tx_dst), .tx_sid(st_tx_sid),
                    .rx_peer(st_rx_peer), .rx_sid(st_rx_sid), .s_valid(st_s_valid), .s_ready(st_s_ready),
                    .s_data(st_s_data), .s_words(st_s_words), .s_last(st_s_last), .m_valid(st_m_valid),
                    .m_ready(st_m_ready), .m_data(st_m_data), .m_want(st_m_want), .m_words(st_m_words),
                    .m_last(st_m_last), .inj_valid(c_inj_valid), .inj_ready(c_inj_ready), .inj_data(c_inj_data),
                    .inj_last(c_inj_last), .ej_valid(c_ej_valid), .ej_data(w_ej_data), .ej_last(w_ej_last),
                    .rx_overflow(st_errors[0]), .rx_misrouted(st_errors[1]));
                assign p_ej_data = {w2_ej_data, w_ej_data};
                assign p_ej_last = {w2_ej_last, w_ej_last};
                assign p_ej_valid[1] = w2_ej_valid;
                assign w2_ej_ready = 1'b1;
                assign w2_inj_valid = p_inj_valid[1];
                assign p_inj_ready[1] = w2_inj_ready;
                assign w2_inj_data = p_inj_data[32*LANES +: 32*LANES];
                assign w2_inj_last = p_inj_last[1];
                assign {p_tx_dst, p_rx_peer, p_sid} = {rd_prev, rd_next, rd_next, rd_prev, rd_rsid, rd_sid};
                assign {p_s_valid, p_s_last, p_s_words} = {rd_rs_valid, rd_s_valid, rd_rs_last, rd_s_last, rd_rs_words,
                                                           rd_s_words};
                assign {p_m_ready, p_m_want} = {rd_rm_ready, rd_m_ready, rd_rm_want, rd_m_want};
                assign {rd_rs_ready, rd_s_ready} = p_s_ready;
                assign {rd_rm_valid, rd_m_valid} = p_m_valid;
                assign {rd_rm_words, rd_m_words} = p_m_words;
                assign {rd_rm_last, rd_m_last} = p_m_last;
                assign rd_m_data = p_m_data[511:0];
                assign rd_rm_data = p_m_data[32*LANES +: 512];
                assign rd_errors = p_err[1:0] | p_err[3:2];
                genvar pr;
                for (pr = 0; pr < 2; pr = pr + 1) begin : g_rd_pair
                    if (LANES > 16) begin : g_hi
                        assign p_s_data[32*LANES*pr +: 32*LANES] = {{32*LANES-512{1'b0}},
                                                                    pr == 0 ? rd_s_data : rd_rs_data};
                        /* verilator lint_off UNUSEDSIGNAL */
                        wire unused_hi = &{1'b0, p_m_data[32*LANES*pr + 512 +: 32*LANES-512]};  // 16 words at most
                        /* verilator lint_on UNUSEDSIGNAL */
                    end else begin : g_line
                        assign p_s_data[32*LANES*pr +: 32*LANES] = pr == 0 ? rd_s_data : rd_rs_data;
                    end
                    // credits a quarter of the buffer at a time, or after 128 cycles: a CREDIT
                    // packet is a beat of its own on the link the other pair's data may be using
                    // (an allreduce sends its result back the way its sums' credits go), and at
                    // a line's 15 words a cycle 512-word batches took one every 33 cycles; the
                    // round trip at the line stays within the other three quarters
                    rdma_stream_wide #(.LANES(LANES), .RX_DEPTH(STREAM_LINE_DEPTH), .SECOND(pr),
                                       .CREDIT_BATCH(STREAM_LINE_DEPTH / 4), .CREDIT_FLUSH(128)) u_rd (
                        .clk(clk), .rst(rst || rd_rst), .card_id(card_id), .tx_dst(p_tx_dst[6*pr +: 6]),
                        .tx_sid(p_sid[8*pr +: 8]), .rx_peer(p_rx_peer[6*pr +: 6]), .rx_sid(p_sid[8*pr +: 8]),
                        .s_valid(p_s_valid[pr]), .s_ready(p_s_ready[pr]), .s_data(p_s_data[32*LANES*pr +: 32*LANES]),
                        .s_words(p_s_words[6*pr +: 6]), .s_last(p_s_last[pr]), .m_valid(p_m_valid[pr]),
                        .m_ready(p_m_ready[pr]), .m_data(p_m_data[32*LANES*pr +: 32*LANES]),
                        .m_want(p_m_want[6*pr +: 6]), .m_words(p_m_words[6*pr +: 6]), .m_last(p_m_last[pr]),
                        .inj_valid(p_inj_valid[pr]), .inj_ready(p_inj_ready[pr]),
                        .inj_data(p_inj_data[32*LANES*pr +: 32*LANES]), .inj_last(p_inj_last[pr]),
                        .ej_valid(p_ej_valid[pr]), .ej_data(p_ej_data[32*LANES*pr +: 32*LANES]),
                        .ej_last(p_ej_last[pr]), .rx_overflow(p_err[2*pr]), .rx_misrouted(p_err[2*pr+1]));
                end
            end
        end else begin : g_no_stream
            assign w_inj_valid = e_inj_valid;
            assign w_inj_data = e_inj_data;
            assign w_inj_last = e_inj_last;
            assign e_inj_ready = w_inj_ready;
            assign e_ej_valid = w_ej_valid;
            assign w_ej_ready = e_ej_ready;
            assign st_s_ready = 1'b0;
            assign st_m_valid = 1'b0;
            assign st_m_data = {32*LANES{1'b0}};
            assign st_m_words = 6'd0;
            assign st_m_last = 1'b0;
            assign st_errors = 2'b00;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_st = &{1'b0, st_tx_dst, st_tx_sid, st_rx_peer, st_rx_sid, st_s_valid, st_s_data, st_s_last,
                               st_s_words, st_m_want, st_m_ready};
            /* verilator lint_on UNUSEDSIGNAL */
        end
    endgenerate

    generate
        if (STREAM == 0 || LANES == 1) begin : g_no_reduce
            // no reductions without the wide stream side, and no second local port
            assign {w2_inj_valid, w2_inj_last, w2_ej_ready, w2_inj_data} = {3'b001, {32*LANES{1'b0}}};
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_w2 = &{1'b0, w2_inj_ready, w2_ej_valid, w2_ej_last, w2_ej_data};
            /* verilator lint_on UNUSEDSIGNAL */
            assign rd_s_ready = 1'b0;
            assign rd_m_valid = 1'b0;
            assign rd_m_data = 512'd0;
            assign rd_m_words = 6'd0;
            assign rd_m_last = 1'b0;
            assign rd_rs_ready = 1'b0;
            assign rd_rm_valid = 1'b0;
            assign rd_rm_data = 512'd0;
            assign rd_rm_words = 6'd0;
            assign rd_rm_last = 1'b0;
            assign rd_errors = 2'b00;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_rd = &{1'b0, rd_rst, rd_next, rd_prev, rd_sid, rd_rsid, rd_s_valid, rd_s_data, rd_s_words,
                               rd_s_last, rd_m_ready, rd_m_want, rd_rs_valid, rd_rs_data, rd_rs_words, rd_rs_last,
                               rd_rm_ready, rd_rm_want};
            /* verilator lint_on UNUSEDSIGNAL */
        end
    endgenerate

    rdma_card_net #(.P(P), .WINDOW(WINDOW), .VC_BUF(VC_BUF), .TIMEOUT(TIMEOUT), .LANES(LANES),
                    .MAX_WORDS(MAX_WORDS), .LOCALS(LOCALS)) u_net (
        .clk(clk), .rst(rst), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_port(cfg_port), .port_dim(port_dim),
        .port_dateline(port_dateline), .inj_valid(w_inj_valid), .inj_ready(w_inj_ready), .inj_data(w_inj_data),
        .inj_last(w_inj_last), .ej_valid(w_ej_valid), .ej_ready(w_ej_ready), .ej_data(w_ej_data),
        .ej_last(w_ej_last), .inj2_valid(w2_inj_valid), .inj2_ready(w2_inj_ready), .inj2_data(w2_inj_data),
        .inj2_last(w2_inj_last), .ej2_valid(w2_ej_valid), .ej2_ready(w2_ej_ready), .ej2_data(w2_ej_data),
        .ej2_last(w2_ej_last),
        .link_out_valid(link_out_valid), .link_out_data(link_out_data), .link_out_last(link_out_last),
        .link_out_ready(link_out_ready), .link_in_valid(link_in_valid), .link_in_data(link_in_data),
        .link_in_last(link_in_last), .overflow(overflow), .replays(replays), .link_dbg(link_dbg), .router_dbg(router_dbg));
endmodule
`default_nettype wire
