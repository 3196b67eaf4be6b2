`default_nettype none
// spg_fle: f32 a <= b -> bool (IEEE: false when either operand is NaN; -0 == +0).
// Latency 1: FTZ detection (one LUT level) and a 32-bit comparison (a carry
// chain) take ~3 ns on Arria 10, one 5 ns cycle at 200 MHz.
module spg_fle #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire        y
);
    initial begin
        if (FTZ != 0 && FTZ != 1) begin
            $display("spg_fle: FTZ must be 0 or 1");
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
    reg y_reg;
    always @(posedge clk) if (ce) y_reg <= lt | eq;
    assign y = y_reg;
endmodule
