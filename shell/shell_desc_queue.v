// Descriptor front end of one DMA engine: the MMIO descriptor FIFO, chained-descriptor
// fetches (one 64-byte beat each), and validation. Descriptors leave in order, each
// with an error code (0 = run it); a chain is followed before the next FIFO entry.
// Validation is sequential (shift-add for the 2-D extent, restoring remainder for the
// record-width check, eight dividend bits per cycle) so it costs no multiplier or
// divider; a 1-D descriptor is checked in 6 cycles, and checks overlap the previous
// descriptor's data movement. For the 200 MHz clock every check's compare is taken from
// flags registered when the descriptor is loaded, the extent is accumulated onto
// addr + len - 1, and the remainder steps are table look-ups on precomputed byte residues.
`default_nettype none

module shell_desc_queue #(
    parameter integer IS_RX           = 0,    // 0: TX (uses SRC), 1: RX (uses DST)
    parameter integer RECORD_WORDS    = 1,    // 32-bit words per record on the stream side
    parameter integer DESC_FIFO_DEPTH = 16    // MMIO descriptor FIFO entries (power of two)
) (
    input  wire         clk,
    input  wire         rst,
    `include "dma_desc_ports.vh"
    // the MMIO descriptor FIFO
    output wire         push_overflow,       // push_valid while full: dropped
    output wire [7:0]   fifo_level,
    output wire         fifo_full,
    // validated descriptors
    output wire         m_valid,
    input  wire         m_ready,
    output wire [63:0]  m_addr,
    output wire [31:0]  m_len,
    output wire [31:0]  m_stride,
    output wire [31:0]  m_count,             // >= 1
    output wire [3:0]   m_ctrl,
    output wire [7:0]   m_err,               // ERR_* code, 0 = move the data
    output wire         m_nodata,            // pure chain jump: nothing to move
    // status
    output wire         busy,                // fetching, checking or holding a descriptor
    output wire         chaining
);
    `include "afushell_csr.vh"

    localparam integer FIFO_WIDTH = 64 + 32 + 32 + 32 + 64 + 4;
    localparam integer REC_POW2   = (RECORD_WORDS & (RECORD_WORDS - 1)) == 0 ? 1 : 0;
    localparam [31:0]  REC_MASK   = RECORD_WORDS - 1;     // words, when a power of two
    localparam integer CTRL_CHAIN = CSR_DMA_DESC_CTRL_CHAIN_LSB;  // from csr_map.json

    localparam [2:0] S_IDLE = 3'd0, S_FETCH = 3'd1, S_WAIT = 3'd2, S_CHECK = 3'd3,
                     S_LOOP = 3'd4, S_DONE = 3'd5, S_OUT = 3'd6;

    initial begin
        if (IS_RX != 0 && IS_RX != 1) begin
            $display("shell_desc_queue: IS_RX=%0d must be 0 or 1", IS_RX);
            $finish;
        end
        if (RECORD_WORDS < 1 || RECORD_WORDS > 16) begin
            $display("shell_desc_queue: RECORD_WORDS=%0d must be 1..16", RECORD_WORDS);
            $finish;
        end
    end

    // MMIO descriptor FIFO
    wire                  fifo_out_valid;
    reg                   fifo_pop;
    wire [FIFO_WIDTH-1:0] fifo_out;
    wire                  fifo_in_ready;
    wire [$clog2(DESC_FIFO_DEPTH):0] level;
    wire [63:0]           push_addr = IS_RX != 0 ? push_dst : push_src;

    shell_fifo #(.DATA_WIDTH(FIFO_WIDTH), .FIFO_DEPTH(DESC_FIFO_DEPTH)) fifo (
        .clk           (clk),
        .rst           (rst),
        .s_axis_tvalid (push_valid),
        .s_axis_tready (fifo_in_ready),
        .s_axis_tdata  ({push_ctrl, push_next, push_count, push_stride, push_len, push_addr}),
        .m_axis_tvalid (fifo_out_valid),
        .m_axis_tready (fifo_pop),
        .m_axis_tdata  (fifo_out),
        .level         (level)
    );
    assign push_overflow = push_valid && !fifo_in_ready;
    assign fifo_full     = !fifo_in_ready;
    assign fifo_level    = {{(7 - $clog2(DESC_FIFO_DEPTH)){1'b0}}, level};

    reg [2:0]  state_reg;
    reg [63:0] addr_reg, next_reg, chain_addr_reg;
    reg [31:0] len_reg, stride_reg, count_reg;
    reg [3:0]  ctrl_reg;
    reg [7:0]  err_reg;
    reg        chain_pending_reg;
    // sequential checks
    reg [64:0] end_reg;                  // addr + len - 1, then + stride * (count - 1)
    reg [63:0] mcand_reg;
    reg [31:0] mplier_reg;
    reg [15:0] bmod_reg;                 // (len / 4)'s bytes mod RECORD_WORDS, top first
    reg [3:0]  rem_reg;
    reg [5:0]  step_reg;
    // flags of the loaded descriptor: S_CHECK and S_DONE decide from these only
    reg        bad_len_reg, bad_align_reg, bad_next_reg, nodata_reg, count_gt1_reg;
    reg        rec_bad_reg, a_host_reg;
    reg [1:0]  a_region_reg;
    reg [31:0] len_m1_reg;

    wire [63:0] f_src    = fetch_resp_data[63:0];
    wire [63:0] f_dst    = fetch_resp_data[127:64];
    wire [63:0] f_addr   = IS_RX != 0 ? f_dst : f_src;

    function automatic [1:0] region(input [63:32] a);  // {valid, id}: id 0/1 = A/B, host = 11
        region = a[63] ? 2'b11 : (a[62:33] == 30'd0 ? {1'b1, a[32]} : 2'b00);
    endfunction

    // flags of a descriptor {ctrl, next, count, stride, len, addr} (the FIFO's layout):
    // {bad_len, bad_align, bad_next, nodata, count > 1, record misfit (2^n), host, region}
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [8:0] desc_flags(input [FIFO_WIDTH-1:0] d);
        reg [63:0] a, n;
        reg [31:0] len, str, cnt;
        reg        ch, gt1;
        begin
            {n, cnt, str, len, a} = d[223:0];
            ch  = d[224 + CTRL_CHAIN];
            gt1 = cnt[31:1] != 31'd0;   // > 1, without a carry chain
            desc_flags = {(len == 32'd0 && !ch) || len[1:0] != 2'b00,
                          a[1:0] != 2'b00 || (gt1 && str[1:0] != 2'b00) || (ch && n[5:0] != 6'd0),
                          ch && region(n[63:32]) == 2'b00,
                          len == 32'd0 && ch,
                          gt1,
                          (len[31:2] & REC_MASK[29:0]) != 30'd0,
                          a[63],
                          region(a[63:32])};
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // the descriptor about to be loaded: from the FIFO in S_IDLE, the fetch in S_WAIT; the
    // flags of both are computed and then selected, off the state decode's path
    wire                  ld_fetch = state_reg == S_WAIT;
    wire [FIFO_WIDTH-1:0] fetched  = {fetch_resp_data[323:256], fetch_resp_data[255:224],
                                      fetch_resp_data[223:192], fetch_resp_data[159:128], f_addr};
    wire [8:0]            ld_flags = ld_fetch ? desc_flags(fetched) : desc_flags(fifo_out);
    wire [31:0]           ld_len   = ld_fetch ? fetch_resp_data[159:128] : fifo_out[95:64];

    // non-host ranges: the end is in the same 8 GiB bank as the start
    wire [64:0] end_addr  = end_reg;
    wire        range_ok  = a_region_reg != 2'b00 && !end_addr[64]
                         && (a_host_reg ? end_addr[63]
                                        : (!end_addr[63] && end_addr[62:33] == 30'd0
                                           && end_addr[32] == a_region_reg[0]));
    wire        chain     = ctrl_reg[CTRL_CHAIN];
    wire        nodata    = len_reg == 32'd0 && chain;
    // (len / 4) mod RECORD_WORDS by Horner's rule on bytes, one byte per cycle: the byte's
    // residue comes from BYTE_TAB (in S_CHECK), each step from STEP_TAB, both 256 x 4-bit
    // constant look-ups (two LUT levels) instead of eight restoring steps in series
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [1023:0] rem_table(input integer step);
        integer i, r;
        begin
            for (i = 0; i < 256; i = i + 1) begin
                r = step != 0 ? ((i / 16) * 256 + i % 16) % RECORD_WORDS : i % RECORD_WORDS;
                rem_table[4*i +: 4] = r[3:0];
            end
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [1023:0] BYTE_TAB = rem_table(0);   // b -> b mod RECORD_WORDS
    localparam [1023:0] STEP_TAB = rem_table(1);   // {r, m} -> (256 r + m) mod RECORD_WORDS
    wire [31:0] dividend  = {2'b00, len_reg[31:2]};
    wire        div_fin   = REC_POW2 != 0 || step_reg >= 6'd3;   // this cycle ends the division
    wire        mul_fin   = mplier_reg[31:1] == 31'd0;            // ... and the multiplication

    // the flags follow every load of the descriptor registers (S_IDLE and S_WAIT)
    always @(posedge clk) begin
        if ((state_reg == S_IDLE && !chain_pending_reg && fifo_out_valid)
            || (state_reg == S_WAIT && fetch_resp_valid)) begin
            {bad_len_reg, bad_align_reg, bad_next_reg, nodata_reg, count_gt1_reg, rec_bad_reg,
             a_host_reg, a_region_reg} <= ld_flags;
            len_m1_reg    <= ld_len - 32'd1;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            state_reg         <= S_IDLE;
            chain_pending_reg <= 1'b0;
            err_reg           <= 8'd0;
        end else begin
            case (state_reg)
            S_IDLE:
                if (chain_pending_reg)
                    state_reg <= S_FETCH;
                else if (fifo_out_valid) begin
                    {ctrl_reg, next_reg, count_reg, stride_reg, len_reg, addr_reg} <= fifo_out;
                    state_reg <= S_CHECK;
                end
            S_FETCH:
                if (fetch_req_ready)
                    state_reg <= S_WAIT;
            S_WAIT:
                if (fetch_resp_valid) begin
                    addr_reg   <= f_addr;
                    len_reg    <= fetch_resp_data[159:128];
                    stride_reg <= fetch_resp_data[223:192];
                    count_reg  <= fetch_resp_data[255:224];
                    next_reg   <= fetch_resp_data[319:256];
                    ctrl_reg   <= fetch_resp_data[323:320];
                    chain_pending_reg <= 1'b0;
                    state_reg  <= S_CHECK;
                end
            S_CHECK: begin
                if (count_reg == 32'd0)
                    count_reg <= 32'd1;
                // len >= 4 whenever the extent is used (S_DONE)
                end_reg      <= {1'b0, addr_reg} + {33'd0, len_m1_reg};
                mcand_reg    <= {32'd0, stride_reg};
                mplier_reg   <= count_gt1_reg ? count_reg - 32'd1 : 32'd0;
                bmod_reg     <= {BYTE_TAB[4*dividend[31:24] +: 4], BYTE_TAB[4*dividend[23:16] +: 4],
                                 BYTE_TAB[4*dividend[15:8] +: 4], BYTE_TAB[4*dividend[7:0] +: 4]};
                rem_reg      <= 4'd0;
                step_reg     <= 6'd0;
                if (bad_len_reg) begin
                    err_reg   <= CSR_ERR_BAD_LENGTH[7:0];
                    state_reg <= S_OUT;
                end else if (bad_align_reg) begin
                    err_reg   <= CSR_ERR_BAD_ALIGN[7:0];
                    state_reg <= S_OUT;
                end else if (bad_next_reg) begin
                    err_reg   <= CSR_ERR_ADDR_RANGE[7:0];
                    state_reg <= S_OUT;
                end else if (nodata_reg) begin
                    err_reg   <= 8'd0;
                    state_reg <= S_OUT;
                end else begin
                    err_reg   <= 8'd0;
                    state_reg <= S_LOOP;
                end
            end
            S_LOOP: begin
                // 2-D extent: prod = stride * (count - 1)
                if (mplier_reg[0])
                    end_reg <= end_reg + {1'b0, mcand_reg};
                mcand_reg  <= mcand_reg << 1;
                mplier_reg <= mplier_reg >> 1;
                if (step_reg < 6'd4) begin
                    bmod_reg     <= bmod_reg << 4;
                    rem_reg      <= STEP_TAB[4*{rem_reg, bmod_reg[15:12]} +: 4];
                    step_reg     <= step_reg + 6'd1;
                end
                if (div_fin && mul_fin)
                    state_reg <= S_DONE;
            end
            S_DONE: begin
                if ((REC_POW2 != 0 ? rec_bad_reg : rem_reg != 4'd0))
                    err_reg <= CSR_ERR_RECORD_WIDTH[7:0];
                else if (!range_ok)
                    err_reg <= CSR_ERR_ADDR_RANGE[7:0];
                state_reg <= S_OUT;
            end
            S_OUT:
                if (m_ready) begin
                    if (chain && err_reg == 8'd0) begin
                        chain_pending_reg <= 1'b1;
                        chain_addr_reg    <= next_reg;
                    end
                    state_reg <= S_IDLE;
                end
            default:
                state_reg <= S_IDLE;
            endcase
        end
    end

    always @* fifo_pop = state_reg == S_IDLE && !chain_pending_reg;

    assign fetch_req_valid = state_reg == S_FETCH;
    assign fetch_req_addr  = chain_addr_reg;
    assign m_valid  = state_reg == S_OUT;
    assign m_addr   = addr_reg;
    assign m_len    = len_reg;
    assign m_stride = stride_reg;
    assign m_count  = count_reg;
    assign m_ctrl   = ctrl_reg;
    assign m_err    = err_reg;
    assign m_nodata = nodata;
    assign busy     = state_reg != S_IDLE || chain_pending_reg;
    assign chaining = chain_pending_reg || state_reg == S_FETCH || state_reg == S_WAIT;

    wire unused_ok = &{1'b0, end_addr[31:0], fetch_resp_data[511:324], fetch_resp_data[191:160], f_src[0], f_dst[0]};
endmodule

`default_nettype wire
