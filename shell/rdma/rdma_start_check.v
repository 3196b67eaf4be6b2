// The range checks of both RDMA engines' receivers (rdma_engine_rx, rdma_engine_wrx) on a
// control packet's payload words, and the block-stride divider of a stream start. A PUT /
// GETRESP start (9 payload words: block-stride) must name a word-aligned range inside
// the card's memory; a block-stride one also a block count len / block that is whole and
// below 2^32, found by a restoring shift-subtract division (a quotient bit per cycle, 64
// cycles: a single multiplier-free divider serves the rare block-stride start), whose
// last block must end inside the memory (span_bad, valid after div_done). A GETREQ
// (11 payload words: block-stride with block, count and both strides) is checked at once
// with a multiply (g_bad). The receiver's state machine owns the sequencing: div_start in
// the cycle it decides a start needs the divider, div_step while it waits for div_done.
`default_nettype none
module rdma_start_check #(
    parameter [63:0] MEM_BYTES = 64'h2_0000_0000  // card memory (bytes): the remote range limit
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [319:0] w,           // payload words 1..10 of the control packet, word 1 low
    input  wire [3:0]   typ,         // its header's type and payload words
    input  wire [4:0]   words,
    input  wire         div_start,   // load len into the divider
    input  wire         div_step,    // one quotient bit
    output wire         div_done,    // the quotient is there
    output wire         div_bad,     // len / block not whole, zero or >= 2^32
    output wire [63:0]  a_addr,      // a start's or GETREQ's address, length, block, stride words
    output wire [63:0]  a_len,
    output wire [31:0]  a_blk,       // (block and stride of a start: checked below 2^32)
    output wire [31:0]  a_stride,
    output wire         strided,     // a block-stride PUT / GETRESP start
    output wire         g_strided,   // a block-stride GETREQ
    output wire         bad_plain,   // the range [addr, addr + len) is not word-aligned in memory
    output wire         bad_stride,  // block or stride unusable
    output wire         span_bad,    // a block-stride start's last block ends outside memory
    output wire         g_bad        // a block-stride GETREQ's range is bad
);
    `include "rdma_packet.vh"
    // word k of the payload is w[32 * (k - 1) +: 32]
    wire [31:0] w7 = w[192 +: 32], w8 = w[224 +: 32], w9 = w[256 +: 32], w10 = w[288 +: 32];
    wire [63:0] blk = w[128 +: 64], stride = w[192 +: 64];
    assign a_addr = w[0 +: 64];
    assign a_len = w[64 +: 64];
    assign a_blk = blk[31:0];
    assign a_stride = stride[31:0];
    assign strided = (typ == RDMA_T_PUT || typ == RDMA_T_GETRESP) && words >= 5'd9;
    // a block-stride GETREQ: w[7] block, w[8] count, w[9] stride here, w[10] stride at the initiator
    assign g_strided = words >= 5'd11;
    wire [63:0] g_span = {32'd0, w8 - 32'd1} * {32'd0, w9} + {32'd0, w7};
    assign g_bad = w7 == 32'd0 || w7[1:0] != 2'd0 || w9[1:0] != 2'd0 || w10[1:0] != 2'd0
                   || w9 < w7 || w10 < w7 || w8 == 32'd0 || a_len != {32'd0, w7} * {32'd0, w8}
                   || a_addr[1:0] != 2'd0 || a_addr > MEM_BYTES || g_span > MEM_BYTES - a_addr;
    assign bad_plain = a_addr[1:0] != 2'd0 || a_len[1:0] != 2'd0 || a_len == 64'd0 || a_addr > MEM_BYTES
                       || a_len > MEM_BYTES - a_addr;
    assign bad_stride = blk == 64'd0 || blk[1:0] != 2'd0 || stride[1:0] != 2'd0 || stride < blk
                        || blk[63:32] != 32'd0 || stride[63:32] != 32'd0;

    // len / block by shift-subtract: dq the dividend, then the quotient; dr the remainder
    reg [63:0] dq_reg, dr_reg;
    reg [6:0]  di_reg;
    wire [63:0] span = (dq_reg - 64'd1) * {32'd0, stride[31:0]} + blk;  // dq < 2^32 when used
    assign span_bad = strided && span > MEM_BYTES - a_addr;
    assign div_done = di_reg == 7'd64;
    assign div_bad = dr_reg != 64'd0 || dq_reg[63:32] != 32'd0 || dq_reg == 64'd0;
    always @(posedge clk) begin
        if (rst) begin
            dq_reg <= 64'd0; dr_reg <= 64'd0; di_reg <= 7'd0;
        end else if (div_start) begin
            dq_reg <= a_len; dr_reg <= 64'd0; di_reg <= 7'd0;
        end else if (div_step && !div_done) begin
            if ({dr_reg[62:0], dq_reg[63]} >= blk) begin
                dr_reg <= {dr_reg[62:0], dq_reg[63]} - blk;
                dq_reg <= {dq_reg[62:0], 1'b1};
            end else begin
                dr_reg <= {dr_reg[62:0], dq_reg[63]};
                dq_reg <= {dq_reg[62:0], 1'b0};
            end
            di_reg <= di_reg + 7'd1;
        end
    end
endmodule
`default_nettype wire
