// Ports both stream endpoint pairs share (rdma_stream, a word a cycle, and rdma_stream_wide,
// a beat a cycle): the clock, the reset, the card's id and the pair's binding from the
// STREAM_CFG register (rdma_stream_csr). Included at the start of a port list; each ends in
// a comma.
    input  wire        clk,
    input  wire        rst,
    input  wire [5:0]  card_id,
    // configuration
    input  wire [5:0]  tx_dst,     // card of the receiving endpoint
    input  wire [7:0]  tx_sid,     // its stream id
    input  wire [5:0]  rx_peer,    // card of the sending endpoint (credits go there)
    input  wire [7:0]  rx_sid,     // this endpoint's stream id
