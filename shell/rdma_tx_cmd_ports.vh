// Ports both RDMA engines' senders (rdma_engine_tx, rdma_engine_wtx) share: the clock, the
// reset, the card's id, the initiator's command (held until c_take) and the queued replies.
// Included at the start of a port list; each ends in a comma.
    input  wire         clk,
    input  wire         rst,
    input  wire [5:0]   card_id,
    // the initiator's command (held until c_take)
    input  wire         c_valid,
    output reg          c_take,
    input  wire         c_get,
    input  wire [5:0]   c_dst,
    input  wire [31:0]  c_op,
    input  wire [63:0]  c_local,
    input  wire [63:0]  c_remote,
    input  wire [63:0]  c_len,      // bytes in all
    input  wire [31:0]  c_count,    // blocks of a block-stride operation
    input  wire [31:0]  c_block,    // 0: contiguous, else block-stride put or get
    input  wire [31:0]  c_lstride,
    input  wire [31:0]  c_rstride,
    // replies {dst 6, type 4, op 32, code 8}
    input  wire         rp_empty,
    input  wire [49:0]  rp_data,
    output reg          rp_pop,
