`default_nettype none
// spg_dsp_fadd (behavioural model): f32 y = a + b as one Arria 10 FP32 DSP block in
// "sp_add" mode computes it, for Verilator, Yosys and the simulated card (Intel's own
// model is encrypted). Quartus builds the wrapper over Intel's primitive instead
// (spgen.oplib.dsp_primitive_file): same module, same ports, same latency. Intel
// documents: round to nearest even; subnormal operands and results flushed to zero,
// sign kept; overflow to infinity; invalid (inf - inf, a NaN operand) to a quiet NaN,
// here 0x7FC00000; x + (-x) = +0, (-0) + (-0) = -0.
// Bit for bit what spg_fadd #(.FTZ(1)) computes: a sum of zeros and normals that lies
// below the smallest normal is exact, so no rounding decides whether it is flushed.
// Latency 3, the block's registers all on: inputs (ax, ay), adder input, output.
// Simulation only: the sum is exact in a 280-bit fixed-point register, then rounded.
    // Every finite f32 is a multiple of 2^-149 below 2^128: 277 bits, 278 for a sum.
    localparam integer W = 280;

    function automatic [31:0] flush(input [31:0] x);
        flush = (x[30:23] == 8'd0) ? {x[31], 31'd0} : x;
    endfunction

    // |x| in units of 2^-149; x is zero or normal
    function automatic [W-1:0] fixed(input [30:0] x);
        fixed = (x[30:23] == 8'd0) ? {W{1'b0}}
              : {{(W - 24){1'b0}}, 1'b1, x[22:0]} << (x[30:23] - 8'd1);
    endfunction

    // sign * m * 2^-149, m != 0, rounded to nearest even; a result below the smallest
    // normal is a zero of the same sign (it is exact here: no rounding is involved)
    function automatic [31:0] pack(input sign, input [W-1:0] m);
        integer p, k, e;
        reg [W-1:0] q, r, half;
        begin
            p = 0;
            for (k = 0; k < W; k = k + 1)
                if (m[k]) p = k;
            if (p < 23) begin
                pack = {sign, 31'd0};
            end else begin
                e = p - 22;  // biased exponent of the leading one
                q = m >> (p - 23);
                r = m - (q << (p - 23));
                half = (p == 23) ? {W{1'b0}} : {{(W - 1){1'b0}}, 1'b1} << (p - 24);
                if (p > 23 && (r > half || (r == half && q[0])))
                    q = q + 1'b1;
                if (q[24]) begin  // rounded up to the next power of two
                    q = q >> 1;
                    e = e + 1;
                end
                pack = (e >= 255) ? {sign, 31'h7F800000} : {sign, e[7:0], q[22:0]};
            end
        end
    endfunction

    function automatic [31:0] add(input [31:0] a_in, input [31:0] b_in);
        reg [31:0] x, z;
        reg [W-1:0] mx, mz;
        reg x_nan, z_nan, x_inf, z_inf;
        begin
            x = flush(a_in);
            z = flush(b_in);
            x_nan = x[30:23] == 8'hFF && x[22:0] != 23'd0;
            z_nan = z[30:23] == 8'hFF && z[22:0] != 23'd0;
            x_inf = x[30:0] == 31'h7F800000;
            z_inf = z[30:0] == 31'h7F800000;
            mx = fixed(x[30:0]);
            mz = fixed(z[30:0]);
            if (x_nan || z_nan || (x_inf && z_inf && x[31] != z[31]))
                add = 32'h7FC00000;
            else if (x_inf)
                add = x;
            else if (z_inf)
                add = z;
            else if (x[31] == z[31])
                add = (mx + mz == {W{1'b0}}) ? {x[31], 31'd0} : pack(x[31], mx + mz);
            else if (mx == mz)
                add = 32'd0;
            else
                add = (mx > mz) ? pack(x[31], mx - mz) : pack(z[31], mz - mx);
        end
    endfunction

