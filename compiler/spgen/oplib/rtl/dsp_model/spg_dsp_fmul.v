`default_nettype none
// spg_dsp_fmul (behavioural model): f32 y = a * b as one Arria 10 FP32 DSP block in
// "sp_mult" mode computes it, for Verilator, Yosys and the simulated card (Intel's own
// model is encrypted). Quartus builds the wrapper over Intel's primitive instead
// (spgen.oplib.dsp_primitive_file): same module, same ports, same latency. Intel
// documents: round to nearest even; subnormal operands and results flushed to zero;
// overflow to infinity; invalid (inf * 0, a NaN operand) to a quiet NaN, here
// 0x7FC00000. Intel does not say when a product just below the smallest normal counts
// as subnormal; like spg_fmul #(.FTZ(1)), bit for bit, this model rounds as IEEE-754
// does (to the subnormal grid, 2^-149) and flushes the result if it is still subnormal,
// keeping the sign: a product that rounds up to the smallest normal stays. A flushed or zero product has the sign a ^ b.
// Latency 3, the block's registers all on: inputs (ay, az), multiplier pipeline, output.
// Simulation only: the 48-bit product is rounded in one step.
    // sign * m * 2^(e - 300) for the product m of two 24-bit mantissas and the sum e of
    // two biased exponents, rounded to nearest even, then flushed if subnormal
    function automatic [31:0] pack(input sign, input [47:0] m, input [8:0] e);
        integer p, s, be;
        reg [47:0] q, r, half;
        begin
            p = m[47] ? 47 : 46;
            be = p + {23'd0, e} - 173;  // biased exponent of the leading one
            s = (be >= 1) ? p - 23 : 151 - {23'd0, e};  // bits below the result's last bit
            q = (s >= 48) ? 48'd0 : m >> s;
            r = (s >= 48) ? m : m - (q << s);
            half = (s > 48) ? 48'd0 : 48'd1 << (s - 1);
            if (s <= 48 && (r > half || (r == half && q[0])))
                q = q + 48'd1;
            if (be < 1)  // subnormal grid: q = 2^23 is the smallest normal
                pack = q[23] ? {sign, 8'd1, 23'd0} : {sign, 31'd0};
            else begin
                if (q[24]) begin  // rounded up to the next power of two
                    q = q >> 1;
                    be = be + 1;
                end
                pack = (be >= 255) ? {sign, 31'h7F800000} : {sign, be[7:0], q[22:0]};
            end
        end
    endfunction

    function automatic [31:0] mul(input [31:0] a_in, input [31:0] b_in);
        reg x_zero, z_zero, x_nan, z_nan, x_inf, z_inf, sign;
        begin
            x_zero = a_in[30:23] == 8'd0;  // zero or subnormal: flushed
            z_zero = b_in[30:23] == 8'd0;
            x_nan = a_in[30:23] == 8'hFF && a_in[22:0] != 23'd0;
            z_nan = b_in[30:23] == 8'hFF && b_in[22:0] != 23'd0;
            x_inf = a_in[30:0] == 31'h7F800000;
            z_inf = b_in[30:0] == 31'h7F800000;
            sign = a_in[31] ^ b_in[31];
            if (x_nan || z_nan || (x_inf && z_zero) || (x_zero && z_inf))
                mul = 32'h7FC00000;
            else if (x_inf || z_inf)
                mul = {sign, 31'h7F800000};
            else if (x_zero || z_zero)
                mul = {sign, 31'd0};
            else
                mul = pack(sign, {1'b1, a_in[22:0]} * {1'b1, b_in[22:0]},
                           {1'b0, a_in[30:23]} + {1'b0, b_in[30:23]});
        end
    endfunction

