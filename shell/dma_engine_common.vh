// What both DMA engines (shell_tx_dma, shell_rx_dma) take the same way: the descriptor
// control bits they act on (csr_map.json), the width of their buffered beats ({3 flags,
// cnt 5, word offset 4, data 512}: the flags are each engine's own), and the checks of the
// parameters they share. Included in the module's body after afushell_csr.vh.
    localparam integer BURST_BITS = $clog2(MAX_BURST);
    localparam integer CTRL_EOP = CSR_DMA_DESC_CTRL_EOP_LSB,
                       CTRL_IRQ = CSR_DMA_DESC_CTRL_IRQ_LSB;
    localparam integer BEAT_WIDTH = 3 + 5 + 4 + 512;
    initial begin
        if (STREAM_WORDS < 1 || STREAM_WORDS > 16) begin
            $display("%m: STREAM_WORDS=%0d must be 1..16", STREAM_WORDS);
            $finish;
        end
        if (MAX_BURST < 2 || MAX_BURST > 64 || (1 << BURST_BITS) != MAX_BURST) begin
            $display("%m: MAX_BURST=%0d must be a power of two 2..64", MAX_BURST);
            $finish;
        end
    end
