`default_nettype none
// twentynm_fp_mac, the Arria 10 floating-point DSP block primitive, as a black box: the
// ports and parameters that the spg_dsp_* wrappers use, so that Verilator lint and Yosys
// can read those wrappers. Never part of a Quartus project (Quartus has the real
// primitive) and never simulated: the behavioural models stand for the wrappers.
// The names follow Intel's generated code; the defaults here are placeholders. The file
// is named for what it is, hence the lint waivers (and the body is empty).
/* verilator lint_off DECLFILENAME */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNDRIVEN */
(* blackbox *)
module twentynm_fp_mac #(
    parameter operation_mode = "sp_mult",     // sp_mult, sp_add, sp_mult_add, sp_mult_acc, ...
    parameter adder_subtract = "false",       // "true": the adder computes ay - ax
    parameter use_chainin = "false",          // "true": chainin replaces ax
    parameter ax_clock = "NONE",              // input registers: "NONE" or clk[0..2]
    parameter ay_clock = "NONE",
    parameter az_clock = "NONE",
    parameter mult_pipeline_clock = "NONE",   // multiplier pipeline register
    parameter adder_input_clock = "NONE",     // adder input register
    parameter ax_chainin_pl_clock = "NONE",   // ax / chainin pipeline register
    parameter accumulate_clock = "NONE",      // accumulate-control registers
    parameter accum_pipeline_clock = "NONE",
    parameter accum_adder_clock = "NONE",
    parameter output_clock = "NONE"           // output register
) (
    input  wire [2:0]  clk,
    input  wire [2:0]  ena,
    input  wire [1:0]  aclr,
    input  wire [31:0] ax,
    input  wire [31:0] ay,
    input  wire [31:0] az,
    input  wire [31:0] chainin,
    input  wire        accumulate,
    input  wire        chainin_overflow,
    input  wire        chainin_invalid,
    input  wire        chainin_underflow,
    input  wire        chainin_inexact,
    output wire [31:0] resulta
);
endmodule
/* verilator lint_on UNDRIVEN */
/* verilator lint_on UNUSEDSIGNAL */
/* verilator lint_on UNUSEDPARAM */
/* verilator lint_on DECLFILENAME */
