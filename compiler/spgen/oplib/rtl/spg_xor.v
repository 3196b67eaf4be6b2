`default_nettype none
// spg_xor: bitwise a ^ b (i32/u32, bool with WIDTH = 1).
// Latency 1: one LUT level; registered so that chains of logic operations in a
// generated core never form long combinational paths.
module spg_xor #(
    parameter WIDTH = 32  // operand width: 32 (i32/u32) or 1 (bool)
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [WIDTH-1:0] a,
    input  wire [WIDTH-1:0] b,
    output wire [WIDTH-1:0] y
);
    initial begin
        if (WIDTH != 32 && WIDTH != 1) begin
            $display("spg_%s: WIDTH must be 32 or 1", "xor");
            $finish;
        end
    end
    reg [WIDTH-1:0] y_reg;
    always @(posedge clk) if (ce) y_reg <= a ^ b;
    assign y = y_reg;
endmodule
