// Link-layer sender: sequence numbers, CRC-32, credits per VC, go-back-N replay.
// Packets from the router: header word (dst 6 | src 6 | type 4 | vc 1 | words 5 | seq 10; seq
// is filled in here), then the payload words (`rdma_words` of the WORDS code), packed LANES
// words to a beat, the header in lane 0 of the first beat. On the link the CRC word follows
// the last payload word (in the same beat when a lane is left, else in a beat of its own);
// CTRL packets (type 0) carry the local receiver's ACK/NAK and freed-slot counters, the same
// format as the C++ model (runtime/rdma, docs/rdma.md). LANES = 1 is one word per cycle.
`default_nettype none
module rdma_link_tx #(
    `include "rdma_link_params.vh"
) (
    input  wire        clk,
    input  wire        rst,
    // packets from the router
    input  wire        in_valid,
    output wire        in_ready,
    input  wire [32*LANES-1:0] in_data,
    input  wire        in_last,
    // state of the local receiver, sent in CTRL packets
    input  wire [9:0]  rx_expected,
    input  wire        rx_nak,
    input  wire        rx_dirty,
    input  wire [15:0] rx_freed0,
    input  wire [15:0] rx_freed1,
    output reg         ctrl_sent,
    // the peer's ACK / NAK / credits, decoded by the local receiver
    input  wire        ack_valid,
    input  wire [9:0]  ack_seq,
    input  wire        ack_nak,
    input  wire [15:0] peer_freed0,
    input  wire [15:0] peer_freed1,
    // serial side
    output reg         out_valid,
    output reg  [32*LANES-1:0] out_data,
    output reg         out_last,
    input  wire        out_ready,
    output reg  [15:0] replays,
    // for the router: a packet on VC v would be admitted now, or right after the packet
    // being written (credit and window)
    output wire [1:0]  can_take,
    // debug counters and state (RDMA_LINK_* CSRs): `blocked` is the router's flag that a
    // packet waits for this port but cannot be admitted (no credit or a full window)
    input  wire        blocked,
    output reg  [31:0] packets,       // packets taken from the router (each counted once)
    output reg  [31:0] credit_stalls, // cycles with `blocked`
    output reg  [31:0] window_full,   // cycles with WINDOW packets unacknowledged
    output wire [29:0] dbg_state      // {slots used at the peer on VC 1, on VC 0, unacknowledged}
);
    `include "rdma_packet.vh"
    localparam integer SW = $clog2(WINDOW);
    localparam integer DW = 32 * LANES;
    localparam integer LL = $clog2(LANES);
    localparam integer SLOT = (MAX_WORDS + LANES) / LANES;  // beats of header + payload
    localparam integer BI = $clog2(SLOT + 1);               // beat index, up to the CRC's own beat
    localparam integer NW = RDMA_NWORDS_W;
    localparam integer CW = $clog2(LANES + 1);

    reg [DW-1:0] mem [0:WINDOW*SLOT-1];
    reg [NW-1:0] plen [0:WINDOW-1];
    reg [9:0]  base_reg, next_seq_reg, send_ptr_reg;
    reg [15:0] sent_new0_reg, sent_new1_reg, pf0_reg, pf1_reg;
    reg        acc_busy_reg;
    reg [BI-1:0] acc_idx_reg;
    reg        busy_reg;               // mid-packet on the serial side
    reg [BI-1:0] idx_reg;              // beat being sent
    reg [NW:0] n_words_reg;            // words before the CRC (header + payload)
    reg        is_ctrl_reg;
    reg [31:0] crc_reg, c0_reg, c1_reg;
    reg        rewind_reg;
    reg [15:0] timer_reg, ctrl_timer_reg;

    wire [9:0]  inflight = next_seq_reg - base_reg;
    wire        hdr_vc = in_data[RDMA_HDR_VC_LSB];
    wire [15:0] used0 = sent_new0_reg - pf0_reg;
    wire [15:0] used1 = sent_new1_reg - pf1_reg;
    wire [15:0] used = hdr_vc ? used1 : used0;
    wire        can_start = !acc_busy_reg && in_valid && (used < VC_BUF[15:0]) && (inflight < WINDOW[9:0]);
    assign in_ready = acc_busy_reg || can_start;
    // the router's chaining asks while a packet is being written whether the next could
    // follow it: that packet already counts in its VC's credits, not yet in the window
    wire win_ok = inflight + {9'd0, acc_busy_reg} < WINDOW[9:0];
    assign can_take = {win_ok && used1 < VC_BUF[15:0], win_ok && used0 < VC_BUF[15:0]};
    assign dbg_state = {used1[9:0], used0[9:0], inflight};
    wire [SW-1:0] wslot = next_seq_reg[SW-1:0];
    wire [SW-1:0] sslot = send_ptr_reg[SW-1:0];
    wire        advance = !out_valid || out_ready;
    // cut-through: the packet the router is still writing into its slot goes out as far as its
    // beats are in, so it starts on the wire a cycle after its first beat arrives instead of
    // after its last (9 beats of a 1 KiB packet at 100 Gb/s, every hop); the router passes a
    // beat a cycle and the wire takes one every 2 cycles or more, so it rarely waits
    wire        filling = acc_busy_reg && send_ptr_reg == next_seq_reg;
    wire        beat_in = !filling || idx_reg < acc_idx_reg;  // (mid-packet)

    wire ctrl_due = rx_nak || (rx_dirty && ctrl_timer_reg >= CTRL_INTERVAL[15:0]) || ctrl_timer_reg >= KEEPALIVE[15:0];
    wire [9:0] ack_d = ack_seq - base_reg;
    wire send_ok = (send_ptr_reg - base_reg) <= inflight;  // else acknowledged meanwhile: restart at base
    wire [31:0] c0_now = ({22'd0, rx_expected} << RDMA_CTRL_ACK_SEQ_LSB) | ({31'd0, rx_nak} << RDMA_CTRL_NAK_LSB);
    wire [31:0] c1_now = ({16'd0, rx_freed1} << RDMA_CTRL_FREED1_LSB) | ({16'd0, rx_freed0} << RDMA_CTRL_FREED0_LSB);

    // the packet the next beat belongs to: a CTRL packet or the replay slot at send_ptr
    wire        start_ctrl = !busy_reg && ctrl_due;
    wire        cur_ctrl = busy_reg ? is_ctrl_reg : start_ctrl;
    wire [BI-1:0] b = busy_reg ? idx_reg : {BI{1'b0}};
    localparam [NW:0] CTRL_T = 3, BEAT_T = LANES[NW:0];
    wire [NW:0] t_words = busy_reg ? n_words_reg : start_ctrl ? CTRL_T : {1'b0, plen[sslot]} + 1'b1;
    wire [NW:0] last_b = t_words >> LL;  // the beat that holds the CRC word (word t_words)
    wire [NW:0] bw = {{NW+1-BI{1'b0}}, b};
    // the beat as stored (or the CTRL packet's words), before the CRC goes in
    reg  [DW-1:0] raw;
    integer k;
    always @(*) begin
        raw = {DW{1'b0}};
        if (cur_ctrl) begin
            for (k = 0; k < LANES; k = k + 1) begin
                if ({{32-BI{1'b0}}, b} * LANES + k == 0) raw[32 * k +: 32] = rdma_hdr(6'd0, 6'd0, RDMA_T_CTRL, 1'b0, 5'd2, 10'd0);
                if ({{32-BI{1'b0}}, b} * LANES + k == 1) raw[32 * k +: 32] = busy_reg ? c0_reg : c0_now;
                if ({{32-BI{1'b0}}, b} * LANES + k == 2) raw[32 * k +: 32] = busy_reg ? c1_reg : c1_now;
            end
        end else if (b < SLOT[BI-1:0]) begin
            raw = mem[sslot * SLOT + {{32-BI{1'b0}}, b}];
            if (b == {BI{1'b0}}) raw[RDMA_HDR_SEQ_LSB +: RDMA_HDR_SEQ_W] = send_ptr_reg;
        end
    end
    // words of this beat before the CRC: the rest of t_words, at most a beat
    wire [NW:0] rest = t_words - (bw << LL);
    wire        crc_here = rest < BEAT_T;
    wire [CW-1:0] nfold = crc_here ? rest[CW-1:0] : BEAT_T[CW-1:0];
    wire [31:0] crc_next;
    rdma_crc32 #(.LANES(LANES)) u_crc (.crc_in(b == {BI{1'b0}} ? 32'hFFFFFFFF : crc_reg), .data(raw), .nwords(nfold),
                                       .crc_out(crc_next));
    // the beat on the wire: the CRC word in the lane after the last word, unused lanes zero
    reg  [DW-1:0] beat;
    always @(*) begin
        beat = raw;
        for (k = 0; k < LANES; k = k + 1)
            if (crc_here && k == {{32-CW{1'b0}}, nfold}) beat[32 * k +: 32] = ~crc_next;
            else if (k > {{32-CW{1'b0}}, nfold}) beat[32 * k +: 32] = 32'd0;
    end

    always @(posedge clk) begin
        ctrl_sent <= 1'b0;
        if (rst) begin
            base_reg <= 10'd0; next_seq_reg <= 10'd0; send_ptr_reg <= 10'd0;
            sent_new0_reg <= 16'd0; sent_new1_reg <= 16'd0; pf0_reg <= 16'd0; pf1_reg <= 16'd0;
            acc_busy_reg <= 1'b0; acc_idx_reg <= {BI{1'b0}}; busy_reg <= 1'b0; idx_reg <= {BI{1'b0}};
            n_words_reg <= {(NW+1){1'b0}};
            is_ctrl_reg <= 1'b0; crc_reg <= 32'd0; c0_reg <= 32'd0; c1_reg <= 32'd0; rewind_reg <= 1'b0;
            timer_reg <= 16'd0; ctrl_timer_reg <= 16'd0; replays <= 16'd0;
            packets <= 32'd0; credit_stalls <= 32'd0; window_full <= 32'd0;
            out_valid <= 1'b0; out_data <= {DW{1'b0}}; out_last <= 1'b0;
        end else begin
            if (blocked) credit_stalls <= credit_stalls + 32'd1;
            if (inflight >= WINDOW[9:0]) window_full <= window_full + 32'd1;
            if (in_valid && in_ready && in_last) packets <= packets + 32'd1;
            // accept a packet from the router into the replay buffer
            if (can_start) begin
                mem[wslot * SLOT] <= in_data;
                plen[wslot] <= rdma_words(in_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W]);
                acc_busy_reg <= !in_last;
                acc_idx_reg <= {{BI-1{1'b0}}, 1'b1};
                if (hdr_vc) sent_new1_reg <= sent_new1_reg + 16'd1;
                else sent_new0_reg <= sent_new0_reg + 16'd1;
                if (in_last) next_seq_reg <= next_seq_reg + 10'd1;
            end else if (acc_busy_reg && in_valid) begin
                mem[wslot * SLOT + {{32-BI{1'b0}}, acc_idx_reg}] <= in_data;
                acc_idx_reg <= acc_idx_reg + 1'b1;
                if (in_last) begin
                    acc_busy_reg <= 1'b0;
                    next_seq_reg <= next_seq_reg + 10'd1;
                end
            end
            // ACK / NAK / credits from the peer
            if (ack_valid) begin
                pf0_reg <= peer_freed0;
                pf1_reg <= peer_freed1;
                if (ack_d != 10'd0 && ack_d <= inflight) begin
                    base_reg <= ack_seq;
                    timer_reg <= 16'd0;
                end
                if (ack_nak && ack_d <= inflight && ack_seq != next_seq_reg) rewind_reg <= 1'b1;
            end else if (base_reg != next_seq_reg && !send_ok) begin
                timer_reg <= 16'd0;
            end else if (base_reg != next_seq_reg && send_ptr_reg == next_seq_reg) begin
                timer_reg <= timer_reg + 16'd1;
                if (timer_reg >= TIMEOUT[15:0]) begin
                    rewind_reg <= 1'b1;
                    timer_reg <= 16'd0;
                end
            end else begin
                timer_reg <= 16'd0;
            end
            if (ctrl_timer_reg != 16'hFFFF) ctrl_timer_reg <= ctrl_timer_reg + 16'd1;
            // the serial side, one beat per cycle
            if (advance) begin
                out_valid <= 1'b0;
                out_last <= 1'b0;
                if (!busy_reg && !ctrl_due && (rewind_reg || !send_ok)) begin
                    send_ptr_reg <= base_reg;
                    if (rewind_reg) replays <= replays + 16'd1;
                    rewind_reg <= 1'b0;
                end else if (busy_reg ? is_ctrl_reg || beat_in : ctrl_due || send_ptr_reg != next_seq_reg || filling) begin
                    out_valid <= 1'b1;
                    out_data <= beat;
                    crc_reg <= crc_next;
                    if (!busy_reg) begin  // the first beat: the packet's shape
                        is_ctrl_reg <= ctrl_due;
                        n_words_reg <= t_words;
                        c0_reg <= c0_now;
                        c1_reg <= c1_now;
                        if (ctrl_due) begin
                            ctrl_sent <= 1'b1;
                            ctrl_timer_reg <= 16'd0;
                        end
                    end
                    if (bw == last_b) begin
                        out_last <= 1'b1;
                        busy_reg <= 1'b0;
                        idx_reg <= {BI{1'b0}};
                        if (!cur_ctrl) send_ptr_reg <= send_ptr_reg + 10'd1;
                    end else begin
                        busy_reg <= 1'b1;
                        idx_reg <= b + 1'b1;
                    end
                end
            end
        end
    end
    initial begin
        if (WINDOW < 2 || WINDOW > 256 || (WINDOW & (WINDOW - 1)) != 0) $error("%m: WINDOW=%0d must be a power of 2 in 2..256", WINDOW);
        if (VC_BUF < 1 || VC_BUF > 1023) $error("%m: VC_BUF=%0d must be 1..1023", VC_BUF);
        if (LANES < 1 || LANES > 32 || (LANES & (LANES - 1)) != 0) $error("%m: LANES=%0d must be a power of 2 in 1..32", LANES);
        if (MAX_WORDS != 16 && (MAX_WORDS < 16 || MAX_WORDS > 256 || MAX_WORDS % 16 != 0))
            $error("%m: MAX_WORDS=%0d must be 16 or a multiple of 16 up to 256", MAX_WORDS);
    end
endmodule
`default_nettype wire
