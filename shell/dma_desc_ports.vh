// Ports of a DMA engine's descriptor front end (shell_desc_queue, and the TX and RX engines
// that pass them through to it): descriptors pushed by the CSR block (fields as in the
// DESC_* registers, push_ctrl = {CHAIN, IRQ, EOP, SOP}), and the chained-descriptor
// fetch through the shared descriptor read master (shell_dsc_arbiter). Included inside
// a port list; each ends in a comma.
    // descriptor push from the CSR block
    input  wire         push_valid,
    input  wire [63:0]  push_src,
    input  wire [63:0]  push_dst,
    input  wire [31:0]  push_len,
    input  wire [31:0]  push_stride,
    input  wire [31:0]  push_count,
    input  wire [63:0]  push_next,
    input  wire [3:0]   push_ctrl,
    // chained-descriptor fetch
    output wire         fetch_req_valid,
    input  wire         fetch_req_ready,
    output wire [63:0]  fetch_req_addr,
    input  wire         fetch_resp_valid,
    input  wire [511:0] fetch_resp_data,
