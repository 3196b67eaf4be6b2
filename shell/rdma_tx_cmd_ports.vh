// Ports both RDMA engines' senders (rdma_engine_tx, rdma_engine_wtx) share: the clock, the
// reset, the card's id, the initiator's command (held until c_take), the queued replies and
// get requests, the target's events, the memory read port and the packets to the router but
// their data (words or lines, a word or a beat: each sender declares rq_data,
// mem_rd_readdata and inj_data before this include, which ends its port list).
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
    // get requests {src 6, op 32, remote 64, len 64, local 64, block 32, rstride 32, lstride 32}
    // (block 0: contiguous; rstride is the target's, lstride the initiator's)
    input  wire         rq_empty,
    output reg          rq_pop,
    // target events: a get served (its last packet left)
    output reg          ev_push,
    output wire [137:0] ev_data,
    // memory read port (byte address, pipelined reads returned in order)
    output wire [63:0]  mem_rd_address,
    output wire         mem_rd_read,
    input  wire         mem_rd_waitrequest,
    input  wire         mem_rd_readdatavalid,
    // packets to the router
    output reg          inj_valid,
    input  wire         inj_ready,
    output reg          inj_last,
    output wire [8:0]   dbg  // {stream's destination 6, stream active, state 2}
