`default_nettype none
// spg_fadd: f32 a + b, IEEE-754 round-to-nearest-even, subnormals exact (FTZ = 0)
// or flushed to zero, sign kept, on input and output (FTZ = 1). NaN results are
// the quiet NaN 0x7FC00000; an exact zero sum is +0 unless both operands are -0.
// Latency 6, one carry chain or shifter (at most 5 LUT levels) per 5 ns cycle at
// 200 MHz on Arria 10:
//   1 magnitude compare and operand swap, FTZ flush beside it; exponent differences
//     both ways, selected by the sign of one of them
//   2 alignment shift (26-bit barrel shifter); the sticky bit from a mask of the
//     shift amount, beside it; the exponent limit of stage 4 as a one-hot mask
//   3 28-bit add/subtract; leading zeros per nibble of the sum ORed with that mask
//   4 leading-zero count from the nibbles: the mask stops it where subnormal results
//     reach exponent 1, without a compare after the count
//   5 normalization shift (28-bit barrel shifter), exponent subtraction beside it,
//     rounding decision
//   6 round to nearest even (31-bit increment, which also carries into the
//     exponent and overflows to inf), specials, FTZ result flush

    // ---- stage 1: classify, compare magnitudes, swap. A flushed operand keeps its
    // zero exponent, so only the fractions and the compare see the flush: the compare
    // reads the raw operands (a flushed one counts as the smaller) to keep the flush
    // off the carry chain.
    wire        az = a[30:23] == 8'd0;
    wire        bz = b[30:23] == 8'd0;
    wire [22:0] fa = (FTZ != 0 && az) ? 23'd0 : a[22:0];
    wire [22:0] fb = (FTZ != 0 && bz) ? 23'd0 : b[22:0];
    wire        a_nan = a[30:23] == 8'hFF && a[22:0] != 23'd0;
    wire        b_nan = b[30:23] == 8'hFF && b[22:0] != 23'd0;
    wire        a_inf = a[30:0] == 31'h7F800000;
    wire        b_inf = b[30:0] == 31'h7F800000;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] dm = {1'b0, a[30:0]} - {1'b0, b[30:0]};  // bit 31: |b| > |a|
    /* verilator lint_on UNUSEDSIGNAL */
    wire        swap = (FTZ != 0) ? !bz && (az || dm[31]) : dm[31];
    wire [7:0]  ea = {a[30:24], a[23] | az};  // subnormals: exponent 1, no hidden bit
    wire [7:0]  eb = {b[30:24], b[23] | bz};
    // |ea - eb| from the raw exponents, which keeps the subnormal test off the carry
    // chains: one less if exactly one operand is subnormal (its exponent 0 counts as 1)
    wire [8:0]  rab = {1'b0, a[30:23]} - {1'b0, b[30:23]};
    wire [7:0]  rba = b[30:23] - a[30:23];
    wire [7:0]  rab1 = a[30:23] + ~b[30:23];  // ae - be - 1
    wire [7:0]  rba1 = b[30:23] + ~a[30:23];
    wire [7:0]  d = rab[8] ? (az ^ bz ? rba1 : rba) : (az ^ bz ? rab1 : rab[7:0]);
    wire        big = d[7:5] != 3'd0;  // 32 or more: everything shifts into the sticky bit
    // the flags every stage passes on: {sign of the result, effective subtraction, NaN,
    // infinite}; stage 4 adds an overflow of the sum to the last
    reg  [3:0]  s1_flags_reg, s2_flags_reg, s3_flags_reg, s4_flags_reg, s5_flags_reg;
    reg         s1_big_reg;
    reg  [7:0]  s1_el_reg;
    reg  [4:0]  s1_d_reg;
    reg  [23:0] s1_ml_reg, s1_ms_reg;
    always @(posedge clk) if (ce) begin
        s1_flags_reg <= {swap ? b[31] : a[31], a[31] ^ b[31],
                         a_nan | b_nan | (a_inf & b_inf & (a[31] ^ b[31])), a_inf | b_inf};
        s1_el_reg    <= swap ? eb : ea;
        s1_d_reg     <= d[4:0];
        s1_big_reg   <= big;
        s1_ml_reg    <= swap ? {!bz, fb} : {!az, fa};
        s1_ms_reg    <= swap ? {!az, fa} : {!bz, fb};
    end

    // ---- stage 2: align the smaller operand (mantissa, guard, round); the bits shifted
    // out collapse into the sticky bit
    wire [25:0] al = {s1_ms_reg, 2'b00} >> s1_d_reg;
    // ms[j] shifts out past guard and round for j + 3 <= d (a shift of a constant,
    // where a compare per bit would become a carry chain)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [25:0] below = ~(26'h3FFFFFF << s1_d_reg);  // bits j < d
    /* verilator lint_on UNUSEDSIGNAL */
    wire [23:0] smask = below[25:2] | {24{s1_big_reg}};
    // stage 4 may shift left by at most el - 1: a one at bit 27 - el of the sum stops
    // its leading-zero count there
    reg  [27:0] lim;
    integer j;
    always @* for (j = 0; j < 28; j = j + 1) lim[j] = {24'd0, s1_el_reg} == 27 - j;
    reg         s2_el254_reg;
    reg  [7:0]  s2_el1_reg;  // el + 1: the exponent if the sum carries
    reg  [27:0] s2_lim_reg;
    reg  [6:0]  s2_limnz_reg;  // nibbles of the mask that hold its one
    reg  [23:0] s2_ml_reg;
    reg  [26:0] s2_ms_reg;  // mantissa, guard, round, sticky
    always @(posedge clk) if (ce) begin
        s2_flags_reg <= s1_flags_reg;
        s2_el254_reg <= s1_el_reg == 8'd254;
        s2_el1_reg   <= s1_el_reg + 8'd1;
        s2_lim_reg   <= lim;
        for (j = 0; j < 7; j = j + 1) s2_limnz_reg[j] <= lim[4*j +: 4] != 4'd0;
        s2_ml_reg    <= s1_ml_reg;
        s2_ms_reg    <= {s1_big_reg ? 26'd0 : al, (s1_ms_reg & smask) != 24'd0};
    end

    // ---- stage 3: add or subtract magnitudes (larger minus smaller: never negative);
    // the first step of the leading-zero count of stage 4 beside the carry chain's end
    wire [27:0] sum = s2_flags_reg[2] ? {1'b0, s2_ml_reg, 3'b000} - {1'b0, s2_ms_reg}
                                      : {1'b0, s2_ml_reg, 3'b000} + {1'b0, s2_ms_reg};
    wire [27:0] v = sum | s2_lim_reg;
    reg  [6:0]  nz;       // nibble i of v (bits 4i+3..4i) is not zero
    reg  [13:0] nlz;      // its leading zeros, 0..3
    integer i;
    always @* for (i = 0; i < 7; i = i + 1) begin
        nz[i]          = sum[4*i +: 4] != 4'd0 || s2_limnz_reg[i];
        nlz[2*i + 1]   = v[4*i + 3 -: 2] == 2'd0;
        nlz[2*i]       = !v[4*i + 3] && (v[4*i + 2] || !v[4*i + 1]);
    end
    reg         s3_el254_reg;
    reg  [7:0]  s3_el1_reg;
    reg  [6:0]  s3_nz_reg;
    reg  [13:0] s3_nlz_reg;
    reg  [27:0] s3_sum_reg;
    always @(posedge clk) if (ce) begin
        s3_flags_reg <= s2_flags_reg;
        s3_el254_reg <= s2_el254_reg;
        s3_el1_reg   <= s2_el1_reg;
        s3_nz_reg    <= nz;
        s3_nlz_reg   <= nlz;
        s3_sum_reg   <= sum;
    end

    // ---- stage 4: left shift that brings the leading one of v to bit 27 (0 if the sum
    // carried): the first nonzero nibble and the leading zeros inside it. v is the sum
    // ORed with the mask, so the shift stops at exponent 1 (bit 27 stays 0 if it binds)
    reg  [4:0]  lz;
    integer k;
    always @* begin
        lz = 5'd28;
        for (k = 0; k < 7; k = k + 1)
            if (s3_nz_reg[k]) lz = (5'd24 - 5'd4 * k[4:0]) | {3'd0, s3_nlz_reg[2*k +: 2]};
    end
    reg         s4_zero_reg;
    reg  [7:0]  s4_el1_reg;
    reg  [4:0]  s4_sh_reg;
    reg  [27:0] s4_sum_reg;
    always @(posedge clk) if (ce) begin
        s4_flags_reg <= s3_flags_reg | {3'd0, s3_sum_reg[27] & s3_el254_reg};  // carry to 255
        s4_zero_reg  <= s3_sum_reg == 28'd0;
        s4_el1_reg   <= s3_el1_reg;
        s4_sh_reg    <= lz;
        s4_sum_reg   <= s3_sum_reg;
    end

    // ---- stage 5: normalize; exponent el + 1 - shift, or 0 if the hidden bit is 0
    // (subnormal); round-up decision from guard, round, sticky and the last bit
    wire [27:0] n = s4_sum_reg << s4_sh_reg;  // bit 27: the hidden bit
    wire [7:0]  en = s4_el1_reg - {3'd0, s4_sh_reg};
    reg         s5_zero_reg, s5_den_reg;
    reg         s5_inc_reg;
    reg  [7:0]  s5_e_reg;
    reg  [22:0] s5_f_reg;
    always @(posedge clk) if (ce) begin
        s5_flags_reg <= s4_flags_reg;
        s5_zero_reg  <= s4_zero_reg;
        s5_den_reg   <= !n[27];
        s5_e_reg     <= n[27] ? en : 8'd0;
        s5_f_reg     <= n[26:4];
        s5_inc_reg   <= n[3] & (n[4] | n[2] | n[1] | n[0]);
    end

    // ---- stage 6: round to nearest even; the increment may carry into the exponent
    // (a subnormal that rounds up to exponent 1 is not flushed)
    wire [30:0] pk = {s5_e_reg, s5_f_reg} + {30'd0, s5_inc_reg};
    wire        sign = s5_flags_reg[3];
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (s5_flags_reg[1])
            y_reg <= 32'h7FC00000;
        else if (s5_flags_reg[0])
            y_reg <= {sign, 31'h7F800000};
        else if (s5_zero_reg)
            y_reg <= {sign & ~s5_flags_reg[2], 31'd0};
        else if (FTZ != 0 && s5_den_reg && !pk[23])
            y_reg <= {sign, 31'd0};
        else
            y_reg <= {sign, pk};
    end
    assign y = y_reg;
endmodule
