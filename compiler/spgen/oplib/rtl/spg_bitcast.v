`default_nettype none
// spg_bitcast: the same 32 bits under a new type (bits(), fbits(), i32 <-> u32).
// Latency 0: pure wiring. Never flushes subnormals, so it has no FTZ parameter.
module spg_bitcast (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire        clk,  // unused: combinational
    input  wire        ce,   // unused: combinational
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0] a,
    output wire [31:0] y
);
    assign y = a;
endmodule
