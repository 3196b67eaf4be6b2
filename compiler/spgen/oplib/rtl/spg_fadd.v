`default_nettype none
// spg_fadd: f32 a + b, IEEE-754 round-to-nearest-even, subnormals exact (FTZ = 0)
// or flushed to zero, sign kept, on input and output (FTZ = 1). NaN results are
// the quiet NaN 0x7FC00000; an exact zero sum is +0 unless both operands are -0.
// Latency 6, one carry chain or shifter per 5 ns cycle at 200 MHz on Arria 10:
//   1 FTZ flush, magnitude compare (31-bit carry chain), both exponent differences
//   2 operand swap and alignment shift with sticky bit (27-bit barrel shifter)
//   3 28-bit add/subtract
//   4 leading-zero count (27 bits) and the normalization shift amount / exponent
//   5 normalization shift (27-bit barrel shifter)
//   6 round to nearest even (31-bit increment, which also carries into the
//     exponent and overflows to inf), specials, FTZ result flush
module spg_fadd #(
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
            $display("spg_fadd: FTZ must be 0 or 1");
            $finish;
        end
    end

    // ---- stage 1: flush, classify, compare magnitudes
    wire [31:0] af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
    wire [31:0] bf = (FTZ != 0 && b[30:23] == 8'd0) ? {b[31], 31'd0} : b;
    wire        a_nan = af[30:23] == 8'hFF && af[22:0] != 23'd0;
    wire        b_nan = bf[30:23] == 8'hFF && bf[22:0] != 23'd0;
    wire        a_inf = af[30:0] == 31'h7F800000;
    wire        b_inf = bf[30:0] == 31'h7F800000;
    wire        swap = bf[30:0] > af[30:0];
    wire [7:0]  ea = (af[30:23] == 8'd0) ? 8'd1 : af[30:23];  // subnormals: exponent 1, no hidden bit
    wire [7:0]  eb = (bf[30:23] == 8'd0) ? 8'd1 : bf[30:23];
    reg         s1_sign_reg, s1_sub_reg, s1_nan_reg, s1_inf_reg;
    reg  [7:0]  s1_el_reg, s1_d_reg;
    reg  [23:0] s1_ml_reg, s1_ms_reg;
    always @(posedge clk) if (ce) begin
        s1_sign_reg <= swap ? bf[31] : af[31];
        s1_sub_reg  <= af[31] ^ bf[31];
        s1_nan_reg  <= a_nan | b_nan | (a_inf & b_inf & (af[31] ^ bf[31]));
        s1_inf_reg  <= a_inf | b_inf;
        s1_el_reg   <= swap ? eb : ea;
        s1_d_reg    <= swap ? eb - ea : ea - eb;
        s1_ml_reg   <= swap ? {bf[30:23] != 8'd0, bf[22:0]} : {af[30:23] != 8'd0, af[22:0]};
        s1_ms_reg   <= swap ? {af[30:23] != 8'd0, af[22:0]} : {bf[30:23] != 8'd0, bf[22:0]};
    end

    // ---- stage 2: align the smaller operand; bits shifted out collapse into a sticky bit
    wire [4:0]  dc = (s1_d_reg > 8'd27) ? 5'd27 : s1_d_reg[4:0];
    wire [53:0] al = {s1_ms_reg, 30'd0} >> dc;
    reg         s2_sign_reg, s2_sub_reg, s2_nan_reg, s2_inf_reg;
    reg  [7:0]  s2_el_reg;
    reg  [23:0] s2_ml_reg;
    reg  [26:0] s2_ms_reg;  // mantissa, guard, round, sticky
    always @(posedge clk) if (ce) begin
        s2_sign_reg <= s1_sign_reg;
        s2_sub_reg  <= s1_sub_reg;
        s2_nan_reg  <= s1_nan_reg;
        s2_inf_reg  <= s1_inf_reg;
        s2_el_reg   <= s1_el_reg;
        s2_ml_reg   <= s1_ml_reg;
        s2_ms_reg   <= {al[53:28], al[27] | (al[26:0] != 27'd0)};
    end

    // ---- stage 3: add or subtract magnitudes (larger minus smaller: never negative)
    reg         s3_sign_reg, s3_sub_reg, s3_nan_reg, s3_inf_reg;
    reg  [7:0]  s3_el_reg;
    reg  [27:0] s3_sum_reg;
    always @(posedge clk) if (ce) begin
        s3_sign_reg <= s2_sign_reg;
        s3_sub_reg  <= s2_sub_reg;
        s3_nan_reg  <= s2_nan_reg;
        s3_inf_reg  <= s2_inf_reg;
        s3_el_reg   <= s2_el_reg;
        s3_sum_reg  <= s2_sub_reg ? {1'b0, s2_ml_reg, 3'b000} - {1'b0, s2_ms_reg}
                                  : {1'b0, s2_ml_reg, 3'b000} + {1'b0, s2_ms_reg};
    end

    // ---- stage 4: leading zeros -> shift amount and exponent (subnormal results
    // shift only as far as exponent 1 allows)
    reg  [4:0]  lz;
    integer k;
    always @* begin
        lz = 5'd27;
        for (k = 0; k < 27; k = k + 1)
            if (s3_sum_reg[k]) lz = 5'd26 - k[4:0];
    end
    wire        lz_fits = {3'd0, lz} < s3_el_reg;
    reg         s4_sign_reg, s4_sub_reg, s4_nan_reg, s4_inf_reg, s4_carry_reg, s4_zero_reg;
    reg  [4:0]  s4_sh_reg;
    reg  [8:0]  s4_e_reg;
    reg  [26:0] s4_sum_reg;
    always @(posedge clk) if (ce) begin
        s4_sign_reg  <= s3_sign_reg;
        s4_sub_reg   <= s3_sub_reg;
        s4_nan_reg   <= s3_nan_reg;
        s4_inf_reg   <= s3_inf_reg;
        s4_carry_reg <= s3_sum_reg[27];
        s4_zero_reg  <= s3_sum_reg == 28'd0;
        s4_sh_reg    <= lz_fits ? lz : s3_el_reg[4:0] - 5'd1;  // el <= lz <= 27 here
        s4_e_reg     <= s3_sum_reg[27] ? {1'b0, s3_el_reg} + 9'd1
                      : lz_fits ? {1'b0, s3_el_reg} - {4'd0, lz} : 9'd0;
        s4_sum_reg   <= s3_sum_reg[26:0];
    end

    // ---- stage 5: normalize
    wire [25:0] nl = s4_sum_reg[25:0] << s4_sh_reg;  // the hidden bit falls off the top
    reg         s5_sign_reg, s5_sub_reg, s5_nan_reg, s5_inf_reg, s5_zero_reg;
    reg  [8:0]  s5_e_reg;
    reg  [25:0] s5_n_reg;  // fraction (23), guard, round, sticky; the hidden bit is implied by e
    always @(posedge clk) if (ce) begin
        s5_sign_reg <= s4_sign_reg;
        s5_sub_reg  <= s4_sub_reg;
        s5_nan_reg  <= s4_nan_reg;
        s5_inf_reg  <= s4_inf_reg;
        s5_zero_reg <= s4_zero_reg;
        s5_e_reg    <= s4_e_reg;
        s5_n_reg    <= s4_carry_reg ? {s4_sum_reg[26:2], s4_sum_reg[1] | s4_sum_reg[0]} : nl;
    end

    // ---- stage 6: round to nearest even; the increment may carry into the exponent
    wire        inc = s5_n_reg[2] & (s5_n_reg[1] | s5_n_reg[0] | s5_n_reg[3]);
    wire [30:0] pk = {s5_e_reg[7:0], s5_n_reg[25:3]} + {30'd0, inc};
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (s5_nan_reg)
            y_reg <= 32'h7FC00000;
        else if (s5_inf_reg || s5_e_reg >= 9'd255)
            y_reg <= {s5_sign_reg, 31'h7F800000};
        else if (s5_zero_reg)
            y_reg <= {s5_sign_reg & ~s5_sub_reg, 31'd0};
        else if (FTZ != 0 && pk[30:23] == 8'd0)
            y_reg <= {s5_sign_reg, 31'd0};
        else
            y_reg <= {s5_sign_reg, pk};
    end
    assign y = y_reg;
endmodule
