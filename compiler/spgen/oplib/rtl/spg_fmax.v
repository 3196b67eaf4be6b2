`default_nettype none
// spg_fmax: f32 a > b ? a : b (a NaN operand gives b), as SPD.md defines it.
// With FTZ the comparison sees flushed operands and the result is the flushed
// operand (never a subnormal).
// Latency 1: the shared comparison spg_fcmp_core (FTZ detection, a 32-bit carry
// chain and a 2:1 mux, ~3.5 ns on Arria 10), one 5 ns cycle at 200 MHz.
module spg_fmax #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    spg_fcmp_core #(.FTZ(FTZ), .PRED(7)) core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule
