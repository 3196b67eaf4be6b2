`default_nettype none
// spg_fsub: f32 a - b, computed as a + (-b) by spg_fadd (flipping the sign of a
// NaN b still gives a NaN result), so it has spg_fadd's rounding.
// Latency: that of spg_fadd (the sign flip is wiring).
module spg_fsub #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    spg_fadd #(.FTZ(FTZ)) add (.clk(clk), .ce(ce), .a(a), .b({~b[31], b[30:0]}), .y(y));
endmodule
