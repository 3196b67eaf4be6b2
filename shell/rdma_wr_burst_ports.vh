// Ports both burst writers of the RDMA memory adapters share (rdma_wr_lines, and
// rdma_wr_coalesce in front of it): the clock, the reset, the write port but its data
// (lines or words: each declares those before this include, which ends its port list),
// the end-of-stream flush and pending, and the Avalon-MM write master.
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  wr_address,
    input  wire         wr_write,
    output wire         wr_waitrequest,
    input  wire         flush,
    output wire         pending,
    output wire [63:0]  avm_address,
    output wire         avm_write,
    output wire [7:0]   avm_burstcount,
    output wire [511:0] avm_writedata,
    output wire [63:0]  avm_byteenable,
    input  wire         avm_waitrequest
