`default_nettype none
// spg_sitofp: i32 -> f32, round-to-nearest-even. Results are integers, never
// subnormal, so FTZ has no effect; FTZ is accepted to keep the float interface uniform.
// Latency 4: the shared converter spg_i2f_core (negation, leading-zero count,
// normalization shift, rounding: one per 5 ns cycle at 200 MHz on Arria 10).
module spg_sitofp #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    output wire [31:0] y
);
    spg_i2f_core #(.FTZ(FTZ), .SIGNED(1)) core (.clk(clk), .ce(ce), .a(a), .y(y));
endmodule
