`default_nettype none
// spg_iabs: i32 a < 0 ? -a : a (abs(INT_MIN) = INT_MIN).
// Latency 1: one 32-bit carry chain or a few LUT levels (~2-3 ns on Arria 10)
// fits the 5 ns cycle of 200 MHz with margin for routing.
module spg_iabs (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    output wire [31:0] y
);
    reg [31:0] y_reg;
    always @(posedge clk) if (ce) y_reg <= a[31] ? 32'd0 - a : a;
    assign y = y_reg;
endmodule
