`default_nettype none
// spg_umax: unsigned max.
// Latency 1: a 32-bit comparison (carry chain) and a 2:1 mux, ~3 ns on Arria 10,
// fit one 5 ns cycle at 200 MHz.
module spg_umax (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    reg [31:0] y_reg;
    always @(posedge clk) if (ce) y_reg <= (a > b) ? a : b;
    assign y = y_reg;
endmodule
