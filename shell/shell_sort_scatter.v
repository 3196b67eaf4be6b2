// The sort's scatter writer (SORT_* registers, docs/sort.md "The scatter writer"): a stage
// on the RX engine's write master, behind the cascade's output. Enabled (CFG.ENABLE), it
// takes a whole 64-byte beat of the RX stream a cycle, 16 32-bit keys (with CFG.PAIRS 8
// key-payload pairs), instead of letting the engine write them at its destination:
//   - it counts the keys per bin, ((key - COUNT_LO) >> COUNT_SHIFT) & (2^BITS - 1), and
//     keeps the smallest and largest key;
//   - with CFG.SCATTER it writes each key to DST + 4 * (start[bin] + keys of the bin so
//     far), bin = ((key - BIN_LO) >> BIN_SHIFT) & (2^BITS - 1), where start[] are the prefix
//     sums of the counts of the previous pass (computed on START). That is one stable
//     counting pass, and a key's bin in the next pass is counted while it passes: a
//     histogram pass is fused into every scatter pass;
//   - with CFG.DUMP it writes the range and the 2^BITS counts to HIST at the end;
//   - with CFG.PAIRS the stream's elements are (key, payload) word pairs, written as pairs
//     (8 bytes) at DST + 8 * place: the payload follows its key;
//   - with CFG.U64 the elements are little-endian uint64 keys, 8 a beat, laid out and
//     written as pairs are (the high word in the payload's place), but the bins and the
//     range are over all 64 bits (BIN_LO and COUNT_LO take their high words from BINS_HI):
//     the 32-bit keys' datapath, widened, is what a 32-bit pass runs on its zero-extended keys;
//   - with CFG.U64 and CFG.PAIRS the elements are 16 bytes, 4 a beat: a uint64 key, its
//     uint32 payload and a fourth word carried along (the key's bins and range as with U64),
//     written at DST + 16 * place: the same 64 bytes a cycle with the payload moved by the
//     pass itself, not by a second permutation;
//   - with CFG.DEST the counted bin is (destination << COUNT_BITS) | digit, the destination
//     being the number of DESTS bytes below the key's scatter bin: the grouping pass by
//     destination counts every destination's first local digit, so the destinations need
//     no count pass of their own;
//   - with CFG.LOAD the stream's words are counts, word w added to bin w mod 2^COUNT_BITS: a
//     destination sums its sources' counts into its counters, for the next pass's starts.
//
// Built to fit the card: no table is read or written by more than one port a cycle.
//   - Counting: word position p of the beat counts its keys in its own table (16 tables of
//     2^MAX_BITS counters, each 16 memories of one field, bin mod 16, one read-modify-write
//     a cycle). A bin's count is the sum over the 16 tables, taken 16 bins a cycle where
//     the prefix sums (START) and the dump need it.
//   - Scattering: bin b belongs to lane b mod LANES (shell_sort_lane.v), which alone holds its
//     next place and its line buffer (OPTWEB's per-bin write buffers) and takes one bin's keys
//     of a beat a cycle. The beat is reordered first so that each bin's keys are consecutive
//     elements in stream order (a segment) and handed to the lanes that own a segment of it;
//     with LANES = 32 a lane gets about half a segment a cycle from random keys, one from
//     sorted keys (a run of one bin in a beat is one segment), so most beats take one cycle.
//     A bin's keys land at consecutive places in stream order: the pass is stable. Lines
//     leave the lanes round-robin into one write queue, a line a cycle; partial lines (a
//     bin's first and last) go at the end of the pass.
// Pipelined for the card's clock (docs/sort.md "The writer's clock"): a beat goes through
// stage A (is it the last, as it arrives), S1 (the elements taken, bins), S2 (destinations,
// the bins compared), SL (segment leaders), S3 (counted bins, the leaders compared), SP
// (places in the reordered beat and segment lengths counted), S4 (the reorder's one-hots;
// the counts' table reads), S5 (the reorder), a skid register, and R (to the lanes), the
// range as a tree of one compare a stage beside them; the prefix sums and the dump add the
// tables over four more
// stages, the lanes have three, and a line waits in a register before the write queue.
// The final beat of the pass is taken from the RX engine only once every write is in
// memory, so the engine's completion (the host's DMA completion) means the pass is done.
// Disabled, it is a wire between the RX engine and memory.
`default_nettype none

module shell_sort_scatter #(
    parameter integer FIFO_DEPTH = 64,  // lines waiting for the memory (a power of 2, >= 8)
    parameter integer MAX_BITS   = 11,  // widest bin: 2^MAX_BITS counters, places, line buffers
    parameter integer LANES      = 32,  // scatter lanes (a power of 2, 16..2^(MAX_BITS-2))
    parameter integer LANE_DEPTH = 8    // beats waiting in a lane (a power of 2, >= 2)
) (
    `include "mmio_ports.vh"
    output reg  [63:0]  mmio_rd_resp_data,
    // the RX engine's write master
    input  wire [63:0]  s_address,
    input  wire         s_write,
    input  wire [7:0]   s_burstcount,
    input  wire [511:0] s_writedata,
    input  wire [63:0]  s_byteenable,
    output wire         s_waitrequest,
    // to memory
    output wire [63:0]  m_address,
    output wire         m_write,
    output wire [7:0]   m_burstcount,
    output wire [511:0] m_writedata,
    output wire [63:0]  m_byteenable,
    input  wire         m_waitrequest
);
    `include "afushell_csr.vh"

    localparam integer WORDS     = 16;                  // 32-bit words of a beat
    localparam integer NB        = 1 << MAX_BITS;       // bins
    localparam integer GROUPS    = NB / WORDS;          // 16-bin groups: words of a count table
    localparam integer GW        = MAX_BITS - 4;        // group index bits
    localparam integer IW        = MAX_BITS - 2;        // dump line index: 0..GROUPS
    localparam integer LW        = $clog2(LANES);       // a bin's lane: its low LW bits
    localparam integer LB        = MAX_BITS - LW;       // a bin's index in its lane
    localparam integer LINE_BITS = 58 + 512 + 16;       // line address, words, word mask

    initial begin
        if (MAX_BITS < 8 || MAX_BITS > 12) begin
            $display("shell_sort_scatter: MAX_BITS=%0d must be 8..12", MAX_BITS);
            $finish;
        end
        if (FIFO_DEPTH < 8 || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin
            $display("shell_sort_scatter: FIFO_DEPTH=%0d must be a power of 2, at least 8", FIFO_DEPTH);
            $finish;
        end
    end

    localparam [2:0] S_IDLE = 3'd0, S_PREP = 3'd1, S_STREAM = 3'd2, S_LANES = 3'd3, S_FLUSH = 3'd4,
                     S_DUMP = 3'd5, S_DRAIN = 3'd6, S_ACK = 3'd7;

    // ---- registers -------------------------------------------------------------------
    wire [17:0] wa = {mmio_wr_addr[17:3], 3'b000};
    wire [17:0] ra = {mmio_rd_addr[17:3], 3'b000};
    wire [63:0] wd = mmio_wr_data;
    wire        wr = mmio_wr_valid;

    reg        en_reg, scatter_reg, dump_reg, pairs_reg, dest_reg, load_reg, u64_reg;
    reg [63:0] bin_lo_reg, count_lo_reg;   // high words used with U64 only
    reg [31:0] n_reg;
    reg [6:0]  bin_sh_reg;    // the key's width or more: every key in bin 0 (a copy)
    reg [6:0]  count_sh_reg;
    reg [3:0]  bits_reg;      // as written; bits_eff is what the writer uses
    reg [3:0]  cbits_reg;     // the counted bins' width as written; 0: bits_eff
    reg [63:0] dests_reg;     // byte j: the last scatter bin of destination j
    reg [63:0] dst_reg, hist_reg;

    reg [2:0]  state_reg;
    reg        done_reg, overrun_reg, hold_reg;
    reg [31:0] keys_reg, full_reg, partial_reg, acc_reg;
    reg [63:0] min_reg, max_reg;   // 32-bit keys: zero-extended
    reg [63:0] cycles_reg;
    reg [IW-1:0] idx_reg;     // group (prepare) or dump line

    // what the configuration implies, registered (it holds still while a pass runs, and the
    // writes that set it come long before START)
    wire [3:0] bits_eff = bits_reg == 4'd0 ? 4'd8 : bits_reg > MAX_BITS[3:0] ? MAX_BITS[3:0] : bits_reg;
    wire [3:0] cbits_now = cbits_reg == 4'd0 ? bits_eff : cbits_reg > MAX_BITS[3:0] ? MAX_BITS[3:0] : cbits_reg;
    // dump lines after the range line: 2^bits / 16 (every bin by destination: all), at least one
    wire [3:0] dbits = dest_reg ? MAX_BITS[3:0] : cbits_now;
    reg  [3:0] cbits_eff;
    reg  [MAX_BITS-1:0] bin_mask, cnt_mask;
    reg  [IW-1:0] dump_last;
    always @(posedge clk) begin
        cbits_eff <= cbits_now;
        bin_mask  <= ~({MAX_BITS{1'b1}} << bits_eff);
        cnt_mask  <= ~({MAX_BITS{1'b1}} << cbits_now);
        dump_last <= dbits <= 4'd4 ? {{(IW-1){1'b0}}, 1'b1} : ({{(IW-1){1'b0}}, 1'b1} << (dbits - 4'd4));
    end

    wire busy  = state_reg != S_IDLE;
    wire start = wr && wa == CSR_SORT_CTRL_ADDR && wd[CSR_SORT_CTRL_START_LSB] && !busy;

    // ones in 4 bits: a function of 4 inputs, one LUT a bit
    function [2:0] ones4(input [3:0] v);
        begin
            case (v)
            4'b0000: ones4 = 3'd0;
            4'b0001, 4'b0010, 4'b0100, 4'b1000: ones4 = 3'd1;
            4'b0111, 4'b1011, 4'b1101, 4'b1110: ones4 = 3'd3;
            4'b1111: ones4 = 3'd4;
            default: ones4 = 3'd2;
            endcase
        end
    endfunction
    // ones in a 16-bit vector: four counts of 4 bits (a LUT level), two sums of two of them
    // (6 inputs a bit: a level), their sum (3 LUT levels in all; a tree of 2-bit sums was 5)
    function [4:0] ones16(input [15:0] v);
        reg [3:0] c0, c1;
        begin
            c0 = {1'b0, ones4(v[3:0])} + {1'b0, ones4(v[7:4])};
            c1 = {1'b0, ones4(v[11:8])} + {1'b0, ones4(v[15:12])};
            ones16 = {1'b0, c0} + {1'b0, c1};
        end
    endfunction
    // a < b, as the borrow of a - b: the mapper makes a carry chain of a subtraction, and a
    // tree of LUTs of a comparison written with < (8 levels for 64 bits; docs/fit.md)
    function lt64(input [63:0] a, input [63:0] b);
        /* verilator lint_off UNUSEDSIGNAL */
        reg [64:0] d;                    // only the borrow is used
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            d = {1'b0, a} - {1'b0, b};
            lt64 = d[64];
        end
    endfunction

    // each element of a beat: the beat's elements before it
    function [63:0] before16(input [15:0] v);
        /* verilator lint_off UNUSEDSIGNAL */
        reg [4:0] n;             // at most 15 here
        /* verilator lint_on UNUSEDSIGNAL */
        integer q;
        begin
            for (q = 0; q < 16; q = q + 1) begin
                n = ones16(v & ~(16'hffff << q));
                before16[4*q +: 4] = n[3:0];
            end
        end
    endfunction

    // ---- stage A: the beat at the port; is it the pass's last --------------------------
    // The last beat is held (not acknowledged until the pass is in memory), so it must be
    // known as the last before it is taken, and every decision here starts from a register.
    // While more than 64 keys were to come last cycle (far_reg), a beat is taken at once: it
    // cannot be the last, as the beats still being counted (c_*, q_*, two at most) hold at
    // most 32 keys. Near the end a beat is looked at for two cycles first: its elements
    // registered (sl_s), then counted (sl_c), then taken, held if they reach the keys to
    // come. That costs two cycles a beat for the last 64 keys or so of a pass.
    wire       wide = pairs_reg || u64_reg;              // 8-byte elements (or 16)
    wire       quad = pairs_reg && u64_reg;              // 16-byte elements
    wire [1:0] ewords = quad ? 2'd2 : wide ? 2'd1 : 2'd0; // log2 of an element's words
    reg  [31:0] left_reg;                 // keys to come, less those of beats being counted
    reg         far_reg;
    reg  [WORDS-1:0] has;
    integer i, j, k;
    always @* begin
        for (i = 0; i < WORDS; i = i + 1)
            has[i] = s_byteenable[4*i] && (!wide || i[0] == 1'b0) && (!quad || i[1] == 1'b0);
    end
    reg              c_v, q_v;            // beats taken at once: elements, then their count
    reg  [WORDS-1:0] c_has;
    reg  [4:0]       q_n;
    reg              sl_s, sl_c;          // near the end: the beat sampled, counted
    reg  [WORDS-1:0] sl_has;
    reg  [4:0]       sl_n;
    reg  [4*WORDS-1:0] sl_ph;
    wire last_beat = sl_c && {2'd0, sl_n} >= left_reg[6:0];   // then the pass takes left_reg
    // each key less the bins' and the counts' lowest key, for S1 to shift into bins
    reg  [31:0] key, pay;
    reg  [63:0] k64 [0:WORDS-1];          // the key as the bins and the range see it
    reg  [64*WORDS-1:0] sdiff, cdiff;
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            key = s_writedata[32*i +: 32];
            pay = s_writedata[32*(i | 1) +: 32];
            k64[i] = {u64_reg ? pay : 32'd0, key};
            sdiff[64*i +: 64] = u64_reg ? k64[i] - bin_lo_reg : {32'd0, key - bin_lo_reg[31:0]};
            cdiff[64*i +: 64] = u64_reg ? k64[i] - count_lo_reg : {32'd0, key - count_lo_reg[31:0]};
        end
    end

    // ---- the beat's pipeline ---------------------------------------------------------------
    // S1 the elements taken and the bins, S2 destinations and every pair of elements' bins
    // compared, SL each element's segment leader encoded from those comparisons, S3 the
    // counted bins and every pair of leaders compared, SP those comparisons counted into each
    // element's place in the reordered beat and the segments' lengths, S4 the places decoded
    // into one-hots (and the counting's table reads), S5 the reorder by those one-hots, R the
    // beat handed to the lanes. Comparing and then counting, encoding or selecting in the
    // next stage keeps each stage a few LUTs deep. The range is a tree of one compare (a
    // subtraction's borrow) a stage from S2 to S3, carried to R, then folded into
    // min_reg/max_reg. A stage moves on when the next is free or moving; bubbles close up.
    // Between S5 and R a skid register takes the beat that R cannot: S5 moves on while the
    // skid is empty, so no stage before R waits on the lanes' readiness in the same cycle.
    reg  v1, v2, vl, v3, vp, v4, v5, vr, sk_v;
    wire r_push;
    wire rdy_r = !vr || r_push;
    wire rdy5  = !v5 || !sk_v;
    wire s5_go = v5 && !sk_v;            // the beat leaves S5: to R, or to the skid
    wire rdy4  = !v4 || rdy5;
    wire rdyp  = !vp || rdy4;
    wire rdy3  = !v3 || rdyp;
    wire rdyl  = !vl || rdy3;
    wire rdy2  = !v2 || rdyl;
    wire rdy1  = !v1 || rdy2;
    wire step  = state_reg == S_STREAM && s_write && rdy1 && (far_reg || sl_c);
    wire sample = state_reg == S_STREAM && s_write && !far_reg && !sl_s && !c_v && !q_v;
    wire accept = (step && !last_beat)
               || (state_reg == S_ACK && s_write)
               || (state_reg == S_IDLE && s_write);     // no pass: dropped (OVERRUN)

    // S1: the beat as taken
    reg [511:0]       s1_words;
    reg [WORDS-1:0]   s1_has;
    reg [4*WORDS-1:0] s1_ph;              // element i: the beat's elements before it, unless s1_far
    reg               s1_far;
    reg [6:0]         s1_left;            // keys to come before the beat, exact unless s1_far
    reg [64*WORDS-1:0] s1_sdiff, s1_cdiff;
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [63:0] sshift, cshift;           // bins are the low MAX_BITS bits
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [MAX_BITS-1:0] sbin1 [0:WORDS-1];
    reg  [MAX_BITS-1:0] cpl1  [0:WORDS-1]; // the counted bin, plain
    reg  [WORDS-1:0] take;
    wire [4*WORDS-1:0] ph1 = before16(s1_has);   // for LOAD's word indices (S2)
    wire [4:0]         hc1 = ones16(s1_has);
    always @* begin
        for (i = 0; i < WORDS; i = i + 1)
            take[i] = s1_has[i] && (s1_far || {3'd0, s1_ph[4*i +: 4]} < s1_left);
        for (i = 0; i < WORDS; i = i + 1) begin
            sshift = s1_sdiff[64*i +: 64] >> bin_sh_reg;
            cshift = s1_cdiff[64*i +: 64] >> count_sh_reg;
            sbin1[i] = sshift[MAX_BITS-1:0] & bin_mask;
            cpl1[i]  = cshift[MAX_BITS-1:0] & cnt_mask;
        end
    end
    wire extra1 = (s1_has & ~take) != {WORDS{1'b0}};   // words past N in this beat

    // S2: destinations compared; each pair of elements' bins compared (for the leaders)
    reg [511:0]         s2_words;
    reg [WORDS-1:0]     s2_take;
    reg [MAX_BITS-1:0]  s2_sbin [0:WORDS-1];
    reg [MAX_BITS-1:0]  s2_cpl  [0:WORDS-1];
    reg [4*WORDS-1:0]   s2_ph;
    reg [4:0]           s2_hc;
    reg [MAX_BITS-1:0]  base2;            // keys before the beat in S2, low bits (LOAD: word index)
    reg [MAX_BITS-1:0]  lbin2 [0:WORDS-1]; // LOAD: the word's index, low bits
    reg [7:0]  gt   [0:WORDS-1];          // DEST: the key's scatter bin past destination j's last
    reg [WORDS-1:0] same [0:WORDS-1];     // same[i][j]: element j is i, or before i in its bin
    reg [63:0] mn_a, mn_b, mx_a, mx_b;
    reg [63:0] mn8 [0:7];                // the range: 16 taken keys to 8
    reg [63:0] mx8 [0:7];
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            lbin2[i] = (base2 + {{(MAX_BITS-4){1'b0}}, s2_ph[4*i +: 4]}) & cnt_mask;
            for (j = 0; j < 8; j = j + 1)
                gt[i][j] = {{(32-MAX_BITS){1'b0}}, s2_sbin[i]} > {24'd0, dests_reg[8*j +: 8]};
            for (j = 0; j < WORDS; j = j + 1)
                same[i][j] = (j < i && s2_take[j] && s2_sbin[j] == s2_sbin[i]) || j == i;
        end
        for (i = 0; i < 8; i = i + 1) begin
            mn_a = s2_take[2*i] ? {u64_reg ? s2_words[64*i+32 +: 32] : 32'd0, s2_words[64*i +: 32]} : {64{1'b1}};
            mn_b = s2_take[2*i+1] ? {32'd0, s2_words[64*i+32 +: 32]} : {64{1'b1}};  // odd words: 32-bit keys only
            mx_a = s2_take[2*i] ? {u64_reg ? s2_words[64*i+32 +: 32] : 32'd0, s2_words[64*i +: 32]} : 64'd0;
            mx_b = s2_take[2*i+1] ? {32'd0, s2_words[64*i+32 +: 32]} : 64'd0;
            mn8[i] = lt64(mn_b, mn_a) ? mn_b : mn_a;
            mx8[i] = lt64(mx_a, mx_b) ? mx_b : mx_a;
        end
    end

    // SL: segment leaders (an element's bin's first element in the beat), encoded
    reg [511:0]         l_words;
    reg [WORDS-1:0]     l_take;
    reg [MAX_BITS-1:0]  l_sbin [0:WORDS-1];
    reg [MAX_BITS-1:0]  l_cpl  [0:WORDS-1];
    reg [MAX_BITS-1:0]  l_lbin [0:WORDS-1];
    reg [7:0]           l_gt   [0:WORDS-1];
    reg [WORDS-1:0]     l_same [0:WORDS-1];
    reg [63:0]          l_mn8 [0:7];
    reg [63:0]          l_mx8 [0:7];
    reg [WORDS-1:0]     lone  [0:WORDS-1]; // the element's segment leader, one-hot (v & -v)
    reg [WORDS-1:0]     below [0:WORDS-1]; // the places before that leader
    /* verilator lint_off UNUSEDSIGNAL */
    reg [4:0]           ones_d;           // at most 8
    /* verilator lint_on UNUSEDSIGNAL */
    reg [3:0]           nd [0:WORDS-1];   // DEST: destinations whose last bin is below the key's
    reg [63:0]          mn4 [0:3];       // the range: 8 to 4
    reg [63:0]          mx4 [0:3];
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            lone[i] = l_same[i] & (~l_same[i] + 1'b1);    // l_same[i][i] is set: never empty
            below[i] = ~l_same[i] & (l_same[i] - 1'b1);
            ones_d = ones16({8'd0, l_gt[i]});
            nd[i] = ones_d[3:0];
        end
        for (i = 0; i < 4; i = i + 1) begin
            mn4[i] = lt64(l_mn8[2*i+1], l_mn8[2*i]) ? l_mn8[2*i+1] : l_mn8[2*i];
            mx4[i] = lt64(l_mx8[2*i], l_mx8[2*i+1]) ? l_mx8[2*i+1] : l_mx8[2*i];
        end
    end

    // S3: the counted bins; each pair of elements' leaders compared, for each element's place
    // in the reordered beat (the segments in the order of their leaders, each in stream
    // order) and each leader's segment length
    reg [511:0]         b_words;
    reg [WORDS-1:0]     b_take;
    reg [MAX_BITS-1:0]  b_sbin [0:WORDS-1];
    reg [MAX_BITS-1:0]  b_cpl  [0:WORDS-1];
    reg [MAX_BITS-1:0]  b_lbin [0:WORDS-1];
    reg [3:0]           b_nd   [0:WORDS-1];
    reg [WORDS-1:0]     b_lone  [0:WORDS-1];
    reg [WORDS-1:0]     b_below [0:WORDS-1];
    reg [63:0]          b_mn4 [0:3];
    reg [63:0]          b_mx4 [0:3];
    reg [63:0]          mn2 [0:1];       // the range: 4 to 2
    reg [63:0]          mx2 [0:1];
    reg [MAX_BITS-1:0]  cbin [0:WORDS-1];
    reg [WORDS-1:0]     ahead [0:WORDS-1];   // ahead[i][j]: element j goes before element i
    reg [WORDS-1:0]     led   [0:WORDS-1];   // led[i][j]: element j's leader is element i
    /* verilator lint_off UNUSEDSIGNAL */
    reg [MAX_BITS+3:0]  dbin;             // destination << COUNT_BITS, kept to MAX_BITS bits
    /* verilator lint_on UNUSEDSIGNAL */
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            dbin = {b_nd[i], {MAX_BITS{1'b0}}} >> (MAX_BITS[3:0] - cbits_eff);
            cbin[i] = b_cpl[i];
            if (dest_reg) cbin[i] = dbin[MAX_BITS-1:0] | b_cpl[i];
            if (load_reg) cbin[i] = b_lbin[i];    // COUNT_BITS >= 4: the beat's 16 words in 16 bins
            for (j = 0; j < WORDS; j = j + 1) begin
                // j's leader before i's, or the same leader and j before i: one-hots ANDed
                ahead[i][j] = b_take[j] && ((b_lone[j] & b_below[i]) != {WORDS{1'b0}}
                              || ((b_lone[j] & b_lone[i]) != {WORDS{1'b0}} && j < i));
                led[i][j] = b_take[j] && b_lone[j][i];
            end
        end
        for (i = 0; i < 2; i = i + 1) begin
            mn2[i] = lt64(b_mn4[2*i+1], b_mn4[2*i]) ? b_mn4[2*i+1] : b_mn4[2*i];
            mx2[i] = lt64(b_mx4[2*i], b_mx4[2*i+1]) ? b_mx4[2*i+1] : b_mx4[2*i];
        end
    end

    // SP: the comparisons counted: places and segment lengths
    reg [511:0]         p_words;
    reg [WORDS-1:0]     p_take, p_lead0;  // p_lead0: the element leads its segment
    reg [MAX_BITS-1:0]  p_sbin [0:WORDS-1];
    reg [MAX_BITS-1:0]  p_cbin [0:WORDS-1];
    reg [WORDS-1:0]     p_ahead [0:WORDS-1];
    reg [WORDS-1:0]     p_led   [0:WORDS-1];
    reg [63:0]          p_mn2 [0:1];
    reg [63:0]          p_mx2 [0:1];
    reg [3:0]           dpos [0:WORDS-1];
    reg [4:0]           slen [0:WORDS-1];    // a leader's segment: its elements
    /* verilator lint_off UNUSEDSIGNAL */
    reg [4:0]           ones_b;           // at most 15
    /* verilator lint_on UNUSEDSIGNAL */
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            ones_b = ones16(p_ahead[i]);
            dpos[i] = ones_b[3:0];
            slen[i] = ones16(p_led[i]);
        end
    end

    // S4: the reorder's selects decoded (one-hots), and the counts' table reads
    reg [511:0]         d_words;
    reg [WORDS-1:0]     d_take, d_lead0;  // d_lead0: the element leads its segment
    reg [MAX_BITS-1:0]  d_sbin [0:WORDS-1];
    reg [MAX_BITS-1:0]  d_cbin [0:WORDS-1];
    reg [3:0]           d_dpos [0:WORDS-1];
    reg [4:0]           d_slen [0:WORDS-1];
    reg [63:0]          d_mn2 [0:1];     // the range, carried
    reg [63:0]          d_mx2 [0:1];
    reg [WORDS-1:0]     esel [0:WORDS-1]; // esel[j][i]: element j goes to place i
    reg [WORDS-1:0]     wsel [0:WORDS-1]; // wsel[s][i]: word s goes to word i
    reg [LANES-1:0]     lsel [0:WORDS-1]; // lsel[j][k]: element j leads a segment of lane k's
    reg [3:0] wmask, welem;
    always @* begin
        wmask = ~(4'hf << ewords);       // an element's words
        for (j = 0; j < WORDS; j = j + 1) begin
            for (i = 0; i < WORDS; i = i + 1)
                esel[j][i] = d_take[j] && d_dpos[j] == i[3:0];
            for (i = 0; i < LANES; i = i + 1)
                lsel[j][i] = scatter_reg && d_take[j] && d_lead0[j] && d_sbin[j][LW-1:0] == i[LW-1:0];
            welem = j[3:0] & ~wmask;      // the element word j belongs to
            for (i = 0; i < WORDS; i = i + 1)
                wsel[j][i] = d_take[welem] && d_dpos[welem] == (i[3:0] >> ewords)
                             && ((j[3:0] ^ i[3:0]) & wmask) == 4'd0;
        end
    end

    // S5: the reorder (AND-ORs of the one-hots) and the lanes that own its segments
    reg [511:0]         e_words;
    reg [WORDS-1:0]     e_lead0;
    reg [MAX_BITS-1:0]  e_sbin [0:WORDS-1];
    reg [4:0]           e_slen [0:WORDS-1];
    reg [WORDS-1:0]     e_esel [0:WORDS-1];
    reg [WORDS-1:0]     e_wsel [0:WORDS-1];
    reg [LANES-1:0]     e_lsel [0:WORDS-1];
    reg [63:0]          e_mn2 [0:1];
    reg [63:0]          e_mx2 [0:1];
    reg [511:0] r_words;                 // the reordered beat
    reg [5*WORDS-1:0] r_lens;            // each segment's elements, at its first
    reg [MAX_BITS-1:0] r_bin [0:WORDS-1];
    always @* begin
        r_words = 512'd0;
        r_lens = {5*WORDS{1'b0}};
        for (i = 0; i < WORDS; i = i + 1) r_bin[i] = {MAX_BITS{1'b0}};
        for (j = 0; j < WORDS; j = j + 1) begin
            for (i = 0; i < WORDS; i = i + 1) begin
                r_words[32*i +: 32] = r_words[32*i +: 32] | ({32{e_wsel[j][i]}} & e_words[32*j +: 32]);
                r_bin[i] = r_bin[i] | ({MAX_BITS{e_esel[j][i]}} & e_sbin[j]);
                r_lens[5*i +: 5] = r_lens[5*i +: 5] | ({5{e_esel[j][i] && e_lead0[j]}} & e_slen[j]);
            end
        end
    end
    wire [LANES-1:0] lane_in_ready, lane_busy, lane_out_valid, lane_out_two;
    reg  [LANES-1:0] lane_out_ready;
    wire [LANES*LINE_BITS-1:0] lane_line;
    reg  [WORDS-1:0] mine [0:LANES-1];   // mine[k][i]: place i starts a segment of lane k's
    reg  [LANES-1:0] need;
    reg  [16*LB-1:0] r_locals;
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) r_locals[LB*i +: LB] = r_bin[i][MAX_BITS-1:LW];
        for (k = 0; k < LANES; k = k + 1) begin
            need[k] = 1'b0;
            for (i = 0; i < WORDS; i = i + 1) mine[k][i] = 1'b0;
            for (j = 0; j < WORDS; j = j + 1) begin
                need[k] = need[k] | e_lsel[j][k];
                for (i = 0; i < WORDS; i = i + 1)
                    mine[k][i] = mine[k][i] | (e_lsel[j][k] && e_esel[j][i]);
            end
        end
    end

    // R: the beat the lanes take, once every lane that owns one of its segments has room
    reg [511:0]      q_r_words;
    reg [16*LB-1:0]  q_r_locals;
    reg [5*WORDS-1:0] q_r_lens;
    reg [63:0]       q_r_mn2 [0:1];
    reg [63:0]       q_r_mx2 [0:1];
    reg              rf_v;               // the beat's range, to be folded into min/max
    reg [63:0]       rf_mn, rf_mx;
    wire [63:0]      mn1 = lt64(q_r_mn2[1], q_r_mn2[0]) ? q_r_mn2[1] : q_r_mn2[0];
    wire [63:0]      mx1 = lt64(q_r_mx2[0], q_r_mx2[1]) ? q_r_mx2[1] : q_r_mx2[0];
    reg [WORDS-1:0]  q_r_mine [0:LANES-1];
    reg [LANES-1:0]  q_r_need;
    // the skid: what S4 handed on while R was full
    reg [511:0]      sk_words;
    reg [16*LB-1:0]  sk_locals;
    reg [5*WORDS-1:0] sk_lens;
    reg [63:0]       sk_mn2 [0:1];
    reg [63:0]       sk_mx2 [0:1];
    reg [WORDS-1:0]  sk_mine [0:LANES-1];
    reg [LANES-1:0]  sk_need;
    assign r_push = vr && (q_r_need & ~lane_in_ready) == {LANES{1'b0}};

    // the counts: word position p counts in table p, 16 counters a memory word
    reg  [WORDS*GW-1:0] t_ra;            // each table's read address this cycle
    wire [WORDS*512-1:0] t_rd;           // what each table read last cycle
    reg  [WORDS-1:0] c_valid;            // stage C: this cycle's read-modify-writes
    reg  [GW-1:0] c_word  [0:WORDS-1];
    reg  [3:0]    c_field [0:WORDS-1];
    reg  [31:0]   c_add   [0:WORDS-1];
    wire          q_room;               // the write queue's
    wire [$clog2(FIFO_DEPTH):0] q_level;
    wire pipe_empty = !v1 && !v2 && !vl && !v3 && !vp && !v4 && !v5 && !sk_v && !vr && !rf_v && c_valid == {WORDS{1'b0}};

    // the sums of a group's counts over the tables, for START's prefix sums and the dump:
    // the read (rd_*), the 16 tables summed to 8, 4, 2 and 1 (a1..a3, u2: a bin's count), then
    // the prefix sums over the group's 16 bins for START (k1..k3, u4)
    reg           rd_v, rd_dump;         // t_rd holds group rd_g
    reg  [GW-1:0] rd_g;
    // One addition of two numbers a stage: the mapper makes a carry chain of one, and a tree
    // of LUTs of more than one (docs/fit.md).
    reg  [4:1]    a_v, a_dump;           // the tables' sums: 16 to 8, 4, 2, 1
    reg  [3:0]    k_v;                   // the prefix sums over the group's 16 bins, k1..k4
    reg  [GW-1:0] a_g [1:4];
    reg  [GW-1:0] k_g [1:4];
    reg  [31:0]   a1_s [0:8*WORDS-1];    // bin j, tables 2q, 2q+1: a1_s[8j + q]
    reg  [31:0]   a2_s [0:4*WORDS-1];
    reg  [31:0]   a3_s [0:2*WORDS-1];
    reg  [31:0]   u2_s [0:WORDS-1];      // bin j's count
    reg  [31:0]   k1_s [0:WORDS-1];      // sums of bins j-1..j
    reg  [31:0]   k2_s [0:WORDS-1];      // j-3..j
    reg  [31:0]   k3_s [0:WORDS-1];      // j-7..j
    reg  [31:0]   u4_s [0:WORDS-1];      // sums of bins 0..j
    wire          u2_v = a_v[4], u2_dump = a_dump[4], u4_v = k_v[3];
    wire [GW-1:0] u2_g = a_g[4], u4_g = k_g[4];
    wire          prep_d = rd_v && !rd_dump;   // the group just read starts the pass from zero
    wire [GW-1:0] prep_g = rd_g;
    wire          sums_busy = rd_v || a_v != 4'd0 || k_v != 4'd0;
    localparam integer DUMP_FLIGHT = 5;  // dump lines read but not yet queued: rd, a1..a4
    wire          dump_issue = state_reg == S_DUMP && idx_reg != {IW{1'b0}} && idx_reg <= dump_last
                               && {{(31-$clog2(FIFO_DEPTH)){1'b0}}, q_level} < FIFO_DEPTH - DUMP_FLIGHT;
    wire [IW-1:0] dump_idx = idx_reg - {{(IW-1){1'b0}}, 1'b1};   // the group of dump line idx_reg
    wire          prep_issue = state_reg == S_PREP && {{(32-IW){1'b0}}, idx_reg} < GROUPS;
    integer p;
    always @* begin
        for (p = 0; p < WORDS; p = p + 1) begin
            t_ra[GW*p +: GW] = d_cbin[p][MAX_BITS-1:4];
            if (state_reg == S_PREP) t_ra[GW*p +: GW] = idx_reg[GW-1:0];
            if (state_reg == S_DUMP) t_ra[GW*p +: GW] = dump_idx[GW-1:0];
        end
    end
    // Table p is 16 memories of GROUPS counters, one per field (bin mod 16): a count's
    // read-modify-write touches one of them, with no field selected out of a wide word.
    genvar g, f;
    generate
        for (g = 0; g < WORDS; g = g + 1) begin : g_count
            wire [GW-1:0] rad = t_ra[GW*g +: GW];
            for (f = 0; f < WORDS; f = f + 1) begin : g_field
                reg  [31:0]   mem [0:GROUPS-1];
                reg  [31:0]   rd_q, wb_q;    // the read, and the last value written (forwarded)
                reg           fwd_q;
                wire          we   = prep_d || (c_valid[g] && c_field[g] == f);
                wire [GW-1:0] wad  = prep_d ? prep_g : c_word[g];
                // the group just summed starts the pass from zero
                wire [31:0]   wdat = prep_d ? 32'd0 : (fwd_q ? wb_q : rd_q) + c_add[g];
                integer m;
                initial for (m = 0; m < GROUPS; m = m + 1) mem[m] = 32'd0;
                always @(posedge clk) begin
                    if (we) mem[wad] <= wdat;
                    rd_q <= mem[rad];
                    // a count's write to the group read in the same cycle; the reads during
                    // START and the dump never meet a write (the address compare from
                    // registers, not through the read address's multiplexer)
                    fwd_q <= c_valid[g] && c_field[g] == f && c_word[g] == d_cbin[g][MAX_BITS-1:4];
                    if (we) wb_q <= wdat;
                end
                // the sums read only groups that no write of the last cycle touched
                assign t_rd[512*g + 32*f +: 32] = rd_q;
            end
        end
    endgenerate

    // ---- the lanes ---------------------------------------------------------------------
    wire lanes_flush;
    generate
        for (g = 0; g < LANES; g = g + 1) begin : g_lane
            // prefix sums of group prep_g reach the 16 lanes of its bins
            localparam integer GLI = g % 16;
            localparam [3:0] GL = GLI[3:0];
            localparam integer GQ = g / 16;
            wire in_group = ({{(32-GW){1'b0}}, u4_g} & (LANES / 16 - 1)) == GQ;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [MAX_BITS-1:0] pbin = {u4_g, GL};     // its low LW bits are the lane's
            /* verilator lint_on UNUSEDSIGNAL */
            wire [31:0] pptr = acc_reg + (GLI == 0 ? 32'd0 : u4_s[GLI == 0 ? 0 : GLI - 1]);
            shell_sort_lane #(.MAX_BITS (MAX_BITS), .LANES (LANES), .DEPTH (LANE_DEPTH)) lane (
                .clk (clk), .rst (rst),
                .dst (dst_reg), .ewords (ewords),
                .prep_we (u4_v && in_group), .prep_idx (pbin[MAX_BITS-1:LW]), .prep_ptr (pptr),
                .in_valid (r_push && q_r_need[g]), .in_ready (lane_in_ready[g]),
                .in_words (q_r_words), .in_locals (q_r_locals), .in_mine (q_r_mine[g]),
                .in_lens (q_r_lens),
                .flush (lanes_flush), .busy (lane_busy[g]),
                .out_valid (lane_out_valid[g]), .out_two (lane_out_two[g]), .out_ready (lane_out_ready[g]),
                .out_line (lane_line[LINE_BITS*g +: LINE_BITS])
            );
        end
    endgenerate

    // ---- the write queue: the lanes' lines round-robin, or the dump, a line a cycle ------
    // The grant is registered a cycle ahead (g_reg, one-hot): the lowest lane with a line at
    // or after the round-robin point, else the lowest, both at once by v & -v of the lanes
    // twice over (a carry chain). A lane whose line is taken now stays a candidate only with
    // a second line behind it, so one lane's lines can leave a cycle after another. The line
    // taken (an AND-OR by the registered grant) waits in a register before the queue.
    reg  [LANES-1:0] rr_mask;            // the lanes after the one granted last
    reg  [LANES-1:0] g_reg, cand, grant;
    reg              g_v;
    reg  [2*LANES-1:0] twice, first;
    reg  [LINE_BITS-1:0] lane_pick;
    reg              a_valid;            // the picked line, on its way into the queue
    reg  [LINE_BITS-1:0] a_line;
    wire             a_push = a_valid && state_reg != S_DUMP;
    wire             a_free = !a_valid || (a_push && q_room);
    wire             g_take = g_v && a_free;        // the granted lane's line moves to a_line
    wire             g_load = !g_v || g_take;
    always @* begin
        cand = (lane_out_valid & ~g_reg) | (g_reg & lane_out_two);
        twice = {cand, cand & rr_mask};
        first = twice & (~twice + 1'b1);
        grant = first[LANES-1:0] | first[2*LANES-1:LANES];
        lane_out_ready = g_take ? g_reg : {LANES{1'b0}};
        lane_pick = {LINE_BITS{1'b0}};
        for (i = 0; i < LANES; i = i + 1)
            lane_pick = lane_pick | ({LINE_BITS{g_reg[i]}} & lane_line[LINE_BITS*i +: LINE_BITS]);
    end
    // the lanes idle and without lines, a cycle late (the pass's end waits on them)
    reg lanes_idle, lanes_none, fl_wait;

    // the dump: the range line first, then a line of 16 bins' counts as each group's sums
    // leave u2; a group is read only while the queue has room for every line in flight
    reg  [511:0] dump_words;
    wire         dump_sums = u2_v && u2_dump;
    wire         dump_range = state_reg == S_DUMP && idx_reg == {IW{1'b0}} && q_room;
    wire [IW-1:0] dump_line = dump_sums ? {{(IW-GW){1'b0}}, u2_g} + {{(IW-1){1'b0}}, 1'b1} : {IW{1'b0}};
    always @* begin
        if (!dump_sums) begin
            dump_words = 512'd0;
            dump_words[63:0]    = min_reg;
            dump_words[127:64]  = max_reg;
            dump_words[159:128] = keys_reg;
        end else begin
            for (j = 0; j < WORDS; j = j + 1)
                dump_words[32*j +: 32] = u2_s[j];
        end
    end
    wire [63:0] dump_addr = hist_reg + {{(58-IW){1'b0}}, dump_line, 6'd0};

    assign lanes_flush = state_reg == S_LANES && scatter_reg && pipe_empty && lanes_idle;
    wire                 q_push = dump_sums || dump_range || a_push;
    wire [LINE_BITS-1:0] q_in   = state_reg == S_DUMP ? {dump_addr[63:6], dump_words, 16'hffff} : a_line;
    wire                 q_valid;
    wire [LINE_BITS-1:0] q_data;
    wire                 q_pop = q_valid && !m_waitrequest && en_reg;
    shell_fifo #(.DATA_WIDTH (LINE_BITS), .FIFO_DEPTH (FIFO_DEPTH)) queue (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (q_push), .s_axis_tready (q_room), .s_axis_tdata (q_in),
        .m_axis_tvalid (q_valid), .m_axis_tready (q_pop), .m_axis_tdata (q_data), .level (q_level)
    );
    wire [63:0] q_be;
    generate
        for (g = 0; g < WORDS; g = g + 1) begin : g_be
            assign q_be[4*g +: 4] = {4{q_data[g]}};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            en_reg <= 1'b0; scatter_reg <= 1'b0; dump_reg <= 1'b0; pairs_reg <= 1'b0;
            dest_reg <= 1'b0; load_reg <= 1'b0; u64_reg <= 1'b0;
            bin_lo_reg <= 64'd0; count_lo_reg <= 64'd0; bin_sh_reg <= 7'd0; count_sh_reg <= 7'd0;
            bits_reg <= 4'd0; cbits_reg <= 4'd0; dests_reg <= {64{1'b1}}; dst_reg <= 64'd0; hist_reg <= 64'd0; n_reg <= 32'd0;
            state_reg <= S_IDLE; done_reg <= 1'b0; overrun_reg <= 1'b0; hold_reg <= 1'b0;
            keys_reg <= 32'd0; min_reg <= 64'h00000000ffffffff; max_reg <= 64'd0;
            left_reg <= 32'd0; far_reg <= 1'b0;
            c_v <= 1'b0; q_v <= 1'b0; sl_s <= 1'b0; sl_c <= 1'b0;
            full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
            idx_reg <= {IW{1'b0}}; rr_mask <= {LANES{1'b1}}; a_valid <= 1'b0;
            g_reg <= {LANES{1'b0}}; g_v <= 1'b0; lanes_idle <= 1'b0; lanes_none <= 1'b0; fl_wait <= 1'b0;
            v1 <= 1'b0; v2 <= 1'b0; vl <= 1'b0; v3 <= 1'b0; vp <= 1'b0; v4 <= 1'b0; v5 <= 1'b0; sk_v <= 1'b0; vr <= 1'b0; rf_v <= 1'b0; c_valid <= {WORDS{1'b0}};
            rd_v <= 1'b0; a_v <= 4'd0; k_v <= 4'd0;
        end else begin
            if (wr && !busy) begin   // configuration holds still while a pass runs
                case (wa)
                CSR_SORT_CFG_ADDR: begin
                    en_reg      <= wd[CSR_SORT_CFG_ENABLE_LSB];
                    scatter_reg <= wd[CSR_SORT_CFG_SCATTER_LSB];
                    dump_reg    <= wd[CSR_SORT_CFG_DUMP_LSB];
                    pairs_reg   <= wd[CSR_SORT_CFG_PAIRS_LSB];
                    dest_reg    <= wd[CSR_SORT_CFG_DEST_LSB];
                    load_reg    <= wd[CSR_SORT_CFG_LOAD_LSB];
                    u64_reg     <= wd[CSR_SORT_CFG_U64_LSB];
                end
                CSR_SORT_BINS_ADDR: begin
                    bin_lo_reg[31:0]   <= wd[CSR_SORT_BINS_BIN_LO_LSB +: 32];
                    count_lo_reg[31:0] <= wd[CSR_SORT_BINS_COUNT_LO_LSB +: 32];
                end
                CSR_SORT_BINS_HI_ADDR: begin
                    bin_lo_reg[63:32]   <= wd[CSR_SORT_BINS_HI_BIN_LO_LSB +: 32];
                    count_lo_reg[63:32] <= wd[CSR_SORT_BINS_HI_COUNT_LO_LSB +: 32];
                end
                CSR_SORT_SHIFT_ADDR: begin
                    bin_sh_reg   <= wd[CSR_SORT_SHIFT_BIN_SHIFT_LSB +: 7];
                    count_sh_reg <= wd[CSR_SORT_SHIFT_COUNT_SHIFT_LSB +: 7];
                    bits_reg     <= wd[CSR_SORT_SHIFT_BITS_LSB +: 4];
                    cbits_reg    <= wd[CSR_SORT_SHIFT_COUNT_BITS_LSB +: 4];
                end
                CSR_SORT_DESTS_ADDR: dests_reg <= wd;
                CSR_SORT_DST_ADDR:  dst_reg  <= {wd[63:2], 2'b00};   // PAIRS: keep it a multiple of 8
                CSR_SORT_HIST_ADDR: hist_reg <= {wd[63:6], 6'd0};
                CSR_SORT_N_ADDR:    n_reg    <= wd[31:0];
                default: ;
                endcase
            end
            if (busy) cycles_reg <= cycles_reg + 64'd1;
            if (state_reg == S_IDLE && s_write && en_reg) overrun_reg <= 1'b1;

            // the beat's pipeline; stage C the counts' read-modify-writes of the beat leaving S4
            if (rdy1) v1 <= step;
            if (rdy2) v2 <= v1;
            if (rdyl) vl <= v2;
            if (rdy3) v3 <= vl;
            if (rdyp) vp <= v3;
            if (rdy4) v4 <= vp;
            if (rdy5) v5 <= v4;
            if (rdy_r) vr <= sk_v || v5;      // the skid's beat first
            sk_v <= rdy_r ? 1'b0 : sk_v || s5_go;
            c_valid <= v4 && rdy5 ? d_take : {WORDS{1'b0}};
            rf_v <= vr && r_push;
            if (rf_v) begin         // the range
                if (lt64(rf_mn, min_reg)) min_reg <= rf_mn;
                if (lt64(max_reg, rf_mx)) max_reg <= rf_mx;
            end
            if (v1 && extra1) overrun_reg <= 1'b1;
            far_reg <= left_reg > 32'd64;   // more than 16 to come before any beat next cycle
            c_v <= step && far_reg;
            if (v2 && rdyl) base2 <= base2 + {{(MAX_BITS-5){1'b0}}, s2_hc};
            q_v <= c_v;
            if (q_v) begin
                keys_reg <= keys_reg + {27'd0, q_n};
                left_reg <= left_reg - {27'd0, q_n};
            end
            if (step) begin
                sl_s <= 1'b0;
                sl_c <= 1'b0;
            end else begin
                if (sample) sl_s <= 1'b1;
                if (sl_s) sl_c <= 1'b1;
            end

            // the sums' pipeline
            rd_v <= prep_issue || dump_issue;
            rd_dump <= state_reg == S_DUMP;
            rd_g <= t_ra[GW-1:0];
            a_v <= {a_v[3:1], rd_v}; a_dump <= {a_dump[3:1], rd_dump};
            k_v <= {k_v[2:0], a_v[4] && !a_dump[4]};
            if (u4_v) acc_reg <= acc_reg + u4_s[WORDS-1];

            // the write queue's lines: counted as they enter it (the dump's are not)
            if (g_load) begin
                g_reg <= grant;
                g_v <= cand != {LANES{1'b0}};
            end
            // the lanes after the one granted, a grant late: a lane is granted at most twice
            // in a row while others wait
            if (g_v) rr_mask <= ~(g_reg | (g_reg - 1'b1));
            if (a_free) a_valid <= g_v;
            lanes_idle <= lane_busy == {LANES{1'b0}};
            lanes_none <= lane_out_valid == {LANES{1'b0}};
            fl_wait <= 1'b0;
            if (a_push && q_room) begin
                if (a_line[15:0] == 16'hffff) full_reg <= full_reg + 32'd1;
                else partial_reg <= partial_reg + 32'd1;
            end

            case (state_reg)
            S_IDLE: if (start) begin
                state_reg <= S_PREP;
                done_reg <= 1'b0; overrun_reg <= 1'b0; hold_reg <= 1'b0;
                keys_reg <= 32'd0; min_reg <= {u64_reg ? 32'hffffffff : 32'd0, 32'hffffffff}; max_reg <= 64'd0;
                left_reg <= n_reg; far_reg <= n_reg > 32'd64;
                sl_s <= 1'b0; sl_c <= 1'b0; base2 <= {MAX_BITS{1'b0}};
                full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
                idx_reg <= {IW{1'b0}};
            end
            S_PREP: begin   // start[b] = keys of the bins before b (last pass's counts); counts from 0
                if (prep_issue) idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                else if (!sums_busy) begin
                    idx_reg <= {IW{1'b0}};
                    state_reg <= n_reg == 32'd0 ? S_LANES : S_STREAM;
                end
            end
            S_STREAM: if (step) begin
                if (sl_c) begin        // near the end: counted before it was taken
                    keys_reg <= last_beat ? n_reg : keys_reg + {27'd0, sl_n};
                    left_reg <= last_beat ? 32'd0 : left_reg - {27'd0, sl_n};
                end
                if (last_beat) begin   // hold this beat until the pass is in memory
                    hold_reg <= 1'b1;
                    state_reg <= S_LANES;
                end
            end
            // the flags are a cycle late: a beat pushed into a lane last cycle keeps pipe_empty
            // down (rf_v) this one, and the flush's first cycle is not looked at (fl_wait)
            S_LANES: if (pipe_empty && lanes_idle) begin
                state_reg <= S_FLUSH;
                fl_wait <= 1'b1;
            end
            S_FLUSH: if (!fl_wait && lanes_idle && lanes_none && !g_v && !a_valid) begin
                idx_reg <= {IW{1'b0}};
                state_reg <= dump_reg ? S_DUMP : S_DRAIN;
            end
            S_DUMP: begin
                if (dump_range || dump_issue) idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                if (idx_reg > dump_last && !sums_busy) state_reg <= S_DRAIN;
            end
            S_DRAIN: if (q_level == 0) state_reg <= hold_reg ? S_ACK : S_IDLE;
            S_ACK: if (s_write) begin
                hold_reg <= 1'b0;
                state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
            endcase
            if ((state_reg == S_DRAIN && q_level == 0 && !hold_reg) || (state_reg == S_ACK && s_write))
                done_reg <= 1'b1;
        end
        // the pipeline's data (no reset)
        c_has <= has;
        q_n <= ones16(c_has);
        if (!sl_s) sl_has <= has;
        if (!sl_c) begin
            sl_n <= ones16(sl_has);
            sl_ph <= before16(sl_has);
        end
        if (step) begin
            s1_words <= s_writedata;
            s1_has <= has;
            s1_sdiff <= sdiff;
            s1_cdiff <= cdiff;
            s1_far <= far_reg;
            s1_left <= left_reg[6:0];
            s1_ph <= sl_ph;
        end
        if (v1 && rdy2) begin
            s2_words <= s1_words;
            s2_take <= take;
            s2_ph <= ph1;
            s2_hc <= hc1;
            for (i = 0; i < WORDS; i = i + 1) begin
                s2_sbin[i] <= sbin1[i];
                s2_cpl[i] <= cpl1[i];
            end
        end
        if (v2 && rdyl) begin
            l_words <= s2_words;
            l_take <= s2_take;
            for (i = 0; i < WORDS; i = i + 1) begin
                l_sbin[i] <= s2_sbin[i];
                l_cpl[i] <= s2_cpl[i];
                l_lbin[i] <= lbin2[i];
                l_gt[i] <= gt[i];
                l_same[i] <= same[i];
            end
            for (i = 0; i < 8; i = i + 1) begin
                l_mn8[i] <= mn8[i];
                l_mx8[i] <= mx8[i];
            end
        end
        if (vl && rdy3) begin
            b_words <= l_words;
            b_take <= l_take;
            for (i = 0; i < WORDS; i = i + 1) begin
                b_sbin[i] <= l_sbin[i];
                b_cpl[i] <= l_cpl[i];
                b_lbin[i] <= l_lbin[i];
                b_nd[i] <= nd[i];
                b_lone[i] <= lone[i];
                b_below[i] <= below[i];
            end
            for (i = 0; i < 4; i = i + 1) begin
                b_mn4[i] <= mn4[i];
                b_mx4[i] <= mx4[i];
            end
        end
        if (v3 && rdyp) begin
            p_words <= b_words;
            p_take <= b_take;
            for (i = 0; i < WORDS; i = i + 1) begin
                p_lead0[i] <= b_lone[i][i];
                p_sbin[i] <= b_sbin[i];
                p_cbin[i] <= cbin[i];
                p_ahead[i] <= ahead[i];
                p_led[i] <= led[i];
            end
            for (i = 0; i < 2; i = i + 1) begin
                p_mn2[i] <= mn2[i];
                p_mx2[i] <= mx2[i];
            end
        end
        if (vp && rdy4) begin
            d_words <= p_words;
            d_take <= p_take;
            d_lead0 <= p_lead0;
            for (i = 0; i < WORDS; i = i + 1) begin
                d_sbin[i] <= p_sbin[i];
                d_cbin[i] <= p_cbin[i];
                d_dpos[i] <= dpos[i];
                d_slen[i] <= slen[i];
            end
            for (i = 0; i < 2; i = i + 1) begin
                d_mn2[i] <= p_mn2[i];
                d_mx2[i] <= p_mx2[i];
            end
        end
        if (g_take) a_line <= lane_pick;
        if (vr && r_push) begin
            rf_mn <= mn1;
            rf_mx <= mx1;
        end
        if (v4 && rdy5) begin
            e_words <= d_words;
            e_lead0 <= d_lead0;
            for (i = 0; i < WORDS; i = i + 1) begin
                e_sbin[i] <= d_sbin[i];
                e_slen[i] <= d_slen[i];
                e_esel[i] <= esel[i];
                e_wsel[i] <= wsel[i];
                e_lsel[i] <= lsel[i];
            end
            for (i = 0; i < 2; i = i + 1) begin
                e_mn2[i] <= d_mn2[i];
                e_mx2[i] <= d_mx2[i];
            end
        end
        if (s5_go && !rdy_r) begin
            sk_words <= r_words;
            sk_locals <= r_locals;
            sk_need <= need;
            sk_lens <= r_lens;
            for (i = 0; i < 2; i = i + 1) begin
                sk_mn2[i] <= e_mn2[i];
                sk_mx2[i] <= e_mx2[i];
            end
            for (j = 0; j < LANES; j = j + 1) sk_mine[j] <= mine[j];
        end
        if (rdy_r && (sk_v || v5)) begin
            q_r_words <= sk_v ? sk_words : r_words;
            q_r_locals <= sk_v ? sk_locals : r_locals;
            q_r_need <= sk_v ? sk_need : need;
            q_r_lens <= sk_v ? sk_lens : r_lens;
            for (i = 0; i < 2; i = i + 1) begin
                q_r_mn2[i] <= sk_v ? sk_mn2[i] : e_mn2[i];
                q_r_mx2[i] <= sk_v ? sk_mx2[i] : e_mx2[i];
            end
            for (j = 0; j < LANES; j = j + 1) q_r_mine[j] <= sk_v ? sk_mine[j] : mine[j];
        end
        for (p = 0; p < WORDS; p = p + 1) begin
            c_word[p]  <= d_cbin[p][MAX_BITS-1:4];
            c_field[p] <= d_cbin[p][3:0];
            c_add[p]   <= load_reg ? d_words[32*p +: 32] : 32'd1;
        end
        // the sums' stages (group tags beside them; reset only the valid bits)
        a_g[1] <= rd_g; a_g[2] <= a_g[1]; a_g[3] <= a_g[2]; a_g[4] <= a_g[3];
        k_g[1] <= a_g[4]; k_g[2] <= k_g[1]; k_g[3] <= k_g[2]; k_g[4] <= k_g[3];
        for (j = 0; j < WORDS; j = j + 1) begin
            for (p = 0; p < 8; p = p + 1)
                a1_s[8*j + p] <= t_rd[512*(2*p) + 32*j +: 32] + t_rd[512*(2*p+1) + 32*j +: 32];
            for (p = 0; p < 4; p = p + 1) a2_s[4*j + p] <= a1_s[8*j + 2*p] + a1_s[8*j + 2*p + 1];
            for (p = 0; p < 2; p = p + 1) a3_s[2*j + p] <= a2_s[4*j + 2*p] + a2_s[4*j + 2*p + 1];
            u2_s[j] <= a3_s[2*j] + a3_s[2*j + 1];
            // prefix sums by doubling steps: k1 over 2 bins, k2 over 4, k3 over 8, u4 over 16
            k1_s[j] <= j >= 1 ? u2_s[j] + u2_s[j-1] : u2_s[j];
            k2_s[j] <= j >= 2 ? k1_s[j] + k1_s[j-2] : k1_s[j];
            k3_s[j] <= j >= 4 ? k2_s[j] + k2_s[j-4] : k2_s[j];
            u4_s[j] <= j >= 8 ? k3_s[j] + k3_s[j-8] : k3_s[j];
        end
    end

    // ---- the master: the queue when enabled, else the RX engine itself -----------------
    assign s_waitrequest = en_reg ? !accept : m_waitrequest;
    assign m_write       = en_reg ? q_valid : s_write;
    assign m_address     = en_reg ? {q_data[LINE_BITS-1 -: 58], 6'd0} : s_address;
    assign m_burstcount  = en_reg ? 8'd1 : s_burstcount;
    assign m_writedata   = en_reg ? q_data[16 +: 512] : s_writedata;
    assign m_byteenable  = en_reg ? q_be : s_byteenable;

    reg [63:0] rd_data;
    always @* begin
        case (ra)
        CSR_SORT_CFG_ADDR:    rd_data = {57'd0, u64_reg, load_reg, dest_reg, pairs_reg, dump_reg, scatter_reg, en_reg};
        CSR_SORT_BINS_ADDR:   rd_data = {count_lo_reg[31:0], bin_lo_reg[31:0]};
        CSR_SORT_BINS_HI_ADDR: rd_data = {count_lo_reg[63:32], bin_lo_reg[63:32]};
        CSR_SORT_SHIFT_ADDR:  rd_data = {40'd0, cbits_reg, bits_reg, 1'd0, count_sh_reg, 1'd0, bin_sh_reg};
        CSR_SORT_DESTS_ADDR:  rd_data = dests_reg;
        CSR_SORT_DST_ADDR:    rd_data = dst_reg;
        CSR_SORT_HIST_ADDR:   rd_data = hist_reg;
        CSR_SORT_N_ADDR:      rd_data = {32'd0, n_reg};
        CSR_SORT_STATUS_ADDR: rd_data = {keys_reg, 17'd0, 1'b1, 1'b1, 1'b1, MAX_BITS[3:0], 5'd0, overrun_reg, done_reg, busy};
        CSR_SORT_RANGE_ADDR:  rd_data = {max_reg[31:0], min_reg[31:0]};
        CSR_SORT_RANGE_HI_ADDR: rd_data = {max_reg[63:32], min_reg[63:32]};
        CSR_SORT_LINES_ADDR:  rd_data = {partial_reg, full_reg};
        CSR_SORT_CYCLES_ADDR: rd_data = cycles_reg;
        default:              rd_data = 64'd0;
        endcase
    end
    always @(posedge clk) begin
        if (rst) mmio_rd_resp_data <= 64'd0;
        else if (mmio_rd_valid) mmio_rd_resp_data <= rd_data;
    end

    wire unused_ok = &{1'b0, mmio_wr_addr[2:0], mmio_rd_addr[2:0], dump_addr[5:0], dump_idx[IW-1:GW]};
endmodule

`default_nettype wire
