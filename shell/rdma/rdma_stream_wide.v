// A stream endpoint pair on a wide local port (rdma_stream's protocol, beats of LANES words):
// the local core gives up to a beat of words a cycle (s_words of them, `last` on the final
// one), they are cut into bulk STREAM packets (header, control word, up to 255 data words
// running on across the beats: no lane is left empty but in a packet's final beat) for one
// remote card; STREAM packets arriving for this endpoint's stream id are delivered in order,
// m_want words a cycle (a record of the consumer's size; fewer only where a segment ends
// earlier, m_words says how many). Both sides keep the words in realigning buffers
// (rdma_wbuf), so records of any width up to a beat pack densely into beats and packets.
// Back-pressure is end to end by credits counted in words of the receiver's buffer (RX_DEPTH,
// the same build on both cards): the round trip at the line takes thousands of words, and a
// word is the unit in which packets and records of any width use the buffer, so nothing is
// rounded up. The receiver returns freed words in CREDIT packets once CREDIT_BATCH are free
// or CREDIT_FLUSH cycles passed. A stalled consumer never blocks the router: what arrives
// always has room, and other traffic keeps flowing. Packets stay in order per pair. With
// SECOND = 1 the pair sends and takes STREAM2 / CREDIT2 packets, which the router ejects at
// the card's second local port (rdma_router LOCALS = 2).
`default_nettype none
module rdma_stream_wide #(
    parameter integer LANES = 16,          // 32-bit words per beat (16 or 32)
    parameter integer RX_DEPTH = 8192,     // receive buffer, words (power of 2; the credits)
    parameter integer TX_DEPTH = 1024,     // send buffer, words (power of 2, >= 2 full packets)
    parameter integer FLUSH = 8,           // idle cycles before a partial packet is sent
    parameter integer CREDIT_WAIT = 64,    // ... when the core is held for credit: they come back
                                           // in batches, and waiting for the next keeps packets whole
    parameter integer CREDIT_BATCH = 512,  // freed words that trigger a CREDIT packet
    parameter integer CREDIT_FLUSH = 32,   // cycles before fewer are returned
    parameter integer SECOND = 0           // 1: STREAM2 / CREDIT2 packets (the second local port)
) (
    `include "rdma_stream_cfg_ports.vh"
    // the local core's output stream into the network: words 0..s_words-1 of s_data
    input  wire                s_valid,
    output wire                s_ready,
    input  wire [32*LANES-1:0] s_data,
    input  wire [5:0]          s_words,  // 1..LANES
    input  wire                s_last,
    // the network's stream to the local core: m_words words (m_want, or up to a segment's end)
    output wire                m_valid,
    input  wire                m_ready,
    output wire [32*LANES-1:0] m_data,
    input  wire [5:0]          m_want,   // 1..LANES
    output wire [5:0]          m_words,
    output wire                m_last,
    // packets to / from the stream side of the local port (ejection always taken)
    output reg                 inj_valid,
    input  wire                inj_ready,
    output reg  [32*LANES-1:0] inj_data,
    output reg                 inj_last,
    input  wire                ej_valid,
    input  wire [32*LANES-1:0] ej_data,
    input  wire                ej_last,
    output reg                 rx_overflow,  // sticky: words arrived without room (never expected)
    output reg                 rx_misrouted  // sticky: a STREAM packet with another stream id
);
    `include "rdma_packet.vh"
    localparam [3:0] PKT_STREAM = SECOND != 0 ? RDMA_T_STREAM2 : RDMA_T_STREAM;  // this pair's packet types
    localparam [3:0] PKT_CREDIT = SECOND != 0 ? RDMA_T_CREDIT2 : RDMA_T_CREDIT;
    localparam integer L = LANES;
    localparam integer CW = $clog2(LANES) + 1;         // a count of words up to a beat
    localparam integer MAXD = RDMA_MAX_BULK_WORDS - 1;  // data words of the largest packet
    localparam integer SEG_DEPTH = 32;                  // segment ends waiting to be sent
    localparam [15:0] L16 = LANES[15:0];
    localparam [15:0] FIRST_DATA = LANES[15:0] - 16'd2;  // data lanes of a packet's first beat

    // the largest packet of at most x data words: 1..15, or 16k - 1 (whole bulk units with
    // the control word)
    function automatic [15:0] fit(input [15:0] x);
        fit = x >= 16'd31 ? ((x + 16'd1) & ~16'd15) - 16'd1 : (x > 16'd15 ? 16'd15 : x);
    endfunction
    // lanes below n, word-wise
    function automatic [32*LANES-1:0] lanes_below(input [15:0] n);
        integer j;
        for (j = 0; j < L; j = j + 1) lanes_below[32 * j +: 32] = j < n ? 32'hFFFF_FFFF : 32'd0;
    endfunction
    function automatic [15:0] min16(input [15:0] a, input [15:0] b);
        min16 = a < b ? a : b;
    endfunction

    // ---- send side ------------------------------------------------------------------------
    reg  [15:0] credits_reg;       // free words of the receiver's buffer not yet spoken for
    reg  [15:0] in_pos_reg;        // words taken from the core (wraps)
    reg  [15:0] out_pos_reg;       // words sent (wraps)
    reg  [7:0]  idle_reg;
    wire [$clog2(TX_DEPTH):0] t_count;
    wire [32*L-1:0] t_head;
    reg  [CW-1:0]   t_pop;
    wire sq_ready, sq_valid;
    wire [15:0] sq_head;
    reg         sq_pop;
    wire [CW-1:0] s_n = s_words[CW-1:0];
    assign s_ready = {{15-$clog2(TX_DEPTH){1'b0}}, t_count} <= TX_DEPTH[15:0] - L16 && credits_reg >= L16 && sq_ready;
    wire push = s_valid && s_ready;
    rdma_wbuf #(.DEPTH(TX_DEPTH), .IN(L), .OUT(L)) u_tx (
        .clk(clk), .rst(rst), .push_n(push ? s_n : {CW{1'b0}}), .push_data(s_data), .pop_n(t_pop), .head(t_head),
        .count(t_count));
    // where the segments end (positions after their last words), to cut packets there
    /* verilator lint_off UNUSEDSIGNAL */
    wire [$clog2(SEG_DEPTH):0] sq_level;
    /* verilator lint_on UNUSEDSIGNAL */
    shell_fifo #(.DATA_WIDTH(16), .FIFO_DEPTH(SEG_DEPTH)) u_sq (
        .clk(clk), .rst(rst), .s_axis_tvalid(push && s_last), .s_axis_tready(sq_ready),
        .s_axis_tdata(in_pos_reg + {{16-CW{1'b0}}, s_n}), .m_axis_tvalid(sq_valid), .m_axis_tready(sq_pop),
        .m_axis_tdata(sq_head), .level(sq_level));
    wire [15:0] avail = {{15-$clog2(TX_DEPTH){1'b0}}, t_count};
    wire [15:0] seg_rem = sq_head - out_pos_reg;
    // a packet is due: a segment's end is in the buffer, a full packet waits, or the core
    // paused (FLUSH; CREDIT_WAIT when it is held for credit), so that what it gave does not
    // wait for more
    wire [15:0] n_pkt = fit(min16(sq_valid ? seg_rem : avail, MAXD[15:0]));
    wire [7:0]  wait_for = credits_reg < L16 ? CREDIT_WAIT[7:0] : FLUSH[7:0];
    wire        pkt_due = avail != 16'd0 && (sq_valid || avail >= MAXD[15:0] || idle_reg >= wait_for);

    // ---- receive side ----------------------------------------------------------------------
    // words with their last flag (bit 32), so that records end where segments do
    wire [$clog2(RX_DEPTH):0] r_count;
    wire [33*L-1:0] r_head;
    reg  [CW-1:0]   r_push_n_reg;
    reg  [33*L-1:0] r_push_data_reg;
    wire [15:0] r_avail = {{15-$clog2(RX_DEPTH){1'b0}}, r_count};
    wire [15:0] want = {{16-CW{1'b0}}, m_want[CW-1:0]};
    // the record: want words, or fewer where a segment ends among the words present
    reg  [15:0] take;
    reg         seg_end;
    reg  [32*L-1:0] r_words;
    integer k;
    always @(*) begin
        take = want;
        seg_end = 1'b0;
        for (k = L - 1; k >= 0; k = k - 1) begin
            r_words[32 * k +: 32] = r_head[33 * k +: 32];
            if (r_head[33 * k + 32] && k < want && k < r_avail) begin
                take = k[15:0] + 16'd1;
                seg_end = 1'b1;
            end
        end
    end
    assign m_valid = want != 16'd0 && (seg_end || r_avail >= want);
    assign m_data = r_words;
    assign m_words = take[5:0];
    assign m_last = seg_end;
    wire pop = m_valid && m_ready;
    rdma_wbuf #(.DEPTH(RX_DEPTH), .IN(L), .OUT(L), .WIDTH(33)) u_rx (
        .clk(clk), .rst(rst), .push_n(r_push_n_reg), .push_data(r_push_data_reg),
        .pop_n(pop ? take[CW-1:0] : {CW{1'b0}}), .head(r_head), .count(r_count));
    // ejection parser: the first beat holds the header (lane 0), the control word (lane 1)
    // and the first data words
    reg         e_mid_reg;               // inside a packet, past its first beat
    reg         e_take_reg, e_seg_reg;   // this endpoint's STREAM packet; it ends a segment
    reg  [15:0] e_left_reg;              // its data words still to come
    wire [31:0] e_hdr = ej_data[31:0];
    wire [31:0] e_ctl = ej_data[63:32];
    wire [3:0]  e_type = e_hdr[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
    wire [7:0]  e_sid = e_ctl[RDMA_STREAM_SID_LSB +: RDMA_STREAM_SID_W];
    wire        e_first = ej_valid && !e_mid_reg;
    wire [15:0] e_data_words = {{16-RDMA_NWORDS_W{1'b0}}, rdma_words(e_hdr[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W])} - 16'd1;
    wire        e_stream_mine = e_type == PKT_STREAM && e_sid == rx_sid;
    wire [15:0] e_left = e_first ? e_data_words : e_left_reg;
    wire [15:0] e_n = min16(e_left, e_first ? FIRST_DATA : L16);
    wire        e_take = e_first ? e_stream_mine : e_take_reg;
    wire        e_seg = e_first ? e_ctl[RDMA_STREAM_LAST_LSB] : e_seg_reg;
    wire [32*L-1:0] e_beat = e_first ? {64'd0, ej_data[32*L-1:64]} : ej_data;  // its data words
    wire        credit_in = e_first && e_type == PKT_CREDIT && e_sid == tx_sid;
    reg  [15:0] freed_reg;
    reg  [7:0]  ctimer_reg;
    wire credit_due = freed_reg >= CREDIT_BATCH[15:0] || (freed_reg != 16'd0 && ctimer_reg >= CREDIT_FLUSH[7:0]);

    // ---- injection: CREDIT packets first, then STREAM packets --------------------------------
    localparam [1:0] I_IDLE = 2'd0, I_CREDIT = 2'd1, I_DATA = 2'd2;
    reg  [1:0]  ist_reg;
    reg         i_first_reg, i_lastpkt_reg;
    reg  [15:0] i_n_reg, i_left_reg;   // the packet's data words, those still to send
    reg  [15:0] c_words_reg;
    wire [15:0] i_beat = min16(i_left_reg, i_first_reg ? FIRST_DATA : L16);  // data words of this beat
    wire        i_end = i_left_reg == i_beat;
    wire [32*L-1:0] t_masked = t_head & lanes_below(i_beat);  // lanes past the packet's end zero
    wire [31:0] i_ctl = {23'd0, i_lastpkt_reg, tx_sid};
    always @(*) begin
        inj_valid = 1'b0;
        inj_data = {32*L{1'b0}};
        inj_last = 1'b0;
        t_pop = {CW{1'b0}};
        case (ist_reg)
            I_CREDIT: begin
                inj_valid = 1'b1;
                inj_data[95:0] = {16'd0, c_words_reg, 24'd0, rx_sid,
                                  rdma_hdr(rx_peer, card_id, PKT_CREDIT, 1'b0, 5'd2, 10'd0)};
                inj_last = 1'b1;
            end
            I_DATA: begin
                inj_valid = 1'b1;
                if (i_first_reg)
                    inj_data = {t_masked[32*(L-2)-1:0], i_ctl,
                                rdma_hdr(tx_dst, card_id, PKT_STREAM, 1'b0, rdma_words_code(i_n_reg[8:0] + 9'd1),
                                         10'd0)};
                else
                    inj_data = t_masked;
                inj_last = i_end;
                if (inj_ready) t_pop = i_beat[CW-1:0];
            end
            default: ;
        endcase
    end
    always @(*) sq_pop = ist_reg == I_DATA && inj_ready && i_end && i_lastpkt_reg;

    always @(posedge clk) begin
        r_push_n_reg <= {CW{1'b0}};
        if (rst) begin
            credits_reg <= RX_DEPTH[15:0]; in_pos_reg <= 16'd0; out_pos_reg <= 16'd0; idle_reg <= 8'd0;
            r_push_data_reg <= {33*L{1'b0}};
            e_mid_reg <= 1'b0; e_take_reg <= 1'b0; e_seg_reg <= 1'b0; e_left_reg <= 16'd0;
            freed_reg <= 16'd0; ctimer_reg <= 8'd0; ist_reg <= I_IDLE; i_first_reg <= 1'b0; i_lastpkt_reg <= 1'b0;
            i_n_reg <= 16'd0; i_left_reg <= 16'd0; c_words_reg <= 16'd0; rx_overflow <= 1'b0; rx_misrouted <= 1'b0;
        end else begin
            // send side bookkeeping
            credits_reg <= credits_reg - (push ? {{16-CW{1'b0}}, s_n} : 16'd0) + (credit_in ? ej_data[79:64] : 16'd0);
            if (push) in_pos_reg <= in_pos_reg + {{16-CW{1'b0}}, s_n};
            if (push || avail == 16'd0 || ist_reg == I_DATA) idle_reg <= 8'd0;
            else if (idle_reg != 8'hFF) idle_reg <= idle_reg + 8'd1;
            if (freed_reg != 16'd0 && ctimer_reg != 8'hFF) ctimer_reg <= ctimer_reg + 8'd1;
            case (ist_reg)
                I_IDLE: begin
                    if (credit_due) begin
                        c_words_reg <= freed_reg;
                        ist_reg <= I_CREDIT;
                    end else if (pkt_due) begin
                        i_n_reg <= n_pkt;
                        i_left_reg <= n_pkt;
                        i_first_reg <= 1'b1;
                        i_lastpkt_reg <= sq_valid && seg_rem == n_pkt;
                        ist_reg <= I_DATA;
                    end
                end
                I_CREDIT: if (inj_ready) ist_reg <= I_IDLE;
                default: if (inj_ready) begin  // I_DATA
                    i_first_reg <= 1'b0;
                    i_left_reg <= i_left_reg - i_beat;
                    out_pos_reg <= out_pos_reg + i_beat;
                    if (i_end) ist_reg <= I_IDLE;
                end
            endcase
            // freed words: those the consumer takes, less what a CREDIT packet returned
            if (ist_reg == I_IDLE && credit_due) begin
                freed_reg <= pop ? take : 16'd0;
                ctimer_reg <= 8'd0;
            end else if (pop) begin
                freed_reg <= freed_reg + take;
            end
            // ejection
            if (ej_valid) begin
                e_mid_reg <= !ej_last;
                e_left_reg <= e_left - e_n;
                if (e_first) begin
                    e_take_reg <= e_stream_mine;
                    e_seg_reg <= e_ctl[RDMA_STREAM_LAST_LSB];
                    if (e_type == PKT_STREAM && !e_stream_mine) rx_misrouted <= 1'b1;
                end
                if (e_take) begin
                    r_push_n_reg <= e_n[CW-1:0];
                    for (k = 0; k < L; k = k + 1)
                        r_push_data_reg[33 * k +: 33] <= {ej_last && e_seg && k[15:0] == e_n - 16'd1, e_beat[32 * k +: 32]};
                end
            end
            if ({{16-CW{1'b0}}, r_push_n_reg} > RX_DEPTH[15:0] - r_avail) rx_overflow <= 1'b1;
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, s_words, m_want, e_hdr,
                       ej_data[95:80], e_ctl[31:9], i_n_reg[15:9]};
    /* verilator lint_on UNUSEDSIGNAL */
    initial begin
        if (LANES != 16 && LANES != 32) $error("%m: LANES=%0d must be 16 or 32", LANES);
        if (SECOND != 0 && SECOND != 1) $error("%m: SECOND=%0d must be 0 or 1", SECOND);
        if (RX_DEPTH < 1024 || RX_DEPTH > 32768 || (RX_DEPTH & (RX_DEPTH - 1)) != 0)
            $error("%m: RX_DEPTH=%0d must be a power of 2 in 1024..32768", RX_DEPTH);
        if (TX_DEPTH < 2 * 256 || TX_DEPTH > 16384 || (TX_DEPTH & (TX_DEPTH - 1)) != 0)
            $error("%m: TX_DEPTH=%0d must be a power of 2 in 512..16384", TX_DEPTH);
        if (CREDIT_BATCH < 1 || CREDIT_BATCH > RX_DEPTH / 2) $error("%m: CREDIT_BATCH must be 1..RX_DEPTH/2");
        if (FLUSH < 1 || FLUSH > 255 || CREDIT_WAIT < 1 || CREDIT_WAIT > 255) $error("%m: FLUSH and CREDIT_WAIT must be 1..255");
    end
endmodule
`default_nettype wire
