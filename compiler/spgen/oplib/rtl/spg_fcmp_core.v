`default_nettype none
// spg_fcmp_core: the f32 comparison shared by spg_flt/fle/fgt/fge/feq/fne and
// spg_fmin/fmax (not an IR op). IEEE: every ordered predicate is false when either
// operand is NaN (fne is true), -0 == +0. fmin/fmax: a < b ? a : b and a > b ? a : b,
// a NaN operand gives b; with FTZ the result is the flushed operand (never a subnormal).
// Latency 1: FTZ detection (one LUT level), a 32-bit comparison (a carry chain) and,
// for fmin/fmax, a 2:1 mux take ~3.5 ns on Arria 10, one 5 ns cycle at 200 MHz.
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
    wire        gt = !unord && !eq && (ka > kb);
    generate
        if (PRED >= 6) begin : pick
            reg [31:0] y_reg;
            always @(posedge clk) if (ce) y_reg <= ((PRED == 6) ? lt : gt) ? af : bf;
            assign y = y_reg;
        end else begin : test
            reg y_reg;
            always @(posedge clk) if (ce)
                y_reg <= (PRED == 0) ? lt : (PRED == 1) ? lt | eq : (PRED == 2) ? gt
                       : (PRED == 3) ? gt | eq : (PRED == 4) ? eq : !eq;
            assign y = y_reg;
        end
    endgenerate
endmodule
