// Ports of every block on the host's MMIO bus: the clock, the reset and the requests of
// afu_top's mmio_* pins (64-bit accesses, byte addresses in the 256 KiB window). Included
// at the head of a port list; each block declares its own read response after it (the CSR
// blocks' registered one: mmio_csr_ports.vh).
    input  wire         clk,
    input  wire         rst,
    // MMIO from the host
    input  wire         mmio_wr_valid,
    input  wire [17:0]  mmio_wr_addr,
    input  wire [63:0]  mmio_wr_data,
    input  wire         mmio_rd_valid,
    input  wire [17:0]  mmio_rd_addr,
