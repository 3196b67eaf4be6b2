// The sort's scatter writer (SORT_* registers, docs/sort.md "The scatter writer"): a stage
// on the RX engine's write master, behind the cascade's output. Enabled (CFG.ENABLE), it
// takes the 32-bit words of the RX stream as keys, one per cycle, instead of letting the
// engine write them at its destination:
//   - it counts the keys per bin, ((key - COUNT_LO) >> COUNT_SHIFT) & 255, and keeps the
//     smallest and largest key;
//   - with CFG.SCATTER it writes each key to DST + 4 * (start[bin] + keys of the bin so
//     far), bin = ((key - BIN_LO) >> BIN_SHIFT) & 255, where start[] are the prefix sums
//     of the counts of the previous pass (computed on START). That is one stable counting
//     pass, and a key's bin in the next pass is counted while it passes: a histogram pass
//     is fused into every scatter pass. The keys of a bin land at consecutive addresses,
//     so each bin has one 64-byte write buffer (OPTWEB's per-bin write buffers): a line
//     goes to memory when the bin fills it, partial lines at the end of the pass;
//   - with CFG.DUMP it writes the range and the 256 counts to HIST at the end;
//   - with CFG.PAIRS the stream's elements are (key, payload) word pairs, written as pairs
//     (8 bytes) at DST + 8 * place: the payload follows its key.
// The final beat of the pass is taken from the RX engine only once every write is in
// memory, so the engine's completion (the host's DMA completion) means the pass is done.
// Disabled, it is a wire between the RX engine and memory.
`default_nettype none

module shell_sort_scatter #(
    parameter integer FIFO_DEPTH = 8    // lines waiting for the memory
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

    localparam [2:0] S_IDLE = 3'd0, S_PREP = 3'd1, S_STREAM = 3'd2, S_FLUSH = 3'd3, S_DUMP = 3'd4,
                     S_DRAIN = 3'd5, S_ACK = 3'd6;
    localparam integer LINE_BITS = 58 + 512 + 16;   // line address, words, word mask

    // ---- registers -------------------------------------------------------------------
    wire [17:0] wa = {mmio_wr_addr[17:3], 3'b000};
    wire [17:0] ra = {mmio_rd_addr[17:3], 3'b000};
    wire [63:0] wd = mmio_wr_data;
    wire        wr = mmio_wr_valid;

    reg        en_reg, scatter_reg, dump_reg, pairs_reg;
    reg [31:0] bin_lo_reg, count_lo_reg, n_reg;
    reg [4:0]  bin_sh_reg, count_sh_reg;
    reg [63:0] dst_reg, hist_reg;

    reg [2:0]  state_reg;
    reg        done_reg, overrun_reg, hold_reg;
    reg [31:0] keys_reg, min_reg, max_reg, full_reg, partial_reg, acc_reg;
    reg [63:0] cycles_reg;
    reg [8:0]  idx_reg;       // bin (prepare, flush) or dump line
    reg [3:0]  slot_reg;      // word of the current beat

    // per bin: the count, the next place, the write buffer
    reg [31:0]  cnt_mem   [0:255];
    reg [31:0]  ptr_mem   [0:255];
    reg [511:0] words_mem [0:255];
    reg [15:0]  mask_mem  [0:255];
    reg [57:0]  line_mem  [0:255];
    reg [255:0] bvalid_reg;
    integer i;
    initial begin
        for (i = 0; i < 256; i = i + 1) begin
            cnt_mem[i] = 32'd0;
            ptr_mem[i] = 32'd0;
            words_mem[i] = 512'd0;
            mask_mem[i] = 16'd0;
            line_mem[i] = 58'd0;
        end
    end

    wire busy  = state_reg != S_IDLE;
    wire start = wr && wa == CSR_SORT_CTRL_ADDR && wd[CSR_SORT_CTRL_START_LSB] && !busy;

    // ---- the write queue to memory ---------------------------------------------------
    reg                  push;
    reg [LINE_BITS-1:0]  push_data;
    wire                 q_ready, q_valid;
    wire [LINE_BITS-1:0] q_data;
    wire [$clog2(FIFO_DEPTH):0] q_level;
    shell_fifo #(.DATA_WIDTH (LINE_BITS), .FIFO_DEPTH (FIFO_DEPTH)) queue (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (push), .s_axis_tready (q_ready), .s_axis_tdata (push_data),
        .m_axis_tvalid (q_valid), .m_axis_tready (!m_waitrequest), .m_axis_tdata (q_data),
        .level (q_level)
    );
    wire [63:0] q_be;
    genvar g;
    generate
        for (g = 0; g < 16; g = g + 1) begin : g_be
            assign q_be[4*g +: 4] = {4{q_data[g]}};
        end
    endgenerate

    // ---- one key of the current beat ---------------------------------------------------
    wire [31:0] key    = s_writedata[32*slot_reg +: 32];
    wire [3:0]  pay_slot = slot_reg | 4'd1;
    wire [31:0] pay    = s_writedata[32*pay_slot +: 32];   // PAIRS: the key's payload
    wire [3:0]  last_slot = pairs_reg ? 4'd14 : 4'd15;              // an element's first word
    wire        has    = s_byteenable[4*slot_reg];
    wire [31:0] sdiff  = key - bin_lo_reg;
    wire [31:0] cdiff  = key - count_lo_reg;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] sshift = sdiff >> bin_sh_reg;     // bins are the low 8 bits
    wire [31:0] cshift = cdiff >> count_sh_reg;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [7:0]  sbin   = sshift[7:0];
    wire [7:0]  cbin   = cshift[7:0];
    wire [31:0] pos    = ptr_mem[sbin];
    wire [63:0] addr   = dst_reg + (pairs_reg ? {29'd0, pos, 3'b000} : {30'd0, pos, 2'b00});
    wire [3:0]  wslot  = addr[5:2];
    wire        bvalid = bvalid_reg[sbin];
    wire [15:0] new_mask = (bvalid ? mask_mem[sbin] : 16'd0) | ((pairs_reg ? 16'd3 : 16'd1) << wslot);
    reg  [511:0] new_words;
    always @* begin
        for (i = 0; i < 16; i = i + 1)
            new_words[32*i +: 32] = (wslot == i[3:0]) ? key
                                  : (pairs_reg && (wslot | 4'd1) == i[3:0]) ? pay
                                  : (bvalid ? words_mem[sbin][32*i +: 32] : 32'd0);
    end
    wire take     = has && keys_reg != n_reg;             // words past N are dropped (OVERRUN)
    wire line_out = scatter_reg && take && wslot == last_slot;   // the bin's line is complete here
    wire step     = state_reg == S_STREAM && s_write && q_ready;
    wire last_key = keys_reg + {31'd0, take} == n_reg;
    wire beat_end = step && slot_reg == last_slot;
    wire accept   = (beat_end && !last_key)
                 || (state_reg == S_ACK && s_write)
                 || (state_reg == S_IDLE && s_write);     // no pass: dropped (OVERRUN)

    // the dump's lines: the range, then 16 counts per line
    wire [8:0] dump_idx = idx_reg - 9'd1;
    wire [3:0] dump_row = dump_idx[3:0];
    reg  [511:0] dump_words;
    always @* begin
        if (idx_reg == 9'd0) begin
            dump_words = 512'd0;
            dump_words[31:0]    = min_reg;
            dump_words[95:64]   = max_reg;
            dump_words[159:128] = keys_reg;
        end else begin
            for (i = 0; i < 16; i = i + 1)
                dump_words[32*i +: 32] = cnt_mem[{dump_row, i[3:0]}];
        end
    end
    wire [63:0] dump_addr = hist_reg + {49'd0, idx_reg, 6'd0};
    wire [7:0]  fbin = idx_reg[7:0];

    always @* begin
        push = 1'b0;
        push_data = {LINE_BITS{1'b0}};
        case (state_reg)
        S_STREAM: if (step && line_out) begin
            push = 1'b1;
            push_data = {addr[63:6], new_words, new_mask};
        end
        S_FLUSH: if (bvalid_reg[fbin]) begin
            push = 1'b1;
            push_data = {line_mem[fbin], words_mem[fbin], mask_mem[fbin]};
        end
        S_DUMP: begin
            push = 1'b1;
            push_data = {dump_addr[63:6], dump_words, 16'hffff};
        end
        default: ;
        endcase
    end

    always @(posedge clk) begin
        if (rst) begin
            en_reg <= 1'b0; scatter_reg <= 1'b0; dump_reg <= 1'b0; pairs_reg <= 1'b0;
            bin_lo_reg <= 32'd0; count_lo_reg <= 32'd0; bin_sh_reg <= 5'd0; count_sh_reg <= 5'd0;
            dst_reg <= 64'd0; hist_reg <= 64'd0; n_reg <= 32'd0;
            state_reg <= S_IDLE; done_reg <= 1'b0; overrun_reg <= 1'b0; hold_reg <= 1'b0;
            keys_reg <= 32'd0; min_reg <= 32'hffffffff; max_reg <= 32'd0;
            full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
            idx_reg <= 9'd0; slot_reg <= 4'd0; bvalid_reg <= 256'd0;
        end else begin
            if (wr && !busy) begin   // configuration holds still while a pass runs
                case (wa)
                CSR_SORT_CFG_ADDR: begin
                    en_reg      <= wd[CSR_SORT_CFG_ENABLE_LSB];
                    scatter_reg <= wd[CSR_SORT_CFG_SCATTER_LSB];
                    dump_reg    <= wd[CSR_SORT_CFG_DUMP_LSB];
                    pairs_reg   <= wd[CSR_SORT_CFG_PAIRS_LSB];
                end
                CSR_SORT_BINS_ADDR: begin
                    bin_lo_reg   <= wd[CSR_SORT_BINS_BIN_LO_LSB +: 32];
                    count_lo_reg <= wd[CSR_SORT_BINS_COUNT_LO_LSB +: 32];
                end
                CSR_SORT_SHIFT_ADDR: begin
                    bin_sh_reg   <= wd[CSR_SORT_SHIFT_BIN_SHIFT_LSB +: 5];
                    count_sh_reg <= wd[CSR_SORT_SHIFT_COUNT_SHIFT_LSB +: 5];
                end
                CSR_SORT_DST_ADDR:  dst_reg  <= {wd[63:2], 2'b00};   // PAIRS: keep it a multiple of 8
                CSR_SORT_HIST_ADDR: hist_reg <= {wd[63:6], 6'd0};
                CSR_SORT_N_ADDR:    n_reg    <= wd[31:0];
                default: ;
                endcase
            end
            if (busy) cycles_reg <= cycles_reg + 64'd1;
            if (state_reg == S_IDLE && s_write && en_reg) overrun_reg <= 1'b1;

            case (state_reg)
            S_IDLE: if (start) begin
                state_reg <= S_PREP;
                done_reg <= 1'b0; overrun_reg <= 1'b0; hold_reg <= 1'b0;
                keys_reg <= 32'd0; min_reg <= 32'hffffffff; max_reg <= 32'd0;
                full_reg <= 32'd0; partial_reg <= 32'd0; acc_reg <= 32'd0; cycles_reg <= 64'd0;
                idx_reg <= 9'd0; slot_reg <= 4'd0;
            end
            S_PREP: begin   // start[b] = keys of the bins before b (last pass's counts); counts from 0
                ptr_mem[idx_reg[7:0]] <= acc_reg;
                cnt_mem[idx_reg[7:0]] <= 32'd0;
                acc_reg <= acc_reg + cnt_mem[idx_reg[7:0]];
                idx_reg <= idx_reg + 9'd1;
                if (idx_reg == 9'd255) begin
                    idx_reg <= 9'd0;
                    state_reg <= n_reg == 32'd0 ? S_FLUSH : S_STREAM;
                end
            end
            S_STREAM: if (step) begin
                if (take) begin
                    keys_reg <= keys_reg + 32'd1;
                    if (key < min_reg) min_reg <= key;
                    if (key > max_reg) max_reg <= key;
                    cnt_mem[cbin] <= cnt_mem[cbin] + 32'd1;
                    if (scatter_reg) begin
                        ptr_mem[sbin] <= pos + 32'd1;
                        if (line_out) begin
                            bvalid_reg[sbin] <= 1'b0;
                            if (new_mask == 16'hffff) full_reg <= full_reg + 32'd1;
                            else partial_reg <= partial_reg + 32'd1;
                        end else begin
                            bvalid_reg[sbin] <= 1'b1;
                            words_mem[sbin] <= new_words;
                            mask_mem[sbin] <= new_mask;
                            line_mem[sbin] <= addr[63:6];
                        end
                    end
                end else if (has) begin
                    overrun_reg <= 1'b1;
                end
                slot_reg <= slot_reg + (pairs_reg ? 4'd2 : 4'd1);
                if (beat_end && last_key) begin   // hold this beat until the pass is in memory
                    hold_reg <= 1'b1;
                    idx_reg <= 9'd0;
                    state_reg <= S_FLUSH;
                end
            end
            S_FLUSH: if (!bvalid_reg[fbin] || q_ready) begin
                if (bvalid_reg[fbin]) begin
                    bvalid_reg[fbin] <= 1'b0;
                    partial_reg <= partial_reg + 32'd1;
                end
                idx_reg <= idx_reg + 9'd1;
                if (idx_reg == 9'd255) begin
                    idx_reg <= 9'd0;
                    state_reg <= dump_reg ? S_DUMP : S_DRAIN;
                end
            end
            S_DUMP: if (q_ready) begin
                idx_reg <= idx_reg + 9'd1;
                if (idx_reg == 9'd16) state_reg <= S_DRAIN;
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
        CSR_SORT_CFG_ADDR:    rd_data = {60'd0, pairs_reg, dump_reg, scatter_reg, en_reg};
        CSR_SORT_BINS_ADDR:   rd_data = {count_lo_reg, bin_lo_reg};
        CSR_SORT_SHIFT_ADDR:  rd_data = {51'd0, count_sh_reg, 3'd0, bin_sh_reg};
        CSR_SORT_DST_ADDR:    rd_data = dst_reg;
        CSR_SORT_HIST_ADDR:   rd_data = hist_reg;
        CSR_SORT_N_ADDR:      rd_data = {32'd0, n_reg};
        CSR_SORT_STATUS_ADDR: rd_data = {keys_reg, 29'd0, overrun_reg, done_reg, busy};
        CSR_SORT_RANGE_ADDR:  rd_data = {max_reg, min_reg};
        CSR_SORT_LINES_ADDR:  rd_data = {partial_reg, full_reg};
        CSR_SORT_CYCLES_ADDR: rd_data = cycles_reg;
        default:              rd_data = 64'd0;
        endcase
    end
    always @(posedge clk) begin
        if (rst) mmio_rd_resp_data <= 64'd0;
        else if (mmio_rd_valid) mmio_rd_resp_data <= rd_data;
    end

    wire unused_ok = &{1'b0, mmio_wr_addr[2:0], mmio_rd_addr[2:0], addr[1:0], dump_addr[5:0], dump_idx[8:4]};
endmodule

`default_nettype wire
