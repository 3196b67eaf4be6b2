`default_nettype none
// spg_fadd: f32 a + b, IEEE-754 round-to-nearest-even, subnormals exact (FTZ = 0)
// or flushed to zero, sign kept, on input and output (FTZ = 1).
// Latency 6 (TEMPORARY: combinational core behind a delay line).
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
    localparam DEPTH = 6;

    function [4:0] clz27;
        input [26:0] v;
        integer k;
        begin
            clz27 = 5'd27;
            for (k = 0; k < 27; k = k + 1)
                if (v[k]) clz27 = 5'd26 - k[4:0];
        end
    endfunction

    reg [31:0] y_comb;
    reg [31:0] af, bf, xl, xs;
    reg        a_nan, b_nan, a_inf, b_inf, sub_op;
    reg [7:0]  el, es, d, ef;
    reg [23:0] ml, ms;
    reg [4:0]  dc, lz;
    reg [53:0] al;
    reg [26:0] ms_al, n;
    reg [27:0] sum;
    reg [8:0]  e9;
    reg [30:0] pk;
    reg        inc;
    always @* begin
        af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
        bf = (FTZ != 0 && b[30:23] == 8'd0) ? {b[31], 31'd0} : b;
        a_nan = af[30:23] == 8'hFF && af[22:0] != 23'd0;
        b_nan = bf[30:23] == 8'hFF && bf[22:0] != 23'd0;
        a_inf = af[30:0] == 31'h7F800000;
        b_inf = bf[30:0] == 31'h7F800000;
        if (bf[30:0] > af[30:0]) begin xl = bf; xs = af; end else begin xl = af; xs = bf; end
        sub_op = xl[31] ^ xs[31];
        el = (xl[30:23] == 8'd0) ? 8'd1 : xl[30:23];
        es = (xs[30:23] == 8'd0) ? 8'd1 : xs[30:23];
        ml = {xl[30:23] != 8'd0, xl[22:0]};
        ms = {xs[30:23] != 8'd0, xs[22:0]};
        d = el - es;
        dc = (d > 8'd27) ? 5'd27 : d[4:0];
        al = {ms, 3'b000, 27'd0} >> dc;
        ms_al = {al[53:28], al[27] | (al[26:0] != 27'd0)};
        sum = sub_op ? {1'b0, ml, 3'b000} - {1'b0, ms_al} : {1'b0, ml, 3'b000} + {1'b0, ms_al};
        lz = clz27(sum[26:0]);
        if (sum[27]) begin
            n = {sum[27:2], sum[1] | sum[0]};
            e9 = {1'b0, el} + 9'd1;
        end else if ({3'b000, lz} < el) begin
            n = sum[26:0] << lz;
            e9 = {1'b0, el} - {4'd0, lz};
        end else begin
            n = sum[26:0] << (el - 8'd1);
            e9 = 9'd0;
        end
        ef = e9[7:0];
        inc = n[2] & (n[1] | n[0] | n[3]);
        pk = {ef, n[25:3]} + {30'd0, inc};
        if (a_nan | b_nan | (a_inf & b_inf & sub_op))
            y_comb = 32'h7FC00000;
        else if (a_inf | b_inf)
            y_comb = {xl[31], 31'h7F800000};
        else if (sum == 28'd0)
            y_comb = {~sub_op & xl[31], 31'd0};
        else if (e9 >= 9'd255)
            y_comb = {xl[31], 31'h7F800000};
        else if (FTZ != 0 && pk[30:23] == 8'd0)
            y_comb = {xl[31], 31'd0};
        else
            y_comb = {xl[31], pk};
    end

    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
