// Packets in beats of LANES words (header in lane 0 of the first beat, `rdma_words` of its
// WORDS code after it) out as 32-bit words, a word per cycle: a wide network
// (rdma_card_net with LANES > 1) delivering to a part of the card that takes a word per cycle.
// The lanes after a packet's last word are dropped.
`default_nettype none
module rdma_lanes_unpack #(
    parameter integer LANES = 16
) (
    input  wire                clk,
    input  wire                rst,
    input  wire                w_valid,
    output wire                w_ready,
    input  wire [32*LANES-1:0] w_data,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                w_last,  // implied by the header's length
    /* verilator lint_on UNUSEDSIGNAL */
    output wire                n_valid,
    input  wire                n_ready,
    output wire [31:0]         n_data,
    output wire                n_last
);
    `include "rdma_packet.vh"
    localparam integer LW = LANES > 1 ? $clog2(LANES) : 1;
    localparam integer LAST_LANE = LANES - 1;
    localparam integer NW = RDMA_NWORDS_W;
    reg [LW-1:0] lane_reg;
    reg          mid_reg;   // past the header
    reg [NW:0]   left_reg;  // words of the packet after the current one
    wire [NW:0]  left = mid_reg ? left_reg : {1'b0, rdma_words(w_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W])};
    assign n_valid = w_valid;
    assign n_data = w_data[32 * lane_reg +: 32];
    assign n_last = left == {(NW+1){1'b0}};
    assign w_ready = n_ready && (n_last || lane_reg == LAST_LANE[LW-1:0]);
    always @(posedge clk) begin
        if (rst) begin
            lane_reg <= {LW{1'b0}};
            mid_reg <= 1'b0;
            left_reg <= {(NW+1){1'b0}};
        end else if (w_valid && n_ready) begin
            mid_reg <= !n_last;
            left_reg <= left - 1'b1;
            lane_reg <= n_last ? {LW{1'b0}} : lane_reg + 1'b1;
        end
    end
    initial begin
        if (LANES < 2 || LANES > 32 || (LANES & (LANES - 1)) != 0) $error("%m: LANES=%0d must be a power of 2 in 2..32", LANES);
    end
endmodule
`default_nettype wire
