`default_nettype none
// spg_feq: f32 a == b -> bool (IEEE: false when either operand is NaN; -0 == +0).
// Latency 1: the shared comparison spg_fcmp_core (FTZ detection, a 32-bit carry
// chain, ~3 ns on Arria 10), one 5 ns cycle at 200 MHz.
module spg_feq #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire        y
);
    spg_fcmp_core #(.FTZ(FTZ), .PRED(4)) core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule
