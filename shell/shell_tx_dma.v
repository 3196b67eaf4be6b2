// TX DMA (memory -> stream), modelled on the Modular SGDMA read master: descriptors
// from shell_desc_queue, 1-D or 2-D block-stride reads as Avalon-MM bursts of 512-bit
// beats, word realignment of any 4-byte source alignment (shell_word_unpack: one
// rotator), and a packed output stream of 512-bit beats, or straight of the core's
// records (STREAM_WORDS), whose final word of an EOP descriptor carries last.
`default_nettype none

module shell_tx_dma #(
    parameter integer RECORD_WORDS    = 1,     // stream record width in words (length check)
    parameter integer STREAM_WORDS    = 16,    // output: 16 for packed 512-bit beats, or records of this many words
    parameter integer DESC_FIFO_DEPTH = 16,    // MMIO descriptor FIFO entries
    parameter integer MAX_BURST       = 16,    // beats per read burst, power of two 2..64
    parameter integer MAX_READS       = 256,   // beats in flight or buffered, power of two
    parameter integer PRIME_BEATS     = 64     // read-ahead that counts as primed (> a DDR refresh)
) (
    input  wire         clk,
    input  wire         rst,                // hard reset
    input  wire         srst,               // engine reset pulse (abort; drains reads)
    `include "dma_desc_ports.vh"
    // Avalon-MM read master
    output wire [63:0]  rd_address,
    output wire         rd_read,
    output wire [7:0]   rd_burstcount,
    input  wire         rd_waitrequest,
    input  wire [511:0] rd_readdata,
    input  wire         rd_readdatavalid,
    // packed stream of STREAM_WORDS-word beats
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output wire [STREAM_WORDS*32-1:0] m_axis_tdata,
    output wire [4:0]   m_axis_cnt,          // STREAM_WORDS, fewer only with last (rest undefined)
    output wire         m_axis_tlast,
    // status
    `include "dma_status_ports.vh"
    output wire         primed               // read-ahead complete: buffer full, all read, or nothing to do
);
    localparam integer READS_BITS = $clog2(MAX_READS);
    `include "afushell_csr.vh"
    `include "dma_engine_common.vh"
    // burst info: {irq, desc_end, eop, end_hi[4:0], first_lo[3:0], beats[7:0]}
    localparam integer BINFO_WIDTH = 3 + 5 + 4 + 8;
    // its buffered beats (BEAT_WIDTH): {irq, desc_end, last, cnt[4:0], lo[3:0], data}

    initial begin
        if (MAX_READS < 2 * MAX_BURST || (1 << READS_BITS) != MAX_READS) begin
            $display("shell_tx_dma: MAX_READS=%0d must be a power of two >= 2*MAX_BURST", MAX_READS);
            $finish;
        end
    end

    wire erst = rst || srst;

    // descriptor front end: queue, hand-over, completions and status
    wire        take, none_queued;
    wire [63:0] q_addr;
    wire [31:0] q_len, q_stride, q_count;
    wire [3:0]  q_ctrl;

    // reads in flight survive an engine reset: their data is discarded when it arrives
    reg  [READS_BITS:0] inflight_reg, discard_reg;
    wire [READS_BITS:0] data_level;
    wire                binfo_level_nz;

    // a burst takes E_CALC (its length), one E_ISSUE cycle for its credit and one to issue:
    // a request every 3 cycles, far above the beat rate with bursts of 16 (the data
    // side moves one beat a cycle)
    localparam [1:0] E_IDLE = 2'd0, E_SETUP = 2'd1, E_CALC = 2'd2, E_ISSUE = 2'd3;
    // kept binary: Yosys recodes it one-hot once the descriptor hand-over is outside this
    // module, which puts the burst length (E_CALC) a LUT level deeper
    (* fsm_encoding = "none" *) reg [1:0] state_reg;
    reg [63:0] blk_addr_reg;          // current block's first byte
    reg [63:0] beat_addr_reg;         // next read beat (64-byte aligned)
    reg [31:0] blk_left_reg;          // blocks still to start, this one included
    reg [26:0] beats_left_reg;        // beats of this block still to request
    reg [3:0]  first_lo_reg;          // word offset of the block's first beat
    reg [4:0]  end_hi_reg;            // words used of the block's last beat
    reg        first_burst_reg;
    reg [31:0] stride_reg;
    reg [3:0]  ctrl_reg;

    // one two-input sum each (len + 63 and len - 1 are made as the descriptor is taken)
    reg  [32:0] len63_reg;
    reg  [5:0]  len_m1_reg;
    wire [32:0] blk_span   = {27'd0, blk_addr_reg[5:0]} + len63_reg;
    wire [5:0]  blk_last   = blk_addr_reg[5:0] + len_m1_reg;
    // beats from beat_addr_reg to the next MAX_BURST boundary: a block's first burst
    // starts at the block's address, every later one at a boundary
    reg [BURST_BITS:0] to_boundary_reg;
    reg [7:0]   burst_reg;            // the burst to issue (from E_CALC on)
    reg         last_burst_reg;       // it ends the block
    reg         credit_ok_reg;        // its beats fit, by last cycle's counts
    reg         credit_fresh_reg;     // credit_ok_reg was made with this burst_reg
    wire        last_calc  = beats_left_reg <= {{(26-BURST_BITS){1'b0}}, to_boundary_reg};
    wire [7:0]  burst      = burst_reg;
    wire        last_burst = last_burst_reg;
    wire        last_blk   = blk_left_reg == 32'd1;
    // inflight + buffered (each <= MAX_READS) against the room the burst leaves
    // (room_reg, made with burst_reg in E_CALC): one sum, one comparison
    reg  [READS_BITS+1:0] room_reg;
    wire [READS_BITS+1:0] held = {1'b0, inflight_reg} + {1'b0, data_level};
    // held <= room_reg as the borrow of one subtraction: a carry chain, not a LUT tree
    wire [READS_BITS+2:0] spare = {1'b0, room_reg} - {1'b0, held};
    wire [READS_BITS+1:0] room_last = MAX_READS[READS_BITS+1:0]
                                    - {{(READS_BITS-BURST_BITS+1){1'b0}}, beats_left_reg[BURST_BITS:0]};
    wire [READS_BITS+1:0] room_full = MAX_READS[READS_BITS+1:0]
                                    - {{(READS_BITS-BURST_BITS){1'b0}}, to_boundary_reg};
    // inflight + buffered never grows in a cycle without an accepted request, so a
    // credit from last cycle, when none was accepted, still holds
    wire        credit_ok  = credit_ok_reg && credit_fresh_reg;
    wire        binfo_ready;
    wire        issue      = state_reg == E_ISSUE && credit_ok && binfo_ready && discard_reg == 0;
    wire        issue_ok   = issue && !rd_waitrequest;
    wire        drained    = inflight_reg == 0 && !binfo_level_nz && data_level == 0;

    assign rd_address    = beat_addr_reg;
    assign rd_read       = issue;
    assign rd_burstcount = burst;

    always @(posedge clk) begin
        if (erst) begin
            state_reg <= E_IDLE;
        end else begin
            case (state_reg)
            E_IDLE:
                if (take) begin
                    blk_addr_reg <= q_addr;
                    blk_left_reg <= q_count;
                    len63_reg    <= {1'b0, q_len} + 33'd63;
                    len_m1_reg   <= q_len[5:0] - 6'd1;
                    stride_reg   <= q_stride;
                    ctrl_reg     <= q_ctrl;
                    state_reg    <= E_SETUP;
                end
            E_SETUP: begin
                beat_addr_reg   <= {blk_addr_reg[63:6], 6'd0};
                beats_left_reg  <= blk_span[32:6];
                first_lo_reg    <= blk_addr_reg[5:2];
                end_hi_reg      <= {1'b0, blk_last[5:2]} + 5'd1;
                to_boundary_reg <= MAX_BURST[BURST_BITS:0] - {1'b0, blk_addr_reg[6 +: BURST_BITS]};
                first_burst_reg <= 1'b1;
                state_reg       <= E_CALC;
            end
            E_CALC: begin
                burst_reg      <= last_calc ? beats_left_reg[7:0] : {{(7-BURST_BITS){1'b0}}, to_boundary_reg};
                last_burst_reg <= last_calc;
                room_reg       <= last_calc ? room_last : room_full;
                state_reg      <= E_ISSUE;
            end
            E_ISSUE:
                if (issue_ok) begin
                    beat_addr_reg   <= beat_addr_reg + {50'd0, burst, 6'd0};
                    beats_left_reg  <= beats_left_reg - {19'd0, burst};
                    to_boundary_reg <= MAX_BURST[BURST_BITS:0];
                    first_burst_reg <= 1'b0;
                    if (last_burst) begin
                        blk_addr_reg <= blk_addr_reg + {32'd0, stride_reg};
                        blk_left_reg <= blk_left_reg - 32'd1;
                        state_reg    <= last_blk ? E_IDLE : E_SETUP;
                    end else begin
                        state_reg    <= E_CALC;
                    end
                end
            default:
                state_reg <= E_IDLE;
            endcase
        end
        credit_ok_reg    <= !spare[READS_BITS+2];
        credit_fresh_reg <= state_reg == E_ISSUE && !issue_ok;
    end

    // burst info, consumed beat by beat as the data returns (in order)
    wire [BINFO_WIDTH-1:0] binfo_in = {
        ctrl_reg[CTRL_IRQ] && last_burst && last_blk,
        last_burst && last_blk,
        ctrl_reg[CTRL_EOP] && last_burst && last_blk,
        last_burst ? end_hi_reg : 5'd16,
        first_burst_reg ? first_lo_reg : 4'd0,
        burst};
    wire                   binfo_valid;
    wire [BINFO_WIDTH-1:0] binfo;
    wire [READS_BITS:0]    binfo_level;
    reg  [7:0]             beat_num_reg;    // 1-based number of the next beat in its burst
    reg                    beat_first_reg;  // the next beat is its burst's first
    reg                    srst_d_reg;      // engine reset last cycle: discard_reg is loaded now
    wire                   take_beat = rd_readdatavalid && discard_reg == 0 && !srst_d_reg;
    wire                   b_last;
    wire                   burst_end = take_beat && b_last;

    shell_fifo #(.DATA_WIDTH(BINFO_WIDTH), .FIFO_DEPTH(MAX_READS)) binfo_fifo (
        .clk (clk), .rst (erst),
        .s_axis_tvalid (issue_ok), .s_axis_tready (binfo_ready), .s_axis_tdata (binfo_in),
        .m_axis_tvalid (binfo_valid), .m_axis_tready (burst_end), .m_axis_tdata (binfo),
        .level (binfo_level)
    );
    assign binfo_level_nz = binfo_level != 0;

    assign b_last = beat_num_reg == binfo[7:0];
    wire [3:0] beat_lo = beat_first_reg ? binfo[11:8] : 4'd0;
    // both differences beside the b_last comparison, selected by it
    wire [4:0] beat_cnt_last = binfo[16:12] - {1'b0, beat_lo};
    wire [4:0] beat_cnt_full = 5'd16 - {1'b0, beat_lo};
    wire [4:0] beat_cnt = b_last ? beat_cnt_last : beat_cnt_full;
    wire [BEAT_WIDTH-1:0] beat_in = {binfo[19] && b_last, binfo[18] && b_last, binfo[17] && b_last,
                                     beat_cnt, beat_lo, rd_readdata};

    // both sums beside the issue decision, selected by it
    wire [READS_BITS:0] inflight_dec  = inflight_reg - {{READS_BITS{1'b0}}, rd_readdatavalid};
    wire [READS_BITS:0] inflight_inc  = inflight_dec + {{(READS_BITS-BURST_BITS){1'b0}}, burst[BURST_BITS:0]};
    wire [READS_BITS:0] inflight_next = issue_ok ? inflight_inc : inflight_dec;
    // the reads in flight after an engine reset are counted the cycle after it (the
    // engine is idle then, so nothing is issued, and an answer arriving then is
    // dropped and not counted), off the register rather than the issue decision
    always @(posedge clk) begin
        if (rst) begin
            inflight_reg <= 0;
            discard_reg  <= 0;
            srst_d_reg   <= 1'b0;
        end else begin
            inflight_reg <= inflight_next;
            srst_d_reg   <= srst;
            if (srst_d_reg)
                discard_reg <= inflight_dec;
            else if (rd_readdatavalid && discard_reg != 0)
                discard_reg <= discard_reg - 1;
        end
        if (erst) begin
            beat_num_reg   <= 8'd1;
            beat_first_reg <= 1'b1;
        end else if (take_beat) begin
            beat_num_reg   <= burst_end ? 8'd1 : beat_num_reg + 8'd1;
            beat_first_reg <= burst_end;
        end
    end

    // read data buffer: never back-pressures the memory (credits above)
    wire                  d_valid, d_ready, d_in_ready;
    wire [BEAT_WIDTH-1:0] d;
    shell_fifo #(.DATA_WIDTH(BEAT_WIDTH), .FIFO_DEPTH(MAX_READS), .FWD_WRITES(0)) data_fifo (
        .clk (clk), .rst (erst),
        .s_axis_tvalid (take_beat), .s_axis_tready (d_in_ready), .s_axis_tdata (beat_in),
        .m_axis_tvalid (d_valid), .m_axis_tready (d_ready), .m_axis_tdata (d),
        .level (data_level)
    );

    // every TX packet is whole records (the queue checks each length), so no output
    // is ever cut inside a record and none needs zero padding
    wire g_inner;
    shell_word_unpack #(.OUT_WORDS(STREAM_WORDS), .CUT_AT_LAST(1), .ZERO_PAD(0)) realign (
        .clk (clk), .rst (erst),
        .s_axis_tvalid (d_valid), .s_axis_tready (d_ready), .s_axis_tdata (d[511:0]),
        .s_axis_lo (d[515:512]), .s_axis_cnt (d[520:516]), .s_axis_tlast (d[521]),
        .req_valid (1'b1), .req_off (4'd0), .req_cnt (STREAM_WORDS[4:0]),
        .m_axis_tvalid (m_axis_tvalid), .m_axis_tready (m_axis_tready), .m_axis_tdata (m_axis_tdata),
        .m_axis_cnt (m_axis_cnt), .m_axis_tlast (m_axis_tlast), .m_axis_inner_last (g_inner)
    );

    wire d_fire   = d_valid && d_ready;
    wire d_end    = d_fire && d[522];
    shell_dma_front #(.IS_RX(0), .RECORD_WORDS(RECORD_WORDS), .DESC_FIFO_DEPTH(DESC_FIFO_DEPTH)) front (
        .clk (clk), .rst (erst),
        `include "dma_front_conns.vh"
        .idle (state_reg == E_IDLE), .drained (drained), .take (take), .d_addr (q_addr), .d_len (q_len),
        .d_stride (q_stride), .d_count (q_count), .d_ctrl (q_ctrl), .none_queued (none_queued),
        .end_pulse (d_end), .end_irq (d[523]), .end_err (1'b0), .pkt_end (d_end && d[521]),
        .bytes_inc (d_fire ? {d[520:516], 2'b00} : 7'd0)
    );

    // Enough buffered to ride out a DDR refresh (70 cycles, 44 beats of 40-byte records)
    // while the memory, faster than the cores, keeps refilling; or the buffer is full
    // (no credit, nothing in flight); or nothing is left to read (idle with an empty
    // queue, which also covers errors).
    wire [READS_BITS:0] prime_level = PRIME_BEATS < MAX_READS ? PRIME_BEATS[READS_BITS:0]
                                                              : MAX_READS[READS_BITS:0];
    assign primed = data_level >= prime_level
                 || (inflight_reg == 0 && !binfo_level_nz
                     && ((state_reg == E_ISSUE && credit_fresh_reg && !credit_ok_reg)
                         || (state_reg == E_IDLE && none_queued)));

    wire unused_ok = &{1'b0, spare[READS_BITS+1:0], blk_span[5:0], blk_last[1:0], g_inner, d_in_ready, binfo_valid, binfo_level_nz};
endmodule

`default_nettype wire
