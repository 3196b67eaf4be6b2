// Ports of a block that pushes descriptors into the two DMA engines (shell_csr for the
// host, shell_fabric_desc for the host and the fabric): the fields are shared by both
// engines, tx_push / rx_push select one; the engines take them as dma_desc_ports.vh's
// push_*. Included inside a port list; each ends in a comma.
    output wire         tx_push,
    output wire         rx_push,
    output wire [63:0]  push_src,
    output wire [63:0]  push_dst,
    output wire [31:0]  push_len,
    output wire [31:0]  push_stride,
    output wire [31:0]  push_count,
    output wire [63:0]  push_next,
    output wire [3:0]   push_ctrl,
