// Ports both AFU memory adapters of the RDMA engine share (rdma_mem_adapter for the word
// engine, rdma_line_adapter for the wide one): the clock, the reset, the engine side but its
// data (words or lines: each adapter declares those before this include, which ends its
// port list) and the memory side.
    input  wire         clk,
    input  wire         rst,
    // engine side (rdma_node mem_*)
    input  wire [63:0]  rd_address,
    input  wire         rd_read,
    output wire         rd_waitrequest,
    output wire         rd_readdatavalid,
    input  wire [63:0]  wr_address,
    input  wire         wr_write,
    output wire         wr_waitrequest,
    input  wire         wr_flush,
    output wire         wr_pending,
    // memory side
    `include "rdma_avm_ports.vh"
