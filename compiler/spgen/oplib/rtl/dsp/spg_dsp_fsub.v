`default_nettype none
// spg_dsp_fsub (Quartus): f32 y = a - b in one Arria 10 FP32 DSP block, twentynm_fp_mac
// in "sp_add" mode with adder_subtract = "true"
// (resulta = ay - ax). For simulation, lint and Yosys, read
// rtl/dsp_model/spg_dsp_fsub.v instead: same module, ports and latency, the
// behaviour Intel documents (round to nearest even, subnormals flushed to zero).
// Latency 3: every register of the adder path on clk[0] with ena[0] = ce, as Intel's
// generated code sets them: input (ax, ay), adder input, output. aclr is tied off (the
// pipeline needs no reset; ce holds it). Unused inputs are tied to 0.
module spg_dsp_fsub (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    twentynm_fp_mac #(
        .operation_mode("sp_add"),
        .adder_subtract("true"),
        .use_chainin("false"),
        .ax_clock("0"),
        .ay_clock("0"),
        .az_clock("NONE"),
        .mult_pipeline_clock("NONE"),
        .adder_input_clock("0"),
        .ax_chainin_pl_clock("NONE"),
        .accumulate_clock("NONE"),
        .accum_pipeline_clock("NONE"),
        .accum_adder_clock("NONE"),
        .output_clock("0")
    ) dsp (
        .clk({2'b00, clk}),
        .ena({2'b00, ce}),
        .aclr(2'b00),
        .ax(b),
        .ay(a),
        .az(32'd0),
        .chainin(32'd0),
        .accumulate(1'b0),
        .chainin_overflow(1'b0),
        .chainin_invalid(1'b0),
        .chainin_underflow(1'b0),
        .chainin_inexact(1'b0),
        .resulta(y)
    );
endmodule
