`default_nettype none
// spg_lshr: logical a >> b (u32); b >= 32 gives 0.
// Latency 1: a 32-bit barrel shifter is 5 levels of 2:1 muxes, which the 6-input
// ALMs of Arria 10 pack into ~3 LUT levels (~2.5 ns), one 5 ns cycle at 200 MHz.
module spg_lshr (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    reg [31:0] y_reg;
    always @(posedge clk) if (ce) y_reg <= (b[31:5] != 27'd0) ? 32'd0 : a >> b[4:0];
    assign y = y_reg;
endmodule
