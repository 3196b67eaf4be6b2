`default_nettype none
// spg_fmin: f32 a < b ? a : b (a NaN operand gives b), as SPD.md defines it.
// With FTZ the comparison sees flushed operands and the result is the flushed
// operand (never a subnormal).
// Latency 1: FTZ detection, a 32-bit comparison and a 2:1 mux, ~3.5 ns on
// Arria 10, one 5 ns cycle at 200 MHz.
module spg_fmin #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    initial begin
        if (FTZ != 0 && FTZ != 1) begin
            $display("spg_fmin: FTZ must be 0 or 1");
            $finish;
        end
    end
    // FTZ: subnormal inputs count as zero of the same sign
    wire        a_sub = (a[30:23] == 8'd0) && (a[22:0] != 23'd0);
    wire        b_sub = (b[30:23] == 8'd0) && (b[22:0] != 23'd0);
    wire [31:0] af = (FTZ != 0 && a_sub) ? {a[31], 31'd0} : a;
    wire [31:0] bf = (FTZ != 0 && b_sub) ? {b[31], 31'd0} : b;
    wire        a_nan = (af[30:23] == 8'hFF) && (af[22:0] != 23'd0);
    wire        b_nan = (bf[30:23] == 8'hFF) && (bf[22:0] != 23'd0);
    wire        unord = a_nan | b_nan;
    wire        eq = !unord && ((af == bf) || (af[30:0] == 31'd0 && bf[30:0] == 31'd0));
    // sign-magnitude -> unsigned order (-0 sorts just below +0; eq covers that case)
    wire [31:0] ka = af[31] ? ~af : {1'b1, af[30:0]};
    wire [31:0] kb = bf[31] ? ~bf : {1'b1, bf[30:0]};
    wire        lt = !unord && !eq && (ka < kb);
    reg [31:0] y_reg;
    always @(posedge clk) if (ce) y_reg <= lt ? af : bf;
    assign y = y_reg;
endmodule
