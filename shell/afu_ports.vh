// The pins of afu_top: the contract with the card, simulated (runtime/sim/afu_pins.h,
// docs/internals.md, "AFU top <-> simulated card") or real (the Platform Designer
// component that spgen build writes). Included as afu_top's whole port list and at the
// head of afu_shell's; the last port has no comma.
    `include "mmio_ports.vh"
    output wire         mmio_rd_resp_valid,
    output wire [63:0]  mmio_rd_resp_data,
    // TX DMA read master
    output wire [63:0]  tx_rd_address,
    output wire         tx_rd_read,
    output wire [7:0]   tx_rd_burstcount,
    input  wire         tx_rd_waitrequest,
    input  wire [511:0] tx_rd_readdata,
    input  wire         tx_rd_readdatavalid,
    // RX DMA write master
    output wire [63:0]  rx_wr_address,
    output wire         rx_wr_write,
    output wire [7:0]   rx_wr_burstcount,
    output wire [511:0] rx_wr_writedata,
    output wire [63:0]  rx_wr_byteenable,
    input  wire         rx_wr_waitrequest,
    // descriptor-table read master
    `include "dsc_rd_ports.vh"
    ,
    // interrupts: [0] TX, [1] RX
    output wire [1:0]   irq
