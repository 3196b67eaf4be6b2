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
//     being the number of DESTS bytes (each destination's last scatter bin) below the key's
//     scatter bin: the grouping pass by destination counts every destination's first local
//     digit, so the destinations need no count pass of their own;
//   - with CFG.LOAD the stream's words are counts, word w added to bin w mod 2^COUNT_BITS: a
//     destination sums its sources' counts into its counters, for the next pass's starts.
// Stability with 16 keys a cycle: a key's place is its bin's next place plus the number of
// keys of its bin in the earlier lanes of the beat (a 16 x 16 compare of the lanes' bins),
// and the bin's last lane in the beat moves the bin's place and count on by the beat's keys.
// The keys of a bin land at consecutive addresses, so each bin has one 64-byte line buffer
// (OPTWEB's per-bin write buffers): a lane whose key fills the last word of a line sends
// the line, merged from the bin's buffer and the beat's lanes of that line, to a write
// queue that takes up to 16 lines a cycle; the bin's last lane otherwise keeps the merged
// line in the buffer. Partial lines go at the end of the pass, 16 bins a cycle.
// The final beat of the pass is taken from the RX engine only once every write is in
// memory, so the engine's completion (the host's DMA completion) means the pass is done.
// Disabled, it is a wire between the RX engine and memory.
`default_nettype none

module shell_sort_scatter #(
    parameter integer FIFO_DEPTH = 64,  // lines waiting for the memory (a power of 2, >= 32)
    parameter integer MAX_BITS   = 11   // widest bin: 2^MAX_BITS counters, places, line buffers
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

    localparam integer LANES     = 16;                  // 32-bit words of a beat
    localparam integer NB        = 1 << MAX_BITS;       // bins
    localparam integer GROUPS    = NB / LANES;          // bins handled a cycle in PREP and FLUSH
    localparam integer GW        = MAX_BITS - 4;        // group index bits
    localparam integer IW        = MAX_BITS - 2;        // dump line index: 0..GROUPS
    localparam integer QW        = $clog2(FIFO_DEPTH);   // >= 5: a beat pushes up to 16 lines
    localparam integer LINE_BITS = 58 + 512 + 16;       // line address, words, word mask

    initial begin
        if (MAX_BITS < 8 || MAX_BITS > 12) begin
            $display("shell_sort_scatter: MAX_BITS=%0d must be 8..12", MAX_BITS);
            $finish;
        end
        if (FIFO_DEPTH < 2 * LANES || (FIFO_DEPTH & (FIFO_DEPTH - 1)) != 0) begin
            $display("shell_sort_scatter: FIFO_DEPTH=%0d must be a power of 2, at least %0d", FIFO_DEPTH, 2 * LANES);
            $finish;
        end
    end

    localparam [2:0] S_IDLE = 3'd0, S_PREP = 3'd1, S_STREAM = 3'd2, S_FLUSH = 3'd3, S_DUMP = 3'd4,
                     S_DRAIN = 3'd5, S_ACK = 3'd6;

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
    reg [IW-1:0] idx_reg;     // group (prepare, flush) or dump line

    wire [3:0] bits_eff = bits_reg == 4'd0 ? 4'd8 : bits_reg > MAX_BITS[3:0] ? MAX_BITS[3:0] : bits_reg;
    wire [MAX_BITS-1:0] bin_mask = ~({MAX_BITS{1'b1}} << bits_eff);
    wire [3:0] cbits_eff = cbits_reg == 4'd0 ? bits_eff : cbits_reg > MAX_BITS[3:0] ? MAX_BITS[3:0] : cbits_reg;
    wire [MAX_BITS-1:0] cnt_mask = ~({MAX_BITS{1'b1}} << cbits_eff);
    // dump lines after the range line: 2^bits / 16 (every bin by destination: all), at least one
    wire [3:0] dbits = dest_reg ? MAX_BITS[3:0] : cbits_eff;
    wire [IW-1:0] dump_last = dbits <= 4'd4 ? {{(IW-1){1'b0}}, 1'b1} : ({{(IW-1){1'b0}}, 1'b1} << (dbits - 4'd4));

    // per bin: the count, the next place, the line buffer (its line is that of the next place)
    reg [31:0]  cnt_mem   [0:NB-1];
    reg [31:0]  ptr_mem   [0:NB-1];
    reg [511:0] words_mem [0:NB-1];
    reg [15:0]  mask_mem  [0:NB-1];
    reg [NB-1:0] bvalid_reg;
    integer i, j;
    initial begin
        for (i = 0; i < NB; i = i + 1) begin
            cnt_mem[i] = 32'd0;
            ptr_mem[i] = 32'd0;
            words_mem[i] = 512'd0;
            mask_mem[i] = 16'd0;
        end
    end

    wire busy  = state_reg != S_IDLE;
    wire start = wr && wa == CSR_SORT_CTRL_ADDR && wd[CSR_SORT_CTRL_START_LSB] && !busy;

    // ---- the write queue to memory: up to LANES lines in a cycle, one out -----------------
    reg [LINE_BITS-1:0] q_mem [0:FIFO_DEPTH-1];
    reg [QW-1:0] q_head_reg, q_tail_reg;
    reg [QW:0]   q_level_reg;
    wire         q_valid = q_level_reg != 0;
    wire [LINE_BITS-1:0] q_data = q_mem[q_head_reg];
    wire         q_pop = q_valid && !m_waitrequest && en_reg;
    wire         q_room_one  = {{(32-QW-1){1'b0}}, q_level_reg} < FIFO_DEPTH;
    wire [63:0] q_be;
    genvar g;
    generate
        for (g = 0; g < LANES; g = g + 1) begin : g_be
            assign q_be[4*g +: 4] = {4{q_data[g]}};
        end
    endgenerate

    // ---- the lanes of the current beat --------------------------------------------------
    wire       wide = pairs_reg || u64_reg;              // 8-byte elements (or 16)
    wire       quad = pairs_reg && u64_reg;              // 16-byte elements
    wire [2:0] esh  = quad ? 3'd4 : wide ? 3'd3 : 3'd2;   // log2 of an element's bytes
    wire [3:0] last_slot = quad ? 4'd12 : wide ? 4'd14 : 4'd15;  // an element's first word
    reg  [LANES-1:0] has, take;
    reg  [31:0] key    [0:LANES-1];
    reg  [31:0] pay    [0:LANES-1];
    reg  [MAX_BITS-1:0] sbin [0:LANES-1];
    reg  [MAX_BITS-1:0] cbin [0:LANES-1];
    reg  [4:0]  srank  [0:LANES-1];      // earlier lanes of the same scatter bin
    reg  [4:0]  crank  [0:LANES-1];      // ... of the same counted bin
    reg  [LANES-1:0] slast, clast;       // the bin's last lane in the beat
    reg  [31:0] pos    [0:LANES-1];
    reg  [63:0] addr   [0:LANES-1];
    reg  [63:0] base_a [0:LANES-1];      // the bin's buffered line
    reg  [3:0]  wslot  [0:LANES-1];
    reg  [LANES-1:0] line_out;
    reg  [511:0] lwords [0:LANES-1];     // the lane's line: buffer and the beat's lanes of it
    reg  [15:0]  lmask  [0:LANES-1];
    reg  [4:0]  takes, louts, lfull;
    reg  [4:0]  qslot  [0:LANES-1];      // the lane's line's place among the beat's lines
    reg  [63:0] k64    [0:LANES-1];      // the key as the bins and the range see it
    reg  [63:0] bmin, bmax;
    reg         extra;                   // words past N in this beat
    reg  [63:0] sdiff, cdiff;
    reg  [3:0]  dest;                     // DEST: the key's destination
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [31:0] widx;                     // LOAD: the word's index in the pass (bins: its low bits)
    reg  [MAX_BITS+3:0] dbin;             // destination << COUNT_BITS, kept to MAX_BITS bits
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [31:0] cadd   [0:LANES-1];       // what the lane adds to its counted bin
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [63:0] sshift, cshift;           // bins are the low MAX_BITS bits
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [15:0] wmask;
    reg         same;
    always @* begin
        for (i = 0; i < LANES; i = i + 1) begin
            key[i] = s_writedata[32*i +: 32];
            pay[i] = s_writedata[32*(i | 1) +: 32];
            k64[i] = {u64_reg ? pay[i] : 32'd0, key[i]};
            has[i] = s_byteenable[4*i] && (!wide || i[0] == 1'b0) && (!quad || i[1] == 1'b0);
        end
        takes = 5'd0;
        extra = 1'b0;
        wmask = 16'd0;
        bmin = min_reg;
        bmax = max_reg;
        for (i = 0; i < LANES; i = i + 1) begin
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
            cadd[i] = 32'd1;
            dest = 4'd0;
            for (j = 0; j < 8; j = j + 1)
                if ({{(32-MAX_BITS){1'b0}}, sbin[i]} > {24'd0, dests_reg[8*j +: 8]}) dest = dest + 4'd1;
            dbin = {dest, {MAX_BITS{1'b0}}} >> (MAX_BITS[3:0] - cbits_eff);
            if (dest_reg) cbin[i] = dbin[MAX_BITS-1:0] | (cshift[MAX_BITS-1:0] & cnt_mask);
            if (load_reg) begin   // COUNT_BITS >= 4: the beat's 16 words fall in 16 bins
                cbin[i] = widx[MAX_BITS-1:0] & cnt_mask;
                cadd[i] = key[i];
            end
        end
        for (i = 0; i < LANES; i = i + 1) begin
            srank[i] = 5'd0;
            crank[i] = 5'd0;
            slast[i] = take[i];
            clast[i] = take[i];
            for (j = 0; j < LANES; j = j + 1) begin
                if (j < i && take[j] && sbin[j] == sbin[i]) srank[i] = srank[i] + 5'd1;
                if (j < i && take[j] && cbin[j] == cbin[i]) crank[i] = crank[i] + 5'd1;
                if (j > i && take[j] && sbin[j] == sbin[i]) slast[i] = 1'b0;
                if (j > i && take[j] && cbin[j] == cbin[i]) clast[i] = 1'b0;
            end
            pos[i] = ptr_mem[sbin[i]] + {27'd0, srank[i]};
            addr[i] = dst_reg + ({32'd0, pos[i]} << esh);
            base_a[i] = dst_reg + ({32'd0, ptr_mem[sbin[i]]} << esh);
            wslot[i] = addr[i][5:2];
            line_out[i] = scatter_reg && take[i] && wslot[i] == last_slot;
        end
        for (i = 0; i < LANES; i = i + 1) begin
            // the bin's buffer holds the line of its next place, so it belongs to this
            // lane's line when the lane's place is in that line
            same = bvalid_reg[sbin[i]] && base_a[i][63:6] == addr[i][63:6];
            lwords[i] = same ? words_mem[sbin[i]] : 512'd0;
            lmask[i] = same ? mask_mem[sbin[i]] : 16'd0;
            for (j = 0; j < LANES; j = j + 1) begin
                if (take[j] && sbin[j] == sbin[i] && addr[j][63:6] == addr[i][63:6]) begin
                    wmask = (quad ? 16'hf : wide ? 16'd3 : 16'd1) << wslot[j];
                    lmask[i] = lmask[i] | wmask;
                    lwords[i][32*wslot[j] +: 32] = key[j];
                    if (wide) lwords[i][32*{28'd0, wslot[j] | 4'd1} +: 32] = pay[j];
                    if (quad) lwords[i][32*{28'd0, wslot[j] | 4'd2} +: 64] = s_writedata[32*((j & ~3) | 2) +: 64];  // j a multiple of 4
                end
            end
        end
        louts = 5'd0;
        lfull = 5'd0;
        for (i = 0; i < LANES; i = i + 1) begin
            qslot[i] = louts;
            if (line_out[i]) louts = louts + 5'd1;
            if (line_out[i] && lmask[i] == 16'hffff) lfull = lfull + 5'd1;
        end
    end
    // the beat's lines must fit the queue: lines go out at one a cycle and come in at one
    // per 16 keys on average, so the queue absorbs the bins' random bursts
    wire q_room_beat = {{(32-QW-1){1'b0}}, q_level_reg} + {27'd0, louts} <= FIFO_DEPTH;
    wire step      = state_reg == S_STREAM && s_write && q_room_beat;
    wire last_beat = keys_reg + {27'd0, takes} == n_reg;
    wire accept    = (step && !last_beat)
                  || (state_reg == S_ACK && s_write)
                  || (state_reg == S_IDLE && s_write);     // no pass: dropped (OVERRUN)

    // ---- prefix sums of a group of 16 bins (PREP) --------------------------------------
    reg [31:0] run_sum [0:LANES];
    always @* begin
        run_sum[0] = acc_reg;
        for (i = 0; i < LANES; i = i + 1)
            run_sum[i + 1] = run_sum[i] + cnt_mem[{idx_reg[GW-1:0], i[3:0]}];
    end

    // ---- the flush: the group's first buffered bin -------------------------------------
    wire [LANES-1:0] fvalid = bvalid_reg[{idx_reg[GW-1:0], 4'd0} +: LANES];
    reg  [3:0] flane;
    always @* begin
        flane = 4'd0;
        for (i = LANES - 1; i >= 0; i = i - 1)
            if (fvalid[i]) flane = i[3:0];
    end
    wire [MAX_BITS-1:0] fbin = {idx_reg[GW-1:0], flane};
    wire [31:0] fptr  = ptr_mem[fbin];
    wire [63:0] faddr = dst_reg + ({32'd0, fptr} << esh);

    // ---- the dump's lines: the range, then 16 counts per line ----------------------------
    wire [IW-1:0] dump_idx = idx_reg - {{(IW-1){1'b0}}, 1'b1};
    reg  [511:0] dump_words;
    always @* begin
        if (idx_reg == {IW{1'b0}}) begin
            dump_words = 512'd0;
            dump_words[63:0]    = min_reg;
            dump_words[127:64]  = max_reg;
            dump_words[159:128] = keys_reg;
        end else begin
            for (i = 0; i < LANES; i = i + 1)
                dump_words[32*i +: 32] = cnt_mem[{dump_idx[GW-1:0], i[3:0]}];
        end
    end
    wire [63:0] dump_addr = hist_reg + {{(58-IW){1'b0}}, idx_reg, 6'd0};

    always @(posedge clk) begin
        if (rst) begin
            en_reg <= 1'b0; scatter_reg <= 1'b0; dump_reg <= 1'b0; pairs_reg <= 1'b0;
            dest_reg <= 1'b0; load_reg <= 1'b0; u64_reg <= 1'b0;
            bin_lo_reg <= 64'd0; count_lo_reg <= 64'd0; bin_sh_reg <= 7'd0; count_sh_reg <= 7'd0;
            bits_reg <= 4'd0; cbits_reg <= 4'd0; dests_reg <= {64{1'b1}}; dst_reg <= 64'd0; hist_reg <= 64'd0; n_reg <= 32'd0;
            state_reg <= S_IDLE; done_reg <= 1'b0; overrun_reg <= 1'b0; hold_reg <= 1'b0;
            keys_reg <= 32'd0; min_reg <= 64'h00000000ffffffff; max_reg <= 64'd0;
            full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
            idx_reg <= {IW{1'b0}}; bvalid_reg <= {NB{1'b0}};
            q_head_reg <= {QW{1'b0}}; q_tail_reg <= {QW{1'b0}}; q_level_reg <= {(QW+1){1'b0}};
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

            // the queue: this cycle's lines in at the tail, one out at the head
            begin : queue
                reg [QW:0] pushed;
                pushed = {(QW+1){1'b0}};
                if (step) begin
                    for (i = 0; i < LANES; i = i + 1)
                        if (line_out[i])
                            q_mem[q_tail_reg + {{(QW-5){1'b0}}, qslot[i]}] <= {addr[i][63:6], lwords[i], lmask[i]};
                    pushed = {{(QW-4){1'b0}}, louts};
                end
                if (state_reg == S_FLUSH && fvalid != 0 && q_room_one) begin
                    q_mem[q_tail_reg] <= {faddr[63:6], words_mem[fbin], mask_mem[fbin]};
                    pushed = {{QW{1'b0}}, 1'b1};
                end
                if (state_reg == S_DUMP && q_room_one) begin
                    q_mem[q_tail_reg] <= {dump_addr[63:6], dump_words, 16'hffff};
                    pushed = {{QW{1'b0}}, 1'b1};
                end
                q_tail_reg <= q_tail_reg + pushed[QW-1:0];
                q_level_reg <= q_level_reg + pushed - {{QW{1'b0}}, q_pop};
                if (q_pop) q_head_reg <= q_head_reg + {{(QW-1){1'b0}}, 1'b1};
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
                for (i = 0; i < LANES; i = i + 1) begin
                    ptr_mem[{idx_reg[GW-1:0], i[3:0]}] <= run_sum[i];
                    cnt_mem[{idx_reg[GW-1:0], i[3:0]}] <= 32'd0;
                end
                acc_reg <= run_sum[LANES];
                idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                if ({{(32-IW){1'b0}}, idx_reg} == GROUPS - 1) begin
                    idx_reg <= {IW{1'b0}};
                    state_reg <= n_reg == 32'd0 ? S_FLUSH : S_STREAM;
                end
            end
            S_STREAM: if (step) begin
                keys_reg <= keys_reg + {27'd0, takes};
                min_reg <= bmin;
                max_reg <= bmax;
                if (extra) overrun_reg <= 1'b1;
                for (i = 0; i < LANES; i = i + 1) begin
                    if (clast[i]) cnt_mem[cbin[i]] <= cnt_mem[cbin[i]] + {27'd0, crank[i]} + cadd[i];
                    if (scatter_reg && slast[i]) begin
                        ptr_mem[sbin[i]] <= pos[i] + 32'd1;
                        bvalid_reg[sbin[i]] <= !line_out[i];
                        if (!line_out[i]) begin
                            words_mem[sbin[i]] <= lwords[i];
                            mask_mem[sbin[i]] <= lmask[i];
                        end
                    end
                end
                full_reg <= full_reg + {27'd0, lfull};
                partial_reg <= partial_reg + {27'd0, louts - lfull};
                if (last_beat) begin   // hold this beat until the pass is in memory
                    hold_reg <= 1'b1;
                    idx_reg <= {IW{1'b0}};
                    state_reg <= S_FLUSH;
                end
            end
            S_FLUSH: begin
                if (fvalid != 0) begin
                    if (q_room_one) begin
                        bvalid_reg[fbin] <= 1'b0;
                        partial_reg <= partial_reg + 32'd1;
                    end
                end else begin
                    idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                    if ({{(32-IW){1'b0}}, idx_reg} == GROUPS - 1) begin
                        idx_reg <= {IW{1'b0}};
                        state_reg <= dump_reg ? S_DUMP : S_DRAIN;
                    end
                end
            end
            S_DUMP: if (q_room_one) begin
                idx_reg <= idx_reg + {{(IW-1){1'b0}}, 1'b1};
                if (idx_reg == dump_last) state_reg <= S_DRAIN;
            end
            S_DRAIN: if (q_level_reg == 0) state_reg <= hold_reg ? S_ACK : S_IDLE;
            S_ACK: if (s_write) begin
                hold_reg <= 1'b0;
                state_reg <= S_IDLE;
            end
            default: state_reg <= S_IDLE;
            endcase
            if ((state_reg == S_DRAIN && q_level_reg == 0 && !hold_reg) || (state_reg == S_ACK && s_write))
                done_reg <= 1'b1;
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

    wire unused_ok = &{1'b0, mmio_wr_addr[2:0], mmio_rd_addr[2:0], dump_addr[5:0], dump_idx,
                       faddr[5:0]};
endmodule

`default_nettype wire
