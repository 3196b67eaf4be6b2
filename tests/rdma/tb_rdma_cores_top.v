// Test top: an SPD pipeline across two cards. Card 0 runs core_a, whose branch output
// stream (Brch_Out, WORDS ports) is bound through rdma_stream_ser to card 0's stream
// endpoint, sending to card 1; card 1's endpoint feeds core_b's branch input (Brch_In)
// through rdma_stream_des. The two rdma_node (STREAM = 1, a ring of two cards, 2 ports
// each) are joined by the C++ cable models of tb_rdma_cores.cpp. Card c's share of each
// two-card port is bit (or 32-bit word) c of the main streams, [4c +: 4] of cfg_port and
// [2c +: 2] of the link ports (32-bit word 2c + p of the link data).
`default_nettype none
module tb_rdma_cores_top #(
    parameter integer WORDS = 2  // ports of the branch stream
) (
    input  wire         clk,
    input  wire         rst,
    // routing-table writes, the same entry to both cards
    input  wire         cfg_we,
    input  wire [5:0]   cfg_addr,
    input  wire [7:0]   cfg_port,
    // the cores' main streams: core_a's in bit 0, core_b's in bit 1
    input  wire [1:0]   s_valid,
    output wire [1:0]   s_ready,
    input  wire [63:0]  s_data,
    input  wire [1:0]   s_last,
    output wire [1:0]   m_valid,
    input  wire [1:0]   m_ready,
    output wire [63:0]  m_data,
    output wire [1:0]   m_last,
    // the cards' link ports
    output wire [3:0]   link_out_valid,
    output wire [127:0] link_out_data,
    output wire [3:0]   link_out_last,
    input  wire [3:0]   link_in_valid,
    input  wire [127:0] link_in_data,
    input  wire [3:0]   link_in_last,
    output wire [3:0]   st_errors,
    output wire [3:0]   overflow
);
    wire        brch_valid, brch_ready, brch_last, bi_valid, bi_ready, bi_last;
    wire [32*WORDS-1:0] brch_data, bi_data;
    // the cards' stream endpoints: card 0 only sends (st_s), card 1 only receives (st_m)
    wire [1:0]  st_s_valid, st_s_ready, st_s_last, st_m_valid, st_m_ready, st_m_last;
    wire [63:0] st_s_data, st_m_data;
    assign st_s_valid[1] = 1'b0;
    assign st_s_data[63:32] = 32'd0;
    assign st_s_last[1] = 1'b0;
    assign st_m_ready[0] = 1'b1;
    rdma_stream_ser #(.WORDS(WORDS)) u_ser (
        .clk(clk), .rst(rst), .s_valid(brch_valid), .s_ready(brch_ready), .s_data(brch_data), .s_last(brch_last),
        .m_valid(st_s_valid[0]), .m_ready(st_s_ready[0]), .m_data(st_s_data[31:0]), .m_last(st_s_last[0]));
    rdma_stream_des #(.WORDS(WORDS)) u_des (
        .clk(clk), .rst(rst), .s_valid(st_m_valid[1]), .s_ready(st_m_ready[1]), .s_data(st_m_data[63:32]),
        .s_last(st_m_last[1]), .m_valid(bi_valid), .m_ready(bi_ready), .m_data(bi_data), .m_last(bi_last));

    core_a u_core_a (
        .clk(clk), .rst(rst), .s_valid(s_valid[0]), .s_ready(s_ready[0]), .s_data(s_data[31:0]), .s_last(s_last[0]),
        .m_valid(m_valid[0]), .m_ready(m_ready[0]), .m_data(m_data[31:0]), .m_last(m_last[0]),
        .m_brch_valid(brch_valid), .m_brch_ready(brch_ready), .m_brch_data(brch_data), .m_brch_last(brch_last));
    core_b u_core_b (
        .clk(clk), .rst(rst), .s_valid(s_valid[1]), .s_ready(s_ready[1]), .s_data(s_data[63:32]), .s_last(s_last[1]),
        .s_brch_valid(bi_valid), .s_brch_ready(bi_ready), .s_brch_data(bi_data), .s_brch_last(bi_last),
        .m_valid(m_valid[1]), .m_ready(m_ready[1]), .m_data(m_data[63:32]), .m_last(m_last[1]));

    // the two cards differ only in their number: the dateline of the ring sits on port 1
    // of card 0 and port 0 of card 1; each endpoint's stream id is the receiving card's
    genvar c;
    generate
        for (c = 0; c < 2; c = c + 1) begin : g_card
            localparam integer ID = c, PEER = 1 - c;
            /* verilator lint_off PINCONNECTEMPTY */
            rdma_node #(.P(2), .STREAM(1), .MEM_BYTES(64'h10000)) u_card (
                .clk(clk), .rst(rst), .card_id(ID[5:0]), .cfg_we(cfg_we), .cfg_addr(cfg_addr),
                .cfg_port(cfg_port[4*c +: 4]), .port_dim(4'b0000), .port_dateline(c == 0 ? 2'b10 : 2'b01),
                .cmd_valid(1'b0), .cmd_ready(), .cmd_get(1'b0), .cmd_dst(6'd0), .cmd_local(64'd0), .cmd_remote(64'd0),
                .cmd_len(64'd0), .cmd_block(32'd0), .cmd_count(32'd0), .cmd_local_stride(32'd0),
                .cmd_remote_stride(32'd0), .cmd_pkt_words(9'd0), .op_id(), .busy(), .done(), .done_op(), .done_code(), .ops_done(),
                .evt_valid(), .evt_data(), .evt_ready(1'b1), .evt_lost(),
                .st_tx_dst(PEER[5:0]), .st_tx_sid(PEER[7:0]), .st_rx_peer(PEER[5:0]), .st_rx_sid(ID[7:0]),
                .st_s_valid(st_s_valid[c]), .st_s_ready(st_s_ready[c]), .st_s_data(st_s_data[32*c +: 32]),
                .st_s_words(6'd1), .st_s_last(st_s_last[c]), .st_m_valid(st_m_valid[c]), .st_m_ready(st_m_ready[c]),
                .st_m_data(st_m_data[32*c +: 32]), .st_m_want(6'd1), .st_m_words(), .st_m_last(st_m_last[c]), .st_errors(st_errors[2*c +: 2]),
                .mem_rd_address(), .mem_rd_read(), .mem_rd_waitrequest(1'b0), .mem_rd_readdata(32'd0),
                .mem_rd_readdatavalid(1'b0), .mem_wr_address(), .mem_wr_write(), .mem_wr_writedata(), .mem_wr_byteenable(),
                .mem_wr_waitrequest(1'b0), .mem_wr_flush(), .mem_wr_pending(1'b0),
                .link_out_valid(link_out_valid[2*c +: 2]), .link_out_data(link_out_data[64*c +: 64]),
                .link_out_last(link_out_last[2*c +: 2]), .link_out_ready(2'b11), .link_in_valid(link_in_valid[2*c +: 2]),
                .link_in_data(link_in_data[64*c +: 64]), .link_in_last(link_in_last[2*c +: 2]),
                .overflow(overflow[2*c +: 2]), .replays(), .link_dbg(), .router_dbg(), .eng_dbg(), .eng_slots());
            /* verilator lint_on PINCONNECTEMPTY */
        end
    endgenerate
endmodule
`default_nettype wire
