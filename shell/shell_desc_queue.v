// Descriptor front end of one DMA engine: the MMIO descriptor FIFO, chained-descriptor
// fetches (one 64-byte beat each), and validation. Descriptors leave in order, each
// with an error code (0 = run it); a chain is followed before the next FIFO entry.
// Validation is sequential (shift-add for the 2-D extent, restoring remainder for the
// record-width check, eight dividend bits per cycle) so it costs no multiplier or
// divider; a 1-D descriptor is checked in 6 cycles, and checks overlap the previous
// descriptor's data movement.
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
    localparam [5:0]   REC_WORDS6 = RECORD_WORDS[5:0];
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
    reg [63:0] prod_reg, mcand_reg;
    reg [31:0] mplier_reg;
    reg [31:0] dividend_reg;
    reg [5:0]  rem_reg;
    reg [5:0]  step_reg;

    wire [63:0] f_src    = fetch_resp_data[63:0];
    wire [63:0] f_dst    = fetch_resp_data[127:64];
    wire [63:0] f_addr   = IS_RX != 0 ? f_dst : f_src;

    function automatic [1:0] region(input [63:32] a);  // {valid, id}: id 0/1 = A/B, host = 11
        region = a[63] ? 2'b11 : (a[62:33] == 30'd0 ? {1'b1, a[32]} : 2'b00);
    endfunction

    wire [64:0] end_addr  = {1'b0, addr_reg} + {1'b0, prod_reg} + {33'd0, len_reg} - 65'd1;
    wire        range_ok  = region(addr_reg[63:32]) != 2'b00 && !end_addr[64]
                         && (addr_reg[63] ? end_addr[63]
                                          : (region(end_addr[63:32]) == region(addr_reg[63:32])));
    wire        next_ok   = region(next_reg[63:32]) != 2'b00;
    wire        chain     = ctrl_reg[CTRL_CHAIN];
    wire        nodata    = len_reg == 32'd0 && chain;
    // (len / 4) mod RECORD_WORDS: eight restoring-remainder steps per cycle, four cycles
    function automatic [5:0] rem_step8(input [5:0] r_in, input [7:0] bits);
        integer i;
        reg [5:0] r, t;
        begin
            r = r_in;
            for (i = 7; i >= 0; i = i - 1) begin
                t = {r[4:0], bits[i]};
                r = t >= REC_WORDS6 ? t - REC_WORDS6 : t;
            end
            rem_step8 = r;
        end
    endfunction
    wire        div_fin   = REC_POW2 != 0 || step_reg >= 6'd3;   // this cycle ends the division
    wire        mul_fin   = mplier_reg[31:1] == 31'd0;            // ... and the multiplication

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
                prod_reg     <= 64'd0;
                mcand_reg    <= {32'd0, stride_reg};
                mplier_reg   <= count_reg > 32'd1 ? count_reg - 32'd1 : 32'd0;
                dividend_reg <= {2'b00, len_reg[31:2]};
                rem_reg      <= 6'd0;
                step_reg     <= 6'd0;
                if (len_reg == 32'd0 && !chain || len_reg[1:0] != 2'b00) begin
                    err_reg   <= CSR_ERR_BAD_LENGTH[7:0];
                    state_reg <= S_OUT;
                end else if (addr_reg[1:0] != 2'b00 || (count_reg > 32'd1 && stride_reg[1:0] != 2'b00)
                             || (chain && next_reg[5:0] != 6'd0)) begin
                    err_reg   <= CSR_ERR_BAD_ALIGN[7:0];
                    state_reg <= S_OUT;
                end else if (chain && !next_ok) begin
                    err_reg   <= CSR_ERR_ADDR_RANGE[7:0];
                    state_reg <= S_OUT;
                end else if (nodata) begin
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
                    prod_reg <= prod_reg + mcand_reg;
                mcand_reg  <= mcand_reg << 1;
                mplier_reg <= mplier_reg >> 1;
                if (step_reg < 6'd4) begin
                    dividend_reg <= dividend_reg << 8;
                    rem_reg      <= rem_step8(rem_reg, dividend_reg[31:24]);
                    step_reg     <= step_reg + 6'd1;
                end
                if (div_fin && mul_fin)
                    state_reg <= S_DONE;
            end
            S_DONE: begin
                if ((REC_POW2 != 0 ? (len_reg[31:2] & REC_MASK[29:0]) != 30'd0 : rem_reg != 6'd0))
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
