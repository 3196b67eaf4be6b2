`default_nettype none
// spg_idiv_core: the 32-bit pipelined restoring divider shared by spg_sdiv, spg_srem,
// spg_udiv and spg_urem (not an IR op). b == 0 gives 0; signed: the quotient rounds
// toward zero (INT_MIN / -1 gives INT_MIN), the remainder has the sign of a
// (INT_MIN % -1 gives 0).
// One quotient bit per stage: a 33-bit subtract and a mux (~3 ns on Arria 10) per
// 5 ns cycle at 200 MHz, no DSPs, initiation interval 1.
// Latency 33 + SIGNED:
//   1          (SIGNED only) operand magnitudes (32-bit negations) and signs
//   next 32    32 restoring-division steps, one quotient bit each
//   last       select quotient or remainder, sign it (SIGNED), b == 0 gives 0

    wire [31:0] n_in, d_in;
    wire [1:0]  f_in;  // {negate the result, b == 0}
    generate
        if (SIGNED != 0) begin : mag
            // ---- stage 1: magnitudes (INT_MIN's magnitude 2^31 fits 32 unsigned bits)
            reg  [31:0] ua_reg, ub_reg;
            reg         neg_reg, bz_reg;
            always @(posedge clk) if (ce) begin
                ua_reg  <= a[31] ? 32'd0 - a : a;
                ub_reg  <= b[31] ? 32'd0 - b : b;
                neg_reg <= (REMAINDER != 0) ? a[31] : a[31] ^ b[31];
                bz_reg  <= b == 32'd0;
            end
            assign n_in = ua_reg;
            assign d_in = ub_reg;
            assign f_in = {neg_reg, bz_reg};
        end else begin : raw
            assign n_in = a;
            assign d_in = b;
            assign f_in = {1'b0, b == 32'd0};
        end
    endgenerate

    // ---- division steps: stage i brings down dividend bit 31 - i
    wire [32*32-1:0] r_chain, n_chain, d_chain;
    wire [32*2-1:0]  f_chain;
    genvar i;
    generate
        for (i = 0; i < 32; i = i + 1) begin : step
            wire [31:0] r_in = (i == 0) ? 32'd0 : r_chain[(i-1)*32 +: 32];
            wire [31:0] n_in_i = (i == 0) ? n_in : n_chain[(i-1)*32 +: 32];  // dividend, then quotient bits
            wire [31:0] d_in_i = (i == 0) ? d_in : d_chain[(i-1)*32 +: 32];
            wire [1:0]  f_in_i = (i == 0) ? f_in : f_chain[(i-1)*2 +: 2];
            localparam [31:0] R_MASK = (i == 31) ? 32'hFFFFFFFF : ((32'd1 << (i + 1)) - 32'd1);
            wire [32:0] cur = {r_in, n_in_i[31]};
            /* verilator lint_off UNUSEDSIGNAL */
            wire [33:0] t = {1'b0, cur} - {2'b00, d_in_i};  // t[32] = 0 when t >= 0
            /* verilator lint_on UNUSEDSIGNAL */
            reg  [31:0] r_reg, n_reg, d_reg;
            reg  [1:0]  f_reg;
            always @(posedge clk) if (ce) begin
                // cur < 2 d, so cur - d < 2^32; after i + 1 dividend bits the remainder is
                // below 2^(i+1): the mask lets synthesis drop the constant-zero bits
                r_reg <= (t[33] ? cur[31:0] : t[31:0]) & R_MASK;
                n_reg <= {n_in_i[30:0], ~t[33]};
                d_reg <= d_in_i;
                f_reg <= f_in_i;
            end
            assign r_chain[i*32 +: 32] = r_reg;
            assign n_chain[i*32 +: 32] = n_reg;
            assign d_chain[i*32 +: 32] = d_reg;
            assign f_chain[i*2 +: 2] = f_reg;
        end
    endgenerate
    wire [31:0] r_last = r_chain[31*32 +: 32];
    wire [31:0] q_last = n_chain[31*32 +: 32];
    wire [1:0]  f_last = f_chain[31*2 +: 2];  // {negate the result, b == 0}
    wire [31:0] res = (REMAINDER != 0) ? r_last : q_last;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] unused_last = d_chain[31*32 +: 32];  // not needed after the last step
    /* verilator lint_on UNUSEDSIGNAL */

    // ---- last stage: sign and the divide-by-zero rule
    reg  [31:0] y_reg;
    always @(posedge clk) if (ce)
        y_reg <= f_last[0] ? 32'd0 : f_last[1] ? 32'd0 - res : res;
    assign y = y_reg;
endmodule
