// Link-layer receiver (beats of LANES words as rdma_link_tx sends them): CRC-32 check, in-order acceptance (go-back-N), per-VC input
// buffers whose free slots are returned as credits, ACK/NAK requests for the local
// sender, and decoding of the peer's CTRL packets. `overflow` is sticky and must never
// rise: credits guarantee a free slot for every packet accepted.
`default_nettype none
module rdma_link_rx #(
    parameter integer VC_BUF = 4,     // packets per VC (power of 2)
    parameter integer LANES = 1,      // 32-bit words per beat (power of 2, 1..32): rdma_link_tx
    parameter integer MAX_WORDS = 16  // largest payload: 16, or up to 256 with bulk packets
) (
    input  wire        clk,
    input  wire        rst,
    // serial side (no back-pressure)
    input  wire        in_valid,
    input  wire [32*LANES-1:0] in_data,
    input  wire        in_last,
    // packets to the router: it picks the VC (out_sel_vc) from the two VC heads
    input  wire        out_sel_vc,
    output wire [1:0]  out_avail,
    output wire [31:0] out_head0,
    output wire [31:0] out_head1,
    // the packet behind each head (its header, and whether there is one): the router routes it
    // a cycle ahead, so the next packet of a VC leaves the cycle after the one before
    output wire [1:0]  out_more,
    output wire [31:0] out_next0,
    output wire [31:0] out_next1,
    output wire        out_valid,
    input  wire        out_ready,
    output wire [32*LANES-1:0] out_data,
    output wire        out_last,
    output wire        out_vc,
    // for the local sender's CTRL packets
    output reg  [9:0]  expected,
    output reg         nak,
    output reg         dirty,
    output reg  [15:0] freed0,
    output reg  [15:0] freed1,
    input  wire        ctrl_sent,
    // the peer's CTRL packets
    output reg         ack_valid,
    output reg  [9:0]  ack_seq,
    output reg         ack_nak,
    output reg  [15:0] peer_freed0,
    output reg  [15:0] peer_freed1,
    output reg         overflow,
    output reg  [15:0] crc_errors,
    // debug (RDMA_LINK_* CSRs)
    output reg  [31:0] packets,    // packets accepted in order (duplicates and CTRL not counted)
    output wire [20:0] dbg_state   // {mid-packet, packets held on VC 1, on VC 0}
);
    `include "rdma_packet.vh"
    localparam integer BW = $clog2(VC_BUF);
    localparam integer DW = 32 * LANES;
    localparam integer LL = $clog2(LANES);
    localparam integer SLOT = (MAX_WORDS + LANES) / LANES;  // beats of header + payload
    localparam integer BI = $clog2(SLOT + 2);               // beat index, one past the longest packet
    localparam integer NW = RDMA_NWORDS_W;
    localparam integer CW = $clog2(LANES + 1);
    localparam [NW:0] BEAT_T = LANES[NW:0];
    localparam integer A1 = {27'd0, RDMA_CTRL_ACK_SEQ_WORD}, A2 = {27'd0, RDMA_CTRL_FREED0_WORD};

    reg [DW-1:0] mem [0:2*VC_BUF*SLOT-1];
    reg [NW-1:0] plen [0:2*VC_BUF-1];
    reg [BW:0] wr0_reg, wr1_reg, rd0_reg, rd1_reg;
    reg [BI-1:0] widx_reg;  // beat of the packet coming in
    reg [31:12] hdr_reg;  // dst and src matter to the router only
    reg [31:0] crc_reg, w1_reg, w2_reg;
    reg        nak_sent_reg, too_long_reg;
    reg        rd_busy_reg, rd_vc_reg;
    reg [BI-1:0] ridx_reg;

    wire [BW:0] cnt0 = wr0_reg - rd0_reg;
    wire [BW:0] cnt1 = wr1_reg - rd1_reg;
    wire [9:0]  held0 = {{9-BW{1'b0}}, cnt0};
    wire [9:0]  held1 = {{9-BW{1'b0}}, cnt1};
    wire        first = widx_reg == {BI{1'b0}};
    assign dbg_state = {!first, held1, held0};
    wire [31:12] hdr = first ? in_data[31:12] : hdr_reg;  // the header of the packet coming in
    wire        cur_vc = hdr[RDMA_HDR_VC_LSB];
    wire        room = cur_vc ? cnt1 < VC_BUF[BW:0] : cnt0 < VC_BUF[BW:0];
    wire [BW-1:0] wslot = cur_vc ? wr1_reg[BW-1:0] : wr0_reg[BW-1:0];
    wire [NW-1:0] words = rdma_words(hdr[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W]);
    // the CRC word is word 1 + words: lane `rest` of the beat `last_b`
    wire [NW:0] t_words = {1'b0, words} + 1'b1;
    wire [NW:0] last_b = t_words >> LL;
    wire [NW:0] rest = t_words - ({{NW+1-BI{1'b0}}, widx_reg} << LL);
    wire        crc_here = rest < BEAT_T;
    wire [CW-1:0] nfold = crc_here ? rest[CW-1:0] : BEAT_T[CW-1:0];
    wire [31:0] crc_next;
    rdma_crc32 #(.LANES(LANES)) u_crc (.crc_in(first ? 32'hFFFFFFFF : crc_reg), .data(in_data), .nwords(nfold),
                                       .crc_out(crc_next));
    reg  [31:0] crc_word;  // the word in the CRC's lane
    integer k;
    always @(*) begin
        crc_word = 32'd0;
        for (k = 0; k < LANES; k = k + 1)
            if (k == {{32-CW{1'b0}}, nfold}) crc_word = in_data[32 * k +: 32];
    end
    wire        good = !too_long_reg && {{NW+1-BI{1'b0}}, widx_reg} == last_b && words <= MAX_WORDS[NW-1:0]
                       && crc_here && crc_word == ~crc_next;
    wire [9:0]  d = hdr[RDMA_HDR_SEQ_LSB +: RDMA_HDR_SEQ_W] - expected;
    // the CTRL words, from this beat or an earlier one
    wire [31:0] w1 = {{32-BI{1'b0}}, widx_reg} == A1 / LANES ? in_data[32 * (A1 % LANES) +: 32] : w1_reg;
    wire [31:0] w2 = {{32-BI{1'b0}}, widx_reg} == A2 / LANES ? in_data[32 * (A2 % LANES) +: 32] : w2_reg;

    // read side
    wire        pick_vc = rd_busy_reg ? rd_vc_reg : out_sel_vc;
    wire        have = rd_busy_reg || (out_sel_vc ? cnt1 != 0 : cnt0 != 0);
    assign out_avail = {cnt1 != 0, cnt0 != 0};
    /* verilator lint_off UNUSEDSIGNAL */  // the router looks at the header (lane 0) only
    wire [DW-1:0] head0 = mem[{1'b0, rd0_reg[BW-1:0]} * SLOT];
    wire [DW-1:0] head1 = mem[{1'b1, rd1_reg[BW-1:0]} * SLOT];
    /* verilator lint_on UNUSEDSIGNAL */
    assign out_head0 = head0[31:0];
    assign out_head1 = head1[31:0];
    wire [BW-1:0] rd0_n = rd0_reg[BW-1:0] + 1'b1;
    wire [BW-1:0] rd1_n = rd1_reg[BW-1:0] + 1'b1;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [DW-1:0] next0 = mem[{1'b0, rd0_n} * SLOT];
    wire [DW-1:0] next1 = mem[{1'b1, rd1_n} * SLOT];
    /* verilator lint_on UNUSEDSIGNAL */
    assign out_more = {cnt1 > 1, cnt0 > 1};
    assign out_next0 = next0[31:0];
    assign out_next1 = next1[31:0];
    wire [BW-1:0] rslot = pick_vc ? rd1_reg[BW-1:0] : rd0_reg[BW-1:0];
    wire [NW-1:0] rlen = plen[{pick_vc, rslot}];
    wire [BI-1:0] ri = rd_busy_reg ? ridx_reg : {BI{1'b0}};
    assign out_valid = have;
    assign out_vc = pick_vc;
    assign out_data = mem[{pick_vc, rslot} * SLOT + {{32-BI{1'b0}}, ri}];
    assign out_last = {{NW-BI{1'b0}}, ri} == rlen >> LL;  // header + payload: rlen / LANES + 1 beats

    always @(posedge clk) begin
        ack_valid <= 1'b0;
        if (rst) begin
            wr0_reg <= 0; wr1_reg <= 0; rd0_reg <= 0; rd1_reg <= 0; widx_reg <= {BI{1'b0}}; hdr_reg <= 20'd0; crc_reg <= 32'd0;
            w1_reg <= 32'd0; w2_reg <= 32'd0; nak_sent_reg <= 1'b0; too_long_reg <= 1'b0; rd_busy_reg <= 1'b0;
            rd_vc_reg <= 1'b0; ridx_reg <= {BI{1'b0}}; expected <= 10'd0; nak <= 1'b0; dirty <= 1'b0;
            freed0 <= 16'd0; freed1 <= 16'd0; ack_seq <= 10'd0; ack_nak <= 1'b0;
            peer_freed0 <= 16'd0; peer_freed1 <= 16'd0; overflow <= 1'b0; crc_errors <= 16'd0; packets <= 32'd0;
        end else begin
            if (ctrl_sent) begin
                nak <= 1'b0;
                dirty <= 1'b0;
            end
            // receive: stage the beats into the next free slot of the packet's VC
            if (in_valid) begin
                if (first) hdr_reg <= in_data[31:12];
                crc_reg <= crc_next;
                w1_reg <= w1;
                w2_reg <= w2;
                if (widx_reg < SLOT[BI-1:0] && room) mem[{cur_vc, wslot} * SLOT + {{32-BI{1'b0}}, widx_reg}] <= in_data;
            end
            if (in_valid && !in_last) begin
                if (widx_reg == SLOT[BI-1:0]) too_long_reg <= 1'b1;
                else widx_reg <= widx_reg + 1'b1;
            end else if (in_valid && in_last) begin
                widx_reg <= {BI{1'b0}};
                too_long_reg <= 1'b0;
                if (!good) begin
                    crc_errors <= crc_errors + 16'd1;
                    if (!nak_sent_reg) begin nak <= 1'b1; nak_sent_reg <= 1'b1; end
                end else if (hdr[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W] == RDMA_T_CTRL) begin  // CTRL from the peer
                    ack_valid <= 1'b1;
                    ack_seq <= w1[RDMA_CTRL_ACK_SEQ_LSB +: RDMA_CTRL_ACK_SEQ_W];
                    ack_nak <= w1[RDMA_CTRL_NAK_LSB];
                    peer_freed0 <= w2[RDMA_CTRL_FREED0_LSB +: RDMA_CTRL_FREED0_W];
                    peer_freed1 <= w2[RDMA_CTRL_FREED1_LSB +: RDMA_CTRL_FREED1_W];
                end else if (d == 10'd0) begin
                    if (!room) begin
                        overflow <= 1'b1;  // a credit violation: never expected
                    end else begin
                        plen[{cur_vc, wslot}] <= words;
                        if (cur_vc) wr1_reg <= wr1_reg + 1'b1;
                        else wr0_reg <= wr0_reg + 1'b1;
                        expected <= expected + 10'd1;
                        packets <= packets + 32'd1;
                        nak_sent_reg <= 1'b0;
                        dirty <= 1'b1;
                    end
                end else if (d < 10'd512) begin  // a gap: something before it was lost
                    if (!nak_sent_reg) begin nak <= 1'b1; nak_sent_reg <= 1'b1; end
                end else begin
                    dirty <= 1'b1;  // a duplicate: acknowledge again
                end
            end
            // deliver to the router; the slot's credit goes back with the next CTRL packet
            if (have && out_ready) begin
                if (out_last) begin
                    rd_busy_reg <= 1'b0;
                    ridx_reg <= {BI{1'b0}};
                    if (pick_vc) begin rd1_reg <= rd1_reg + 1'b1; freed1 <= freed1 + 16'd1; end
                    else begin rd0_reg <= rd0_reg + 1'b1; freed0 <= freed0 + 16'd1; end
                    dirty <= 1'b1;
                end else begin
                    rd_busy_reg <= 1'b1;
                    rd_vc_reg <= pick_vc;
                    ridx_reg <= ri + 1'b1;
                end
            end
        end
    end
    initial begin
        if (VC_BUF < 2 || VC_BUF > 256 || (VC_BUF & (VC_BUF - 1)) != 0) $error("%m: VC_BUF=%0d must be a power of 2 in 2..256", VC_BUF);
        if (LANES < 1 || LANES > 32 || (LANES & (LANES - 1)) != 0) $error("%m: LANES=%0d must be a power of 2 in 1..32", LANES);
        if (MAX_WORDS != 16 && (MAX_WORDS < 16 || MAX_WORDS > 256 || MAX_WORDS % 16 != 0))
            $error("%m: MAX_WORDS=%0d must be 16 or a multiple of 16 up to 256", MAX_WORDS);
    end
endmodule
`default_nettype wire
