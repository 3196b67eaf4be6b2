// RX DMA (stream -> memory), modelled on the Modular SGDMA write master: descriptors
// from shell_desc_queue, 1-D or 2-D block-stride destinations, words of the input
// stream (records, or packed 512-bit beats) placed straight at any 4-byte destination
// alignment (shell_span_pack: one rotator) and written as Avalon-MM bursts with byte
// enables (bytes outside the destination are never written). A burst starts only when all its beats are buffered, so write stays high
// through it.
`default_nettype none

module shell_rx_dma #(
    parameter integer RECORD_WORDS    = 1,     // stream record width in words (length check)
    parameter integer STREAM_WORDS    = 16,    // words per input beat, 1..16 (records, or packed beats)
    parameter integer DESC_FIFO_DEPTH = 16,    // MMIO descriptor FIFO entries
    parameter integer MAX_BURST       = 16,    // beats per write burst, power of two 2..64
    parameter integer WBUF_DEPTH      = 64     // buffered write beats, power of two >= 2*MAX_BURST
) (
    input  wire         clk,
    input  wire         rst,                // hard reset
    input  wire         srst,               // engine reset pulse (applied after a burst in progress)
    `include "dma_desc_ports.vh"
    // status
    `include "dma_status_ports.vh"
    // input stream: words [0, cnt) of each beat
    input  wire                      s_axis_tvalid,
    output wire                      s_axis_tready,
    input  wire [STREAM_WORDS*32-1:0] s_axis_tdata,
    input  wire [4:0]                s_axis_cnt,
    input  wire         s_axis_tlast,
    // Avalon-MM write master
    output wire [63:0]  wr_address,
    output wire         wr_write,
    output wire [7:0]   wr_burstcount,
    output wire [511:0] wr_writedata,
    output wire [63:0]  wr_byteenable,
    input  wire         wr_waitrequest
);
    `include "afushell_csr.vh"
    `include "dma_engine_common.vh"
    // its buffered beats (BEAT_WIDTH): {err, irq, desc_end, cnt[4:0], off[3:0], data}
    localparam integer WBUF_BITS  = $clog2(WBUF_DEPTH);
    localparam integer CMD_WIDTH  = 64 + 8;

    initial begin
        if (WBUF_DEPTH < 2 * MAX_BURST || (1 << WBUF_BITS) != WBUF_DEPTH) begin
            $display("shell_rx_dma: WBUF_DEPTH=%0d must be a power of two >= 2*MAX_BURST", WBUF_DEPTH);
            $finish;
        end
    end

    // an engine reset waits for a burst in progress: Avalon bursts cannot be cut short
    reg  wr_active_reg;
    reg  srst_pend_reg;
    wire erst = rst || ((srst || srst_pend_reg) && !wr_active_reg);
    always @(posedge clk) begin
        if (rst || erst)
            srst_pend_reg <= 1'b0;
        else if (srst)
            srst_pend_reg <= 1'b1;
    end

    // descriptor front end: queue, hand-over, completions and status
    wire        take, none_queued;
    wire [63:0] q_addr;
    wire [31:0] q_len, q_stride, q_count;
    wire [3:0]  q_ctrl;

    // beat generator: one output span of the packer per destination beat
    localparam [1:0] E_IDLE = 2'd0, E_SETUP = 2'd1, E_BEAT = 2'd2;
    reg [1:0]  state_reg;
    reg [63:0] blk_addr_reg, beat_addr_reg;
    reg [31:0] blk_left_reg, stride_reg;
    reg [32:0] len63_reg;            // LENGTH + 63: a block's beats and end from one sum
    reg [26:0] beats_left_reg;
    reg [3:0]  first_lo_reg;
    reg [4:0]  end_hi_reg;
    reg        first_beat_reg;
    reg [3:0]  ctrl_reg;
    reg        new_burst_reg;        // the next beat starts a burst
    reg        mism_reg;             // EOP descriptor: last flag misplaced so far

    wire [32:0] blk_span   = {27'd0, blk_addr_reg[5:0]} + len63_reg;
    // beats from beat_addr_reg to the next MAX_BURST boundary, read only when a burst
    // starts: a block's first burst starts at the block's address, every later one
    // at a boundary (a burst ends at the boundary or at the block's end)
    reg [BURST_BITS:0] to_boundary_reg;
    wire [BURST_BITS:0] to_boundary = to_boundary_reg;
    wire [26:0] burst_w    = beats_left_reg < {{(26-BURST_BITS){1'b0}}, to_boundary}
                           ? beats_left_reg : {{(26-BURST_BITS){1'b0}}, to_boundary};
    wire        last_beat  = beats_left_reg == 27'd1;
    wire        last_blk   = blk_left_reg == 32'd1;
    wire [3:0]  span_off   = first_beat_reg ? first_lo_reg : 4'd0;
    // both differences beside the last_beat comparison, selected by it
    wire [4:0]  span_cnt_last = end_hi_reg - {1'b0, span_off};
    wire [4:0]  span_cnt_full = 5'd16 - {1'b0, span_off};
    wire [4:0]  span_cnt   = last_beat ? span_cnt_last : span_cnt_full;
    // the next beat of the block continues this one from lane 0 (the packer's overflow)
    wire [4:0]  span_next  = last_beat ? 5'd0 : beats_left_reg == 27'd2 ? end_hi_reg : 5'd16;
    wire        new_burst  = new_burst_reg;

    wire cmd_ready, wbuf_ready;
    wire g_valid, g_last, g_inner;
    wire [511:0] g_data;
    // words that fill no beat are placed while the write buffer is full
    wire req_valid = state_reg == E_BEAT;
    wire g_ready   = (!new_burst || cmd_ready) && wbuf_ready;
    wire g_fire    = g_valid && g_ready;

    shell_span_pack #(.IN_WORDS (STREAM_WORDS)) realign (
        .clk (clk), .rst (erst),
        .s_axis_tvalid (s_axis_tvalid), .s_axis_tready (s_axis_tready), .s_axis_tdata (s_axis_tdata),
        .s_axis_cnt (s_axis_cnt), .s_axis_tlast (s_axis_tlast),
        .req_valid (req_valid), .req_off (span_off), .req_cnt (span_cnt), .req_next (span_next),
        .m_axis_tvalid (g_valid), .m_axis_tready (g_ready), .m_axis_tdata (g_data),
        .m_axis_tlast (g_last), .m_axis_inner_last (g_inner)
    );

    wire desc_final = last_beat && last_blk;
    wire beat_mism  = ctrl_reg[CTRL_EOP] && (g_inner || (g_last != desc_final));
    wire [BEAT_WIDTH-1:0] beat_in = {desc_final && (mism_reg || beat_mism),
                                     desc_final && ctrl_reg[CTRL_IRQ], desc_final,
                                     span_cnt, span_off, g_data};
    wire [CMD_WIDTH-1:0]  cmd_in  = {burst_w[7:0], beat_addr_reg};

    // write buffer and burst commands
    wire                  w_valid, cmd_valid, w_pop;
    wire [BEAT_WIDTH-1:0] w;
    wire [CMD_WIDTH-1:0]  cmd;
    wire [WBUF_BITS:0]    w_level;
    wire [4:0]            cmd_level;
    reg                   cmd_pop;
    shell_fifo #(.DATA_WIDTH(BEAT_WIDTH), .FIFO_DEPTH(WBUF_DEPTH), .FWD_WRITES(0)) wbuf (
        .clk (clk), .rst (erst),
        .s_axis_tvalid (g_fire), .s_axis_tready (wbuf_ready), .s_axis_tdata (beat_in),
        .m_axis_tvalid (w_valid), .m_axis_tready (w_pop), .m_axis_tdata (w),
        .level (w_level)
    );
    shell_fifo #(.DATA_WIDTH(CMD_WIDTH), .FIFO_DEPTH(16)) cmd_fifo (
        .clk (clk), .rst (erst),
        .s_axis_tvalid (g_fire && new_burst), .s_axis_tready (cmd_ready), .s_axis_tdata (cmd_in),
        .m_axis_tvalid (cmd_valid), .m_axis_tready (cmd_pop), .m_axis_tdata (cmd),
        .level (cmd_level)
    );

    wire drained = !wr_active_reg && cmd_level == 5'd0 && w_level == 0;

    always @(posedge clk) begin
        if (erst) begin
            state_reg      <= E_IDLE;
            new_burst_reg  <= 1'b1;
        end else begin
            case (state_reg)
            E_IDLE:
                if (take) begin
                    blk_addr_reg <= q_addr;
                    blk_left_reg <= q_count;
                    len63_reg    <= {1'b0, q_len} + 33'd63;
                    stride_reg   <= q_stride;
                    ctrl_reg     <= q_ctrl;
                    mism_reg     <= 1'b0;
                    state_reg    <= E_SETUP;
                end
            E_SETUP: begin
                beat_addr_reg  <= {blk_addr_reg[63:6], 6'd0};
                to_boundary_reg <= MAX_BURST[BURST_BITS:0] - {1'b0, blk_addr_reg[6 +: BURST_BITS]};
                beats_left_reg <= blk_span[32:6];
                first_lo_reg   <= blk_addr_reg[5:2];
                // the block's final byte is at blk_span[5:0] of its last beat
                end_hi_reg     <= {1'b0, blk_span[5:2]} + 5'd1;
                first_beat_reg <= 1'b1;
                new_burst_reg  <= 1'b1;
                state_reg      <= E_BEAT;
            end
            E_BEAT:
                if (g_fire) begin
                    mism_reg       <= mism_reg || beat_mism;
                    beat_addr_reg  <= beat_addr_reg + 64'd64;
                    to_boundary_reg <= MAX_BURST[BURST_BITS:0];
                    beats_left_reg <= beats_left_reg - 27'd1;
                    first_beat_reg <= 1'b0;
                    // a burst (min(beats left, beats to the boundary) long) ends at the
                    // block's last beat or at a MAX_BURST boundary: no beat counter
                    new_burst_reg  <= last_beat || &beat_addr_reg[6 +: BURST_BITS];
                    if (last_beat) begin
                        blk_addr_reg <= blk_addr_reg + {32'd0, stride_reg};
                        blk_left_reg <= blk_left_reg - 32'd1;
                        state_reg    <= last_blk ? E_IDLE : E_SETUP;
                    end
                end
            default:
                state_reg <= E_IDLE;
            endcase
        end
    end

    // write master: a burst starts when all of its beats are buffered
    reg [63:0] wr_addr_reg;
    reg [7:0]  wr_count_reg, wr_left_reg;
    wire       wr_accept = wr_active_reg && !wr_waitrequest;
    wire       wr_final  = wr_accept && wr_left_reg == 8'd1;
    // buffered beats (less the one leaving now) cover the burst: both comparisons are
    // made beside the waitrequest input and selected by it
    wire [31:0] w_level32 = {{(31-WBUF_BITS){1'b0}}, w_level};
    wire        buf_ge    = w_level32 >= {24'd0, cmd[71:64]};
    wire        buf_gt    = w_level32 >  {24'd0, cmd[71:64]};
    wire       can_load  = cmd_valid && !srst_pend_reg && !srst && (wr_accept ? buf_gt : buf_ge);
    wire       load      = can_load && (!wr_active_reg || wr_final);
    always @* cmd_pop = load;
    assign w_pop = wr_accept;

    always @(posedge clk) begin
        if (erst) begin
            wr_active_reg <= 1'b0;
        end else begin
            if (load) begin
                wr_active_reg <= 1'b1;
                wr_addr_reg   <= cmd[63:0];
                wr_count_reg  <= cmd[71:64];
                wr_left_reg   <= cmd[71:64];
            end else if (wr_final) begin
                wr_active_reg <= 1'b0;
            end else if (wr_accept) begin
                wr_left_reg <= wr_left_reg - 8'd1;
            end
        end
    end

    reg [63:0] be;
    wire [4:0] be_lo = {1'b0, w[515:512]};
    wire [4:0] be_hi = be_lo + w[520:516];
    integer i;
    always @* begin
        for (i = 0; i < 16; i = i + 1)
            be[i*4 +: 4] = (i[4:0] >= be_lo && i[4:0] < be_hi) ? 4'hf : 4'h0;
    end

    assign wr_address    = wr_addr_reg;
    assign wr_write      = wr_active_reg;
    assign wr_burstcount = wr_count_reg;
    assign wr_writedata  = w[511:0];
    assign wr_byteenable = be;

    wire        w_end = wr_accept && w[521];
    shell_dma_front #(.IS_RX(1), .RECORD_WORDS(RECORD_WORDS), .DESC_FIFO_DEPTH(DESC_FIFO_DEPTH)) front (
        .clk (clk), .rst (erst),
        `include "dma_front_conns.vh"
        .idle (state_reg == E_IDLE), .drained (drained), .take (take), .d_addr (q_addr), .d_len (q_len),
        .d_stride (q_stride), .d_count (q_count), .d_ctrl (q_ctrl), .none_queued (none_queued),
        .end_pulse (w_end), .end_irq (w[522]), .end_err (w_end && w[523]),
        .pkt_end (w_end && ctrl_reg[CTRL_EOP]), .bytes_inc (wr_accept ? {w[520:516], 2'b00} : 7'd0)
    );

    wire unused_ok = &{1'b0, burst_w[26:8], blk_span[1:0], w_valid, none_queued};
endmodule

`default_nettype wire
