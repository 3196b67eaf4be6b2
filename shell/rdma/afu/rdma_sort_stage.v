// The distributed sort's single pass, as OPTWEB's: each key read once from the card's memory
// and written once, on its destination card. The scatter writer's grouping pass (bins of
// fixed capacity, docs/sort.md "Few key values: one grouping pass") writes bin b's keys to
// base + (b << cap_shift) + 4 * (keys of bin b so far). This stage takes those writes into
// on-chip RAM instead of DDR: a ring of RING_LINES lines per bin. Whenever CHUNK_LINES lines
// of a bin are in, it hands them to the RDMA engine as a put to the bin's region on its
// destination card (the table: bin -> card, remote address of the region), at the same
// offset. The engine reads the chunk back through this stage (its reads of the window come
// here, a line a cycle, answered two cycles later), and each line read frees its place in the
// ring; a write into a full ring waits for that. After the pass (`flush`), each bin's rest
// goes as one last put, then one block of card memory (the writer's counts) to every card
// of a mask (`cnt_*`: the sort's count exchange, made by the card), and `idle` says that
// every put has been issued and has completed.
//
// A write below what the engine has read of its bin (only a bin that overflowed its region
// spills into the next one) is dropped rather than overwrite newer lines: the host sees the
// overflow in the writer's counts and sorts those keys another way; nothing waits forever.
// Puts are CHUNK_LINES lines at CHUNK-aligned offsets, so a put never wraps a ring; the last
// of a bin may be shorter and end inside a line (the writer's last line of a bin, with byte
// enables). Bin b's chunks are read in the order they were issued (the engine sends its puts
// in command order), so the ring is freed in order. The stage sends to the destinations in
// turn, from the card after its own, as the sort's network phases issue their puts: bins
// of one destination are consecutive, and taken in bin order every card would send to card
// 0 first, then to card 1, each receiver taking the whole cluster's traffic in turn.
`default_nettype none
module rdma_sort_stage #(
    parameter integer BIN_BITS    = 6,    // up to 2^BIN_BITS bins (1..6)
    parameter integer RING_LINES  = 64,   // lines of a bin's ring (a power of 2)
    parameter integer CHUNK_LINES = 16    // lines of a put (a power of 2, at most RING_LINES / 2)
) (
    input  wire                clk,
    input  wire                rst,
    // configuration, held while a pass runs: the window's base (64-byte aligned) and the
    // bytes of a bin's region there and at the destination (2^cap_shift, 2^12 .. 2^31)
    input  wire [63:0]         base,
    input  wire [4:0]          cap_shift,
    input  wire                tbl_we,      // bin tbl_bin goes to card tbl_dst, region at tbl_remote
    input  wire [BIN_BITS-1:0] tbl_bin,
    input  wire [5:0]          tbl_dst,
    input  wire [63:0]         tbl_remote,
    input  wire [5:0]          card_id,     // this card: its puts go to the cards after it first
    // after the bins' rests: cnt_len bytes from cnt_local to cnt_remote on every card of
    // cnt_dests (bit c: card c; 0: none), held while a pass runs
    input  wire [63:0]         cnt_local,
    input  wire [63:0]         cnt_remote,
    input  wire [31:0]         cnt_len,
    input  wire [63:0]         cnt_dests,
    input  wire                start,       // a pass begins: every bin empty, counters cleared
    input  wire                flush,       // the pass's writes are all in: send every bin's rest
    output reg                 idle,        // flushed, every put issued and completed
    output reg  [31:0]         puts,        // puts issued since start
    output reg  [31:0]         puts_done,   // ... and completed
    output reg  [7:0]          err_code,    // the code of the first put that failed (0: none)
    output reg  [31:0]         dropped,     // late writes dropped (a bin's overflow)
    // where the pass's cycles went (since start, saturating): cycles until idle, a writer's
    // line waiting on a full ring, the engine reading a line, and the engine reading none
    // while lines put are still unread (its overhead between packets and puts)
    output reg  [31:0]         pass_cycles,
    output reg  [31:0]         writer_waits,
    output reg  [31:0]         engine_reads,
    output reg  [31:0]         engine_gaps,
    // the writer's single-line writes into the window
    input  wire                w_write,
    input  wire [63:0]         w_address,
    input  wire [511:0]        w_writedata,
    input  wire [63:0]         w_byteenable,
    output wire                w_waitrequest,
    // the engine's line reads in the window (never waits; data two cycles later, in order)
    input  wire                r_read,
    input  wire [63:0]         r_address,
    output reg                 r_readdatavalid,
    output reg  [511:0]        r_readdata,
    // the engine's command port: puts
    output reg                 cmd_valid,
    input  wire                cmd_ready,
    output reg  [5:0]          cmd_dst,
    output reg  [63:0]         cmd_local,
    output reg  [63:0]         cmd_remote,
    output reg  [63:0]         cmd_len,
    input  wire                done,        // a put of this stage completed, with its code
    input  wire [7:0]          done_code
);
    localparam integer NB = 1 << BIN_BITS;
    localparam integer RB = $clog2(RING_LINES);
    localparam [31:0] RING_BYTES  = 32'd64 * RING_LINES;
    localparam [31:0] CHUNK_BYTES = 32'd64 * CHUNK_LINES;

    initial begin
        if ((RING_LINES & (RING_LINES - 1)) != 0 || (CHUNK_LINES & (CHUNK_LINES - 1)) != 0
            || CHUNK_LINES < 1 || 2 * CHUNK_LINES > RING_LINES || BIN_BITS < 1 || BIN_BITS > 6) begin
            $display("rdma_sort_stage: RING_LINES=%0d, CHUNK_LINES=%0d, BIN_BITS=%0d: powers of 2, a chunk at most half a ring, 1..6 bin bits",
                     RING_LINES, CHUNK_LINES, BIN_BITS);
            $finish;
        end
    end

    // per bin, byte offsets in its region: written up to (the furthest line end), put up to,
    // read back by the engine up to
    reg [31:0] filled [0:NB-1];
    reg [31:0] issued [0:NB-1];
    reg [31:0] next_at [0:NB-1];   // issued + a chunk: filled from there on makes a whole chunk
    reg [31:0] freed  [0:NB-1];
    reg [31:0] lim    [0:NB-1];   // freed + the ring's bytes: a line below it has room
    reg [5:0]  dst_of [0:NB-1];
    reg [63:0] rem_of [0:NB-1];
    reg [511:0] ring [0:NB*RING_LINES-1];
    reg         flushing;
    wire        flushed;       // flushing, and the writes taken are in the rings

    // an address of the window: its offset from base, of which a bin's number ends below bit
    // 37 (cap_shift <= 31, BIN_BITS <= 6), so 38 bits of the subtraction are all it needs;
    // then the bin and the offset in its region, bit selects by cap_shift (no shifter)
    localparam integer OB = 38;
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [OB-1:0] offset_of(input [63:0] a);
        offset_of = a[OB-1:0] - base[OB-1:0];
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // cap_shift one-hot, a register (cap_shift is held while a pass runs): the bin's bits are
    // then balanced ORs of 32 ANDs, three LUT levels, not a select by a 5-bit number (which
    // maps as a deeper mux) nor a chain of ORs
    reg [31:0] cap_hot;
    always @(posedge clk) cap_hot <= 32'd1 << cap_shift;
    function automatic [BIN_BITS-1:0] bin_of(input [OB-1:0] off);
        integer i;
        for (i = 0; i < BIN_BITS; i = i + 1) bin_of[i] = |(cap_hot & off[i +: 32]);
    endfunction
    // the line's offset in its region: the offset's bits 6 .. cap_shift-1, by a registered mask
    // (a compare with cap_shift per bit would sit in front of the adders that take it)
    reg [31:0] line_mask;
    integer lm;
    always @(posedge clk)
        for (lm = 0; lm < 32; lm = lm + 1) line_mask[lm] <= lm >= 6 && lm < cap_shift;
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [31:0] line_of(input [OB-1:0] off);
        line_of = off[31:0] & line_mask;
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    // ---- the writer's lines into the rings, through registers --------------------------------
    // No path runs from the writer's ports through a bin's state: a write is taken into `b_*`
    // (or, while the pipeline stands, into the skid `k_*`, and then the port waits: a
    // registered waitrequest); `n_*` holds it located in its bin (offset, bytes), `l_*` the
    // same with the bin one-hot; `m_*` holds it with its bin's `filled`, `freed` and `lim`,
    // looked up; `c_*` holds it with the checks made (room in the ring, late), and from there
    // it goes into the ring once the ring has room (or is dropped, late). No cycle both looks
    // a bin up and compares with it, and the stall that holds the pipeline is a register's bit.
    //
    // `freed` is what the engine has read of a bin. A line's checks follow the engine's reads
    // (q_*, below) of its bin while it waits: m_* through the reads a cycle late (q1_*), c_*
    // through their compares made a cycle ahead (p_*). Every read from the cycle the line was
    // looked up on reaches it but the one in the cycle it enters c_*: a line leaving c_* has
    // seen every read that an earlier line leaving c_* saw, so a write that could land on a
    // line not yet read is always seen late (that line was written after `freed` passed the
    // write's offset). The missed read only shows a line less of room, until the bin's next
    // read, which comes, since a full ring holds lines put and not yet read (a chunk is at
    // most half a ring). freed only grows, so the room a line sees is never more than there
    // is. `filled` is exact: only c_* writes it, and a line behind takes it forwarded.
    reg                  k_valid, b_valid, n_valid, l_valid, m_valid, c_valid;
    reg                  q_valid, q1_valid;    // the engine's read answered a cycle ago; 2 cycles
    reg [BIN_BITS-1:0]   q_bin, q1_bin;
    reg [31:0]           q_pos, q1_pos;        // the line read
    reg [31:0]           q_freed, q1_freed, q_lim, q1_lim;   // freed and lim after it
    reg [OB-1:0]         k_off, b_off;      // the line's offset from base
    reg [511:0]          k_data, b_data, n_data, l_data, m_data, c_data;
    reg [63:0]           k_be, b_be, n_be, l_be, m_be, c_be;
    reg [BIN_BITS-1:0]   n_bin, l_bin, m_bin, c_bin;
    reg [NB-1:0]         l_hot;       // l_bin, one-hot: the lookup is ORs of ANDs, not a 64-way mux
    reg [31:0]           n_pos, n_next, l_pos, l_next, m_pos, m_end, c_pos;   // *_next: *_pos + 64
    reg [31:0]           m_freed, m_lim, m_filled;   // the bin's, looked up (and followed)
    reg [31:0]           c_freed;
    reg [31:0]           c_fill;      // the bin's filled once c_*'s line is in
    reg                  c_go;        // room in the ring, or late (then dropped)
    reg                  c_late;      // below freed: the engine has read that line
    reg                  p_on_c, p_go, p_late;   // q1 against c_*'s line, for the next cycle
    reg [31:0]           p_freed;
    reg [63:0]           n_last, l_last;   // the line's last byte enabled, one-hot
    wire c_take  = c_valid && c_go && !c_late;
    wire stall   = c_valid && !c_go;
    wire w_acc   = w_write && !k_valid;
    assign w_waitrequest = k_valid;
    wire pipe_empty = !k_valid && !b_valid && !n_valid && !l_valid && !m_valid && !c_valid;
    assign flushed = flushing && pipe_empty;

    // the index of a one-hot's bit: bit k is the OR of the bits whose index has bit k (a
    // balanced OR of 32, two LUT levels)
    function automatic [5:0] index_of(input [63:0] onehot);
        reg [63:0] m;
        integer j, k;
        begin
            for (k = 0; k < 6; k = k + 1) begin
                for (j = 0; j < 64; j = j + 1) m[j] = j[k];
                index_of[k] = |(onehot & m);
            end
        end
    endfunction
    // the highest set bit of v, a one-hot (0 when v is 0): the lowest of v reversed
    function automatic [63:0] highest(input [63:0] v);
        reg [63:0] r, low;
        integer j;
        begin
            for (j = 0; j < 64; j = j + 1) r[j] = v[63 - j];
            low = r & (~r + 64'd1);
            for (j = 0; j < 64; j = j + 1) highest[j] = low[63 - j];
        end
    endfunction
    // a line's place below a bound (both line-aligned): the borrow of a subtraction of the
    // line numbers, on the carry chain (a 26-bit compare as LUTs takes 5 levels)
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic below(input [31:0] pos, input [31:0] bound);
        reg [26:0] d;
        begin
            d = {1'b0, pos[31:6]} - {1'b0, bound[31:6]};
            below = d[26];
        end
    endfunction
    function automatic [31:0] max32(input [31:0] x, input [31:0] y);
        reg [32:0] d;
        begin
            d = {1'b0, y} - {1'b0, x};   // borrow: x > y
            max32 = d[32] ? x : y;
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // a read of a bin at or past a view of its freed: the engine reads a bin's lines in order,
    // each once, within the ring's lines from freed on (those put), and every view of freed
    // is at most a few lines behind, so the two are within a few rings of each other and the
    // low bits of their line numbers decide (a subtraction of RB + 3 bits, not 26)
    localparam integer WB = RB + 3;
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic reached(input [31:0] pos, input [31:0] view);
        reg [WB-1:0] d;
        begin
            d = pos[6 +: WB] - view[6 +: WB];
            reached = !d[WB-1];
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // c_*'s line leaves (written, or dropped: a late line ends at or below freed, so at or
    // below filled, and the max with its end changes nothing); the next of its bin sees it
    wire c_leaves = c_valid && c_go;
    // the line's end: its offset up to its last enabled byte (the writer's lines are whole, or
    // a bin's last one from its start). The bytes up to the last enabled one are the index of
    // the one-hot shifted up by one, 64 when byte 63 is enabled: ORs, no adder
    wire [31:0] l_end = l_last[63] ? l_next : {l_pos[31:6], index_of({l_last[62:0], 1'b0})};
    // l_*'s bin's state: per bit a balanced OR over the bins of (its bit AND l_hot's), three
    // LUT levels (a 64-way select by l_bin maps deeper)
    reg [31:0] l_freed, l_lim, l_filled;
    reg [NB-1:0] col_freed, col_lim, col_filled;
    integer i, n;
    always @* begin
        for (i = 0; i < 32; i = i + 1) begin
            for (n = 0; n < NB; n = n + 1) begin
                col_freed[n] = freed[n][i];
                col_lim[n] = lim[n][i];
                col_filled[n] = filled[n][i];
            end
            l_freed[i] = |(col_freed & l_hot);
            l_lim[i] = |(col_lim & l_hot);
            l_filled[i] = |(col_filled & l_hot);
        end
    end
    integer k;
    always @(posedge clk) begin
        // q1 against the line in c_* now; used next cycle if the line is still there (stalled)
        p_on_c <= stall && q1_valid && q1_bin == c_bin && reached(q1_pos, c_freed);
        p_go <= below(c_pos, q1_lim);
        p_late <= below(c_pos, q1_freed);
        p_freed <= q1_freed;
        if (!stall) begin
            // b_* -> n_*: located (its bin, its line in the bin's region)
            n_valid <= b_valid;
            n_bin <= bin_of(b_off);
            n_pos <= line_of(b_off);
            n_next <= line_of(b_off) + 32'd64;
            n_last <= highest(b_be);
            n_be <= b_be;
            n_data <= b_data;
            // n_* -> l_*: the bin one-hot, for the lookup
            l_valid <= n_valid;
            l_bin <= n_bin;
            l_hot <= {{(NB-1){1'b0}}, 1'b1} << n_bin;
            l_pos <= n_pos;
            l_next <= n_next;
            l_last <= n_last;
            l_be <= n_be;
            l_data <= n_data;
            // l_* -> m_*: with the bin's state (filled forwarded from c_*'s line, which leaves
            // in a cycle without a stall)
            m_valid <= l_valid;
            m_bin <= l_bin;
            m_pos <= l_pos;
            m_end <= l_end;
            m_be <= l_be;
            m_data <= l_data;
            m_freed <= l_freed;
            m_lim <= l_lim;
            m_filled <= c_valid && c_bin == l_bin ? c_fill : l_filled;   // c_* leaves now
            // m_* -> c_*: checked
            c_valid <= m_valid;
            c_bin <= m_bin;
            c_pos <= m_pos;
            c_be <= m_be;
            c_data <= m_data;
            c_freed <= m_freed;
            c_go <= below(m_pos, m_lim);
            c_late <= below(m_pos, m_freed);
            c_fill <= c_valid && c_bin == m_bin ? max32(m_end, c_fill) : max32(m_end, m_filled);
            // the port (or the skid) -> b_*
            b_valid <= k_valid || w_acc;
            if (k_valid) begin
                b_off <= k_off; b_data <= k_data; b_be <= k_be;
                k_valid <= 1'b0;
            end else begin
                b_off <= offset_of(w_address); b_data <= w_writedata; b_be <= w_byteenable;
            end
        end else begin
            if (q1_valid && q1_bin == m_bin && reached(q1_pos, m_freed)) begin   // waiting behind c_*
                m_freed <= q1_freed;
                m_lim <= q1_lim;
            end
            if (p_on_c) begin   // waiting for room
                c_freed <= p_freed;
                c_go <= p_go;
                c_late <= p_late;
            end
            if (w_acc) begin
                k_valid <= 1'b1;
                k_off <= offset_of(w_address); k_data <= w_writedata; k_be <= w_byteenable;
            end
        end
        if (rst || start) begin
            k_valid <= 1'b0; b_valid <= 1'b0; n_valid <= 1'b0; l_valid <= 1'b0; m_valid <= 1'b0;
            c_valid <= 1'b0;
        end
        if (c_take)
            for (k = 0; k < 64; k = k + 1)
                if (c_be[k]) ring[{c_bin, c_pos[6 +: RB]}][8*k +: 8] <= c_data[8*k +: 8];
    end

    // ---- the engine's reads: the address registered, then the ring (data two cycles after the
    // read); `freed` follows a cycle after that ------------------------------------------------
    reg          s_read;
    reg [OB-1:0] s_off;
    wire [BIN_BITS-1:0] s_bin = bin_of(s_off);
    wire [31:0]         s_pos = line_of(s_off);
    always @(posedge clk) begin
        s_read <= !rst && r_read;
        s_off <= offset_of(r_address);
        r_readdatavalid <= !rst && s_read;
        if (s_read) r_readdata <= ring[{s_bin, s_pos[6 +: RB]}];
        q_valid <= !rst && s_read;
        q_bin <= s_bin;
        q_pos <= s_pos;
        q_freed <= s_pos + 32'd64;
        q_lim <= s_pos + (32'd64 + RING_BYTES);   // one adder, beside q_freed's
        q1_valid <= !rst && q_valid;
        q1_bin <= q_bin;
        q1_pos <= q_pos;
        q1_freed <= q_freed;
        q1_lim <= q_lim;
    end

    // ---- chunks ready, picked round robin, through registers -----------------------------------
    // The round robin runs in registers that follow their inputs every cycle: ready -> the
    // cards with a chunk -> those from dptr on (else all) -> the first of them (a one-hot);
    // and, for the card picked, its bins with a chunk -> those from rr on -> the first. The
    // decision waits until each chain has caught up (after an issue, dptr, rr and the issued
    // bin's bit have changed): 15 cycles a put, where the engine reads a put of CHUNK_LINES
    // lines in as many cycles, and no path crosses a 64-way selection. A bin's ready bit
    // clears only when this stage issues its chunk (filled only grows, `flushed` stays), so a
    // chain a few cycles behind never shows a bin with nothing to send.
    reg [NB-1:0] ready_now, ready;
    integer b;
    always @* begin
        for (b = 0; b < NB; b = b + 1)
            ready_now[b] = filled[b] >= next_at[b] || (flushed && filled[b] > issued[b]);   // filled >= issued
    end
    // bits at or above `from`
    function automatic [63:0] from_on(input [5:0] from);
        integer j;
        for (j = 0; j < 64; j = j + 1) from_on[j] = j[5:0] >= from;
    endfunction
    // the lowest set bit of v, a one-hot (0 when v is 0): v & -v, on the carry chain
    function automatic [63:0] lowest(input [63:0] v);
        lowest = v & (~v + 64'd1);
    endfunction

    localparam [2:0] S_WAIT = 3'd0, S_DEST = 3'd1, S_BIN = 3'd2, S_GROUP = 3'd3, S_FETCH = 3'd4,
                     S_CALC = 3'd5, S_LEN = 3'd6, S_ISSUE = 3'd7;
    // the picked bin's state is looked up in two steps of 8-way selections (a 64-way one is
    // deeper than a cycle): first, in every group of 8 bins, the one at pick's low bits
    localparam integer LO = BIN_BITS < 3 ? BIN_BITS : 3;
    localparam integer GB = BIN_BITS > 3 ? BIN_BITS - 3 : 1;   // a group's number (1 bit at least)
    localparam integer GR = 1 << (BIN_BITS - LO);              // groups
    reg [31:0] g_filled [0:(1<<GB)-1];
    reg [31:0] g_issued [0:(1<<GB)-1];
    reg [63:0] g_rem [0:(1<<GB)-1];
    reg [5:0]  g_dst [0:(1<<GB)-1];
    reg [GB-1:0] g_pick;         // pick's group
    // group grp's bin at pick's low bits
    function automatic [BIN_BITS-1:0] member(input integer grp);
        integer j;
        for (j = 0; j < BIN_BITS; j = j + 1)
            if (j < LO) member[j] = pick[j]; else member[j] = grp[j - LO];
    endfunction
    // a bin's group
    function automatic [GB-1:0] group_of(input [BIN_BITS-1:0] bin);
        integer j;
        for (j = 0; j < GB; j = j + 1)
            if (j + LO < BIN_BITS) group_of[j] = bin[j + LO]; else group_of[j] = 1'b0;
    endfunction
    integer g;
    localparam [2:0] DEST_CHAIN = 3'd6, BIN_CHAIN = 3'd6;   // cycles until a chain shows its inputs
    reg [2:0]          step, settle;
    reg [63:0]         dst_hot [0:NB-1];     // bin -> its card, one-hot (set with the table)
    reg [63:0]         dready, d_on, d_all, d_on2, d_all2, d_pool, d_first, dhot;   // the cards' chain; the card picked
    reg [63:0]         b_on, b_all, b_on2, b_all2, b_pool, b_first;                 // the bins' chain
    reg                d_any, b_any;         // any set from the pointer on (a 64-input OR, a step of its own)
    reg                d_found, b_found;     // d_first, b_first not zero
    reg [NB-1:0]       of_dest;              // the picked card's bins
    reg [NB-1:0]       bins_to [0:63];       // card -> its bins (dst_hot's columns)
    reg [5:0]          dptr, dpick;
    reg [BIN_BITS-1:0] rr, pick;
    reg [31:0]         f_filled, f_left, f_issued, f_len, f_lines, f_next;   // f_next: f_issued + a chunk
    reg [OB-1:0]       f_off;                // the picked bin's region, from base
    reg [63:0]         f_local, f_remote;
    reg [5:0]          f_dst;
    reg [5:0]          rr6;
    reg [63:0]         bins_ready;
    integer d;
    always @* begin
        for (d = 0; d < 64; d = d + 1)
            for (b = 0; b < NB; b = b + 1)
                bins_to[d][b] = dst_hot[b][d];
        rr6 = 6'd0;
        rr6[BIN_BITS-1:0] = rr;
        bins_ready = 64'd0;
        bins_ready[NB-1:0] = ready & of_dest;
    end
    always @(posedge clk) begin
        ready <= ready_now;
        for (d = 0; d < 64; d = d + 1)   // a balanced OR over the bins (not a chain of ifs)
            dready[d] <= |(ready & bins_to[d]);
        d_on <= dready & from_on(dptr);
        d_all <= dready;
        d_any <= |d_on;
        d_on2 <= d_on;
        d_all2 <= d_all;
        d_pool <= d_any ? d_on2 : d_all2;
        d_first <= lowest(d_pool);
        d_found <= |d_pool;
        for (b = 0; b < NB; b = b + 1) of_dest[b] <= |(dst_hot[b] & dhot);
        b_on <= bins_ready & from_on(rr6);
        b_all <= bins_ready;
        b_any <= |b_on;
        b_on2 <= b_on;
        b_all2 <= b_all;
        b_pool <= b_any ? b_on2 : b_all2;
        b_first <= lowest(b_pool);
        b_found <= |b_pool;
    end
    wire [5:0]  b_index = index_of(b_first);
    wire        unused_ok = &{1'b0, b_index};
    reg         at_issue;                 // step is S_ISSUE (a flag, not a decode of step)
    reg [NB-1:0] pick_hot;                // the bin picked, one-hot (b_first's)
    wire        issue = at_issue && !cmd_valid && !rst && !start;

    // idle, through registers: nothing pending (no ready bit, no command, every put done),
    // registered, and the flush in for two cycles before that, as `ready` shows ready_now a
    // cycle late (a bin's last rest counts as ready only once flushed). A bin picked and not
    // yet issued is still ready, so nothing is pending when no bit is set. Once these hold
    // they hold until the next start (no write comes after the flush, no put without a ready
    // bit), so idle a few cycles late is never a state already left
    reg flushed_q, flushed_q2, nothing_left;
    reg [63:0] cnt_left;              // cards still to get the counts
    always @(posedge clk) begin
        flushed_q <= !rst && !start && flushed;
        flushed_q2 <= !rst && !start && flushed_q;
        nothing_left <= ready == {NB{1'b0}} && !cmd_valid && puts_done == puts && cnt_left == 64'd0;
        idle <= !rst && !start && flushed_q2 && nothing_left;
    end
    // the counts' puts, once every bin's rest is issued (flushed, no ready bit: as for idle, a
    // state that holds until the next start); the next card to get them, through registers
    reg        cnt_go;
    reg [63:0] cnt_hot;
    reg [5:0]  cnt_dst;
    always @(posedge clk) begin
        cnt_go <= !rst && !start && flushed_q2 && ready == {NB{1'b0}} && cnt_left != 64'd0;
        cnt_hot <= lowest(cnt_left);
        cnt_dst <= index_of(cnt_hot);
    end

    // ---- the pass's cycle counters -------------------------------------------------------------
    reg        counting;                 // from start until idle
    reg        gap;                      // the engine read none while lines put wait (a cycle ago)
    reg [31:0] put_lines, read_lines;    // lines handed to the engine, and read back by it
    function automatic [31:0] inc(input [31:0] c);  // saturating
        inc = &c ? c : c + 32'd1;
    endfunction
    always @(posedge clk) begin
        if (rst || start) begin
            counting <= !rst;
            pass_cycles <= 32'd0; writer_waits <= 32'd0; engine_reads <= 32'd0; engine_gaps <= 32'd0;
            put_lines <= 32'd0; read_lines <= 32'd0;
        end else begin
            if (idle) counting <= 1'b0;
            if (counting && !idle) pass_cycles <= inc(pass_cycles);
            if (w_write && w_waitrequest) writer_waits <= inc(writer_waits);
            if (r_read) engine_reads <= inc(engine_reads);
            if (gap) engine_gaps <= inc(engine_gaps);
            if (issue) put_lines <= put_lines + f_lines;
            if (r_read) read_lines <= read_lines + 32'd1;
        end
        gap <= !rst && !start && !r_read && put_lines != read_lines;
    end

    always @(posedge clk) begin
        if (tbl_we) begin
            dst_of[tbl_bin] <= tbl_dst;
            dst_hot[tbl_bin] <= 64'd1 << tbl_dst;
            rem_of[tbl_bin] <= tbl_remote;
        end
        if (rst || start) begin
            for (b = 0; b < NB; b = b + 1) begin
                filled[b] <= 32'd0;
                issued[b] <= 32'd0;
                next_at[b] <= CHUNK_BYTES;
                freed[b] <= 32'd0;
                lim[b] <= RING_BYTES;
            end
            flushing <= 1'b0;
            cmd_valid <= 1'b0;
            step <= S_WAIT;
            at_issue <= 1'b0;
            settle <= DEST_CHAIN - 3'd1;
            rr <= {BIN_BITS{1'b0}};
            dptr <= card_id + 6'd1;
            cnt_left <= cnt_dests;
            puts <= 32'd0;
            puts_done <= 32'd0;
            err_code <= 8'd0;
            dropped <= 32'd0;
        end else begin
            if (flush) flushing <= 1'b1;
            if (c_leaves) filled[c_bin] <= c_fill;
            if (c_valid && c_late) dropped <= dropped + 32'd1;
            // every bin compares the read with its own freed (no lookup by the read's bin)
            for (b = 0; b < NB; b = b + 1)
                if (q_valid && q_bin == b[BIN_BITS-1:0] && reached(q_pos, freed[b])) begin
                    freed[b] <= q_freed;
                    lim[b] <= q_lim;
                end
            if (cmd_valid && cmd_ready) cmd_valid <= 1'b0;
            case (step)
                S_WAIT:  if (settle != 3'd0) settle <= settle - 3'd1; else step <= S_DEST;
                S_DEST:  if (d_found) begin
                    dhot <= d_first;
                    dpick <= index_of(d_first);
                    settle <= BIN_CHAIN - 3'd1;
                    step <= S_BIN;
                end else if (cnt_go) begin   // a count put, issued as a bin's (no bin's state moves)
                    f_local <= cnt_local;
                    f_remote <= cnt_remote;
                    f_issued <= 32'd0;
                    f_len <= cnt_len;
                    f_lines <= 32'd0;
                    f_dst <= cnt_dst;
                    pick_hot <= {NB{1'b0}};
                    cnt_left <= cnt_left & ~cnt_hot;
                    step <= S_ISSUE;
                    at_issue <= 1'b1;
                end
                S_BIN:   if (settle != 3'd0) settle <= settle - 3'd1;
                         else if (b_found) begin
                             pick <= b_index[BIN_BITS-1:0];
                             pick_hot <= b_first[NB-1:0];
                             step <= S_GROUP;
                         end
                         else step <= S_DEST;   // not reached: the card's bin stays ready
                S_GROUP: begin   // the picked bin's state: its group's candidates
                    for (g = 0; g < GR; g = g + 1) begin
                        g_filled[g] <= filled[member(g)];
                        g_issued[g] <= issued[member(g)];
                        g_rem[g] <= rem_of[member(g)];
                        g_dst[g] <= dst_of[member(g)];
                    end
                    g_pick <= group_of(pick);
                    step <= S_FETCH;
                end
                S_FETCH: begin   // ... and the group's
                    f_filled <= g_filled[g_pick];
                    f_issued <= g_issued[g_pick];
                    f_off <= {{(OB-BIN_BITS){1'b0}}, pick} << cap_shift;
                    f_remote <= g_rem[g_pick];
                    f_dst <= g_dst[g_pick];
                    step <= S_CALC;
                end
                S_CALC: begin    // ... and the put's length and local address from it
                    f_left <= f_filled - f_issued;
                    f_next <= f_issued + CHUNK_BYTES;
                    f_local <= base + {{(64-OB){1'b0}}, f_off};
                    step <= S_LEN;
                end
                S_LEN: begin     // ... the put's bytes, at most a chunk, and its lines
                    f_len <= f_left >= CHUNK_BYTES ? CHUNK_BYTES : f_left;
                    f_lines <= f_left >= CHUNK_BYTES ? CHUNK_LINES : (f_left + 32'd63) >> 6;
                    step <= S_ISSUE;
                    at_issue <= 1'b1;
                end
                default: if (issue) begin
                    cmd_valid <= 1'b1;
                    cmd_dst <= f_dst;
                    cmd_local <= f_local + {32'd0, f_issued};
                    cmd_remote <= f_remote + {32'd0, f_issued};
                    cmd_len <= {32'd0, f_len};
                    for (b = 0; b < NB; b = b + 1)
                        if (pick_hot[b]) begin
                            issued[b] <= f_issued + f_len;
                            next_at[b] <= f_next + f_len;
                        end
                    at_issue <= 1'b0;
                    rr <= pick + 1'b1;
                    dptr <= dpick + 6'd1;
                    puts <= puts + 32'd1;
                    settle <= DEST_CHAIN - 3'd1;
                    step <= S_WAIT;
                end
            endcase
            if (done) begin
                puts_done <= puts_done + 32'd1;
                if (done_code != 8'd0 && err_code == 8'd0) err_code <= done_code;
            end
        end
    end
endmodule
`default_nettype wire
