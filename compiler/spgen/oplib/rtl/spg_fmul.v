`default_nettype none
// spg_fmul: f32 a * b, IEEE-754 round-to-nearest-even, subnormals exact (FTZ = 0)
// or flushed to zero, sign kept, on input and output (FTZ = 1). NaN results are
// the quiet NaN 0x7FC00000.
// Latency 6, one carry chain, shifter or DSP step (at most 5 LUT levels) per 5 ns
// cycle at 200 MHz on Arria 10:
//   1 FTZ flush, classify, leading zeros of both mantissas (subnormals), exponent sum
//   2 normalize both mantissas (DSP input registers), exponent minus both counts
//   3 24x24 mantissa product (one 27x27 DSP block, output register); beside it the
//     result exponent, overflow, subnormal test and right shift for both positions
//     of the product's leading one (bit 47 or 46)
//   4 select by bit 47: normalize the product by one, pick the precomputed exponent
//     and shift, sticky mask of that shift
//   5 right shift into the subnormal range with sticky bit, rounding decision
//   6 round to nearest even (31-bit increment, carries into the exponent and to inf),
//     specials, FTZ result flush

    // ---- stage 1: flush, classify, leading zeros, exponent sum
    wire [31:0] af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
    wire [31:0] bf = (FTZ != 0 && b[30:23] == 8'd0) ? {b[31], 31'd0} : b;
    wire        a_nan = af[30:23] == 8'hFF && af[22:0] != 23'd0;
    wire        b_nan = bf[30:23] == 8'hFF && bf[22:0] != 23'd0;
    wire        a_inf = af[30:0] == 31'h7F800000;
    wire        b_inf = bf[30:0] == 31'h7F800000;
    wire        a_zero = af[30:0] == 31'd0;
    wire        b_zero = bf[30:0] == 31'd0;
    wire [23:0] ma = {af[30:23] != 8'd0, af[22:0]};
    wire [23:0] mb = {bf[30:23] != 8'd0, bf[22:0]};
    reg  [4:0]  lza, lzb;  // FTZ = 1: no subnormals left, a zero is a special case
    integer k;
    always @* begin
        lza = 5'd0;
        lzb = 5'd0;
        if (FTZ == 0)
            for (k = 0; k < 24; k = k + 1) begin
                if (ma[k]) lza = 5'd23 - k[4:0];
                if (mb[k]) lzb = 5'd23 - k[4:0];
            end
    end
    wire [9:0]  ea = {2'd0, a[30:24], a[23] | (a[30:23] == 8'd0)};  // subnormals: 1
    wire [9:0]  eb = {2'd0, b[30:24], b[23] | (b[30:23] == 8'd0)};
    // the flags every stage passes on: {sign, NaN, infinite, zero} of the result
    reg  [3:0]  s1_flags_reg, s2_flags_reg, s3_flags_reg, s4_flags_reg, s5_flags_reg;
    reg  [9:0]  s1_e_reg;  // 2..508
    reg  [4:0]  s1_lza_reg, s1_lzb_reg;
    reg  [23:0] s1_ma_reg, s1_mb_reg;
    always @(posedge clk) if (ce) begin
        s1_flags_reg <= {af[31] ^ bf[31], a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero),
                         a_inf | b_inf, a_zero | b_zero};
        s1_e_reg     <= ea + eb;
        s1_lza_reg   <= lza;
        s1_lzb_reg   <= lzb;
        s1_ma_reg    <= ma;
        s1_mb_reg    <= mb;
    end

    // ---- stage 2: normalize both mantissas (bit 23 set unless zero); e0 = ea + eb - 126
    // - lza - lzb is the biased exponent if the product's bit 47 is set
    reg  [9:0]  s2_e0_reg;  // two's complement, -170..382
    reg  [23:0] s2_na_reg, s2_nb_reg;
    always @(posedge clk) if (ce) begin
        s2_flags_reg <= s1_flags_reg;
        s2_e0_reg    <= s1_e_reg - 10'd126 - ({5'd0, s1_lza_reg} + {5'd0, s1_lzb_reg});
        s2_na_reg    <= s1_ma_reg << s1_lza_reg;
        s2_nb_reg    <= s1_mb_reg << s1_lzb_reg;
    end

    // ---- stage 3: product in [2^46, 2^48). Beside it, for a leading one at bit 47
    // (exponent x = e0) and at bit 46 (x = e0 - 1): stored exponent (0 if subnormal),
    // overflow, and the right shift 1 - x of a subnormal result (31 or more: only
    // the sticky bit is left, like any shift from 25 on)
    wire [7:0]  x1 = s2_e0_reg[7:0] - 8'd1;
    wire [9:0]  r0 = 10'd1 - s2_e0_reg;
    wire [9:0]  r1 = 10'd2 - s2_e0_reg;
    wire        sub0 = s2_e0_reg[9] || s2_e0_reg == 10'd0;
    wire        sub1 = s2_e0_reg[9] || s2_e0_reg <= 10'd1;
    reg         s3_ovf0_reg, s3_ovf1_reg, s3_sub0_reg, s3_sub1_reg;
    reg  [7:0]  s3_e0_reg, s3_e1_reg;
    reg  [4:0]  s3_r0_reg, s3_r1_reg;
    reg  [47:0] s3_p_reg;
    always @(posedge clk) if (ce) begin
        s3_flags_reg <= s2_flags_reg;
        s3_ovf0_reg  <= !s2_e0_reg[9] && s2_e0_reg >= 10'd255;
        s3_ovf1_reg  <= !s2_e0_reg[9] && s2_e0_reg >= 10'd256;
        s3_sub0_reg  <= sub0;
        s3_sub1_reg  <= sub1;
        s3_e0_reg    <= sub0 ? 8'd0 : s2_e0_reg[7:0];
        s3_e1_reg    <= sub1 ? 8'd0 : x1;
        s3_r0_reg    <= !sub0 ? 5'd0 : (r0[9:5] != 5'd0) ? 5'd31 : r0[4:0];
        s3_r1_reg    <= !sub1 ? 5'd0 : (r1[9:5] != 5'd0) ? 5'd31 : r1[4:0];
        s3_p_reg     <= s2_na_reg * s2_nb_reg;
    end

    // ---- stage 4: leading one to bit 47; the bits that the right shift of stage 5
    // moves below the guard bit (n[j] for j < 23 + shift) make the sticky mask
    wire        top = s3_p_reg[47];
    wire [4:0]  rsh = top ? s3_r0_reg : s3_r1_reg;
    wire [24:0] below = ~(25'h1FFFFFF << rsh);  // bits j < rsh: a shift, not compares
    reg         s4_ovf_reg, s4_sub_reg;
    reg  [7:0]  s4_e_reg;
    reg  [4:0]  s4_sh_reg;
    reg  [24:0] s4_smask_reg;  // bits 47..23 of the mask; those below are always set
    reg  [47:0] s4_n_reg;
    always @(posedge clk) if (ce) begin
        s4_flags_reg <= s3_flags_reg;
        s4_ovf_reg   <= top ? s3_ovf0_reg : s3_ovf1_reg;
        s4_sub_reg   <= top ? s3_sub0_reg : s3_sub1_reg;
        s4_e_reg     <= top ? s3_e0_reg : s3_e1_reg;
        s4_sh_reg    <= rsh;
        s4_smask_reg <= below[24:0];
        s4_n_reg     <= top ? s3_p_reg : {s3_p_reg[46:0], 1'b0};
    end

    // ---- stage 5: right shift (0 for a normal result); fraction, guard, sticky and
    // the round-up decision
    /* verilator lint_off UNUSEDSIGNAL */
    wire [24:0] r = s4_n_reg[47:23] >> s4_sh_reg;  // hidden bit, fraction, guard
    /* verilator lint_on UNUSEDSIGNAL */
    wire        sticky = (s4_n_reg[47:23] & s4_smask_reg) != 25'd0 || s4_n_reg[22:0] != 23'd0;
    reg         s5_ovf_reg, s5_sub_reg, s5_inc_reg;
    reg  [7:0]  s5_e_reg;
    reg  [22:0] s5_f_reg;
    always @(posedge clk) if (ce) begin
        s5_flags_reg <= s4_flags_reg;
        s5_ovf_reg   <= s4_ovf_reg;
        s5_sub_reg   <= s4_sub_reg;
        s5_e_reg     <= s4_e_reg;
        s5_f_reg     <= r[23:1];
        s5_inc_reg   <= r[0] & (sticky | r[1]);
    end

    // ---- stage 6: round to nearest even, specials (a subnormal that rounds up to
    // exponent 1 is not flushed)
    wire [30:0] pk = {s5_e_reg, s5_f_reg} + {30'd0, s5_inc_reg};
    wire        sign = s5_flags_reg[3];
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (s5_flags_reg[2])
            y_reg <= 32'h7FC00000;
        else if (s5_flags_reg[1] || s5_ovf_reg)
            y_reg <= {sign, 31'h7F800000};
        else if (s5_flags_reg[0] || (FTZ != 0 && s5_sub_reg && !pk[23]))
            y_reg <= {sign, 31'd0};
        else
            y_reg <= {sign, pk};
    end
    assign y = y_reg;
endmodule
