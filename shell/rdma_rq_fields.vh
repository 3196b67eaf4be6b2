// The fields of a queued get request as the RDMA engines' senders (rdma_engine_tx,
// rdma_engine_wtx) read them: rq_data is {src 6, op 32, remote 64, len 64, local 64, block 32,
// rstride 32, lstride 32} above its low RQ_LSB bits (the wide engine's packet size there).
// Block 0: contiguous; rstride is the target's stride, lstride the initiator's. Included
// inside a module, after RQ_LSB.
    wire [5:0]  q_src = rq_data[RQ_LSB + 320 +: 6];
    wire [31:0] q_op = rq_data[RQ_LSB + 288 +: 32];
    wire [63:0] q_remote = rq_data[RQ_LSB + 224 +: 64];
    wire [63:0] q_len = rq_data[RQ_LSB + 160 +: 64];
    wire [63:0] q_local = rq_data[RQ_LSB + 96 +: 64];
    wire [31:0] q_block = rq_data[RQ_LSB + 64 +: 32];
    wire [31:0] q_rstride = rq_data[RQ_LSB + 32 +: 32];
    wire [31:0] q_lstride = rq_data[RQ_LSB +: 32];
