`default_nettype none
// spg_i2f_core: 32-bit integer -> f32, round-to-nearest-even, shared by spg_sitofp and
// spg_uitofp (not an IR op). Results are integers, never subnormal, so FTZ has no
// effect; FTZ is accepted to keep the float interface uniform.
// Latency 4, one carry chain or shifter per 5 ns cycle at 200 MHz on Arria 10:
//   1 magnitude (SIGNED: 32-bit negation)
//   2 leading-zero count (32 bits)
//   3 normalization shift (32-bit barrel shifter)
//   4 round to nearest even (31-bit increment, carries into the exponent)

    // ---- stage 1: sign and magnitude
    wire        neg = (SIGNED != 0) && a[31];
    reg         s1_neg_reg;
    reg  [31:0] s1_mag_reg;
    always @(posedge clk) if (ce) begin
        s1_neg_reg <= neg;
        s1_mag_reg <= neg ? 32'd0 - a : a;
    end

    // ---- stage 2: leading zeros
    reg  [4:0]  lz;
    integer k;
    always @* begin
        lz = 5'd0;
        for (k = 0; k < 32; k = k + 1)
            if (s1_mag_reg[k]) lz = 5'd31 - k[4:0];
    end
    reg         s2_neg_reg, s2_zero_reg;
    reg  [4:0]  s2_lz_reg;
    reg  [30:0] s2_mag_reg;  // bit 31 is the hidden bit or shifted out
    always @(posedge clk) if (ce) begin
        s2_neg_reg  <= s1_neg_reg;
        s2_zero_reg <= s1_mag_reg == 32'd0;
        s2_lz_reg   <= lz;
        s2_mag_reg  <= s1_mag_reg[30:0];
    end

    // ---- stage 3: normalize (bit 31 = hidden bit, dropped)
    wire [30:0] n = s2_mag_reg << s2_lz_reg;
    reg         s3_neg_reg, s3_zero_reg;
    reg  [7:0]  s3_e_reg;
    reg  [30:0] s3_n_reg;
    always @(posedge clk) if (ce) begin
        s3_neg_reg  <= s2_neg_reg;
        s3_zero_reg <= s2_zero_reg;
        s3_e_reg    <= 8'd158 - {3'd0, s2_lz_reg};
        s3_n_reg    <= n;
    end

    // ---- stage 4: round: fraction n[30:8], guard n[7], sticky n[6:0]
    wire        inc = s3_n_reg[7] & (s3_n_reg[8] | (s3_n_reg[6:0] != 7'd0));
    wire [30:0] pk = {s3_e_reg, s3_n_reg[30:8]} + {30'd0, inc};
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce)
        y_reg <= s3_zero_reg ? 32'd0 : {s3_neg_reg, pk};
    assign y = y_reg;
endmodule
