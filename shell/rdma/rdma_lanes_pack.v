// Packets of 32-bit words (header first) into beats of LANES words, the header in lane 0 of
// the first beat: a part of the card that moves a word per cycle (the engine, the stream
// endpoints) injecting into a wide network (rdma_card_net with LANES > 1). A word is taken
// every cycle while the beat it completes can leave (or the one before has left); lanes after
// a packet's last word are zero.
`default_nettype none
module rdma_lanes_pack #(
    parameter integer LANES = 16
) (
    input  wire                clk,
    input  wire                rst,
    input  wire                n_valid,
    output wire                n_ready,
    input  wire [31:0]         n_data,
    input  wire                n_last,
    output wire                w_valid,
    input  wire                w_ready,
    output wire [32*LANES-1:0] w_data,
    output wire                w_last
);
    localparam integer LW = LANES > 1 ? $clog2(LANES) : 1;
    localparam integer LAST_LANE = LANES - 1;
    reg [32*LANES-1:0] beat_reg;
    reg [LW-1:0]       lane_reg;
    reg                full_reg, last_reg;
    assign n_ready = !full_reg || w_ready;
    assign w_valid = full_reg;
    assign w_data = beat_reg;
    assign w_last = last_reg;
    always @(posedge clk) begin
        if (rst) begin
            beat_reg <= {32*LANES{1'b0}};
            lane_reg <= {LW{1'b0}};
            full_reg <= 1'b0;
            last_reg <= 1'b0;
        end else begin
            if (full_reg && w_ready) full_reg <= 1'b0;
            if (n_valid && n_ready) begin
                if (lane_reg == {LW{1'b0}}) beat_reg <= {{32*(LANES-1){1'b0}}, n_data};
                else beat_reg[32 * lane_reg +: 32] <= n_data;
                if (n_last || lane_reg == LAST_LANE[LW-1:0]) begin
                    full_reg <= 1'b1;
                    last_reg <= n_last;
                    lane_reg <= {LW{1'b0}};
                end else begin
                    lane_reg <= lane_reg + 1'b1;
                end
            end
        end
    end
    initial begin
        if (LANES < 2 || LANES > 32 || (LANES & (LANES - 1)) != 0) $error("%m: LANES=%0d must be a power of 2 in 2..32", LANES);
    end
endmodule
`default_nettype wire
