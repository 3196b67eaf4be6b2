// AFU top: the shell (afu_shell: CSR block, TX and RX DMA, descriptor fetch arbiter,
// width converters and the core cascade, or a loop-back from TX to RX when N_CORES is
// 0) with its link ports tied off. Ports are the contract with the simulated card
// (docs/internals.md, "AFU top <-> simulated card").
`default_nettype none

module afu_top #(
    `include "afu_params.vh"
) (
    `include "afu_ports.vh"
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
        .MAX_BURST (MAX_BURST), .MAX_READS (MAX_READS), .SORT_SCATTER (SORT_SCATTER), .AFU_ID_L (AFU_ID_L), .AFU_ID_H (AFU_ID_H)
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
