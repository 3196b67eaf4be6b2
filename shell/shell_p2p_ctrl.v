// Card-initiated DMA controller (P2P_* registers): from a pattern staged once, it builds
// each transfer's descriptor pair on the card and issues it through the fabric descriptor
// port, the next one when the previous has completed. COUNT 1 is register-mode DMA: the
// descriptor written straight into registers, no descriptor fetch. Each transfer is
// checked here first, so a bad one never reaches the engines (whose errors would reset the
// host's transfers too). Reads answer one cycle later, as shell_csr's; outside its window
// it answers 0, so afu_top ORs the two responses.
`default_nettype none

module shell_p2p_ctrl #(
    parameter integer N_CORES      = 0,   // cores on the stream (0 = loop-back)
    parameter integer IN_WORDS     = 1,   // record words at the core input
    parameter integer OUT_WORDS    = 1    // ... and output
) (
    `include "mmio_ports.vh"
    output reg  [63:0]  mmio_rd_resp_data,
    // fabric descriptor port (shell_fabric_desc)
    output wire         m_desc_valid,
    input  wire         m_desc_ready,
    output wire [63:0]  m_desc_src,
    output wire [63:0]  m_desc_dst,
    output wire [31:0]  m_desc_len,
    input  wire         s_done,
    input  wire         s_aborted,
    // to logic on the card: a transfer / the sequence completed
    output wire         xfer_done,
    output wire         seq_done
);
    `include "afushell_csr.vh"

    // transfers through cores need whole records on both sides, checked here by a mask
    localparam integer REC_BYTES = 4 * IN_WORDS;
    localparam integer REC_OK    = (N_CORES == 0 ||
                                    (IN_WORDS == OUT_WORDS && (IN_WORDS & (IN_WORDS - 1)) == 0)) ? 1 : 0;

    wire [17:0] wa = {mmio_wr_addr[17:3], 3'b000};
    wire [17:0] ra = {mmio_rd_addr[17:3], 3'b000};
    wire [63:0] wd = mmio_wr_data;
    wire        wr = mmio_wr_valid;

    reg [63:0] src_reg, dst_reg, step_reg, cycles_reg;
    reg [31:0] len_reg, count_reg;
    reg [31:0] len_m1_reg;           // LEN - 1, written with LEN
    reg [63:0] cur_src_reg, cur_dst_reg;
    reg [31:0] left_reg, done_count_reg;
    reg        busy_reg, issued_reg, dropped_reg, abort_reg;
    reg [7:0]  err_reg;
    // running counts instead of start stamps: no 64-bit subtractors
    reg [31:0] xfer_cnt_reg, last_cycles_reg;
    reg [63:0] seq_cnt_reg, seq_cycles_reg, end_cycle_reg, wait_reg;

    wire go    = wr && wa == CSR_P2P_CTRL_ADDR && wd[CSR_P2P_CTRL_GO_LSB];
    wire abort = wr && wa == CSR_P2P_CTRL_ADDR && wd[CSR_P2P_CTRL_ABORT_LSB];

    // checks of the transfer about to be issued, as the engines' own
    // [a, a + len - 1] in one region (the engines' rule), from lm1 = len - 1 (len >= 1): a
    // card address (a < 2^33) stays in its 4 GiB bank unless a[31:0] + lm1 carries out of
    // bit 31; a host address (bit 63) is in range unless the sum passes 2^64. One 32-bit
    // carry instead of a 65-bit three-operand sum and region compares behind it.
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic in_range(input [63:0] a, input [31:0] lm1);
        reg [32:0] low;
        begin
            low = {1'b0, a[31:0]} + {1'b0, lm1};
            in_range = a[63] ? !(a[62:32] == 31'h7fffffff && low[32])
                             : (a[62:33] == 30'd0 && !low[32]);
        end
    endfunction
    // the failed checks {length, alignment, range, record width}, each on its own
    function automatic [3:0] check_of(input [63:0] src, input [63:0] dst, input [31:0] len,
                                      input [31:0] lm1, input [63:0] step);
        check_of = {len == 32'd0 || len[1:0] != 2'd0,
                    src[1:0] != 2'd0 || dst[1:0] != 2'd0 || step[1:0] != 2'd0 || step[33:32] != 2'd0,
                    !in_range(src, lm1) || !in_range(dst, lm1),
                    REC_OK == 0 || (N_CORES != 0 && (len & (REC_BYTES[31:0] - 32'd1)) != 32'd0)};
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // ... and the error code of the first of them
    function automatic [7:0] err_of(input [3:0] f);
        err_of = f[3] ? CSR_ERR_BAD_LENGTH[7:0] : f[2] ? CSR_ERR_BAD_ALIGN[7:0] :
                 f[1] ? CSR_ERR_ADDR_RANGE[7:0] : f[0] ? CSR_ERR_RECORD_WIDTH[7:0] : CSR_ERR_NONE[7:0];
    endfunction
    // The check of the transfer about to be issued comes from registers (two adders and the
    // range compares are too deep for one cycle in front of the issue): the pattern's
    // registers do not change while busy, so check_of(SRC, DST) registered every cycle is
    // the first transfer's; the next transfer's addresses (current + STEP) and their check
    // are registered every cycle too, and are settled when its predecessor completes (the
    // completion comes two cycles after the issue at the earliest), where they are taken.
    reg  [3:0]  chk_first_reg, chk_next_reg, chk_cur_reg;
    reg  [63:0] nxt_src_reg, nxt_dst_reg;
    reg         first_reg;
    wire [3:0]  failed = first_reg ? chk_first_reg : chk_cur_reg;
    wire [7:0]  check  = err_of(failed);
    always @(posedge clk) begin
        chk_first_reg <= check_of(src_reg, dst_reg, len_reg, len_m1_reg, step_reg);
        nxt_src_reg   <= cur_src_reg + {32'd0, step_reg[31:0]};
        nxt_dst_reg   <= cur_dst_reg + {32'd0, step_reg[63:32]};
        chk_next_reg  <= check_of(nxt_src_reg, nxt_dst_reg, len_reg, len_m1_reg, step_reg);
    end

    assign m_desc_valid = busy_reg && !issued_reg && !abort_reg && failed == 4'd0;
    assign m_desc_src   = cur_src_reg;
    assign m_desc_dst   = cur_dst_reg;
    assign m_desc_len   = len_reg;
    wire   fire         = m_desc_valid && m_desc_ready;
    wire   last_done    = s_done && left_reg == 32'd1;
    assign xfer_done    = s_done && !s_aborted;
    wire   stop_now     = busy_reg && !issued_reg && (abort_reg || failed != 4'd0);
    assign seq_done     = (busy_reg && s_done && (last_done || s_aborted)) || stop_now;

    always @(posedge clk) begin
        if (rst) begin
            src_reg <= 64'd0; dst_reg <= 64'd0; len_reg <= 32'd0; count_reg <= 32'd0;
            len_m1_reg <= 32'hffffffff;
            step_reg <= 64'd0; cycles_reg <= 64'd0;
            cur_src_reg <= 64'd0; cur_dst_reg <= 64'd0; left_reg <= 32'd0;
            done_count_reg <= 32'd0; busy_reg <= 1'b0; issued_reg <= 1'b0;
            first_reg <= 1'b1; chk_cur_reg <= 4'd0;
            dropped_reg <= 1'b0; abort_reg <= 1'b0; err_reg <= 8'd0;
            xfer_cnt_reg <= 32'd0; last_cycles_reg <= 32'd0; seq_cnt_reg <= 64'd0;
            seq_cycles_reg <= 64'd0; end_cycle_reg <= 64'd0; wait_reg <= 64'd0;
        end else begin
            cycles_reg   <= cycles_reg + 64'd1;
            seq_cnt_reg  <= seq_cnt_reg + 64'd1;
            xfer_cnt_reg <= xfer_cnt_reg + 32'd1;
            if (wr && !busy_reg) begin
                if (wa == CSR_P2P_SRC_ADDR)     src_reg   <= wd;
                if (wa == CSR_P2P_DST_ADDR)     dst_reg   <= wd;
                if (wa == CSR_P2P_LEN_ADDR)     len_reg   <= wd[31:0];
                if (wa == CSR_P2P_LEN_ADDR)     len_m1_reg <= wd[31:0] - 32'd1;
                if (wa == CSR_P2P_PATTERN_ADDR) count_reg <= wd[31:0];
                if (wa == CSR_P2P_STEP_ADDR)    step_reg  <= wd;
            end
            if (go && busy_reg) dropped_reg <= 1'b1;
            if (go && !busy_reg) begin
                busy_reg     <= 1'b1;
                issued_reg   <= 1'b0;
                abort_reg    <= 1'b0;
                dropped_reg  <= 1'b0;
                err_reg      <= 8'd0;
                cur_src_reg  <= src_reg;
                cur_dst_reg  <= dst_reg;
                first_reg    <= 1'b1;
                left_reg     <= count_reg == 32'd0 ? 32'd1 : count_reg;
                seq_cnt_reg  <= 64'd1;
                wait_reg     <= 64'd0;
            end
            if (abort && busy_reg) abort_reg <= 1'b1;
            if (m_desc_valid && !m_desc_ready) wait_reg <= wait_reg + 64'd1;
            if (fire) begin
                issued_reg   <= 1'b1;
                xfer_cnt_reg <= 32'd1;
            end
            if (stop_now) begin
                busy_reg       <= 1'b0;
                err_reg        <= abort_reg ? 8'd0 : check;
                seq_cycles_reg <= seq_cnt_reg;
                end_cycle_reg  <= cycles_reg;
            end
            if (busy_reg && issued_reg && s_done) begin
                issued_reg      <= 1'b0;
                last_cycles_reg <= xfer_cnt_reg;
                if (!s_aborted) done_count_reg <= done_count_reg + 32'd1;
                left_reg        <= left_reg - 32'd1;
                cur_src_reg     <= cur_src_reg + {32'd0, step_reg[31:0]};
                cur_dst_reg     <= cur_dst_reg + {32'd0, step_reg[63:32]};
                first_reg       <= 1'b0;
                chk_cur_reg     <= chk_next_reg;
                if (last_done || s_aborted) begin
                    busy_reg       <= 1'b0;
                    seq_cycles_reg <= seq_cnt_reg;
                    end_cycle_reg  <= cycles_reg;
                end
            end
        end
    end

    reg [63:0] rd_data;
    always @* begin
        rd_data = 64'd0;
        case (ra)
        CSR_P2P_SRC_ADDR:         rd_data = src_reg;
        CSR_P2P_DST_ADDR:         rd_data = dst_reg;
        CSR_P2P_LEN_ADDR:         rd_data = {32'd0, len_reg};
        CSR_P2P_PATTERN_ADDR:     rd_data = {32'd0, count_reg};
        CSR_P2P_STEP_ADDR:        rd_data = step_reg;
        CSR_P2P_STATUS_ADDR:      rd_data = {done_count_reg, 16'd0, err_reg, 6'd0, dropped_reg, busy_reg};
        CSR_P2P_LAST_CYCLES_ADDR: rd_data = {32'd0, last_cycles_reg};
        CSR_P2P_SEQ_CYCLES_ADDR:  rd_data = seq_cycles_reg;
        CSR_P2P_END_CYCLE_ADDR:   rd_data = end_cycle_reg;
        CSR_P2P_WAIT_CYCLES_ADDR: rd_data = wait_reg;
        default:                  rd_data = 64'd0;
        endcase
    end

    always @(posedge clk) begin
        if (rst) mmio_rd_resp_data <= 64'd0;
        else if (mmio_rd_valid) mmio_rd_resp_data <= rd_data;
    end

    wire unused_ok = &{1'b0, mmio_wr_addr[2:0], mmio_rd_addr[2:0]};
endmodule

`default_nettype wire
