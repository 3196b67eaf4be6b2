`default_nettype none
// spg_booltoint: bool -> i32/u32 0 or 1.
// Latency 0: pure wiring (zero extension).
module spg_booltoint (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire        clk,  // unused: combinational
    input  wire        ce,   // unused: combinational
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire        a,
    output wire [31:0] y
);
    assign y = {31'd0, a};
endmodule
