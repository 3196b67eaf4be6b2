// What both record converters of the stream endpoints (rdma_stream_ser, rdma_stream_des)
// hold: the record of WORDS words, whether it is full, its `last`, and the index of the word
// on the 32-bit side. Included at the head of the module's body.
    localparam integer IW = WORDS > 1 ? $clog2(WORDS) : 1;
    localparam integer LAST = WORDS - 1;  // index of the record's final word
    reg [32*WORDS-1:0] rec_reg;
    reg                full_reg, rlast_reg;
    reg [IW-1:0]       idx_reg;
    initial begin
        if (WORDS < 1 || WORDS > 16) $error("%m: WORDS must be 1..16");
    end
