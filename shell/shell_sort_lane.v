// One lane of the sort's scatter writer (shell/shell_sort_scatter.v, docs/sort.md "The
// scatter writer"). The writer's bins are dealt round the lanes, bin b to lane b mod LANES,
// so a lane owns NBL = 2^MAX_BITS / LANES bins and nothing else touches them: per bin its
// next place and the line buffer of that place's line, in memories of one read and one
// write port (block RAM), where the writer as a whole takes 16 keys a cycle.
//
// The writer hands every lane the beats in which it has keys, each beat reordered so that
// the keys of a bin are consecutive elements in stream order (a segment), with the first
// elements of the lane's segments marked and every segment's length. The lane takes one segment a cycle, up to 16 words of
// one bin: it rotates them to their places in the bin's line, merges them with the line
// buffer, and when the line's last word is filled sends the line out (with a word mask for
// a partial first line) and keeps the rest as the bin's next buffered line. A bin's keys
// therefore land at consecutive places in stream order, which makes the pass stable, and
// its lines leave in address order. `flush` sends every buffered line, partial, at the end
// of a pass.
//
// A pick stage and three stages, none of which stalls once a segment has entered (a segment
// enters only while the output has room for every line in flight):
//   LP picks the head beat's next segment of this lane (or the next bin to flush) and holds
//      it in registers until it enters, so that the reads' address is a register. The pick
//      starts from registers too: a beat waits with its first segment's one-hot and the rest
//      of its segments, and each pick that is not the beat's last sets the next one-hot
//      (v & -v of the rest) a cycle ahead, so a pick is a select, not a search;
//   L0 reads the segment's bin's place (with a bit saying the bin has had no key yet, and the
//      place's word in its line) and its buffer, each memory with a registered read;
//   L1 advances the place (place memory written here) and works out where the segment's
//      words go in the line, from the word kept with the place (no address sum here); the
//      place is kept in words from DST, so it advances by the segment's words and the line's
//      offset needs no shift;
//   L2 rotates the words there, merges them with the buffer (buffer memory written here),
//      adds the line's address and sends a full line out.
// A bin in consecutive segments is forwarded: its place from L1's write of the cycle before,
// its buffer from L2's write of the cycle before (distance 1) or of the cycle of the read
// (distance 2).
`default_nettype none

module shell_sort_lane #(
    parameter integer MAX_BITS = 11,  // the writer's widest bin
    parameter integer LANES    = 32,  // lanes of the writer (a power of 2, 16..2^(MAX_BITS-2))
    parameter integer DEPTH    = 8    // beats waiting (a power of 2, >= 2)
) (
    input  wire         clk,
    input  wire         rst,
    // the pass's configuration, held while it runs
    input  wire [63:0]  dst,          // byte address of place 0
    input  wire [1:0]   ewords,       // log2 of an element's words: 0 (a key), 1 (pairs, uint64), 2
    // prepare (between passes): local bin prep_idx starts at place prep_ptr, its buffer empty
    input  wire         prep_we,
    input  wire [MAX_BITS-$clog2(LANES)-1:0] prep_idx,   // LB bits
    input  wire [31:0]  prep_ptr,
    // beats: the reordered elements' words, each element's local bin, the first elements of
    // this lane's segments, the segments' lengths
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [511:0] in_words,
    input  wire [16*(MAX_BITS-$clog2(LANES))-1:0] in_locals,
    input  wire [15:0]  in_mine,
    input  wire [79:0]  in_lens,      // at each segment's first element, its elements
    // flush: a pulse once no beat is left; every buffered line goes out as a partial line
    input  wire         flush,
    output wire         busy,         // beats, a segment or a flush in hand
    // lines out: {line address [63:6], 16 words, word mask}
    output wire         out_valid,
    output wire         out_two,      // a line still shown after a pop now
    input  wire         out_ready,
    output wire [585:0] out_line        // LINE_BITS
);
    localparam integer NBL       = (1 << MAX_BITS) / LANES;   // bins of this lane
    localparam integer LB        = $clog2(NBL);
    localparam integer LINE_BITS = 58 + 512 + 16;
    localparam integer BUF_BITS  = 16 + 512;                  // word mask, words
    localparam integer IN_BITS   = 512 + 16 * LB + 32 + 80;
    localparam integer ODEPTH    = 4;                         // lines out waiting

    initial begin
        if (LANES < 16 || (LANES & (LANES - 1)) != 0 || NBL < 4) begin
            $display("shell_sort_lane: LANES=%0d must be a power of 2, 16..2^(MAX_BITS-2)", LANES);
            $finish;
        end
    end

    // the index of a one-hot vector's bit
    function [3:0] enc16(input [15:0] one);
        integer q;
        begin
            enc16 = 4'd0;
            for (q = 0; q < 16; q = q + 1) enc16 = enc16 | (one[q] ? q[3:0] : 4'd0);
        end
    endfunction

    // ---- beats waiting ------------------------------------------------------------------
    // with the first segment's one-hot and the others apart (the input is registered upstream)
    wire [15:0]        in_first = in_mine & (~in_mine + 16'd1);
    wire               h_valid;
    wire [IN_BITS-1:0] h_data;
    wire               h_pop;
    wire [$clog2(DEPTH):0] h_level;
    shell_fifo #(.DATA_WIDTH (IN_BITS), .FIFO_DEPTH (DEPTH)) beats (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (in_valid), .s_axis_tready (in_ready),
        .s_axis_tdata ({in_words, in_locals, in_first, in_mine & ~in_first, in_lens}),
        .m_axis_tvalid (h_valid), .m_axis_tready (h_pop), .m_axis_tdata (h_data), .level (h_level)
    );
    wire [511:0]    h_words  = h_data[IN_BITS-1 -: 512];
    wire [16*LB-1:0] h_locals = h_data[112 +: 16*LB];
    wire [15:0]     h_first  = h_data[96 +: 16];
    wire [15:0]     h_rest   = h_data[80 +: 16];
    wire [79:0]     h_lens   = h_data[79:0];

    // ---- LP: the head beat's next segment of this lane, or the next bin to flush ----------
    // A beat in the queue has at least one segment of this lane (the writer hands it only
    // those), so h_valid says there is one; its one-hot is the queue's (a fresh head) or the
    // one set by the last pick, and the lowest of the rest is found beside the select.
    reg         fresh_reg;           // the head has had no pick yet
    reg  [15:0] cur_reg, rest_reg;   // after a pick: the head's next segment, those after it
    wire [15:0] one0  = fresh_reg ? h_first : cur_reg;         // the segment's first element
    wire [15:0] rest  = fresh_reg ? h_rest : rest_reg;
    wire [15:0] low   = rest & (~rest + 16'd1);
    wire [3:0]  s0    = enc16(one0);
    reg  [LB-1:0] local0;
    reg  [4:0]    len0;
    integer i;
    always @* begin
        local0 = {LB{1'b0}};
        len0 = 5'd0;
        for (i = 0; i < 16; i = i + 1) begin
            local0 = local0 | ({LB{one0[i]}} & h_locals[LB*i +: LB]);
            len0 = len0 | ({5{one0[i]}} & h_lens[5*i +: 5]);
        end
    end

    reg          fl_reg;              // flushing: local bin fl_idx next
    reg [LB-1:0] fl_idx;
    reg          lp_valid, lp_flush;  // the picked segment (or bin to flush)
    reg [LB-1:0] lp_local;
    reg [3:0]    lp_s;                // the segment's first element in the beat
    reg [4:0]    lp_len;              // its elements
    reg [511:0]  lp_words;
    reg          l1_valid, l2_valid;
    wire [2:0]   o_level;
    // a segment (or a flush) enters only while every line it and those ahead may send has room
    wire [3:0] flight = {1'b0, o_level} + {3'd0, l1_valid} + {3'd0, l2_valid};
    wire take0   = lp_valid && flight < ODEPTH[3:0];   // L0: the picked one enters
    wire lp_free = !lp_valid || take0;
    wire seg0    = h_valid;
    wire pick    = lp_free && seg0;
    wire pick_fl = lp_free && !seg0 && fl_reg;
    assign h_pop = pick && rest == 16'd0;
    wire [LB-1:0] rd_idx = lp_local;

    // ---- the bins' state: place (with the buffer's valid bit) and buffer ----------------
    // the buffer holds words when the bin has had a key and its next place is mid-line
    // the place in words from DST (the element's place << ewords, 34 bits)
    reg  [38:0]        p_mem [0:NBL-1];    // {no key yet, place, the place's word in its line}
    reg  [BUF_BITS-1:0] b_mem [0:NBL-1];
    reg  [38:0]        p_rd, p_wb;
    reg  [BUF_BITS-1:0] b_rd, b_wb;
    reg                p_fwd, b_fwd;
    reg                p_we, b_we;
    reg  [LB-1:0]      p_wa, b_wa;
    reg  [38:0]        p_wd;
    reg  [BUF_BITS-1:0] b_wd;
    // prepare, a cycle after the writer's: the first place's word in its line
    reg                pr_we;
    reg  [LB-1:0]      pr_idx;
    reg  [33:0]        pr_wptr;            // the first place in words
    wire [3:0]         pr_word = dst[5:2] + pr_wptr[3:0];
    integer k;
    initial for (k = 0; k < NBL; k = k + 1) begin
        p_mem[k] = 39'd0;
        b_mem[k] = {BUF_BITS{1'b0}};
    end
    always @(posedge clk) begin
        if (p_we) p_mem[p_wa] <= p_wd;
        if (b_we) b_mem[b_wa] <= b_wd;
        p_rd <= p_mem[rd_idx];
        b_rd <= b_mem[rd_idx];
    end

    // ---- L1: the place advances; where the segment's words go ---------------------------
    reg          l1_flush;
    reg [LB-1:0] l1_local;
    reg [3:0]    l1_ssh;
    reg [4:0]    l1_kw;
    reg [511:0]  l1_words;
    wire [38:0]  pst    = p_fwd ? p_wb : p_rd;
    wire [33:0]  wptr   = pst[37:4];
    wire [3:0]   start  = pst[3:0];                        // the place's word in its line
    wire         vld1   = !pst[38] && start != 4'd0;
    wire [4:0]   fin    = {1'd0, start} + l1_kw;           // one past its last word in the line pair
    wire [3:0]   rot    = start - l1_ssh;
    wire         line1  = !l1_flush && fin[4];             // the line's last word is filled
    always @* begin
        p_we = 1'b0;
        p_wa = l1_local;
        p_wd = {1'b0, wptr + {29'd0, l1_kw}, fin[3:0]};
        if (pr_we) begin
            p_we = 1'b1;
            p_wa = pr_idx;
            p_wd = {1'b1, pr_wptr, pr_word};
        end else if (l1_valid && !l1_flush) begin
            p_we = 1'b1;
        end
    end

    // ---- L2: rotate, merge, send ---------------------------------------------------------
    reg          l2_flush, l2_vld, l2_line, l2_near;
    reg [LB-1:0] l2_local;
    reg [33:0]   l2_wptr;
    reg [3:0]    l2_start, l2_rot;
    reg [4:0]    l2_fin;
    wire [35:0]  l2_off  = {l2_wptr, 2'b00};
    wire [63:0]  l2_byte = dst + {28'd0, l2_off};
    wire [57:0]  l2_addr = l2_byte[63:6];                  // the place's line
    reg [511:0]  l2_words;
    reg [BUF_BITS-1:0] l2_buf;
    wire [BUF_BITS-1:0] buf2  = l2_near ? b_wb : l2_buf;    // distance 1: L2's last merge
    wire [15:0]  bmask  = l2_vld ? buf2[512 +: 16] : 16'd0;
    wire [511:0] bwords = buf2[511:0];
    reg  [511:0] rwords;                                   // the segment's words at their slots
    reg  [15:0]  in_a, in_b;
    reg  [511:0] a_words;
    reg  [3:0]   src;
    always @* begin
        for (i = 0; i < 16; i = i + 1) begin
            src = i[3:0] - l2_rot;
            rwords[32*i +: 32] = l2_words[32*src +: 32];
            in_a[i] = i >= l2_start && i < l2_fin;
            in_b[i] = i + 16 < l2_fin;
            a_words[32*i +: 32] = in_a[i] ? rwords[32*i +: 32] : bwords[32*i +: 32];
        end
    end
    wire [15:0] a_mask = bmask | in_a;
    wire        o_push = l2_valid && (l2_line || (l2_flush && l2_vld));
    wire [LINE_BITS-1:0] o_line = {l2_addr, l2_flush ? bwords : a_words, l2_flush ? bmask : a_mask};
    always @* begin
        b_we = l2_valid && !l2_flush;
        b_wa = l2_local;
        b_wd = l2_line ? {in_b, rwords} : {a_mask, a_words};
    end

    wire o_ready;
    shell_fifo #(.DATA_WIDTH (LINE_BITS), .FIFO_DEPTH (ODEPTH)) lines (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (o_push), .s_axis_tready (o_ready),
        .s_axis_tdata (o_line),
        .m_axis_tvalid (out_valid), .m_axis_tready (out_ready), .m_axis_tdata (out_line), .level (o_level)
    );
    // lines shown next cycle if one is popped now: this cycle's push shows then too
    assign out_two = o_level >= 3'd2 || (o_level == 3'd1 && o_push);

    always @(posedge clk) begin
        if (rst) begin
            fresh_reg <= 1'b1;
            fl_reg <= 1'b0;
            fl_idx <= {LB{1'b0}};
            lp_valid <= 1'b0;
            pr_we <= 1'b0;
            l1_valid <= 1'b0;
            l2_valid <= 1'b0;
            p_fwd <= 1'b0;
            b_fwd <= 1'b0;
        end else begin
            if (pick) fresh_reg <= h_pop;
            if (flush) begin
                fl_reg <= 1'b1;
                fl_idx <= {LB{1'b0}};
            end else if (pick_fl) begin
                fl_idx <= fl_idx + 1'b1;
                if (&fl_idx) fl_reg <= 1'b0;
            end
            if (lp_free) lp_valid <= pick || pick_fl;
            l1_valid <= take0;
            pr_we <= prep_we;
            l2_valid <= l1_valid;
            // the bin read now is written this cycle: the written value, not the memory's
            p_fwd <= p_we && p_wa == rd_idx;
            b_fwd <= b_we && b_wa == rd_idx;
        end
        pr_idx <= prep_idx;
        pr_wptr <= {2'd0, prep_ptr} << ewords;
        if (p_we) p_wb <= p_wd;
        if (b_we) b_wb <= b_wd;
        if (pick) begin
            cur_reg  <= low;
            rest_reg <= rest & ~low;
        end
        if (lp_free) begin
            lp_flush <= !seg0;
            lp_local <= seg0 ? local0 : fl_idx;
            lp_s     <= s0;
            lp_len   <= seg0 ? len0 : 5'd0;
            lp_words <= h_words;
        end
        l1_flush <= lp_flush;
        l1_local <= lp_local;
        l1_ssh   <= lp_s << ewords;
        l1_kw    <= lp_len << ewords;
        l1_words <= lp_words;
        l2_flush <= l1_flush;
        l2_vld   <= vld1;
        l2_line  <= line1;
        l2_near  <= l2_valid && !l2_flush && l2_local == l1_local;
        l2_local <= l1_local;
        l2_wptr  <= wptr;
        l2_start <= start;
        l2_rot   <= rot;
        l2_fin   <= fin;
        l2_words <= l1_words;
        l2_buf   <= b_fwd ? b_wb : b_rd;                   // distance 2: L2's write at the read
    end

    assign busy = h_valid || lp_valid || l1_valid || l2_valid || fl_reg;

    wire unused_ok = &{1'b0, l2_byte[5:0], h_level, o_ready};
endmodule

`default_nettype wire
