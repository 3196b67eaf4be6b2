`default_nettype none
// spg_fptosi: f32 -> i32 toward zero, saturating to INT_MIN/INT_MAX, NaN -> 0.
// Subnormal operands truncate to 0 with or without FTZ (FTZ cannot change the result).
// Latency 2: the shared converter spg_f2i_core (a barrel shifter, then a negation
// and saturation, one per 5 ns cycle at 200 MHz on Arria 10).
module spg_fptosi #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    output wire [31:0] y
);
    spg_f2i_core #(.FTZ(FTZ), .SIGNED(1)) core (.clk(clk), .ce(ce), .a(a), .y(y));
endmodule
