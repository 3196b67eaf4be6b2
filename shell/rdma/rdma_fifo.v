// Show-ahead FIFO for the RDMA engine's queues (replies, get requests, events, read data).
`default_nettype none
module rdma_fifo #(
    parameter integer WIDTH = 32,  // bits per entry
    parameter integer DEPTH = 16   // entries (power of 2, >= 2)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             push,
    input  wire [WIDTH-1:0] din,
    output wire             full,
    input  wire             pop,
    output wire [WIDTH-1:0] dout,
    output wire             empty,
    output wire [$clog2(DEPTH):0] count  // entries held (AW+1 bits)
);
    localparam integer AW = $clog2(DEPTH);
    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW:0]      wr, rd;
    assign count = wr - rd;
    assign full = count == DEPTH[AW:0];
    assign empty = wr == rd;
    assign dout = mem[rd[AW-1:0]];
    always @(posedge clk) begin
        if (rst) begin
            wr <= {AW+1{1'b0}};
            rd <= {AW+1{1'b0}};
        end else begin
            if (push && !full) begin
                mem[wr[AW-1:0]] <= din;
                wr <= wr + 1'b1;
            end
            if (pop && !empty) rd <= rd + 1'b1;
        end
    end
    initial begin
        if (DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) $fatal(1, "%m (rdma_fifo): DEPTH must be a power of 2 >= 2");
    end
endmodule
`default_nettype wire
