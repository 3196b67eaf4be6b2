// Ports of the RDMA receivers' stream table for their data path (rdma_rx_streams, and
// rdma_rx_ctrl that passes them through to it): a packet's position written back, a
// stream's end, and the entry of one source read. Included inside a port list; each
// ends in a comma.
    // the position after a packet
    input  wire         upd,
    input  wire [5:0]   upd_src,
    input  wire [63:0]  upd_cur,
    input  wire [63:0]  upd_rem,
    input  wire [63:0]  upd_bstart,
    input  wire [31:0]  upd_brem,
    // the stream's end
    input  wire         clr,
    input  wire [5:0]   clr_src,
    // the entry of rd_src: {act, put, disc, op 32, base 64, len 64, cur 64, rem 64, bstart 64,
    // blk 32, brem 32, stride 32}
    input  wire [5:0]   rd_src,
    output wire [450:0] rd_stream,
