`default_nettype none
// spg_fsqrt: f32 correctly rounded square root (round-to-nearest-even); -0 -> -0,
// negative -> NaN; subnormal inputs exact (or flushed with FTZ; results are never subnormal).
// Latency 28 (TEMPORARY: combinational core behind a delay line).
module spg_fsqrt #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    output wire [31:0] y
);
    localparam DEPTH = 28;
    reg [31:0] y_comb;
    reg [31:0] af;
    reg        nan, inc;
    reg [23:0] ma, na;
    reg [4:0]  lz;
    reg signed [10:0] eu, er;
    reg [49:0] x;
    reg [24:0] root;
    reg [27:0] rem, trial;
    reg [30:0] pk;
    integer k;
    always @* begin
        af = (FTZ != 0 && a[30:23] == 8'd0) ? {a[31], 31'd0} : a;
        nan = (af[30:23] == 8'hFF && af[22:0] != 23'd0) || (af[31] && af[30:0] != 31'd0);
        ma = {af[30:23] != 8'd0, af[22:0]};
        lz = 5'd0;
        for (k = 0; k < 24; k = k + 1) if (ma[k]) lz = 5'd23 - k[4:0];
        na = ma << lz;
        eu = $signed({3'd0, (af[30:23] == 8'd0) ? 8'd1 : af[30:23]}) - $signed({6'd0, lz}) - 11'sd127;
        x = eu[0] ? {na, 26'd0} : {1'b0, na, 25'd0};
        er = ((eu - {10'd0, eu[0]}) >>> 1) + 11'sd127;
        rem = 28'd0;
        root = 25'd0;
        for (k = 24; k >= 0; k = k - 1) begin
            rem = {rem[25:0], x[2*k+1], x[2*k]};
            trial = {1'b0, root, 2'b01};
            if (rem >= trial) begin
                rem = rem - trial;
                root = {root[23:0], 1'b1};
            end else begin
                root = {root[23:0], 1'b0};
            end
        end
        inc = root[0] & ((rem != 28'd0) | root[1]);
        pk = {er[7:0], root[23:1]} + {30'd0, inc};
        if (nan)
            y_comb = 32'h7FC00000;
        else if (af[30:0] == 31'd0)
            y_comb = af;
        else if (af == 32'h7F800000)
            y_comb = af;
        else
            y_comb = {1'b0, pk};
    end
    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
