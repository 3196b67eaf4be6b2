// Test top for the wide RDMA engine with its AFU memory adapter: rdma_node (LANES > 1) whose
// 64-byte line ports go through rdma_line_adapter (line reads, write bursts of up to WR_BURST
// lines, mem_wr_flush / mem_wr_pending) onto Avalon-MM masters, as afu_rdma_top would attach
// them. tests/rdma/tb_rdma_engine.cpp built with -DADAPTER drives the masters.
`default_nettype none
module tb_rdma_wide_card #(
    parameter integer P = 4,
    parameter integer WINDOW = 8,
    parameter integer VC_BUF = 4,
    parameter integer TIMEOUT = 512,
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000,
    parameter integer OP_TIMEOUT = 2000000,
    parameter integer QUEUE_DEPTH = 256,
    parameter integer EVENT_DEPTH = 16,
    parameter integer MAX_OPS = 4,
    parameter integer PF_DEPTH = 32,
    parameter integer LANES = 16,
    parameter integer WR_BURST = 4
) (
    `include "rdma_node_ports.vh"
    `include "rdma_avm_ports.vh"
);
    // rdma_node's line ports, named as its own so that .* connects them
    wire [63:0]  mem_rd_address, mem_wr_address;
    wire         mem_rd_read, mem_rd_waitrequest, mem_rd_readdatavalid, mem_wr_write, mem_wr_waitrequest;
    wire         mem_wr_flush, mem_wr_pending;
    wire [511:0] mem_rd_readdata, mem_wr_writedata;
    wire [63:0]  mem_wr_byteenable;
    rdma_node #(.P(P), .WINDOW(WINDOW), .VC_BUF(VC_BUF), .TIMEOUT(TIMEOUT), .MEM_BYTES(MEM_BYTES),
                .OP_TIMEOUT(OP_TIMEOUT), .QUEUE_DEPTH(QUEUE_DEPTH), .EVENT_DEPTH(EVENT_DEPTH), .MAX_OPS(MAX_OPS),
                .PF_DEPTH(PF_DEPTH), .LANES(LANES)) u_node (.*);
    // the adapter: clk, rst and the avm_* masters by name, its engine side onto those lines
    rdma_line_adapter #(.WR_BURST(WR_BURST)) u_mem (
        .*, .rd_address(mem_rd_address), .rd_read(mem_rd_read), .rd_waitrequest(mem_rd_waitrequest),
        .rd_readdata(mem_rd_readdata), .rd_readdatavalid(mem_rd_readdatavalid), .wr_address(mem_wr_address),
        .wr_write(mem_wr_write), .wr_writedata(mem_wr_writedata), .wr_byteenable(mem_wr_byteenable),
        .wr_waitrequest(mem_wr_waitrequest), .wr_flush(mem_wr_flush), .wr_pending(mem_wr_pending));
endmodule
`default_nettype wire
