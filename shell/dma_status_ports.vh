// Ports of a DMA engine's status (shell_tx_dma, shell_rx_dma): the STATUS and ERROR
// registers, the byte and busy-cycle counters, the interrupt pulse of a completed IRQ
// descriptor, and the host's write to ERROR that clears it. shell_csr reads them as
// tx_* / rx_*. Included inside a port list; each ends in a comma.
    input  wire         err_clear,
    output wire [63:0]  status,              // STATUS register
    output wire [63:0]  error,               // ERROR register
    output wire [63:0]  bytes,
    output wire [63:0]  busy_cycles,
    output wire         irq_pulse,
