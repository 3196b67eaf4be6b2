`default_nettype none
// spg_select: s ? a : b for any type (WIDTH = 32 for f32/i32/u32, 1 for bool).
// Latency 1: one 2:1 mux (a single LUT level), registered so that chains of
// selects in a generated core never form long combinational paths.
module spg_select #(
    parameter WIDTH = 32  // operand width: 32 (f32/i32/u32) or 1 (bool)
) (
    input  wire             clk,
    input  wire             ce,  // clock enable: the pipeline holds while low
    input  wire             s,   // condition: a when true, b when false
    input  wire [WIDTH-1:0] a,
    input  wire [WIDTH-1:0] b,
    output wire [WIDTH-1:0] y
);
    initial begin
        if (WIDTH != 32 && WIDTH != 1) begin
            $display("spg_select: WIDTH must be 32 or 1");
            $finish;
        end
    end
    reg [WIDTH-1:0] y_reg;
    always @(posedge clk) if (ce) y_reg <= s ? a : b;
    assign y = y_reg;
endmodule
