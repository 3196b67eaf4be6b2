`default_nettype none
// spg_fdiv: f32 a / b, IEEE-754 round-to-nearest-even, subnormals exact (FTZ = 0)
// or flushed to zero, sign kept, on input and output (FTZ = 1). NaN results are
// the quiet NaN 0x7FC00000.
// Restoring division, one quotient bit per stage (a 25-bit subtract and a mux,
// ~3 ns on Arria 10), so that every stage fits a 5 ns cycle at 200 MHz without DSPs.
// Latency 30:
//   1     FTZ flush, classify, leading zeros of both mantissas (subnormals)
//   2     normalize both mantissas, exponent difference
//   3     pre-scale the dividend so the quotient lies in [1, 2)
//   4-28  25 quotient bits: 24 of mantissa and the guard bit
//   29    right shift into the subnormal range with sticky bit (remainder != 0)
//   30    round to nearest even (31-bit increment, carries into the exponent and to
//         inf), specials, FTZ result flush
    localparam QBITS = 25;  // quotient bits: hidden + 23 fraction + guard

    // ---- stage 1: flush, classify, leading zeros
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
    reg  [4:0]  lza, lzb;
    integer k;
    // With FTZ every mantissa is 0 or has its hidden bit: no leading zeros to count (and
    // counting them behind the flush would take this stage past 5 ns).
    always @* begin
        lza = 5'd0;
        lzb = 5'd0;
        for (k = 0; k < 24; k = k + 1) begin
            if (FTZ == 0 && ma[k]) lza = 5'd23 - k[4:0];
            if (FTZ == 0 && mb[k]) lzb = 5'd23 - k[4:0];
        end
    end
    reg         s1_sign_reg, s1_nan_reg, s1_inf_reg, s1_zero_reg;
    reg  [7:0]  s1_ea_reg, s1_eb_reg;
    reg  [4:0]  s1_lza_reg, s1_lzb_reg;
    reg  [23:0] s1_ma_reg, s1_mb_reg;
    always @(posedge clk) if (ce) begin
        s1_sign_reg <= af[31] ^ bf[31];
        s1_nan_reg  <= a_nan | b_nan | (a_inf & b_inf) | (a_zero & b_zero);
        s1_inf_reg  <= a_inf | b_zero;
        s1_zero_reg <= a_zero | b_inf;
        s1_ea_reg   <= (af[30:23] == 8'd0) ? 8'd1 : af[30:23];
        s1_eb_reg   <= (bf[30:23] == 8'd0) ? 8'd1 : bf[30:23];
        s1_lza_reg  <= lza;
        s1_lzb_reg  <= lzb;
        s1_ma_reg   <= ma;
        s1_mb_reg   <= mb;
    end

    // ---- stage 2: normalize; exponent e = ea - lza - eb + lzb + 127 and 1 - e side by side,
    // each also as it is when stage 3 pre-scales the dividend (e - 1, 2 - e), so that
    // stage 3 only selects: its compare and an exponent adder in series miss 5 ns
    wire [10:0] pa = {3'd0, s1_ea_reg} + {6'd0, s1_lzb_reg};
    wire [10:0] pb = {3'd0, s1_eb_reg} + {6'd0, s1_lza_reg};
    reg         s2_sign_reg, s2_nan_reg, s2_inf_reg, s2_zero_reg;
    reg  [10:0] s2_e_reg, s2_m_reg;      // two's complement: e, and 1 - e
    reg  [10:0] s2_e1_reg, s2_m1_reg;    // e - 1, and 2 - e
    reg  [23:0] s2_na_reg, s2_nb_reg;
    always @(posedge clk) if (ce) begin
        s2_sign_reg <= s1_sign_reg;
        s2_nan_reg  <= s1_nan_reg;
        s2_inf_reg  <= s1_inf_reg;
        s2_zero_reg <= s1_zero_reg;
        s2_e_reg    <= pa - pb + 11'd127;
        s2_m_reg    <= pb - pa - 11'd126;
        s2_e1_reg   <= pa - pb + 11'd126;
        s2_m1_reg   <= pb - pa - 11'd125;
        s2_na_reg   <= s1_ma_reg << s1_lza_reg;
        s2_nb_reg   <= s1_mb_reg << s1_lzb_reg;
    end

    // ---- stage 3: dividend in [nb, 2 nb), so the first quotient bit is 1
    wire        lt = s2_na_reg < s2_nb_reg;
    wire [7:0]  e3 = lt ? s2_e1_reg[7:0] : s2_e_reg[7:0];
    // overflow, and subnormal or zero result, of both exponents beside the compare
    wire        ovf0 = !s2_e_reg[10] && s2_e_reg >= 11'd255;
    wire        ovf1 = !s2_e1_reg[10] && s2_e1_reg >= 11'd255;
    wire        sub0 = s2_e_reg[10] || s2_e_reg == 11'd0;
    wire        sub1 = s2_e1_reg[10] || s2_e1_reg == 11'd0;
    reg  [24:0] s3_r_reg;
    // side data that rides along the iterations: divisor, exponent, shift, flags
    localparam SIDE_WIDTH = 24 + 8 + 11 + 1 + 1 + 1 + 1 + 1 + 1;
    reg  [SIDE_WIDTH-1:0] s3_side_reg;
    always @(posedge clk) if (ce) begin
        s3_r_reg    <= lt ? {s2_na_reg, 1'b0} : {1'b0, s2_na_reg};
        s3_side_reg <= {s2_nb_reg,
                        e3,
                        lt ? s2_m1_reg : s2_m_reg,         // right shift 1 - e
                        lt ? ovf1 : ovf0,                  // overflow
                        lt ? sub1 : sub0,                  // subnormal or zero result
                        s2_sign_reg, s2_nan_reg, s2_inf_reg, s2_zero_reg};
    end

    // ---- stages 4-28: one quotient bit each
    wire [QBITS*25-1:0]         r_chain;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [QBITS*QBITS-1:0]      q_chain;  // stage i holds i + 1 quotient bits; the rest is 0
    /* verilator lint_on UNUSEDSIGNAL */
    wire [QBITS*SIDE_WIDTH-1:0] side_chain;
    genvar i;
    generate
        for (i = 0; i < QBITS; i = i + 1) begin : iter
            wire [24:0]           r_in = (i == 0) ? s3_r_reg : r_chain[(i-1)*25 +: 25];
            wire [QBITS-2:0]      q_in = (i == 0) ? {(QBITS-1){1'b0}} : q_chain[(i-1)*QBITS +: QBITS-1];
            wire [SIDE_WIDTH-1:0] side_in = (i == 0) ? s3_side_reg
                                          : side_chain[(i-1)*SIDE_WIDTH +: SIDE_WIDTH];
            wire [23:0]           d = side_in[SIDE_WIDTH-1 -: 24];
            /* verilator lint_off UNUSEDSIGNAL */
            wire [25:0]           t = {1'b0, r_in} - {2'b00, d};  // t[24] = 0 when t >= 0: r < 2 d
            /* verilator lint_on UNUSEDSIGNAL */
            reg  [24:0]           r_reg;
            reg  [QBITS-1:0]      q_reg;
            reg  [SIDE_WIDTH-1:0] side_reg;
            always @(posedge clk) if (ce) begin
                r_reg    <= t[25] ? {r_in[23:0], 1'b0} : {t[23:0], 1'b0};
                q_reg    <= {q_in, ~t[25]};
                side_reg <= side_in;
            end
            assign r_chain[i*25 +: 25] = r_reg;
            assign q_chain[i*QBITS +: QBITS] = q_reg;
            assign side_chain[i*SIDE_WIDTH +: SIDE_WIDTH] = side_reg;
        end
    endgenerate
    wire [24:0]           r_last = r_chain[(QBITS-1)*25 +: 25];
    wire [QBITS-1:0]      q = q_chain[(QBITS-1)*QBITS +: QBITS];
    wire [SIDE_WIDTH-1:0] side = side_chain[(QBITS-1)*SIDE_WIDTH +: SIDE_WIDTH];
    /* verilator lint_off UNUSEDSIGNAL */
    wire [23:0]           side_d = side[SIDE_WIDTH-1 -: 24];  // the divisor is not needed any more
    /* verilator lint_on UNUSEDSIGNAL */
    wire [7:0]            side_e = side[SIDE_WIDTH-25 -: 8];
    wire [10:0]           side_rsh = side[SIDE_WIDTH-33 -: 11];
    wire                  side_ovf = side[5];
    wire                  side_sub = side[4];
    wire [3:0]            side_flags = side[3:0];  // sign, nan, inf, zero

    // ---- stage 29: subnormal results shift right by 1 - e (>= 32: everything is sticky)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [49:0] qs = {q, 25'd0} >> side_rsh[4:0];  // bit 49 = 0: the shift is >= 1 when used
    /* verilator lint_on UNUSEDSIGNAL */
    wire        big = side_rsh[10:5] != 6'd0;
    wire        rem_nz = r_last != 25'd0;
    reg  [7:0]  s29_e_reg;
    reg  [24:0] s29_n_reg;  // fraction (23), guard, sticky; the hidden bit is implied by e
    reg         s29_ovf_reg;
    reg  [3:0]  s29_flags_reg;
    always @(posedge clk) if (ce) begin
        s29_e_reg     <= side_sub ? 8'd0 : side_e;
        s29_n_reg     <= !side_sub ? {q[23:0], rem_nz}
                       : big ? {24'd0, 1'b1}
                       : {qs[48:25], rem_nz | (qs[24:0] != 25'd0)};
        s29_ovf_reg   <= side_ovf;
        s29_flags_reg <= side_flags;
    end

    // ---- stage 30: round to nearest even, specials
    wire        sign = s29_flags_reg[3];
    wire        inc = s29_n_reg[1] & (s29_n_reg[0] | s29_n_reg[2]);
    wire [30:0] pk = {s29_e_reg, s29_n_reg[24:2]} + {30'd0, inc};
    // pk's exponent is 0 exactly when e is and the increment does not carry into it:
    // decided beside the adder, not after it (5 ns)
    wire        pk_sub = s29_e_reg == 8'd0 && !(inc && &s29_n_reg[24:2]);
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (s29_flags_reg[2])
            y_reg <= 32'h7FC00000;
        else if (s29_flags_reg[1] || s29_ovf_reg)
            y_reg <= {sign, 31'h7F800000};
        else if (s29_flags_reg[0] || (FTZ != 0 && pk_sub))
            y_reg <= {sign, 31'd0};
        else
            y_reg <= {sign, pk};
    end
    assign y = y_reg;
endmodule
