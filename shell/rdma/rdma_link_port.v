// One serial-link port: sender and receiver of the link layer, cross-wired for ACKs and credits.
`default_nettype none
module rdma_link_port #(
    parameter integer WINDOW = 8,
    parameter integer VC_BUF = 4,
    parameter integer TIMEOUT = 512,
    parameter integer CTRL_INTERVAL = 16,
    parameter integer KEEPALIVE = 256
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        tx_valid,
    output wire        tx_ready,
    input  wire [31:0] tx_data,
    input  wire        tx_last,
    input  wire        rx_sel_vc,
    output wire [1:0]  rx_avail,
    output wire [31:0] rx_head0,
    output wire [31:0] rx_head1,
    output wire        rx_valid,
    input  wire        rx_ready,
    output wire [31:0] rx_data,
    output wire        rx_last,
    output wire        rx_vc,
    output wire        link_out_valid,
    output wire [31:0] link_out_data,
    output wire        link_out_last,
    input  wire        link_out_ready,
    input  wire        link_in_valid,
    input  wire [31:0] link_in_data,
    input  wire        link_in_last,
    output wire        overflow,
    output wire [15:0] crc_errors,
    output wire [15:0] replays,
    output wire [1:0]  tx_can_take,
    // debug: the router's blocked flag for this port in, the RDMA_LINK_* CSR words out
    input  wire        tx_blocked,
    output wire [255:0] dbg        // {STATE, STALLS, ERRS, PKTS}, 64 bits each
);
    wire [9:0]  expected, ack_seq;
    wire        nak, dirty, ctrl_sent, ack_valid, ack_nak;
    wire [15:0] freed0, freed1, pf0, pf1;
    wire [31:0] tx_packets, rx_packets, credit_stalls, window_full;
    wire [29:0] tx_state;
    wire [20:0] rx_state;

    rdma_link_tx #(.WINDOW(WINDOW), .VC_BUF(VC_BUF), .TIMEOUT(TIMEOUT), .CTRL_INTERVAL(CTRL_INTERVAL),
                   .KEEPALIVE(KEEPALIVE)) u_tx (
        .clk(clk), .rst(rst), .in_valid(tx_valid), .in_ready(tx_ready), .in_data(tx_data), .in_last(tx_last),
        .rx_expected(expected), .rx_nak(nak), .rx_dirty(dirty), .rx_freed0(freed0), .rx_freed1(freed1),
        .ctrl_sent(ctrl_sent), .ack_valid(ack_valid), .ack_seq(ack_seq), .ack_nak(ack_nak),
        .peer_freed0(pf0), .peer_freed1(pf1), .out_valid(link_out_valid), .out_data(link_out_data),
        .out_last(link_out_last), .out_ready(link_out_ready), .replays(replays), .can_take(tx_can_take),
        .blocked(tx_blocked), .packets(tx_packets), .credit_stalls(credit_stalls), .window_full(window_full),
        .dbg_state(tx_state));

    rdma_link_rx #(.VC_BUF(VC_BUF)) u_rx (
        .clk(clk), .rst(rst), .in_valid(link_in_valid), .in_data(link_in_data), .in_last(link_in_last),
        .out_sel_vc(rx_sel_vc), .out_avail(rx_avail),
        .out_head0(rx_head0), .out_head1(rx_head1), .out_valid(rx_valid), .out_ready(rx_ready), .out_data(rx_data), .out_last(rx_last), .out_vc(rx_vc),
        .expected(expected), .nak(nak), .dirty(dirty), .freed0(freed0), .freed1(freed1), .ctrl_sent(ctrl_sent),
        .ack_valid(ack_valid), .ack_seq(ack_seq), .ack_nak(ack_nak), .peer_freed0(pf0), .peer_freed1(pf1),
        .overflow(overflow), .crc_errors(crc_errors), .packets(rx_packets), .dbg_state(rx_state));

    assign dbg[63:0] = {rx_packets, tx_packets};
    assign dbg[127:64] = {31'd0, overflow, crc_errors, replays};
    assign dbg[191:128] = {window_full, credit_stalls};
    assign dbg[255:192] = {3'd0, rx_state, expected, tx_state};
endmodule
`default_nettype wire
