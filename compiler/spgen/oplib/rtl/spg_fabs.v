`default_nettype none
// spg_fabs: f32 clear the sign bit (also of NaN).
// Latency 0: pure wiring (one inverter at most). A sign-bit operation, not
// arithmetic (IEEE 754 5.5.1): it never flushes, so FTZ has no effect here;
// FTZ is accepted so that every float operator has the same interface.
module spg_fabs #(
    /* verilator lint_off UNUSEDPARAM */
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
    /* verilator lint_on UNUSEDPARAM */
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire        clk,  // unused: combinational
    input  wire        ce,   // unused: combinational
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [31:0] a,
    output wire [31:0] y
);
    initial begin
        if (FTZ != 0 && FTZ != 1) begin
            $display("spg_fabs: FTZ must be 0 or 1");
            $finish;
        end
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_sign = a[31];  // the result ignores the old sign
    /* verilator lint_on UNUSEDSIGNAL */
    assign y = {1'b0, a[30:0]};
endmodule
