// Test top: an SPD pipeline across two cards. Card 0 runs core_a, whose branch output
// stream (Brch_Out, WORDS ports) is bound through rdma_stream_ser to card 0's stream
// endpoint, sending to card 1; card 1's endpoint feeds core_b's branch input (Brch_In)
// through rdma_stream_des. The two rdma_node (STREAM = 1, a ring
// of two cards, 2 ports each) are joined by the C++ cable models of tb_rdma_cores.cpp.
`default_nettype none
module tb_rdma_cores_top #(
    parameter integer WORDS = 2  // ports of the branch stream
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        cfg_we,
    input  wire [5:0]  cfg_addr,
    input  wire [3:0]  cfg_port0,
    input  wire [3:0]  cfg_port1,
    input  wire        a_s_valid,
    output wire        a_s_ready,
    input  wire [31:0] a_s_data,
    input  wire        a_s_last,
    output wire        a_m_valid,
    input  wire        a_m_ready,
    output wire [31:0] a_m_data,
    output wire        a_m_last,
    input  wire        b_s_valid,
    output wire        b_s_ready,
    input  wire [31:0] b_s_data,
    input  wire        b_s_last,
    output wire        b_m_valid,
    input  wire        b_m_ready,
    output wire [31:0] b_m_data,
    output wire        b_m_last,
    output wire [1:0]  l0_out_valid,
    output wire [63:0] l0_out_data,
    output wire [1:0]  l0_out_last,
    input  wire [1:0]  l0_in_valid,
    input  wire [63:0] l0_in_data,
    input  wire [1:0]  l0_in_last,
    output wire [1:0]  l1_out_valid,
    output wire [63:0] l1_out_data,
    output wire [1:0]  l1_out_last,
    input  wire [1:0]  l1_in_valid,
    input  wire [63:0] l1_in_data,
    input  wire [1:0]  l1_in_last,
    output wire [3:0]  st_errors,
    output wire [1:0]  overflow
);
    wire        brch_valid, brch_ready, brch_last, bi_valid, bi_ready, bi_last;
    wire [32*WORDS-1:0] brch_data, bi_data;
    wire        so_valid, so_ready, so_last, si_valid, si_ready, si_last;
    wire [31:0] so_data, si_data;
    rdma_stream_ser #(.WORDS(WORDS)) u_ser (
        .clk(clk), .rst(rst), .s_valid(brch_valid), .s_ready(brch_ready), .s_data(brch_data), .s_last(brch_last),
        .m_valid(so_valid), .m_ready(so_ready), .m_data(so_data), .m_last(so_last));
    rdma_stream_des #(.WORDS(WORDS)) u_des (
        .clk(clk), .rst(rst), .s_valid(si_valid), .s_ready(si_ready), .s_data(si_data), .s_last(si_last),
        .m_valid(bi_valid), .m_ready(bi_ready), .m_data(bi_data), .m_last(bi_last));

    core_a u_core_a (
        .clk(clk), .rst(rst), .s_valid(a_s_valid), .s_ready(a_s_ready), .s_data(a_s_data), .s_last(a_s_last),
        .m_valid(a_m_valid), .m_ready(a_m_ready), .m_data(a_m_data), .m_last(a_m_last),
        .m_brch_valid(brch_valid), .m_brch_ready(brch_ready), .m_brch_data(brch_data), .m_brch_last(brch_last));
    core_b u_core_b (
        .clk(clk), .rst(rst), .s_valid(b_s_valid), .s_ready(b_s_ready), .s_data(b_s_data), .s_last(b_s_last),
        .s_brch_valid(bi_valid), .s_brch_ready(bi_ready), .s_brch_data(bi_data), .s_brch_last(bi_last),
        .m_valid(b_m_valid), .m_ready(b_m_ready), .m_data(b_m_data), .m_last(b_m_last));

    /* verilator lint_off PINCONNECTEMPTY */
    rdma_node #(.P(2), .STREAM(1), .MEM_BYTES(64'h10000)) u_card0 (
        .clk(clk), .rst(rst), .card_id(6'd0), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_port(cfg_port0),
        .port_dim(4'b0000), .port_dateline(2'b10),
        .cmd_valid(1'b0), .cmd_ready(), .cmd_get(1'b0), .cmd_dst(6'd0), .cmd_local(64'd0), .cmd_remote(64'd0),
        .cmd_len(64'd0), .cmd_block(32'd0), .cmd_count(32'd0), .cmd_local_stride(32'd0), .cmd_remote_stride(32'd0),
        .cmd_pkt_words(9'd0),
        .op_id(), .busy(), .done(), .done_op(), .done_code(), .ops_done(), .evt_valid(), .evt_data(), .evt_ready(1'b1),
        .evt_lost(),
        .st_tx_dst(6'd1), .st_tx_sid(8'd1), .st_rx_peer(6'd1), .st_rx_sid(8'd0),
        .st_s_valid(so_valid), .st_s_ready(so_ready), .st_s_data(so_data), .st_s_last(so_last),
        .st_m_valid(), .st_m_ready(1'b1), .st_m_data(), .st_m_last(), .st_errors(st_errors[1:0]),
        .mem_rd_address(), .mem_rd_read(), .mem_rd_waitrequest(1'b0), .mem_rd_readdata(32'd0),
        .mem_rd_readdatavalid(1'b0), .mem_wr_address(), .mem_wr_write(), .mem_wr_writedata(), .mem_wr_byteenable(),
        .mem_wr_waitrequest(1'b0), .mem_wr_flush(), .mem_wr_pending(1'b0),
        .link_out_valid(l0_out_valid), .link_out_data(l0_out_data), .link_out_last(l0_out_last),
        .link_in_valid(l0_in_valid), .link_in_data(l0_in_data), .link_in_last(l0_in_last), .link_out_stall(2'b00),
        .overflow(overflow[0:0]), .replays(), .link_dbg(), .router_dbg(), .eng_dbg(), .eng_slots());
    rdma_node #(.P(2), .STREAM(1), .MEM_BYTES(64'h10000)) u_card1 (
        .clk(clk), .rst(rst), .card_id(6'd1), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_port(cfg_port1),
        .port_dim(4'b0000), .port_dateline(2'b01),
        .cmd_valid(1'b0), .cmd_ready(), .cmd_get(1'b0), .cmd_dst(6'd0), .cmd_local(64'd0), .cmd_remote(64'd0),
        .cmd_len(64'd0), .cmd_block(32'd0), .cmd_count(32'd0), .cmd_local_stride(32'd0), .cmd_remote_stride(32'd0),
        .cmd_pkt_words(9'd0),
        .op_id(), .busy(), .done(), .done_op(), .done_code(), .ops_done(), .evt_valid(), .evt_data(), .evt_ready(1'b1),
        .evt_lost(),
        .st_tx_dst(6'd0), .st_tx_sid(8'd0), .st_rx_peer(6'd0), .st_rx_sid(8'd1),
        .st_s_valid(1'b0), .st_s_ready(), .st_s_data(32'd0), .st_s_last(1'b0),
        .st_m_valid(si_valid), .st_m_ready(si_ready), .st_m_data(si_data), .st_m_last(si_last),
        .st_errors(st_errors[3:2]),
        .mem_rd_address(), .mem_rd_read(), .mem_rd_waitrequest(1'b0), .mem_rd_readdata(32'd0),
        .mem_rd_readdatavalid(1'b0), .mem_wr_address(), .mem_wr_write(), .mem_wr_writedata(), .mem_wr_byteenable(),
        .mem_wr_waitrequest(1'b0), .mem_wr_flush(), .mem_wr_pending(1'b0),
        .link_out_valid(l1_out_valid), .link_out_data(l1_out_data), .link_out_last(l1_out_last),
        .link_in_valid(l1_in_valid), .link_in_data(l1_in_data), .link_in_last(l1_in_last), .link_out_stall(2'b00),
        .overflow(overflow[1:1]), .replays(), .link_dbg(), .router_dbg(), .eng_dbg(), .eng_slots());
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
`default_nettype wire
