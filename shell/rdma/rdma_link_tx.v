// Link-layer sender: sequence numbers, CRC-32, credits per VC, go-back-N replay.
// Packets from the router: header word first (dst 6 | src 6 | type 4 | vc 1 | words 5 |
// seq 10; seq is filled in here), then `words` payload words. On the link each packet is
// followed by its CRC word; CTRL packets (type 0) carry the local receiver's ACK/NAK and
// freed-slot counters, the same format as the C++ model (runtime/rdma, docs/rdma.md).
`default_nettype none
module rdma_link_tx #(
    parameter integer WINDOW = 8,          // replay slots (power of 2, < 512)
    parameter integer VC_BUF = 4,          // peer input buffer per VC, packets
    parameter integer TIMEOUT = 512,       // cycles without ACK progress before a replay
    parameter integer CTRL_INTERVAL = 16,  // min cycles between coalesced ACK/credit packets
    parameter integer KEEPALIVE = 256      // a CTRL packet at least this often
) (
    input  wire        clk,
    input  wire        rst,
    // packets from the router
    input  wire        in_valid,
    output wire        in_ready,
    input  wire [31:0] in_data,
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
    output reg  [31:0] out_data,
    output reg         out_last,
    input  wire        out_ready,
    output reg  [15:0] replays,
    // for the router: a packet on VC v would be admitted now (credit and window)
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
    localparam integer SLOT = 17;  // header + 16 payload words
    localparam [1:0] S_IDLE = 2'd0, S_BODY = 2'd1, S_CRC = 2'd2;

    reg [31:0] mem [0:WINDOW*SLOT-1];
    reg [4:0]  plen [0:WINDOW-1];
    reg [9:0]  base, next_seq, send_ptr;
    reg [15:0] sent_new0, sent_new1, pf0, pf1;
    reg        acc_busy;
    reg [4:0]  acc_idx;
    reg [1:0]  st;
    reg [4:0]  idx, n_words;
    reg        is_ctrl;
    reg [31:0] crc, c0, c1;
    reg        rewind;
    reg [15:0] timer, ctrl_timer;

    wire [9:0]  inflight = next_seq - base;
    wire        hdr_vc = in_data[RDMA_HDR_VC_LSB];
    wire [15:0] used0 = sent_new0 - pf0;
    wire [15:0] used1 = sent_new1 - pf1;
    wire [15:0] used = hdr_vc ? used1 : used0;
    wire        can_start = !acc_busy && in_valid && (used < VC_BUF[15:0]) && (inflight < WINDOW[9:0]);
    assign in_ready = acc_busy || can_start;
    wire win_ok = !acc_busy && inflight < WINDOW[9:0];
    assign can_take = {win_ok && used1 < VC_BUF[15:0], win_ok && used0 < VC_BUF[15:0]};
    assign dbg_state = {used1[9:0], used0[9:0], inflight};
    wire [SW-1:0] wslot = next_seq[SW-1:0];
    wire [SW-1:0] sslot = send_ptr[SW-1:0];
    wire        advance = !out_valid || out_ready;
    wire [31:0] crc_next;
    reg  [31:0] word;
    rdma_crc32 u_crc (.crc_in(st == S_IDLE ? 32'hFFFFFFFF : crc), .data(word), .crc_out(crc_next));

    wire ctrl_due = rx_nak || (rx_dirty && ctrl_timer >= CTRL_INTERVAL[15:0]) || ctrl_timer >= KEEPALIVE[15:0];
    wire [9:0] ack_d = ack_seq - base;
    wire send_ok = (send_ptr - base) <= inflight;  // else acknowledged meanwhile: restart at base

    // the word the sender emits next (its CRC is folded in as it goes out)
    always @(*) begin
        word = 32'd0;
        if (st == S_IDLE) begin
            if (ctrl_due) word = rdma_hdr(6'd0, 6'd0, RDMA_T_CTRL, 1'b0, 5'd2, 10'd0);
            else word = {send_ptr, mem[sslot * SLOT][RDMA_HDR_SEQ_LSB-1:0]};
        end else if (st == S_BODY) begin
            if (is_ctrl) word = idx == 5'd1 ? c0 : c1;
            else word = mem[sslot * SLOT + {27'd0, idx}];
        end
    end

    always @(posedge clk) begin
        ctrl_sent <= 1'b0;
        if (rst) begin
            base <= 10'd0; next_seq <= 10'd0; send_ptr <= 10'd0;
            sent_new0 <= 16'd0; sent_new1 <= 16'd0; pf0 <= 16'd0; pf1 <= 16'd0;
            acc_busy <= 1'b0; acc_idx <= 5'd0; st <= S_IDLE; idx <= 5'd0; n_words <= 5'd0;
            is_ctrl <= 1'b0; crc <= 32'd0; c0 <= 32'd0; c1 <= 32'd0; rewind <= 1'b0;
            timer <= 16'd0; ctrl_timer <= 16'd0; replays <= 16'd0;
            packets <= 32'd0; credit_stalls <= 32'd0; window_full <= 32'd0;
            out_valid <= 1'b0; out_data <= 32'd0; out_last <= 1'b0;
        end else begin
            if (blocked) credit_stalls <= credit_stalls + 32'd1;
            if (inflight >= WINDOW[9:0]) window_full <= window_full + 32'd1;
            if (in_valid && in_ready && in_last) packets <= packets + 32'd1;
            // accept a packet from the router into the replay buffer
            if (can_start) begin
                mem[wslot * SLOT] <= in_data;
                plen[wslot] <= in_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W];
                acc_busy <= !in_last;
                acc_idx <= 5'd1;
                if (hdr_vc) sent_new1 <= sent_new1 + 16'd1;
                else sent_new0 <= sent_new0 + 16'd1;
                if (in_last) next_seq <= next_seq + 10'd1;
            end else if (acc_busy && in_valid) begin
                mem[wslot * SLOT + {27'd0, acc_idx}] <= in_data;
                acc_idx <= acc_idx + 5'd1;
                if (in_last) begin
                    acc_busy <= 1'b0;
                    next_seq <= next_seq + 10'd1;
                end
            end
            // ACK / NAK / credits from the peer
            if (ack_valid) begin
                pf0 <= peer_freed0;
                pf1 <= peer_freed1;
                if (ack_d != 10'd0 && ack_d <= inflight) begin
                    base <= ack_seq;
                    timer <= 16'd0;
                end
                if (ack_nak && ack_d <= inflight && ack_seq != next_seq) rewind <= 1'b1;
            end else if (base != next_seq && !send_ok) begin
                timer <= 16'd0;
            end else if (base != next_seq && send_ptr == next_seq) begin
                timer <= timer + 16'd1;
                if (timer >= TIMEOUT[15:0]) begin
                    rewind <= 1'b1;
                    timer <= 16'd0;
                end
            end else begin
                timer <= 16'd0;
            end
            if (ctrl_timer != 16'hFFFF) ctrl_timer <= ctrl_timer + 16'd1;
            // the serial side, one word per cycle
            if (advance) begin
                out_valid <= 1'b0;
                out_last <= 1'b0;
                case (st)
                    S_IDLE: begin
                        if (ctrl_due) begin
                            out_valid <= 1'b1;
                            out_data <= word;
                            crc <= crc_next;
                            c0 <= ({22'd0, rx_expected} << RDMA_CTRL_ACK_SEQ_LSB) | ({31'd0, rx_nak} << RDMA_CTRL_NAK_LSB);
                            c1 <= ({16'd0, rx_freed1} << RDMA_CTRL_FREED1_LSB) | ({16'd0, rx_freed0} << RDMA_CTRL_FREED0_LSB);
                            ctrl_sent <= 1'b1;
                            ctrl_timer <= 16'd0;
                            is_ctrl <= 1'b1;
                            n_words <= 5'd2;
                            idx <= 5'd1;
                            st <= S_BODY;
                        end else if (rewind || !send_ok) begin
                            send_ptr <= base;
                            if (rewind) replays <= replays + 16'd1;
                            rewind <= 1'b0;
                        end else if (send_ptr != next_seq) begin
                            out_valid <= 1'b1;
                            out_data <= word;
                            crc <= crc_next;
                            is_ctrl <= 1'b0;
                            n_words <= plen[sslot];
                            idx <= 5'd1;
                            st <= plen[sslot] == 5'd0 ? S_CRC : S_BODY;
                        end
                    end
                    S_BODY: begin
                        out_valid <= 1'b1;
                        out_data <= word;
                        crc <= crc_next;
                        idx <= idx + 5'd1;
                        if (idx == n_words) st <= S_CRC;
                    end
                    default: begin  // S_CRC
                        out_valid <= 1'b1;
                        out_data <= ~crc;
                        out_last <= 1'b1;
                        if (!is_ctrl) send_ptr <= send_ptr + 10'd1;
                        st <= S_IDLE;
                    end
                endcase
            end
        end
    end
    initial begin
        if (WINDOW < 2 || WINDOW > 256 || (WINDOW & (WINDOW - 1)) != 0) $error("%m: WINDOW=%0d must be a power of 2 in 2..256", WINDOW);
        if (VC_BUF < 1 || VC_BUF > 1023) $error("%m: VC_BUF=%0d must be 1..1023", VC_BUF);
    end
endmodule
`default_nettype wire
