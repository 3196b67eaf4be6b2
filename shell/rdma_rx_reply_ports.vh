// Ports both RDMA engines' receivers (rdma_engine_rx, rdma_engine_wrx) share: the operation
// the initiator is asked about and its completions, the replies and the target events.
// Included inside a port list; each ends in a comma.
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
