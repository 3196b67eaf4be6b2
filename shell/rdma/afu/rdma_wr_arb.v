// Two Avalon-MM write masters on one: master 0 (the shell's RX DMA, bursts that keep
// write high until their last beat) first and locked for the whole burst, master 1
// (the RDMA engine, single beats) in the gaps.
`default_nettype none
module rdma_wr_arb (
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  m0_address,
    input  wire         m0_write,
    input  wire [7:0]   m0_burstcount,
    input  wire [511:0] m0_writedata,
    input  wire [63:0]  m0_byteenable,
    output wire         m0_waitrequest,
    input  wire [63:0]  m1_address,
    input  wire         m1_write,
    input  wire [7:0]   m1_burstcount,
    input  wire [511:0] m1_writedata,
    input  wire [63:0]  m1_byteenable,
    output wire         m1_waitrequest,
    output wire [63:0]  s_address,
    output wire         s_write,
    output wire [7:0]   s_burstcount,
    output wire [511:0] s_writedata,
    output wire [63:0]  s_byteenable,
    input  wire         s_waitrequest
);
    reg       lock;   // inside a burst of master 0
    reg [7:0] left;
    wire sel1 = !lock && !m0_write;
    assign s_write = sel1 ? m1_write : m0_write;
    assign s_address = sel1 ? m1_address : m0_address;
    assign s_burstcount = sel1 ? m1_burstcount : m0_burstcount;
    assign s_writedata = sel1 ? m1_writedata : m0_writedata;
    assign s_byteenable = sel1 ? m1_byteenable : m0_byteenable;
    assign m0_waitrequest = s_waitrequest || sel1;
    assign m1_waitrequest = s_waitrequest || !sel1;
    wire beat0 = !sel1 && m0_write && !s_waitrequest;
    always @(posedge clk) begin
        if (rst) begin
            lock <= 1'b0;
            left <= 8'd0;
        end else if (beat0) begin
            if (!lock) begin
                lock <= m0_burstcount > 8'd1;
                left <= m0_burstcount - 8'd1;
            end else begin
                left <= left - 8'd1;
                if (left == 8'd1) lock <= 1'b0;
            end
        end
    end
endmodule
`default_nettype wire
