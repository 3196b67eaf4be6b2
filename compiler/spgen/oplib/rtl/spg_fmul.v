`default_nettype none
// spg_fmul: f32 a * b, IEEE-754 round-to-nearest-even, subnormals exact (FTZ = 0)
// or flushed to zero, sign kept, on input and output (FTZ = 1). NaN results are
// the quiet NaN 0x7FC00000.
// Latency 6, one carry chain, shifter or DSP step per 5 ns cycle at 200 MHz on Arria 10:
//   1 FTZ flush, classify, exponent sum (DSP input registers)
//   2 24x24 mantissa product (one 27x27 DSP block, output register)
//   3 leading-zero count of the 48-bit product (subnormal operands leave leading zeros)
//   4 result exponent and shift: left to normalize, or right into the subnormal range
//   5 48-bit barrel shift with sticky bit
//   6 round to nearest even (31-bit increment, carries into the exponent and to inf),
//     specials, FTZ result flush
module spg_fmul #(
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
            $display("spg_fmul: FTZ must be 0 or 1");
            $finish;
        end
    end

    // ---- stage 1: flush, classify; biased exponent if the product's top bit (47) is set
    wire [31:0] af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
    wire [31:0] bf = (FTZ != 0 && b[30:23] == 8'd0) ? {b[31], 31'd0} : b;
    wire        a_nan = af[30:23] == 8'hFF && af[22:0] != 23'd0;
    wire        b_nan = bf[30:23] == 8'hFF && bf[22:0] != 23'd0;
    wire        a_inf = af[30:0] == 31'h7F800000;
    wire        b_inf = bf[30:0] == 31'h7F800000;
    wire        a_zero = af[30:0] == 31'd0;
    wire        b_zero = bf[30:0] == 31'd0;
    wire [9:0]  ea = (af[30:23] == 8'd0) ? 10'd1 : {2'd0, af[30:23]};
    wire [9:0]  eb = (bf[30:23] == 8'd0) ? 10'd1 : {2'd0, bf[30:23]};
    reg         s1_sign_reg, s1_nan_reg, s1_inf_reg, s1_zero_reg;
    reg  [9:0]  s1_e0_reg;  // two's complement, -124..382
    reg  [23:0] s1_ma_reg, s1_mb_reg;
    always @(posedge clk) if (ce) begin
        s1_sign_reg <= af[31] ^ bf[31];
        s1_nan_reg  <= a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero);
        s1_inf_reg  <= a_inf | b_inf;
        s1_zero_reg <= a_zero | b_zero;
        s1_e0_reg   <= ea + eb - 10'd126;
        s1_ma_reg   <= {af[30:23] != 8'd0, af[22:0]};
        s1_mb_reg   <= {bf[30:23] != 8'd0, bf[22:0]};
    end

    // ---- stage 2: mantissa product
    reg         s2_sign_reg, s2_nan_reg, s2_inf_reg, s2_zero_reg;
    reg  [9:0]  s2_e0_reg;
    reg  [47:0] s2_p_reg;
    always @(posedge clk) if (ce) begin
        s2_sign_reg <= s1_sign_reg;
        s2_nan_reg  <= s1_nan_reg;
        s2_inf_reg  <= s1_inf_reg;
        s2_zero_reg <= s1_zero_reg;
        s2_e0_reg   <= s1_e0_reg;
        s2_p_reg    <= s1_ma_reg * s1_mb_reg;
    end

    // ---- stage 3: leading zeros of the product
    reg  [5:0]  lz;
    integer k;
    always @* begin
        lz = 6'd47;  // a zero product is handled as a special case
        for (k = 0; k < 48; k = k + 1)
            if (s2_p_reg[k]) lz = 6'd47 - k[5:0];
    end
    reg         s3_sign_reg, s3_nan_reg, s3_inf_reg, s3_zero_reg;
    reg  [9:0]  s3_e0_reg;
    reg  [5:0]  s3_lz_reg;
    reg  [47:0] s3_p_reg;
    always @(posedge clk) if (ce) begin
        s3_sign_reg <= s2_sign_reg;
        s3_nan_reg  <= s2_nan_reg;
        s3_inf_reg  <= s2_inf_reg;
        s3_zero_reg <= s2_zero_reg;
        s3_e0_reg   <= s2_e0_reg;
        s3_lz_reg   <= lz;
        s3_p_reg    <= s2_p_reg;
    end

    // ---- stage 4: exponent and shift. Normal result: shift left by lz. Subnormal:
    // shift left only down to exponent 1 (by e0 - 1), or right by 1 - e0 when e0 < 1.
    wire [9:0]  e_norm = s3_e0_reg - {4'd0, s3_lz_reg};
    wire        normal = !e_norm[9] && e_norm != 10'd0;
    wire        e0_pos = !s3_e0_reg[9] && s3_e0_reg != 10'd0;
    wire [9:0]  rsh = 10'd1 - s3_e0_reg;
    reg         s4_sign_reg, s4_nan_reg, s4_inf_reg, s4_zero_reg, s4_right_reg, s4_ovf_reg;
    reg  [7:0]  s4_e_reg;
    reg  [5:0]  s4_sh_reg;
    reg  [47:0] s4_p_reg;
    always @(posedge clk) if (ce) begin
        s4_sign_reg  <= s3_sign_reg;
        s4_nan_reg   <= s3_nan_reg;
        s4_inf_reg   <= s3_inf_reg;
        s4_zero_reg  <= s3_zero_reg;
        s4_ovf_reg   <= normal && e_norm >= 10'd255;
        s4_e_reg     <= normal ? e_norm[7:0] : 8'd0;
        s4_right_reg <= !normal && !e0_pos;
        s4_sh_reg    <= normal ? s3_lz_reg
                      : e0_pos ? s3_e0_reg[5:0] - 6'd1           // < lz <= 47 here
                      : (rsh > 10'd48) ? 6'd48 : rsh[5:0];        // 48: everything is sticky
        s4_p_reg     <= s3_p_reg;
    end

    // ---- stage 5: shift
    /* verilator lint_off UNUSEDSIGNAL */
    wire [47:0] pl = s4_p_reg << s4_sh_reg;            // bit 47: the implied hidden bit
    wire [95:0] pr = {s4_p_reg, 48'd0} >> s4_sh_reg;   // bit 95: 0, since the shift is >= 1
    /* verilator lint_on UNUSEDSIGNAL */
    reg         s5_sign_reg, s5_nan_reg, s5_inf_reg, s5_zero_reg, s5_ovf_reg;
    reg  [7:0]  s5_e_reg;
    reg  [24:0] s5_n_reg;  // fraction (23), guard, sticky; the hidden bit is implied by e
    always @(posedge clk) if (ce) begin
        s5_sign_reg <= s4_sign_reg;
        s5_nan_reg  <= s4_nan_reg;
        s5_inf_reg  <= s4_inf_reg;
        s5_zero_reg <= s4_zero_reg;
        s5_ovf_reg  <= s4_ovf_reg;
        s5_e_reg    <= s4_e_reg;
        s5_n_reg    <= s4_right_reg ? {pr[94:72], pr[71], pr[70:0] != 71'd0}
                                    : {pl[46:24], pl[23], pl[22:0] != 23'd0};
    end

    // ---- stage 6: round to nearest even, specials
    wire        inc = s5_n_reg[1] & (s5_n_reg[0] | s5_n_reg[2]);
    wire [30:0] pk = {s5_e_reg, s5_n_reg[24:2]} + {30'd0, inc};
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (s5_nan_reg)
            y_reg <= 32'h7FC00000;
        else if (s5_inf_reg || s5_ovf_reg)
            y_reg <= {s5_sign_reg, 31'h7F800000};
        else if (s5_zero_reg || (FTZ != 0 && pk[30:23] == 8'd0))
            y_reg <= {s5_sign_reg, 31'd0};
        else
            y_reg <= {s5_sign_reg, pk};
    end
    assign y = y_reg;
endmodule
