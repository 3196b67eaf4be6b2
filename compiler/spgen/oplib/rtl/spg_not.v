`default_nettype none
// spg_not: bitwise ~a (i32/u32), logical !a (bool, WIDTH = 1).
// Latency 0: a single inverter, which synthesis absorbs into the LUT that reads it.
module spg_not #(
    parameter WIDTH = 32  // operand width: 32 (i32/u32) or 1 (bool)
) (
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire             clk,  // unused: combinational
    input  wire             ce,   // unused: combinational
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [WIDTH-1:0] a,
    output wire [WIDTH-1:0] y
);
    initial begin
        if (WIDTH != 32 && WIDTH != 1) begin
            $display("spg_not: WIDTH must be 32 or 1");
            $finish;
        end
    end
    assign y = ~a;
endmodule
