`default_nettype none
// The counters of the sort's counting pass (cores/sort/sort_rank.spd): 256 bins; for
// each element, o_0 = the number of earlier elements of the stream in bin i_0[7:0].
// i_0: the bin; i_1[0]: 1 at the stream's first element, which starts a new count.
// Latency 1 cycle of ce; ce is high once per element (the core has no look-ahead).
// A counter belongs to the stream whose epoch it carries, so a new stream starts from
// zero without clearing 256 words: a bin whose epoch is old reads as 0.
module sort_rank_count (
    input  wire        clk,
    input  wire        ce,
    input  wire [31:0] i_0,
    input  wire [31:0] i_1,
    output wire [31:0] o_0
);
    reg [31:0] count_mem [0:255];
    reg [31:0] epoch_mem [0:255];
    reg [31:0] epoch_reg;
    reg [31:0] rank_reg;
    integer i;
    initial begin
        epoch_reg = 32'd0;
        rank_reg = 32'd0;
        for (i = 0; i < 256; i = i + 1) begin
            count_mem[i] = 32'd0;
            epoch_mem[i] = 32'd0;
        end
    end
    wire [7:0]  bin = i_0[7:0];
    wire [31:0] epoch_now = i_1[0] ? epoch_reg + 32'd1 : epoch_reg;
    // written at the previous edge, so back-to-back keys of one bin see each other
    wire [31:0] seen = (epoch_mem[bin] == epoch_now) ? count_mem[bin] : 32'd0;
    always @(posedge clk) begin
        if (ce) begin
            epoch_reg <= epoch_now;
            rank_reg <= seen;
            count_mem[bin] <= seen + 32'd1;
            epoch_mem[bin] <= epoch_now;
        end
    end
    assign o_0 = rank_reg;
    wire unused = &{1'b0, i_0[31:8], i_1[31:1]};
endmodule
`default_nettype wire
