`default_nettype none
// spg_sdiv: signed a / b toward zero; b == 0 gives 0; INT_MIN / -1 gives INT_MIN.
// Latency 34 (TEMPORARY: combinational core behind a delay line).
module spg_sdiv (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    localparam DEPTH = 34;
    reg [31:0] y_comb;
    wire [31:0] ua = a[31] ? 32'd0 - a : a;
    wire [31:0] ub = b[31] ? 32'd0 - b : b;
    wire [31:0] q = (b == 32'd0) ? 32'd0 : ua / ub;
    always @* y_comb = (a[31] ^ b[31]) ? 32'd0 - q : q;
    reg [31:0] pipe_reg [0:DEPTH-1];
    integer i;
    always @(posedge clk) if (ce) begin
        pipe_reg[0] <= y_comb;
        for (i = 1; i < DEPTH; i = i + 1) pipe_reg[i] <= pipe_reg[i - 1];
    end
    assign y = pipe_reg[DEPTH-1];
endmodule
