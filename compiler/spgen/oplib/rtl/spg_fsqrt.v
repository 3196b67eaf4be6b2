`default_nettype none
// spg_fsqrt: f32 correctly rounded square root (round-to-nearest-even). -0 gives -0,
// any other negative operand (and NaN) the quiet NaN 0x7FC00000, +inf gives +inf.
// Subnormal operands are exact (FTZ = 0) or read as zero (FTZ = 1); results are
// never subnormal.
// Digit-by-digit square root, one root bit per stage (a 27-bit subtract and a mux,
// ~3 ns on Arria 10), so that every stage fits a 5 ns cycle at 200 MHz without DSPs.
// Latency 28:
//   1     FTZ flush, classify, leading zeros of the mantissa (subnormals)
//   2     normalize; halve the exponent, make it even by scaling the radicand
//   3-27  25 root bits: 24 of mantissa and the guard bit
//   28    round to nearest even (sticky = remainder != 0), specials
    localparam RBITS = 25;       // root bits: hidden + 23 fraction + guard
    localparam REM_WIDTH = 27;   // partial remainder < 2 root + 1 < 2^26, plus the new pair

    // ---- stage 1: flush, classify, leading zeros
    wire [31:0] af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
    wire        nan = (af[30:23] == 8'hFF && af[22:0] != 23'd0) || (af[31] && af[30:0] != 31'd0);
    wire [23:0] ma = {af[30:23] != 8'd0, af[22:0]};
    reg  [4:0]  lz;
    integer k;
    always @* begin
        lz = 5'd0;
        for (k = 0; k < 24; k = k + 1)
            if (ma[k]) lz = 5'd23 - k[4:0];
    end
    reg         s1_nan_reg, s1_pass_reg;  // pass: +-0 and +inf are their own root
    reg         s1_sign_reg, s1_inf_reg;
    reg  [9:0]  s1_e127_reg;              // effective exponent + 127
    reg  [4:0]  s1_lz_reg;
    reg  [23:0] s1_ma_reg;
    always @(posedge clk) if (ce) begin
        s1_nan_reg  <= nan;
        s1_pass_reg <= af[30:0] == 31'd0 || af == 32'h7F800000;
        s1_sign_reg <= af[31];
        s1_inf_reg  <= af[30:23] == 8'hFF;
        s1_e127_reg <= ((af[30:23] == 8'd0) ? 10'd1 : {2'd0, af[30:23]}) + 10'd127;
        s1_lz_reg   <= lz;
        s1_ma_reg   <= ma;
    end

    // ---- stage 2: value = na * 2^(e - 127 - 23) with e = e_eff - lz. An odd
    // unbiased exponent doubles the radicand; the root's biased exponent is
    // floor((e - 127) / 2) + 127 = (e + 127) >> 1.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [9:0]  e127 = s1_e127_reg - {5'd0, s1_lz_reg};  // 105..381: bit 9 is 0
    /* verilator lint_on UNUSEDSIGNAL */
    wire [23:0] na = s1_ma_reg << s1_lz_reg;
    wire        odd = e127[0];  // e - 127 is odd exactly when e + 127 is
    localparam SIDE_WIDTH = 2 + 8 + 2;  // sign, inf, exponent, nan, pass
    reg  [24:0] s2_x_reg;  // radicand = s2_x_reg * 2^25
    reg  [SIDE_WIDTH-1:0] s2_side_reg;
    always @(posedge clk) if (ce) begin
        s2_x_reg    <= odd ? {na, 1'b0} : {1'b0, na};
        s2_side_reg <= {s1_sign_reg, s1_inf_reg, e127[8:1], s1_nan_reg, s1_pass_reg};
    end

    // ---- stages 3-27: root bit i consumes radicand bits 49 - 2i and 48 - 2i
    // Bounds leave some bits constant 0 (remainder < 2^25 before the last shift, the
    // root's top bit, the radicand after its last pair): lint need not report them.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [RBITS*REM_WIDTH-1:0]  rem_chain;
    wire [RBITS*RBITS-1:0]      root_chain;
    wire [RBITS*25-1:0]         x_chain;
    wire [RBITS*SIDE_WIDTH-1:0] side_chain;
    /* verilator lint_on UNUSEDSIGNAL */
    genvar i;
    generate
        for (i = 0; i < RBITS; i = i + 1) begin : iter
            /* verilator lint_off UNUSEDSIGNAL */
            wire [REM_WIDTH-1:0]  rem_in = (i == 0) ? {REM_WIDTH{1'b0}}
                                         : rem_chain[(i-1)*REM_WIDTH +: REM_WIDTH];
            wire [RBITS-1:0]      root_in = (i == 0) ? {RBITS{1'b0}} : root_chain[(i-1)*RBITS +: RBITS];
            wire [24:0]           x_in = (i == 0) ? s2_x_reg : x_chain[(i-1)*25 +: 25];
            wire [SIDE_WIDTH-1:0] side_in = (i == 0) ? s2_side_reg
                                          : side_chain[(i-1)*SIDE_WIDTH +: SIDE_WIDTH];
            // the radicand's pair for this bit: x_in holds bits 49..25, lower bits are 0
            wire [1:0]            pair;
            if (2 * i + 1 <= 24) begin : hi
                assign pair = x_in[24 - 2 * i -: 2];
            end else if (2 * i <= 24) begin : mid
                assign pair = {x_in[0], 1'b0};
            end else begin : lo
                assign pair = 2'b00;
            end
            wire [REM_WIDTH-1:0]  cur = {rem_in[REM_WIDTH-3:0], pair};
            wire [REM_WIDTH-1:0]  trial = {1'b0, root_in[REM_WIDTH-4:0], 2'b01};
            /* verilator lint_on UNUSEDSIGNAL */
            wire                  ge = cur >= trial;
            reg  [REM_WIDTH-1:0]  rem_reg;
            reg  [RBITS-1:0]      root_reg;
            reg  [24:0]           x_reg;
            reg  [SIDE_WIDTH-1:0] side_reg;
            always @(posedge clk) if (ce) begin
                rem_reg  <= ge ? cur - trial : cur;
                root_reg <= {root_in[RBITS-2:0], ge};
                x_reg    <= x_in;
                side_reg <= side_in;
            end
            assign rem_chain[i*REM_WIDTH +: REM_WIDTH] = rem_reg;
            assign root_chain[i*RBITS +: RBITS] = root_reg;
            assign x_chain[i*25 +: 25] = x_reg;
            assign side_chain[i*SIDE_WIDTH +: SIDE_WIDTH] = side_reg;
        end
    endgenerate
    wire [REM_WIDTH-1:0]  rem = rem_chain[(RBITS-1)*REM_WIDTH +: REM_WIDTH];
    /* verilator lint_off UNUSEDSIGNAL */
    wire [RBITS-1:0]      root = root_chain[(RBITS-1)*RBITS +: RBITS];  // root[24] = 1 (hidden bit)
    /* verilator lint_on UNUSEDSIGNAL */
    wire [SIDE_WIDTH-1:0] side = side_chain[(RBITS-1)*SIDE_WIDTH +: SIDE_WIDTH];

    // ---- stage 28: round to nearest even (the increment may carry into the exponent)
    wire        inc = root[0] & ((rem != {REM_WIDTH{1'b0}}) | root[1]);
    wire [30:0] pk = {side[9:2], root[23:1]} + {30'd0, inc};
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce) begin
        if (side[1])
            y_reg <= 32'h7FC00000;
        else if (side[0])
            y_reg <= {side[11], side[10] ? 31'h7F800000 : 31'd0};
        else
            y_reg <= {1'b0, pk};
    end
    assign y = y_reg;
endmodule
