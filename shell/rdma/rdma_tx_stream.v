// The stream both RDMA engines' senders (rdma_engine_tx, rdma_engine_wtx) are sending: a
// put of the initiator's, or the answer to a queued get request, chosen when the sender is
// idle with no reply waiting (replies go first, a command before a get request), as the
// sender chooses its next control packet. It holds the stream's destination, the bytes not
// yet in a packet (the stream ends when a packet takes the last), the get's event, and the
// read-ahead address walk over the stream's source: each read takes rd_n words (1 for the
// word engine, up to a line's or block's end for the wide one); at a block's end it jumps
// a stride from the block's start.
//
// READ_AHEAD: once the stream's reads are all made and the next stream is known to be a
// put (the command queue's head, which a stream being sent keeps waiting), the walk goes
// on over that put's source, so its first packet is in the sender's buffer by the time the
// stream before it has left (the buffer is a FIFO: the stream's words come first). Without
// it a put's reads start when the put is taken, and the link waits for its first packet's
// words (a packet leaves only once its whole payload is in the buffer).
`default_nettype none
module rdma_tx_stream #(
    parameter integer READ_AHEAD = 0
) (
    input  wire         clk,
    input  wire         rst,
    // the sender's choice
    input  wire         idle,        // the sender waits for its next packet
    input  wire         rp_empty,
    input  wire         rp_pop,      // a reply taken last cycle (rp_empty not yet updated)
    input  wire         c_valid,
    input  wire         c_take,      // the command taken last cycle
    input  wire         c_get,
    input  wire         rq_empty,
    input  wire         rq_pop,      // a get request taken last cycle
    // the initiator's put
    input  wire [5:0]   c_dst,
    input  wire [63:0]  c_local,
    input  wire [63:0]  c_len,
    input  wire [31:0]  c_block,     // 0: contiguous
    input  wire [31:0]  c_lstride,
    // the get request (rdma_rq_fields.vh)
    input  wire [5:0]   q_src,
    input  wire [63:0]  q_remote,
    input  wire [63:0]  q_len,
    input  wire [31:0]  q_block,
    input  wire [31:0]  q_rstride,
    // the stream
    output reg          active,
    output reg  [5:0]   dst,
    output reg  [63:0]  left,        // bytes not yet in a packet
    output reg          notify,      // a get served: its event when the last packet has left
    output wire [137:0] ev_data,     // {kind 4, peer 6, addr 64, len 64}
    input  wire         sent,        // a packet of the stream left, with sent_bytes of it
    input  wire [63:0]  sent_bytes,
    // the read-ahead
    input  wire         rd_acc,      // a read of rd_n words accepted
    input  wire [4:0]   rd_n,
    output reg  [63:0]  rd_cur,      // the next read's byte address
    output reg  [63:0]  rd_left,     // bytes still to read
    output reg  [31:0]  rd_blk,
    output reg  [31:0]  rd_brem      // bytes left in the block
);
    `include "rdma_packet.vh"
    reg [5:0]  n_peer_reg;
    reg [63:0] n_addr_reg, n_len_reg;
    reg [63:0] rd_bstart_reg;
    reg [31:0] rd_stride_reg;
    reg        pre_reg;   // the walk is over the next put's source already
    assign ev_data = {RDMA_T_GETREQ, n_peer_reg, n_addr_reg, n_len_reg};

    wire        choose = idle && (rp_empty || rp_pop) && !active;
    wire        put = choose && c_valid && !c_take && !c_get;
    wire        resp = choose && !(c_valid && !c_take) && !rq_empty && !rq_pop;
    wire [63:0] rd_bytes = {57'd0, rd_n, 2'b00};
    wire        rd_jump = rd_blk != 32'd0 && rd_bytes[31:0] == rd_brem;
    wire        pre = READ_AHEAD != 0 && active && !pre_reg && rd_left == 64'd0 && c_valid && !c_take && !c_get;

    always @(posedge clk) begin
        if (rst) begin
            active <= 1'b0; dst <= 6'd0; left <= 64'd0; notify <= 1'b0;
            n_peer_reg <= 6'd0; n_addr_reg <= 64'd0; n_len_reg <= 64'd0;
            rd_left <= 64'd0; rd_cur <= 64'd0; rd_bstart_reg <= 64'd0; rd_blk <= 32'd0; rd_brem <= 32'd0;
            rd_stride_reg <= 32'd0; pre_reg <= 1'b0;
        end else begin
            if (rd_acc) begin
                rd_left <= rd_left - rd_bytes;
                if (rd_jump) begin
                    rd_bstart_reg <= rd_bstart_reg + {32'd0, rd_stride_reg};
                    rd_cur <= rd_bstart_reg + {32'd0, rd_stride_reg};
                    rd_brem <= rd_blk;
                end else begin
                    rd_cur <= rd_cur + rd_bytes;
                    rd_brem <= rd_brem - rd_bytes[31:0];
                end
            end
            if (put || pre) begin
                if (!pre_reg) begin
                    rd_left <= c_len; rd_cur <= c_local; rd_bstart_reg <= c_local; rd_blk <= c_block;
                    rd_brem <= c_block; rd_stride_reg <= c_lstride;
                end
                pre_reg <= pre;
            end
            if (put) begin
                active <= 1'b1; dst <= c_dst; left <= c_len; notify <= 1'b0;
            end
            if (resp) begin
                active <= 1'b1; dst <= q_src; left <= q_len; notify <= 1'b1;
                n_peer_reg <= q_src; n_addr_reg <= q_remote; n_len_reg <= q_len;
                rd_left <= q_len; rd_cur <= q_remote; rd_bstart_reg <= q_remote; rd_blk <= q_block;
                rd_brem <= q_block; rd_stride_reg <= q_rstride;
            end
            if (sent) begin
                left <= left - sent_bytes;
                if (left == sent_bytes) active <= 1'b0;
            end
        end
    end
endmodule
`default_nettype wire
