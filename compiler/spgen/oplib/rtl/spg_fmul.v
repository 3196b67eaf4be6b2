`default_nettype none
// spg_fmul: f32 a * b, round-to-nearest-even, subnormals exact (or flushed with FTZ).
// Latency 5 (TEMPORARY: combinational core behind a delay line).
module spg_fmul #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    localparam DEPTH = 5;
    reg [31:0] y_comb;
    reg [31:0] af, bf;
    reg        a_nan, b_nan, a_inf, b_inf, a_zero, b_zero, s;
    reg [23:0] ma, mb;
    reg [47:0] p;
    reg [5:0]  lz;
    reg signed [10:0] e0, e;
    reg [47:0] n;
    reg [95:0] w;
    reg        st, inc;
    reg [7:0]  rsh;
    reg [30:0] pk;
    integer k;
    always @* begin
        af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
        bf = (FTZ != 0 && b[30:23] == 8'd0) ? {b[31], 31'd0} : b;
        s = af[31] ^ bf[31];
        a_nan = af[30:23] == 8'hFF && af[22:0] != 23'd0;
        b_nan = bf[30:23] == 8'hFF && bf[22:0] != 23'd0;
        a_inf = af[30:0] == 31'h7F800000;
        b_inf = bf[30:0] == 31'h7F800000;
        a_zero = af[30:0] == 31'd0;
        b_zero = bf[30:0] == 31'd0;
        ma = {af[30:23] != 8'd0, af[22:0]};
        mb = {bf[30:23] != 8'd0, bf[22:0]};
        p = ma * mb;
        lz = 6'd48;
        for (k = 0; k < 48; k = k + 1) if (p[k]) lz = 6'd47 - k[5:0];
        e0 = $signed({3'd0, (af[30:23] == 8'd0) ? 8'd1 : af[30:23]})
           + $signed({3'd0, (bf[30:23] == 8'd0) ? 8'd1 : bf[30:23]}) - 11'sd126;
        e = e0 - $signed({5'd0, lz});
        st = 1'b0;
        rsh = 8'd0;
        if (e >= 11'sd1) begin
            n = p << lz;
        end else if (e0 >= 11'sd1) begin
            n = p << (e0 - 11'sd1);
            e = 11'sd0;
        end else begin
            rsh = (11'sd1 - e0 > 11'sd48) ? 8'd48 : 8'(11'sd1 - e0);
            w = {p, 48'd0} >> rsh;
            n = w[95:48];
            st = w[47:0] != 48'd0;
            e = 11'sd0;
        end
        inc = n[23] & ((n[22:0] != 23'd0) | st | n[24]);
        pk = {e[7:0], n[46:24]} + {30'd0, inc};
        if (a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero))
            y_comb = 32'h7FC00000;
        else if (a_inf | b_inf)
            y_comb = {s, 31'h7F800000};
        else if (a_zero | b_zero)
            y_comb = {s, 31'd0};
        else if (e >= 11'sd255)
            y_comb = {s, 31'h7F800000};
        else if (FTZ != 0 && pk[30:23] == 8'd0)
            y_comb = {s, 31'd0};
        else
            y_comb = {s, pk};
    end
    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
