// Stream endpoints over the card network: a 32-bit word stream from a local core (its
// Brch_Out) is cut into STREAM packets (type 8: a control word {last 1 @ bit 8, stream
// id 8} and up to 15 data words; a packet ends at the stream's last word) for one remote
// card, and STREAM packets arriving for this card's stream id are delivered in order to
// a local core (its Brch_In). Back-pressure is end to end by credits: the sender holds
// one credit per free word of the receiver's FIFO (RX_DEPTH, the same build on both
// cards) and stops at zero; the receiver returns freed words in CREDIT packets (type 9:
// {stream id}, {words}) once CREDIT_BATCH are free or CREDIT_FLUSH cycles passed. So a
// stalled consumer never blocks the router: its FIFO always has room for what arrives,
// and other traffic keeps flowing. Packets stay in order per pair (one path, FIFO VCs).
`default_nettype none
module rdma_stream #(
    parameter integer RX_DEPTH = 64,      // receive FIFO, words (power of 2, >= 32)
    parameter integer TX_DEPTH = 32,      // send FIFO, words (power of 2, >= 16)
    parameter integer FLUSH = 8,          // cycles before a partial packet is sent
    parameter integer CREDIT_BATCH = 16,  // freed words that trigger a CREDIT packet
    parameter integer CREDIT_FLUSH = 32   // cycles before fewer are returned
) (
    `include "rdma_stream_cfg_ports.vh"
    // the local core's output stream (Brch_Out) into the network
    input  wire        s_valid,
    output wire        s_ready,
    input  wire [31:0] s_data,
    input  wire        s_last,
    // the network's stream to the local core (Brch_In)
    output wire        m_valid,
    input  wire        m_ready,
    output wire [31:0] m_data,
    output wire        m_last,
    // packets to / from the local port of the router (always ready)
    output reg         inj_valid,
    input  wire        inj_ready,
    output reg  [31:0] inj_data,
    output reg         inj_last,
    input  wire        ej_valid,
    input  wire [31:0] ej_data,
    input  wire        ej_last,
    output reg         rx_overflow,  // sticky: a word arrived without room (never expected)
    output reg         rx_misrouted  // sticky: a STREAM packet with another stream id
);
    `include "rdma_packet.vh"
    localparam integer TW = $clog2(TX_DEPTH);
    localparam integer RW = $clog2(RX_DEPTH);

    // ---- send side ----------------------------------------------------------------------
    reg  [15:0] credits_reg;
    wire        tf_full, tf_empty;
    wire [32:0] tf_dout;
    wire [TW:0] tf_count;
    reg         tf_pop;
    wire        push = s_valid && s_ready;
    assign s_ready = !tf_full && credits_reg != 16'd0;
    wire tf_ready, tf_valid;
    shell_fifo #(.DATA_WIDTH(33), .FIFO_DEPTH(TX_DEPTH)) u_tf (
        .clk(clk), .rst(rst), .s_axis_tvalid(push), .s_axis_tready(tf_ready), .s_axis_tdata({s_last, s_data}),
        .m_axis_tvalid(tf_valid), .m_axis_tready(tf_pop), .m_axis_tdata(tf_dout), .level(tf_count));
    assign tf_full = !tf_ready;
    assign tf_empty = !tf_valid;
    // lengths of the segments that end with a last word, to cut packets there
    reg  [15:0] seg_in_reg, seg_used_reg;
    wire        sq_full, sq_empty;
    wire [15:0] sq_head;
    wire        sq_pop;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [TW:0] sq_count;
    /* verilator lint_on UNUSEDSIGNAL */
    wire sq_ready, sq_valid;
    shell_fifo #(.DATA_WIDTH(16), .FIFO_DEPTH(TX_DEPTH)) u_sq (
        .clk(clk), .rst(rst), .s_axis_tvalid(push && s_last), .s_axis_tready(sq_ready), .s_axis_tdata(seg_in_reg + 16'd1),
        .m_axis_tvalid(sq_valid), .m_axis_tready(sq_pop), .m_axis_tdata(sq_head), .level(sq_count));
    assign sq_full = !sq_ready;
    assign sq_empty = !sq_valid;
    reg  [7:0]  idle_reg;
    wire [15:0] seg_rem = sq_head - seg_used_reg;
    wire [15:0] avail = {{15-TW{1'b0}}, tf_count};
    wire [15:0] n_full = avail >= 16'd15 ? 16'd15 : avail;
    // a packet is due: a segment's end is in the FIFO, 15 words wait, or FLUSH idle cycles
    wire [15:0] n_pkt = !sq_empty ? (seg_rem >= 16'd15 ? 16'd15 : seg_rem) : n_full;
    wire        pkt_due = !tf_empty && (!sq_empty || avail >= 16'd15 || idle_reg >= FLUSH[7:0] || credits_reg == 16'd0);

    // ---- receive side ---------------------------------------------------------------------
    wire        rf_full, rf_empty;
    wire [32:0] rf_dout;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [RW:0] rf_count;
    /* verilator lint_on UNUSEDSIGNAL */
    reg         rf_push_reg;
    reg  [32:0] rf_din_reg;
    wire rf_ready, rf_valid;
    shell_fifo #(.DATA_WIDTH(33), .FIFO_DEPTH(RX_DEPTH)) u_rf (
        .clk(clk), .rst(rst), .s_axis_tvalid(rf_push_reg), .s_axis_tready(rf_ready), .s_axis_tdata(rf_din_reg),
        .m_axis_tvalid(rf_valid), .m_axis_tready(m_valid && m_ready), .m_axis_tdata(rf_dout), .level(rf_count));
    assign rf_full = !rf_ready;
    assign rf_empty = !rf_valid;
    assign m_valid = !rf_empty;
    assign m_data = rf_dout[31:0];
    assign m_last = rf_dout[32];
    // ejection parser: header, then control word, then data (STREAM) or the count (CREDIT)
    reg [1:0]  e_pos_reg;   // 0 header, 1 control, 2 body
    reg [3:0]  e_type_reg;
    reg        e_last_reg, e_mine_reg;
    reg [4:0]  e_left_reg;  // data words still to come
    reg [15:0] freed_reg;
    reg [7:0]  ctimer_reg;

    // ---- injection: CREDIT packets first, then STREAM packets --------------------------------
    localparam [1:0] I_IDLE = 2'd0, I_CREDIT = 2'd1, I_DATA = 2'd2;
    reg [1:0]  ist_reg;
    reg [4:0]  i_idx_reg, i_n_reg;
    reg        i_lastpkt_reg;
    reg [15:0] c_words_reg;
    // credits: - one per word accepted from the core, + the words a CREDIT packet returns
    wire credit_in = ej_valid && e_pos_reg == 2'd2 && e_type_reg == RDMA_T_CREDIT && e_mine_reg;
    // the packet that ends a segment takes its length off the queue as its last word leaves
    assign sq_pop = ist_reg == I_DATA && inj_ready && i_idx_reg == i_n_reg + 5'd1 && i_lastpkt_reg;
    wire credit_due = freed_reg >= CREDIT_BATCH[15:0] || (freed_reg != 16'd0 && ctimer_reg >= CREDIT_FLUSH[7:0]);

    always @(*) begin
        inj_valid = 1'b0;
        inj_data = 32'd0;
        inj_last = 1'b0;
        tf_pop = 1'b0;
        case (ist_reg)
            I_CREDIT: begin
                inj_valid = 1'b1;
                inj_data = i_idx_reg == 5'd0 ? rdma_hdr(rx_peer, card_id, RDMA_T_CREDIT, 1'b0, 5'd2, 10'd0)
                         : i_idx_reg == 5'd1 ? {24'd0, rx_sid} : {16'd0, c_words_reg};
                inj_last = i_idx_reg == 5'd2;
            end
            I_DATA: begin
                inj_valid = 1'b1;
                inj_data = i_idx_reg == 5'd0 ? rdma_hdr(tx_dst, card_id, RDMA_T_STREAM, 1'b0, i_n_reg + 5'd1, 10'd0)
                         : i_idx_reg == 5'd1 ? {23'd0, i_lastpkt_reg, tx_sid} : tf_dout[31:0];
                inj_last = i_idx_reg == i_n_reg + 5'd1;
                tf_pop = i_idx_reg >= 5'd2 && inj_ready;
            end
            default: ;
        endcase
    end

    always @(posedge clk) begin
        rf_push_reg <= 1'b0;
        if (rst) begin
            credits_reg <= RX_DEPTH[15:0]; seg_in_reg <= 16'd0; seg_used_reg <= 16'd0; idle_reg <= 8'd0;
            e_pos_reg <= 2'd0; e_type_reg <= 4'd0; e_last_reg <= 1'b0; e_mine_reg <= 1'b0; e_left_reg <= 5'd0;
            freed_reg <= 16'd0; ctimer_reg <= 8'd0; ist_reg <= I_IDLE; i_idx_reg <= 5'd0; i_n_reg <= 5'd0; i_lastpkt_reg <= 1'b0;
            c_words_reg <= 16'd0; rx_overflow <= 1'b0; rx_misrouted <= 1'b0; rf_din_reg <= 33'd0;
        end else begin
            // send side bookkeeping
            credits_reg <= credits_reg - (push ? 16'd1 : 16'd0) + (credit_in ? ej_data[15:0] : 16'd0);
            if (push) seg_in_reg <= s_last ? 16'd0 : seg_in_reg + 16'd1;
            if (push || tf_empty || ist_reg == I_DATA) idle_reg <= 8'd0;
            else if (idle_reg != 8'hFF) idle_reg <= idle_reg + 8'd1;
            // receive side: words freed by the consumer become credits for the sender
            if (freed_reg != 16'd0 && ctimer_reg != 8'hFF) ctimer_reg <= ctimer_reg + 8'd1;
            // injection
            case (ist_reg)
                I_IDLE: begin
                    i_idx_reg <= 5'd0;
                    if (credit_due) begin
                        c_words_reg <= freed_reg;
                        ist_reg <= I_CREDIT;
                    end else if (pkt_due) begin
                        i_n_reg <= n_pkt[4:0];
                        i_lastpkt_reg <= !sq_empty && seg_rem <= 16'd15;
                        ist_reg <= I_DATA;
                    end
                end
                I_CREDIT: if (inj_ready) begin
                    i_idx_reg <= i_idx_reg + 5'd1;
                    if (i_idx_reg == 5'd2) ist_reg <= I_IDLE;
                end
                default: if (inj_ready) begin  // I_DATA
                    i_idx_reg <= i_idx_reg + 5'd1;
                    if (i_idx_reg == i_n_reg + 5'd1) begin
                        ist_reg <= I_IDLE;
                        if (i_lastpkt_reg) begin
                            seg_used_reg <= 16'd0;
                        end else begin
                            seg_used_reg <= seg_used_reg + {11'd0, i_n_reg};
                        end
                    end
                end
            endcase
            // freed words: +1 per word the consumer takes, - what a CREDIT packet returned
            if (ist_reg == I_IDLE && credit_due) begin
                freed_reg <= (m_valid && m_ready) ? 16'd1 : 16'd0;
                ctimer_reg <= 8'd0;
            end else if (m_valid && m_ready) begin
                freed_reg <= freed_reg + 16'd1;
            end
            if (rf_push_reg && rf_full) rx_overflow <= 1'b1;
            // ejection
            if (ej_valid) begin
                case (e_pos_reg)
                    2'd0: begin
                        e_type_reg <= ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
                        e_left_reg <= ej_data[RDMA_HDR_WORDS_LSB +: RDMA_HDR_WORDS_W] - 5'd1;
                        e_pos_reg <= ej_last ? 2'd0 : 2'd1;
                    end
                    2'd1: begin
                        e_last_reg <= ej_data[8];
                        e_mine_reg <= ej_data[7:0] == (e_type_reg == RDMA_T_STREAM ? rx_sid : tx_sid);
                        if (e_type_reg == RDMA_T_STREAM && ej_data[7:0] != rx_sid) rx_misrouted <= 1'b1;
                        e_pos_reg <= ej_last ? 2'd0 : 2'd2;
                    end
                    default: begin
                        if (e_type_reg == RDMA_T_STREAM && e_mine_reg) begin
                            rf_push_reg <= 1'b1;
                            rf_din_reg <= {e_last_reg && e_left_reg == 5'd1, ej_data};
                        end
                        e_left_reg <= e_left_reg - 5'd1;
                        if (ej_last) e_pos_reg <= 2'd0;
                    end
                endcase
            end
        end
    end


    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, sq_full, ej_data[RDMA_HDR_SEQ_LSB +: RDMA_HDR_SEQ_W], ej_data[RDMA_HDR_VC_LSB], tf_dout[32], n_pkt[15:5]};
    /* verilator lint_on UNUSEDSIGNAL */
    initial begin
        if (RX_DEPTH < 32 || (RX_DEPTH & (RX_DEPTH - 1)) != 0) $error("%m: RX_DEPTH must be a power of 2 >= 32");
        if (TX_DEPTH < 16 || (TX_DEPTH & (TX_DEPTH - 1)) != 0) $error("%m: TX_DEPTH must be a power of 2 >= 16");
    end
endmodule
`default_nettype wire
