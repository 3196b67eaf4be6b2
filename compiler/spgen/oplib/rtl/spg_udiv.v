`default_nettype none
// spg_udiv: unsigned a / b; b == 0 gives 0.
// Latency 33 (TEMPORARY: combinational core behind a delay line).
module spg_udiv (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    localparam DEPTH = 33;
    reg [31:0] y_comb;
    always @* y_comb = (b == 32'd0) ? 32'd0 : a / b;
    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
