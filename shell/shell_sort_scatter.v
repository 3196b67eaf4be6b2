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
//     2^MAX_BITS counters, each a memory of 16-counter words, one read-modify-write a cycle).
//     A bin's count is the sum over the 16 tables, taken 16 bins a cycle where the prefix
//     sums (START) and the dump need it.
//   - Scattering: bin b belongs to lane b mod LANES (shell_sort_lane.v), which alone holds its
//     next place and its line buffer (OPTWEB's per-bin write buffers) and takes one bin's keys
//     of a beat a cycle. The beat is reordered first so that each bin's keys are consecutive
//     elements in stream order (a segment) and handed to the lanes that own a segment of it;
//     with LANES = 32 a lane gets about half a segment a cycle from random keys, one from
//     sorted keys (a run of one bin in a beat is one segment), so most beats take one cycle.
//     A bin's keys land at consecutive places in stream order: the pass is stable. Lines
//     leave the lanes round-robin into one write queue, a line a cycle; partial lines (a
//     bin's first and last) go at the end of the pass.
// The final beat of the pass is taken from the RX engine only once every write is in
// memory, so the engine's completion (the host's DMA completion) means the pass is done.
// Disabled, it is a wire between the RX engine and memory.
`default_nettype none

module shell_sort_scatter #(
    parameter integer FIFO_DEPTH = 64,  // lines waiting for the memory (a power of 2, >= 2)
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
        if (FIFO_DEPTH < 2 || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin
            $display("shell_sort_scatter: FIFO_DEPTH=%0d must be a power of 2, at least 2", FIFO_DEPTH);
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

    wire [3:0] bits_eff = bits_reg == 4'd0 ? 4'd8 : bits_reg > MAX_BITS[3:0] ? MAX_BITS[3:0] : bits_reg;
    wire [MAX_BITS-1:0] bin_mask = ~({MAX_BITS{1'b1}} << bits_eff);
    wire [3:0] cbits_eff = cbits_reg == 4'd0 ? bits_eff : cbits_reg > MAX_BITS[3:0] ? MAX_BITS[3:0] : cbits_reg;
    wire [MAX_BITS-1:0] cnt_mask = ~({MAX_BITS{1'b1}} << cbits_eff);
    // dump lines after the range line: 2^bits / 16 (every bin by destination: all), at least one
    wire [3:0] dbits = dest_reg ? MAX_BITS[3:0] : cbits_eff;
    wire [IW-1:0] dump_last = dbits <= 4'd4 ? {{(IW-1){1'b0}}, 1'b1} : ({{(IW-1){1'b0}}, 1'b1} << (dbits - 4'd4));

    wire busy  = state_reg != S_IDLE;
    wire start = wr && wa == CSR_SORT_CTRL_ADDR && wd[CSR_SORT_CTRL_START_LSB] && !busy;

    // ---- stage A: the beat's keys, their bins and the range -----------------------------
    wire       wide = pairs_reg || u64_reg;              // 8-byte elements (or 16)
    wire       quad = pairs_reg && u64_reg;              // 16-byte elements
    wire [1:0] ewords = quad ? 2'd2 : wide ? 2'd1 : 2'd0; // log2 of an element's words
    reg  [WORDS-1:0] has, take;
    reg  [31:0] key    [0:WORDS-1];
    reg  [31:0] pay    [0:WORDS-1];
    reg  [MAX_BITS-1:0] sbin [0:WORDS-1];
    reg  [MAX_BITS-1:0] cbin [0:WORDS-1];
    reg  [63:0] k64    [0:WORDS-1];      // the key as the bins and the range see it
    reg  [63:0] bmin, bmax;
    reg  [4:0]  takes;
    reg         extra;                   // words past N in this beat
    reg  [63:0] sdiff, cdiff;
    reg  [3:0]  dest;                     // DEST: the key's destination
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [31:0] widx;                     // LOAD: the word's index in the pass (bins: its low bits)
    reg  [MAX_BITS+3:0] dbin;             // destination << COUNT_BITS, kept to MAX_BITS bits
    reg  [63:0] sshift, cshift;           // bins are the low MAX_BITS bits
    /* verilator lint_on UNUSEDSIGNAL */
    integer i, j;
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            key[i] = s_writedata[32*i +: 32];
            pay[i] = s_writedata[32*(i | 1) +: 32];
            k64[i] = {u64_reg ? pay[i] : 32'd0, key[i]};
            has[i] = s_byteenable[4*i] && (!wide || i[0] == 1'b0) && (!quad || i[1] == 1'b0);
        end
        takes = 5'd0;
        extra = 1'b0;
        bmin = min_reg;
        bmax = max_reg;
        for (i = 0; i < WORDS; i = i + 1) begin
            take[i] = has[i] && ({1'b0, keys_reg} + {28'd0, takes} < {1'b0, n_reg});
            widx = keys_reg + {27'd0, takes};
            if (take[i]) begin
                takes = takes + 5'd1;
                if (k64[i] < bmin) bmin = k64[i];
                if (k64[i] > bmax) bmax = k64[i];
            end
            if (has[i] && !take[i]) extra = 1'b1;
            sdiff = u64_reg ? k64[i] - bin_lo_reg : {32'd0, key[i] - bin_lo_reg[31:0]};
            cdiff = u64_reg ? k64[i] - count_lo_reg : {32'd0, key[i] - count_lo_reg[31:0]};
            sshift = sdiff >> bin_sh_reg;
            cshift = cdiff >> count_sh_reg;
            sbin[i] = sshift[MAX_BITS-1:0] & bin_mask;
            cbin[i] = cshift[MAX_BITS-1:0] & cnt_mask;
            dest = 4'd0;
            for (j = 0; j < 8; j = j + 1)
                if ({{(32-MAX_BITS){1'b0}}, sbin[i]} > {24'd0, dests_reg[8*j +: 8]}) dest = dest + 4'd1;
            dbin = {dest, {MAX_BITS{1'b0}}} >> (MAX_BITS[3:0] - cbits_eff);
            if (dest_reg) cbin[i] = dbin[MAX_BITS-1:0] | (cshift[MAX_BITS-1:0] & cnt_mask);
            if (load_reg)    // COUNT_BITS >= 4: the beat's 16 words fall in 16 bins
                cbin[i] = widx[MAX_BITS-1:0] & cnt_mask;
        end
    end

    // ---- stage B: the beat reordered into segments, handed to the lanes; counting --------
    reg                 b_valid;
    reg [511:0]         b_words;
    reg [WORDS-1:0]     b_take;
    reg [4:0]           b_n;
    reg [MAX_BITS-1:0]  b_sbin [0:WORDS-1];
    reg [MAX_BITS-1:0]  b_cbin [0:WORDS-1];
    wire                b_push;
    wire                b_free = !b_valid || b_push;
    wire step      = state_reg == S_STREAM && s_write && b_free;
    wire last_beat = keys_reg + {27'd0, takes} == n_reg;
    wire accept    = (step && !last_beat)
                  || (state_reg == S_ACK && s_write)
                  || (state_reg == S_IDLE && s_write);     // no pass: dropped (OVERRUN)

    // an element's segment leader (its bin's first element in the beat) and its place in the
    // reordered beat: the segments in the order of their leaders, each in stream order
    reg [3:0] lead [0:WORDS-1];
    reg [3:0] dpos [0:WORDS-1];
    reg [511:0] r_words;                 // the reordered beat
    reg [MAX_BITS-1:0] r_bin [0:WORDS-1];
    reg [WORDS-1:0] r_start;
    reg [3:0] wmask, wsrc;
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) begin
            lead[i] = i[3:0];
            for (j = WORDS - 1; j >= 0; j = j - 1)
                if (j < i && b_take[j] && b_sbin[j] == b_sbin[i]) lead[i] = j[3:0];
        end
        for (i = 0; i < WORDS; i = i + 1) begin
            dpos[i] = 4'd0;
            for (j = 0; j < WORDS; j = j + 1)
                if (b_take[j] && (lead[j] < lead[i] || (lead[j] == lead[i] && j < i))) dpos[i] = dpos[i] + 4'd1;
        end
        wmask = ~(4'hf << ewords);
        r_words = 512'd0;
        r_start = {WORDS{1'b0}};
        for (i = 0; i < WORDS; i = i + 1) r_bin[i] = {MAX_BITS{1'b0}};
        for (j = 0; j < WORDS; j = j + 1) begin       // element j of the beat, at dpos[j]
            for (i = 0; i < WORDS; i = i + 1) begin    // word i of the reordered beat
                wsrc = j[3:0] | (i[3:0] & wmask);
                if (b_take[j] && dpos[j] == (i[3:0] >> ewords))
                    r_words[32*i +: 32] = r_words[32*i +: 32] | b_words[32*wsrc +: 32];
            end
            for (i = 0; i < WORDS; i = i + 1)          // element i of the reordered beat
                if (b_take[j] && dpos[j] == i[3:0]) begin
                    r_bin[i] = r_bin[i] | b_sbin[j];
                    r_start[i] = r_start[i] | (lead[j] == j[3:0]);
                end
        end
    end

    wire [LANES-1:0] lane_in_ready, lane_busy, lane_out_valid;
    reg  [LANES-1:0] lane_out_ready;
    wire [LANES*LINE_BITS-1:0] lane_line;
    reg  [WORDS-1:0] mine [0:LANES-1];
    reg  [LANES-1:0] need;
    reg  [16*LB-1:0] r_locals;
    always @* begin
        for (i = 0; i < WORDS; i = i + 1) r_locals[LB*i +: LB] = r_bin[i][MAX_BITS-1:LW];
        for (j = 0; j < LANES; j = j + 1) begin
            for (i = 0; i < WORDS; i = i + 1)
                mine[j][i] = scatter_reg && r_start[i] && r_bin[i][LW-1:0] == j[LW-1:0];
            need[j] = mine[j] != {WORDS{1'b0}};
        end
    end
    assign b_push = b_valid && (need & ~lane_in_ready) == {LANES{1'b0}};

    // the counts: word position p counts in table p, 16 counters a memory word
    reg  [WORDS*GW-1:0] t_ra;            // each table's read address this cycle
    wire [WORDS*512-1:0] t_rd;           // what each table read last cycle
    reg  [WORDS-1:0] c_valid;            // stage C: this cycle's read-modify-writes
    reg  [GW-1:0] c_word  [0:WORDS-1];
    reg  [3:0]    c_field [0:WORDS-1];
    reg  [31:0]   c_add   [0:WORDS-1];
    reg           prep_d;                // the prefix sums' read of group prep_g is in t_rd
    reg  [GW-1:0] prep_g;
    reg  [GW-1:0] dump_ra;               // the group the dump's read took last cycle
    reg           dump_rdv;
    wire [IW-1:0] dump_idx = idx_reg - {{(IW-1){1'b0}}, 1'b1};
    wire          q_room;
    wire          dump_push = state_reg == S_DUMP && q_room
                              && (idx_reg == {IW{1'b0}} || (dump_rdv && dump_ra == dump_idx[GW-1:0]));
    integer p;
    always @* begin
        for (p = 0; p < WORDS; p = p + 1) begin
            t_ra[GW*p +: GW] = b_cbin[p][MAX_BITS-1:4];
            if (state_reg == S_PREP) t_ra[GW*p +: GW] = idx_reg[GW-1:0];
            if (state_reg == S_DUMP) t_ra[GW*p +: GW] = dump_push ? idx_reg[GW-1:0] : dump_idx[GW-1:0];
        end
    end
    genvar g;
    generate
        for (g = 0; g < WORDS; g = g + 1) begin : g_count
            reg  [511:0] mem [0:GROUPS-1];
            reg  [511:0] rd_q, wb_q;     // the read, and the last word written (forwarded)
            reg          fwd_q;
            reg          we;
            reg  [GW-1:0] wad;
            reg  [511:0] wdat;
            wire [GW-1:0] rad = t_ra[GW*g +: GW];
            wire [511:0] cur = fwd_q ? wb_q : rd_q;
            integer m;
            initial for (m = 0; m < GROUPS; m = m + 1) mem[m] = 512'd0;
            always @* begin
                we = c_valid[g];
                wad = c_word[g];
                wdat = cur;
                wdat[32*c_field[g] +: 32] = cur[32*c_field[g] +: 32] + c_add[g];
                if (prep_d) begin        // the group just summed starts the pass from zero
                    we = 1'b1;
                    wad = prep_g;
                    wdat = 512'd0;
                end
            end
            always @(posedge clk) begin
                if (we) mem[wad] <= wdat;
                rd_q <= mem[rad];
                fwd_q <= we && wad == rad;
                if (we) wb_q <= wdat;
            end
            // the sums read only groups that no write of the last cycle touched
            assign t_rd[512*g +: 512] = rd_q;
        end
    endgenerate

    // a group's counts, summed over the tables (the prefix sums and the dump)
    reg [31:0] gsum [0:WORDS-1];
    reg [31:0] run_sum [0:WORDS];
    always @* begin
        for (j = 0; j < WORDS; j = j + 1) begin
            gsum[j] = 32'd0;
            for (p = 0; p < WORDS; p = p + 1) gsum[j] = gsum[j] + t_rd[512*p + 32*j +: 32];
        end
        run_sum[0] = acc_reg;
        for (j = 0; j < WORDS; j = j + 1) run_sum[j + 1] = run_sum[j] + gsum[j];
    end

    // ---- the lanes ---------------------------------------------------------------------
    wire lanes_flush = state_reg == S_LANES && scatter_reg && !b_valid && c_valid == {WORDS{1'b0}} && !prep_d
                       && lane_busy == {LANES{1'b0}};
    generate
        for (g = 0; g < LANES; g = g + 1) begin : g_lane
            // prefix sums of group prep_g reach the 16 lanes of its bins
            localparam integer GLI = g % 16;
            localparam [3:0] GL = GLI[3:0];
            localparam integer GQ = g / 16;
            wire in_group = ({{(32-GW){1'b0}}, prep_g} & (LANES / 16 - 1)) == GQ;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [MAX_BITS-1:0] pbin = {prep_g, GL};   // its low LW bits are the lane's
            /* verilator lint_on UNUSEDSIGNAL */
            shell_sort_lane #(.MAX_BITS (MAX_BITS), .LANES (LANES), .DEPTH (LANE_DEPTH)) lane (
                .clk (clk), .rst (rst),
                .dst (dst_reg), .ewords (ewords),
                .prep_we (prep_d && in_group), .prep_idx (pbin[MAX_BITS-1:LW]), .prep_ptr (run_sum[{1'b0, GL}]),
                .in_valid (b_push && need[g]), .in_ready (lane_in_ready[g]),
                .in_words (r_words), .in_locals (r_locals), .in_starts (r_start), .in_mine (mine[g]),
                .in_count (b_n),
                .flush (lanes_flush), .busy (lane_busy[g]),
                .out_valid (lane_out_valid[g]), .out_ready (lane_out_ready[g]), .out_line (lane_line[LINE_BITS*g +: LINE_BITS])
            );
        end
    endgenerate

    // ---- the write queue: the lanes' lines round-robin, or the dump, a line a cycle ------
    reg  [LW-1:0] rr_reg;                // the lane served first next
    reg  [LW-1:0] pick;
    reg           picked;
    always @* begin
        picked = 1'b0;
        pick = {LW{1'b0}};
        for (i = 2 * LANES - 1; i >= 0; i = i - 1)
            if (lane_out_valid[i % LANES] && (i >= LANES || i[LW-1:0] >= rr_reg)) begin
                picked = 1'b1;
                pick = i[LW-1:0];
            end
        lane_out_ready = {LANES{1'b0}};
        lane_out_ready[pick] = picked && q_room;
    end
    reg  [LINE_BITS-1:0] lane_pick;      // a select of 32 lines, not a shift of all of them
    always @* begin
        lane_pick = {LINE_BITS{1'b0}};
        for (i = 0; i < LANES; i = i + 1)
            if (pick == i[LW-1:0]) lane_pick = lane_line[LINE_BITS*i +: LINE_BITS];
    end

    reg [511:0] dump_words;
    always @* begin
        if (idx_reg == {IW{1'b0}}) begin
            dump_words = 512'd0;
            dump_words[63:0]    = min_reg;
            dump_words[127:64]  = max_reg;
            dump_words[159:128] = keys_reg;
        end else begin
            for (j = 0; j < WORDS; j = j + 1)
                dump_words[32*j +: 32] = gsum[j];
        end
    end
    wire [63:0] dump_addr = hist_reg + {{(58-IW){1'b0}}, idx_reg, 6'd0};

    wire                 q_push = dump_push || (picked && state_reg != S_DUMP);
    wire [LINE_BITS-1:0] q_in   = state_reg == S_DUMP ? {dump_addr[63:6], dump_words, 16'hffff} : lane_pick;
    wire                 q_valid;
    wire [LINE_BITS-1:0] q_data;
    wire [$clog2(FIFO_DEPTH):0] q_level;
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
            full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
            idx_reg <= {IW{1'b0}}; rr_reg <= {LW{1'b0}};
            b_valid <= 1'b0; c_valid <= {WORDS{1'b0}}; prep_d <= 1'b0; dump_rdv <= 1'b0;
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

            // stage B holds one beat; stage C its counts' read-modify-writes
            if (step) b_valid <= 1'b1;
            else if (b_push) b_valid <= 1'b0;
            c_valid <= b_push ? b_take : {WORDS{1'b0}};
            prep_d <= state_reg == S_PREP;
            dump_rdv <= state_reg == S_DUMP;
            dump_ra <= t_ra[GW-1:0];
            if (state_reg == S_PREP) prep_g <= idx_reg[GW-1:0];
            if (prep_d) acc_reg <= run_sum[WORDS];

            // the write queue's lines: counted as they enter it (the dump's are not)
            if (q_push && q_room && state_reg != S_DUMP) begin
                rr_reg <= pick + 1'b1;
                if (lane_pick[15:0] == 16'hffff) full_reg <= full_reg + 32'd1;
                else partial_reg <= partial_reg + 32'd1;
            end

            case (state_reg)
            S_IDLE: if (start) begin
                state_reg <= S_PREP;
                done_reg <= 1'b0; overrun_reg <= 1'b0; hold_reg <= 1'b0;
                keys_reg <= 32'd0; min_reg <= {u64_reg ? 32'hffffffff : 32'd0, 32'hffffffff}; max_reg <= 64'd0;
                full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
                idx_reg <= {IW{1'b0}};
            end
            S_PREP: begin   // start[b] = keys of the bins before b (last pass's counts); counts from 0
                idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                if ({{(32-IW){1'b0}}, idx_reg} == GROUPS - 1) begin
                    idx_reg <= {IW{1'b0}};
                    state_reg <= n_reg == 32'd0 ? S_LANES : S_STREAM;
                end
            end
            S_STREAM: if (step) begin
                keys_reg <= keys_reg + {27'd0, takes};
                min_reg <= bmin;
                max_reg <= bmax;
                if (extra) overrun_reg <= 1'b1;
                if (last_beat) begin   // hold this beat until the pass is in memory
                    hold_reg <= 1'b1;
                    state_reg <= S_LANES;
                end
            end
            S_LANES: if (!b_valid && c_valid == {WORDS{1'b0}} && !prep_d && lane_busy == {LANES{1'b0}})
                state_reg <= S_FLUSH;
            S_FLUSH: if (lane_busy == {LANES{1'b0}} && lane_out_valid == {LANES{1'b0}} && !lanes_flush) begin
                idx_reg <= {IW{1'b0}};
                state_reg <= dump_reg ? S_DUMP : S_DRAIN;
            end
            S_DUMP: if (dump_push) begin
                idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                if (idx_reg == dump_last) state_reg <= S_DRAIN;
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
        if (step) begin
            b_words <= s_writedata;
            b_take <= take;
            b_n <= takes;
            for (i = 0; i < WORDS; i = i + 1) begin
                b_sbin[i] <= sbin[i];
                b_cbin[i] <= cbin[i];
            end
        end
        for (p = 0; p < WORDS; p = p + 1) begin
            c_word[p]  <= b_cbin[p][MAX_BITS-1:4];
            c_field[p] <= b_cbin[p][3:0];
            c_add[p]   <= load_reg ? b_words[32*p +: 32] : 32'd1;
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
