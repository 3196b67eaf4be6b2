`default_nettype none
// spg_ieq: a == b -> bool.
// Latency 1: one 32-bit comparison (a carry chain, ~2 ns on Arria 10) per 5 ns cycle.
module spg_ieq (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire        y
);
    reg y_reg;
    always @(posedge clk) if (ce) y_reg <= a == b;
    assign y = y_reg;
endmodule
