// AFU top: the shell (afu_shell: CSR block, TX and RX DMA, descriptor fetch arbiter,
// width converters and the core cascade, or a loop-back from TX to RX when N_CORES is
// 0) with its link ports tied off. Ports are the contract with the simulated card
// (docs/internals.md, "AFU top <-> simulated card").
`default_nettype none

module afu_top #(
    parameter integer N_CORES          = 0,      // cores in the cascade, 0 = loop-back
    parameter integer RECORD_WORDS     = 1,      // 32-bit words per record at the core input
    parameter integer OUT_RECORD_WORDS = RECORD_WORDS,  // ... at the core output
    parameter integer N_REGS           = 0,      // Reg values of the core, 0..256
    parameter [8191:0] REG_DEFAULTS = 8192'd0,  // 32 bits per Reg (up to 256), Reg 0 lowest
    parameter integer DESC_FIFO_DEPTH  = 16,     // descriptor FIFO entries per engine
    parameter integer MAX_BURST        = 16,     // beats per memory burst
    parameter integer MAX_READS        = 256,    // TX read beats in flight or buffered
    parameter [63:0]  AFU_ID_L         = 64'hac3cf1e8beaefcca,  // AFU ID, low half
    parameter [63:0]  AFU_ID_H         = 64'h48ae995a649b4c39   // AFU ID, high half
) (
    input  wire         clk,
    input  wire         rst,
    // MMIO from the host
    input  wire         mmio_wr_valid,
    input  wire [17:0]  mmio_wr_addr,
    input  wire [63:0]  mmio_wr_data,
    input  wire         mmio_rd_valid,
    input  wire [17:0]  mmio_rd_addr,
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
    output wire [63:0]  dsc_rd_address,
    output wire         dsc_rd_read,
    output wire [7:0]   dsc_rd_burstcount,
    input  wire         dsc_rd_waitrequest,
    input  wire [511:0] dsc_rd_readdata,
    input  wire         dsc_rd_readdatavalid,
    // interrupts: [0] TX, [1] RX
    output wire [1:0]   irq
);
    localparam integer EXT_IN_BITS  = 32 * (N_CORES > 0 ? RECORD_WORDS : 1);
    localparam integer EXT_OUT_BITS = 32 * (N_CORES > 0 ? OUT_RECORD_WORDS : 1);
    /* verilator lint_off UNUSEDSIGNAL */
    wire                    ext_in_ready, ext_out_valid, ext_out_last;  // no links on this card
    wire [EXT_OUT_BITS-1:0] ext_out_data;
    wire                    brch_in_ready, brch_out_valid, brch_out_last;
    wire [31:0]             brch_out_data;
    /* verilator lint_on UNUSEDSIGNAL */
    afu_shell #(
        .N_CORES (N_CORES), .RECORD_WORDS (RECORD_WORDS), .OUT_RECORD_WORDS (OUT_RECORD_WORDS),
        .N_REGS (N_REGS), .REG_DEFAULTS (REG_DEFAULTS), .DESC_FIFO_DEPTH (DESC_FIFO_DEPTH),
        .MAX_BURST (MAX_BURST), .MAX_READS (MAX_READS), .AFU_ID_L (AFU_ID_L), .AFU_ID_H (AFU_ID_H)
    ) shell (
        .clk (clk), .rst (rst),
        .mmio_wr_valid (mmio_wr_valid), .mmio_wr_addr (mmio_wr_addr), .mmio_wr_data (mmio_wr_data),
        .mmio_rd_valid (mmio_rd_valid), .mmio_rd_addr (mmio_rd_addr),
        .mmio_rd_resp_valid (mmio_rd_resp_valid), .mmio_rd_resp_data (mmio_rd_resp_data),
        .tx_rd_address (tx_rd_address), .tx_rd_read (tx_rd_read), .tx_rd_burstcount (tx_rd_burstcount),
        .tx_rd_waitrequest (tx_rd_waitrequest), .tx_rd_readdata (tx_rd_readdata),
        .tx_rd_readdatavalid (tx_rd_readdatavalid),
        .rx_wr_address (rx_wr_address), .rx_wr_write (rx_wr_write), .rx_wr_burstcount (rx_wr_burstcount),
        .rx_wr_writedata (rx_wr_writedata), .rx_wr_byteenable (rx_wr_byteenable),
        .rx_wr_waitrequest (rx_wr_waitrequest),
        .dsc_rd_address (dsc_rd_address), .dsc_rd_read (dsc_rd_read), .dsc_rd_burstcount (dsc_rd_burstcount),
        .dsc_rd_waitrequest (dsc_rd_waitrequest), .dsc_rd_readdata (dsc_rd_readdata),
        .dsc_rd_readdatavalid (dsc_rd_readdatavalid),
        .irq (irq),
        .in_link (1'b0), .ext_in_valid (1'b0), .ext_in_ready (ext_in_ready), .ext_in_data ({EXT_IN_BITS{1'b0}}), .ext_in_last (1'b0),
        .out_link (1'b0), .ext_out_valid (ext_out_valid), .ext_out_ready (1'b0), .ext_out_data (ext_out_data), .ext_out_last (ext_out_last),
        // branch streams need links (spgen build refuses such cores without --links)
        .brch_in_valid (1'b0), .brch_in_ready (brch_in_ready), .brch_in_data (32'd0), .brch_in_last (1'b0),
        .brch_out_valid (brch_out_valid), .brch_out_ready (1'b0), .brch_out_data (brch_out_data),
        .brch_out_last (brch_out_last)
    );
endmodule

`default_nettype wire
