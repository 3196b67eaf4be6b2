// The payload words of the RDMA engines' control packets (rdma_engine_tx and the wide
// rdma_engine_wtx send the same ones; the packet formats are docs/rdma.md's), word 1 in the
// low bits, 64-bit fields low word first. The header (word 0) each engine builds itself:
// their WORDS fields differ. Included inside a module, after rdma_packet.vh.

// DONE / ERR: op, code
function automatic [63:0] rdma_reply_words(input [31:0] op, input [7:0] code);
    rdma_reply_words = {24'd0, code, op};
endfunction

// a stream's start (PUT, GETRESP): op, the target's address, length; block-stride (9 words)
// block, 0, the target's stride, 0
function automatic [287:0] rdma_start_words(input [31:0] op, input [63:0] addr, input [63:0] len,
                                            input [31:0] block, input [31:0] stride);
    rdma_start_words = {32'd0, stride, 32'd0, block, len, addr, op};
endfunction

// GETREQ: op, remote address, length, local address; block-stride (11 words) block, count,
// remote and local stride. A wide engine also sends its DATA packet size `pkt` after these
// (word 12), and in word 8 of a contiguous get; the word engine passes 0.
function automatic [351:0] rdma_getreq_words(input [31:0] op, input [63:0] remote, input [63:0] len,
                                             input [63:0] local_addr, input [31:0] block, input [31:0] count,
                                             input [31:0] rstride, input [31:0] lstride, input [8:0] pkt);
    rdma_getreq_words = {lstride, rstride, count, block != 32'd0 ? block : {23'd0, pkt}, local_addr, len, remote, op};
endfunction
