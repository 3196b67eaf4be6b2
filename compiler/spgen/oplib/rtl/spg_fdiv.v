`default_nettype none
// spg_fdiv: f32 a / b, round-to-nearest-even, subnormals exact (or flushed with FTZ).
// Latency 29 (TEMPORARY: combinational core behind a delay line).
module spg_fdiv #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    localparam DEPTH = 29;
    reg [31:0] y_comb;
    reg [31:0] af, bf;
    reg        a_nan, b_nan, a_inf, b_inf, a_zero, b_zero, s, st, inc;
    reg [23:0] ma, mb, na, nb;
    reg [4:0]  lza, lzb;
    reg signed [10:0] e;
    reg [48:0] num;
    reg [24:0] q, n;
    reg [49:0] w;
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
        lza = 5'd0; lzb = 5'd0;
        for (k = 0; k < 24; k = k + 1) begin
            if (ma[k]) lza = 5'd23 - k[4:0];
            if (mb[k]) lzb = 5'd23 - k[4:0];
        end
        na = ma << lza;
        nb = mb << lzb;
        e = $signed({3'd0, (af[30:23] == 8'd0) ? 8'd1 : af[30:23]}) - $signed({6'd0, lza})
          - $signed({3'd0, (bf[30:23] == 8'd0) ? 8'd1 : bf[30:23]}) + $signed({6'd0, lzb}) + 11'sd127;
        if (na < nb) begin
            num = {na, 25'd0};
            e = e - 11'sd1;
        end else begin
            num = {1'b0, na, 24'd0};
        end
        q = 25'(num / {25'd0, nb});
        st = (num % {25'd0, nb}) != 49'd0;
        if (e >= 11'sd1) begin
            n = q;
        end else begin
            rsh = (11'sd1 - e > 11'sd26) ? 8'd26 : 8'(11'sd1 - e);
            w = {q, 25'd0} >> rsh;
            n = w[49:25];
            st = st | (w[24:0] != 25'd0);
            e = 11'sd0;
        end
        inc = n[0] & (st | n[1]);
        pk = {e[7:0], n[23:1]} + {30'd0, inc};
        if (a_nan | b_nan | (a_inf & b_inf) | (a_zero & b_zero))
            y_comb = 32'h7FC00000;
        else if (a_inf | b_zero)
            y_comb = {s, 31'h7F800000};
        else if (a_zero | b_inf)
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
