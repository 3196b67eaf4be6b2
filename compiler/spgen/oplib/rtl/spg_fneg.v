`default_nettype none
// spg_fneg: f32 flip the sign bit (also of NaN).
// Latency 0: pure wiring (one inverter at most). A sign-bit operation, not
// arithmetic (IEEE 754 5.5.1): it never flushes, so FTZ has no effect here;
// FTZ is accepted so that every float operator has the same interface.
module spg_fneg #(
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
            $display("spg_fneg: FTZ must be 0 or 1");
            $finish;
        end
    end
    assign y = {~a[31], a[30:0]};
endmodule
