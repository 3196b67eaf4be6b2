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
    reg [9:0]  base_reg, next_seq_reg, send_ptr_reg;
    reg [15:0] sent_new0_reg, sent_new1_reg, pf0_reg, pf1_reg;
    reg        acc_busy_reg;
    reg [4:0]  acc_idx_reg;
    reg [1:0]  st_reg;
    reg [4:0]  idx_reg, n_words_reg;
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
    wire win_ok = !acc_busy_reg && inflight < WINDOW[9:0];
    assign can_take = {win_ok && used1 < VC_BUF[15:0], win_ok && used0 < VC_BUF[15:0]};
    assign dbg_state = {used1[9:0], used0[9:0], inflight};
    wire [SW-1:0] wslot = next_seq_reg[SW-1:0];
    wire [SW-1:0] sslot = send_ptr_reg[SW-1:0];
    wire        advance = !out_valid || out_ready;
    wire [31:0] crc_next;
    reg  [31:0] word;
    rdma_crc32 u_crc (.crc_in(st_reg == S_IDLE ? 32'hFFFFFFFF : crc_reg), .data(word), .crc_out(crc_next));

    wire ctrl_due = rx_nak || (rx_dirty && ctrl_timer_reg >= CTRL_INTERVAL[15:0]) || ctrl_timer_reg >= KEEPALIVE[15:0];
    wire [9:0] ack_d = ack_seq - base_reg;
    wire send_ok = (send_ptr_reg - base_reg) <= inflight;  // else acknowledged meanwhile: restart at base

    // the word the sender emits next (its CRC is folded in as it goes out)
    always @(*) begin
        word = 32'd0;
        if (st_reg == S_IDLE) begin
            if (ctrl_due) word = rdma_hdr(6'd0, 6'd0, RDMA_T_CTRL, 1'b0, 5'd2, 10'd0);
            else word = {send_ptr_reg, mem[sslot * SLOT][RDMA_HDR_SEQ_LSB-1:0]};
        end else if (st_reg == S_BODY) begin
            if (is_ctrl_reg) word = idx_reg == 5'd1 ? c0_reg : c1_reg;
            else word = mem[sslot * SLOT + {27'd0, idx_reg}];
        end
    end

    always @(posedge clk) begin
        ctrl_sent <= 1'b0;
        if (rst) begin
            base_reg <= 10'd0; next_seq_reg <= 10'd0; send_ptr_reg <= 10'd0;
            sent_new0_reg <= 16'd0; sent_new1_reg <= 16'd0; pf0_reg <= 16'd0; pf1_reg <= 16'd0;
            acc_busy_reg <= 1'b0; acc_idx_reg <= 5'd0; st_reg <= S_IDLE; idx_reg <= 5'd0; n_words_reg <= 5'd0;
            is_ctrl_reg <= 1'b0; crc_reg <= 32'd0; c0_reg <= 32'd0; c1_reg <= 32'd0; rewind_reg <= 1'b0;
            timer_reg <= 16'd0; ctrl_timer_reg <= 16'd0; replays <= 16'd0;
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
                acc_busy_reg <= !in_last;
                acc_idx_reg <= 5'd1;
                if (hdr_vc) sent_new1_reg <= sent_new1_reg + 16'd1;
                else sent_new0_reg <= sent_new0_reg + 16'd1;
                if (in_last) next_seq_reg <= next_seq_reg + 10'd1;
            end else if (acc_busy_reg && in_valid) begin
                mem[wslot * SLOT + {27'd0, acc_idx_reg}] <= in_data;
                acc_idx_reg <= acc_idx_reg + 5'd1;
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
            // the serial side, one word per cycle
            if (advance) begin
                out_valid <= 1'b0;
                out_last <= 1'b0;
                case (st_reg)
                    S_IDLE: begin
                        if (ctrl_due) begin
                            out_valid <= 1'b1;
                            out_data <= word;
                            crc_reg <= crc_next;
                            c0_reg <= ({22'd0, rx_expected} << RDMA_CTRL_ACK_SEQ_LSB) | ({31'd0, rx_nak} << RDMA_CTRL_NAK_LSB);
                            c1_reg <= ({16'd0, rx_freed1} << RDMA_CTRL_FREED1_LSB) | ({16'd0, rx_freed0} << RDMA_CTRL_FREED0_LSB);
                            ctrl_sent <= 1'b1;
                            ctrl_timer_reg <= 16'd0;
                            is_ctrl_reg <= 1'b1;
                            n_words_reg <= 5'd2;
                            idx_reg <= 5'd1;
                            st_reg <= S_BODY;
                        end else if (rewind_reg || !send_ok) begin
                            send_ptr_reg <= base_reg;
                            if (rewind_reg) replays <= replays + 16'd1;
                            rewind_reg <= 1'b0;
                        end else if (send_ptr_reg != next_seq_reg) begin
                            out_valid <= 1'b1;
                            out_data <= word;
                            crc_reg <= crc_next;
                            is_ctrl_reg <= 1'b0;
                            n_words_reg <= plen[sslot];
                            idx_reg <= 5'd1;
                            st_reg <= plen[sslot] == 5'd0 ? S_CRC : S_BODY;
                        end
                    end
                    S_BODY: begin
                        out_valid <= 1'b1;
                        out_data <= word;
                        crc_reg <= crc_next;
                        idx_reg <= idx_reg + 5'd1;
                        if (idx_reg == n_words_reg) st_reg <= S_CRC;
                    end
                    default: begin  // S_CRC
                        out_valid <= 1'b1;
                        out_data <= ~crc_reg;
                        out_last <= 1'b1;
                        if (!is_ctrl_reg) send_ptr_reg <= send_ptr_reg + 10'd1;
                        st_reg <= S_IDLE;
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
