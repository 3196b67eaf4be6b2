// The memory side of the RDMA engine's AFU memory adapters (rdma_mem_adapter,
// rdma_line_adapter): a 512-bit Avalon-MM read master and write master like the shell's
// (64-byte beats, byte addresses). Included at the end of a port list (rdma_adapter_ports.vh,
// tests/rdma/tb_rdma_wide_card.v).
    output wire [63:0]  avm_rd_address,
    output wire         avm_rd_read,
    output wire [7:0]   avm_rd_burstcount,
    input  wire         avm_rd_waitrequest,
    input  wire [511:0] avm_rd_readdata,
    input  wire         avm_rd_readdatavalid,
    output wire [63:0]  avm_wr_address,
    output wire         avm_wr_write,
    output wire [7:0]   avm_wr_burstcount,
    output wire [511:0] avm_wr_writedata,
    output wire [63:0]  avm_wr_byteenable,
    input  wire         avm_wr_waitrequest
