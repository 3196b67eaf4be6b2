`default_nettype none
// spg_f2i_core: f32 -> 32-bit integer toward zero, shared by spg_fptosi and spg_fptoui
// (not an IR op). Signed: saturating to INT_MIN/INT_MAX; unsigned: saturating to
// UINT_MAX, negative -> 0. NaN -> 0. Subnormal operands truncate to 0 with or without
// FTZ (FTZ cannot change the result).
// Latency 2, one shifter or carry chain per 5 ns cycle at 200 MHz on Arria 10:
//   1 classify and shift the mantissa by exponent - 150 (32-bit barrel shifter;
//     the 8-bit exponent arithmetic ahead of it is one LUT level wide)
//   2 negate (SIGNED: 32-bit carry chain) and saturate
    // the first exponent that saturates: |a| >= 2^31 (signed) or 2^32 (unsigned)
    localparam [7:0] E_SAT = (SIGNED != 0) ? 8'd158 : 8'd159;

    // ---- stage 1: integer part of |a| for |a| in [1, 2^(e_sat - 127)); flags for the rest
    wire [7:0]  e = a[30:23];
    wire [4:0]  sh = e[4:0] + 5'd1;              // e - 127 for e in [127, E_SAT)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [54:0] wide = {31'd0, 1'b1, a[22:0]} << sh;  // wide[22:0]: fraction bits, truncated
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0] mag = wide[54:23];
    reg         s1_sign_reg, s1_zero_reg, s1_sat_reg;
    reg  [31:0] s1_mag_reg;
    always @(posedge clk) if (ce) begin
        s1_sign_reg <= a[31];
        s1_zero_reg <= (e < 8'd127) || (e == 8'hFF && a[22:0] != 23'd0);  // |a| < 1, NaN
        s1_sat_reg  <= e >= E_SAT;                                      // incl. inf
        s1_mag_reg  <= mag;
    end

    // ---- stage 2
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (s1_zero_reg || (SIGNED == 0 && s1_sign_reg))
            y_reg <= 32'd0;
        else if (s1_sat_reg)
            y_reg <= (SIGNED == 0) ? 32'hFFFFFFFF : s1_sign_reg ? 32'h80000000 : 32'h7FFFFFFF;
        else
            y_reg <= (SIGNED != 0 && s1_sign_reg) ? 32'd0 - s1_mag_reg : s1_mag_reg;
    end
    assign y = y_reg;
endmodule
