// Ports both RDMA engines' receivers (rdma_engine_rx, rdma_engine_wrx) share: the clock, the
// reset, the packets from the router, the memory write port, the operation the initiator is
// asked about and its completions, the replies, the target events and the get requests but
// their data (words or lines: each receiver declares ej_data, its memory write address, write
// and data and rq_data before this include, which ends its port list).
    input  wire        clk,
    input  wire        rst,
    // packets from the router
    input  wire        ej_valid,
    output reg         ej_ready,
    input  wire        ej_last,
    // memory write port (byte address)
    input  wire        mem_wr_waitrequest,
    output wire        mem_wr_flush,    // a stream ended: write out what the memory side holds
    input  wire        mem_wr_pending,  // written data not yet accepted by the memory
    // the initiator: is operation q_op outstanding there; completions (it drops stale ones)
    output wire [31:0] q_op,
    input  wire        q_live,
    output wire        comp_valid,
    output wire [31:0] comp_op,
    output wire [7:0]  comp_code,
    // replies (DONE / ERR) for the sender
    output wire        rp_push,
    output wire [49:0] rp_data,   // {dst 6, type 4, op 32, code 8}
    input  wire        rp_full,
    // target events: a put received
    output wire        ev_push,
    output wire [137:0] ev_data,  // {kind 4, peer 6, addr 64, len 64}
    // get requests for the sender ({src 6, op 32, remote 64, len 64, local 64, block 32,
    // rstride 32, lstride 32} and the wide receiver's packet size)
    output wire        rq_push,
    input  wire        rq_full,
    output wire [2:0]  dbg       // receiver state
