// One serial-link port: sender and receiver of the link layer, cross-wired for ACKs and credits;
// LANES words per beat on the router side and on the serial side.
`default_nettype none
module rdma_link_port #(
    `include "rdma_link_params.vh"
) (
    input  wire        clk,
    input  wire        rst,
    input  wire        tx_valid,
    output wire        tx_ready,
    input  wire [32*LANES-1:0] tx_data,
    input  wire        tx_last,
    input  wire        rx_sel_vc,
    output wire [1:0]  rx_avail,
    output wire [31:0] rx_head0,
    output wire [31:0] rx_head1,
    output wire [1:0]  rx_more,    // per VC: a packet behind the head (rdma_link_rx out_more)
    output wire [31:0] rx_next0,   // its header
    output wire [31:0] rx_next1,
    output wire        rx_valid,
    input  wire        rx_ready,
    output wire [32*LANES-1:0] rx_data,
    output wire        rx_last,
    output wire        rx_vc,
    output wire        link_out_valid,
    output wire [32*LANES-1:0] link_out_data,
    output wire        link_out_last,
    input  wire        link_out_ready,
    input  wire        link_in_valid,
    input  wire [32*LANES-1:0] link_in_data,
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
                   .KEEPALIVE(KEEPALIVE), .LANES(LANES), .MAX_WORDS(MAX_WORDS)) u_tx (
        .clk(clk), .rst(rst), .in_valid(tx_valid), .in_ready(tx_ready), .in_data(tx_data), .in_last(tx_last),
        .rx_expected(expected), .rx_nak(nak), .rx_dirty(dirty), .rx_freed0(freed0), .rx_freed1(freed1),
        .ctrl_sent(ctrl_sent), .ack_valid(ack_valid), .ack_seq(ack_seq), .ack_nak(ack_nak),
        .peer_freed0(pf0), .peer_freed1(pf1), .out_valid(link_out_valid), .out_data(link_out_data),
        .out_last(link_out_last), .out_ready(link_out_ready), .replays(replays), .can_take(tx_can_take),
        .blocked(tx_blocked), .packets(tx_packets), .credit_stalls(credit_stalls), .window_full(window_full),
        .dbg_state(tx_state));

    rdma_link_rx #(.VC_BUF(VC_BUF), .LANES(LANES), .MAX_WORDS(MAX_WORDS)) u_rx (
        .clk(clk), .rst(rst), .in_valid(link_in_valid), .in_data(link_in_data), .in_last(link_in_last),
        .out_sel_vc(rx_sel_vc), .out_avail(rx_avail),
        .out_head0(rx_head0), .out_head1(rx_head1),
        .out_more(rx_more), .out_next0(rx_next0), .out_next1(rx_next1), .out_valid(rx_valid), .out_ready(rx_ready), .out_data(rx_data), .out_last(rx_last), .out_vc(rx_vc),
        .expected(expected), .nak(nak), .dirty(dirty), .freed0(freed0), .freed1(freed1), .ctrl_sent(ctrl_sent),
        .ack_valid(ack_valid), .ack_seq(ack_seq), .ack_nak(ack_nak), .peer_freed0(pf0), .peer_freed1(pf1),
        .overflow(overflow), .crc_errors(crc_errors), .packets(rx_packets), .dbg_state(rx_state));

    // the four RDMA_LINK_* CSR words, fields at the offsets of shell/csr_map.json
    `include "afushell_csr.vh"
    reg [63:0] pkts, errs, stalls, state;
    always @(*) begin
        pkts = 64'd0;
        pkts[CSR_RDMA_LINK_PKTS_TX_LSB +: CSR_RDMA_LINK_PKTS_TX_WIDTH] = tx_packets;
        pkts[CSR_RDMA_LINK_PKTS_RX_LSB +: CSR_RDMA_LINK_PKTS_RX_WIDTH] = rx_packets;
        errs = 64'd0;
        errs[CSR_RDMA_LINK_ERRS_REPLAYS_LSB +: CSR_RDMA_LINK_ERRS_REPLAYS_WIDTH] = replays;
        errs[CSR_RDMA_LINK_ERRS_CRC_ERRORS_LSB +: CSR_RDMA_LINK_ERRS_CRC_ERRORS_WIDTH] = crc_errors;
        errs[CSR_RDMA_LINK_ERRS_OVERFLOW_LSB] = overflow;
        stalls = 64'd0;
        stalls[CSR_RDMA_LINK_STALLS_CREDIT_LSB +: CSR_RDMA_LINK_STALLS_CREDIT_WIDTH] = credit_stalls;
        stalls[CSR_RDMA_LINK_STALLS_WINDOW_FULL_LSB +: CSR_RDMA_LINK_STALLS_WINDOW_FULL_WIDTH] = window_full;
        state = 64'd0;  // tx_state = {used on VC 1, used on VC 0, unacknowledged}, rx_state = {mid, held 1, held 0}
        state[CSR_RDMA_LINK_STATE_UNACKED_LSB +: CSR_RDMA_LINK_STATE_UNACKED_WIDTH] = tx_state[9:0];
        state[CSR_RDMA_LINK_STATE_CREDITS_USED0_LSB +: CSR_RDMA_LINK_STATE_CREDITS_USED0_WIDTH] = tx_state[19:10];
        state[CSR_RDMA_LINK_STATE_CREDITS_USED1_LSB +: CSR_RDMA_LINK_STATE_CREDITS_USED1_WIDTH] = tx_state[29:20];
        state[CSR_RDMA_LINK_STATE_RX_EXPECTED_LSB +: CSR_RDMA_LINK_STATE_RX_EXPECTED_WIDTH] = expected;
        state[CSR_RDMA_LINK_STATE_RX_HELD0_LSB +: CSR_RDMA_LINK_STATE_RX_HELD0_WIDTH] = rx_state[9:0];
        state[CSR_RDMA_LINK_STATE_RX_HELD1_LSB +: CSR_RDMA_LINK_STATE_RX_HELD1_WIDTH] = rx_state[19:10];
        state[CSR_RDMA_LINK_STATE_RX_MID_PACKET_LSB] = rx_state[20];
    end
    assign dbg = {state, stalls, errs, pkts};
endmodule
`default_nettype wire
