`default_nettype none
// spg_sitofp: i32 -> f32, round-to-nearest-even (never subnormal: FTZ has no effect).
// Latency 4 (TEMPORARY: combinational core behind a delay line).
module spg_sitofp #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,

    output wire [31:0] y
);
    localparam DEPTH = 4;
    reg [31:0] y_comb;
    wire        neg = a[31];
    wire [31:0] mag = neg ? 32'd0 - a : a;
    reg  [4:0]  lz;
    reg  [31:0] n;
    reg  [30:0] pk;
    reg         inc;
    integer k;
    always @* begin
        lz = 5'd0;
        for (k = 0; k < 32; k = k + 1) if (mag[k]) lz = 5'd31 - k[4:0];
        n = mag << lz;
        inc = n[7] & (n[8] | (n[6:0] != 7'd0));
        pk = {8'd158 - {3'd0, lz}, n[30:8]} + {30'd0, inc};
        y_comb = (a == 32'd0) ? 32'd0 : {neg, pk};
    end
    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
