// One lane of the sort's scatter writer (shell/shell_sort_scatter.v, docs/sort.md "The
// scatter writer"). The writer's bins are dealt round the lanes, bin b to lane b mod LANES,
// so a lane owns NBL = 2^MAX_BITS / LANES bins and nothing else touches them: per bin its
// next place and the line buffer of that place's line, in a memory of one read and one
// write port (block RAM), where the writer as a whole takes 16 keys a cycle.
//
// The writer hands every lane the beats in which it has keys, each beat reordered so that
// the keys of a bin are consecutive elements in stream order (a segment), with the
// segments' first elements marked. The lane takes one segment a cycle, up to 16 words of
// one bin: it rotates them to their places in the bin's line, merges them with the line
// buffer, and when the line's last word is filled sends the line out (with a word mask for
// a partial first line) and keeps the rest as the bin's next buffered line. A bin's keys
// therefore land at consecutive places in stream order, which makes the pass stable, and
// its lines leave in address order. `flush` sends every buffered line, partial, at the end
// of a pass. Two stages: L0 picks the segment and reads its bin's state (a registered
// read), L1 merges and writes it back; a bin in consecutive segments is forwarded.
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
    // beats: the reordered elements' words, each element's local bin, the first elements of all
    // segments and of this lane's, the beat's element count
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [511:0] in_words,
    input  wire [16*(MAX_BITS-$clog2(LANES))-1:0] in_locals,
    input  wire [15:0]  in_starts,
    input  wire [15:0]  in_mine,
    input  wire [4:0]   in_count,
    // flush: a pulse once no beat is left; every buffered line goes out as a partial line
    input  wire         flush,
    output wire         busy,         // beats, a segment or a flush in hand
    // lines out: {line address [63:6], 16 words, word mask}
    output wire         out_valid,
    input  wire         out_ready,
    output wire [585:0] out_line        // LINE_BITS
);
    localparam integer NBL       = (1 << MAX_BITS) / LANES;   // bins of this lane
    localparam integer LB        = $clog2(NBL);
    localparam integer LINE_BITS = 58 + 512 + 16;
    localparam integer ST_BITS   = 32 + 16 + 512;             // place, word mask, words
    localparam integer IN_BITS   = 512 + 16 * LB + 16 + 16 + 5;

    initial begin
        if (LANES < 16 || (LANES & (LANES - 1)) != 0 || NBL < 4) begin
            $display("shell_sort_lane: LANES=%0d must be a power of 2, 16..2^(MAX_BITS-2)", LANES);
            $finish;
        end
    end

    // ---- beats waiting ------------------------------------------------------------------
    wire               h_valid;
    wire [IN_BITS-1:0] h_data;
    wire               h_pop;
    wire [$clog2(DEPTH):0] h_level;
    shell_fifo #(.DATA_WIDTH (IN_BITS), .FIFO_DEPTH (DEPTH)) beats (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (in_valid), .s_axis_tready (in_ready),
        .s_axis_tdata ({in_words, in_locals, in_starts, in_mine, in_count}),
        .m_axis_tvalid (h_valid), .m_axis_tready (h_pop), .m_axis_tdata (h_data), .level (h_level)
    );
    wire [511:0]    h_words  = h_data[IN_BITS-1 -: 512];
    wire [16*LB-1:0] h_locals = h_data[37 +: 16*LB];
    wire [15:0]     h_starts = h_data[21 +: 16];
    wire [15:0]     h_mine   = h_data[5 +: 16];
    wire [4:0]      h_count  = h_data[4:0];

    // ---- L0: the head beat's next segment of this lane -----------------------------------
    reg  [15:0] done_reg;            // the head's segments already taken
    wire [15:0] rem = h_valid ? h_mine & ~done_reg : 16'd0;
    reg  [3:0]  s0;                  // the segment's first element
    reg  [4:0]  e0;                  // the next segment's first element, or the count
    integer i;
    always @* begin
        s0 = 4'd0;
        for (i = 15; i >= 0; i = i - 1)
            if (rem[i]) s0 = i[3:0];
        e0 = h_count;
        for (i = 15; i >= 0; i = i - 1)
            if (h_starts[i] && i > s0) e0 = i[4:0];
    end
    wire [15:0] rest0 = rem & ~(16'd1 << s0);
    wire [LB-1:0] local0 = h_locals[LB*s0 +: LB];

    reg          fl_reg;              // flushing: local bin fl_idx next
    reg [LB-1:0] fl_idx;

    reg          l1_valid, l1_flush;
    reg [LB-1:0] l1_local;
    reg [3:0]    l1_s;
    reg [4:0]    l1_len;
    reg [511:0]  l1_words;
    wire         o_ready;
    wire [1:0]   o_level;
    wire         l1_fire = l1_valid && o_ready;
    wire         l1_free = !l1_valid || l1_fire;
    wire         seg0    = rem != 16'd0;
    wire         take0   = l1_free && seg0;
    wire         flush0  = l1_free && !seg0 && fl_reg;
    assign h_pop = take0 && rest0 == 16'd0;
    wire [LB-1:0] rd_idx = seg0 ? local0 : fl_idx;
    // while L1 waits for room for its line, its own bin is read again, so its state stays
    wire [LB-1:0] rd_addr = l1_free ? rd_idx : l1_local;

    // ---- the bins' state ----------------------------------------------------------------
    reg [ST_BITS-1:0] st_mem [0:NBL-1];
    reg [ST_BITS-1:0] st_rd, wb_reg;
    reg [NBL-1:0]     vld_reg;        // the bin's buffer holds words (of its next place's line)
    reg               fwd_reg;
    reg               st_we;
    reg [LB-1:0]      st_wa;
    reg [ST_BITS-1:0] st_wd;
    integer k;
    initial for (k = 0; k < NBL; k = k + 1) st_mem[k] = {ST_BITS{1'b0}};
    always @(posedge clk) begin
        if (st_we) st_mem[st_wa] <= st_wd;
        st_rd <= st_mem[rd_addr];
    end

    // ---- L1: merge the segment into its bin's line ---------------------------------------
    wire [ST_BITS-1:0] st = fwd_reg ? wb_reg : st_rd;
    wire [31:0]  ptr   = st[ST_BITS-1 -: 32];
    wire [15:0]  bmask = vld_reg[l1_local] ? st[512 +: 16] : 16'd0;
    wire [511:0] bwords = st[511:0];
    wire [63:0]  addr  = dst + ({32'd0, ptr} << ({1'b0, ewords} + 3'd2));
    wire [3:0]   start = addr[5:2];
    wire [4:0]   kw    = l1_len << ewords;               // the segment's words, at most 16
    wire [5:0]   fin   = {2'd0, start} + {1'd0, kw};      // one past its last word in the line pair
    wire [3:0]   rot   = start - (l1_s << ewords);
    reg  [511:0] rwords;                                   // the segment's words at their slots
    reg  [15:0]  in_a, in_b;
    reg  [511:0] a_words;
    reg  [3:0]   src;
    always @* begin
        for (i = 0; i < 16; i = i + 1) begin
            src = i[3:0] - rot;
            rwords[32*i +: 32] = l1_words[32*src +: 32];
            in_a[i] = i >= start && i < fin;
            in_b[i] = i + 16 < fin;
            a_words[32*i +: 32] = in_a[i] ? rwords[32*i +: 32] : bwords[32*i +: 32];
        end
    end
    wire [15:0] a_mask  = bmask | in_a;
    wire        line_a  = !l1_flush && fin >= 6'd16;     // the line's last word is filled
    wire        flush_a = l1_flush && vld_reg[l1_local];
    wire        o_push  = l1_valid && (line_a || flush_a);
    wire [LINE_BITS-1:0] o_line = {addr[63:6], l1_flush ? bwords : a_words, l1_flush ? bmask : a_mask};

    shell_fifo #(.DATA_WIDTH (LINE_BITS), .FIFO_DEPTH (2)) lines (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (o_push && l1_fire), .s_axis_tready (o_ready),
        .s_axis_tdata (o_line),
        .m_axis_tvalid (out_valid), .m_axis_tready (out_ready), .m_axis_tdata (out_line), .level (o_level)
    );

    wire [ST_BITS-1:0] merged = line_a ? {ptr + {27'd0, l1_len}, in_b, rwords}
                                       : {ptr + {27'd0, l1_len}, a_mask, a_words};
    always @* begin
        st_we = 1'b0;
        st_wa = l1_local;
        st_wd = merged;
        if (prep_we) begin
            st_we = 1'b1;
            st_wa = prep_idx;
            st_wd = {prep_ptr, 16'd0, 512'd0};
        end else if (l1_fire && !l1_flush) begin
            st_we = 1'b1;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            done_reg <= 16'd0;
            fl_reg <= 1'b0;
            fl_idx <= {LB{1'b0}};
            l1_valid <= 1'b0;
            fwd_reg <= 1'b0;
            vld_reg <= {NBL{1'b0}};
        end else begin
            if (take0) done_reg <= h_pop ? 16'd0 : done_reg | (16'd1 << s0);
            if (flush) begin
                fl_reg <= 1'b1;
                fl_idx <= {LB{1'b0}};
            end else if (flush0) begin
                fl_idx <= fl_idx + 1'b1;
                if (&fl_idx) fl_reg <= 1'b0;
            end
            if (l1_free) l1_valid <= take0 || flush0;
            // the bin read now was written by L1 this cycle: L1's value, not the memory's
            fwd_reg <= st_we && !prep_we && st_wa == rd_addr;
            if (prep_we) vld_reg[prep_idx] <= 1'b0;
            else if (l1_fire) vld_reg[l1_local] <= l1_flush ? 1'b0 : line_a ? fin > 6'd16 : 1'b1;
        end
        if (st_we) wb_reg <= st_wd;
        if (l1_free) begin
            l1_flush <= !seg0;
            l1_local <= rd_idx;
            l1_s     <= s0;
            l1_len   <= e0 - {1'b0, s0};
            l1_words <= h_words;
        end
    end

    assign busy = h_valid || l1_valid || fl_reg;

    wire unused_ok = &{1'b0, addr[1:0], h_level, o_level};
endmodule

`default_nettype wire
