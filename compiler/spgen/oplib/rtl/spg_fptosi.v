`default_nettype none
// spg_fptosi: f32 -> i32 toward zero, saturating, NaN -> 0.
// Latency 2 (TEMPORARY: combinational core behind a delay line).
module spg_fptosi #(
    parameter FTZ = 0  // 1: subnormal inputs and results flushed to zero, sign kept
) (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,

    output wire [31:0] y
);
    localparam DEPTH = 2;
    reg [31:0] y_comb;
    wire [7:0]  e = (FTZ != 0 && a[30:23] == 8'd0) ? 8'd0 : a[30:23];
    wire        nan = a[30:23] == 8'hFF && a[22:0] != 23'd0;
    wire [54:0] m = {31'd0, 1'b1, a[22:0]};
    wire [54:0] sh = m << (e - 8'd127);
    wire [31:0] mag = (e < 8'd127) ? 32'd0 : sh[54:23];
    always @* begin
        if (nan) y_comb = 32'd0;
        else if (e >= 8'd158) y_comb = a[31] ? 32'h80000000 : 32'h7FFFFFFF;
        else y_comb = a[31] ? 32'd0 - mag : mag;
    end
    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
