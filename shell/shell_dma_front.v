// Descriptor front end and status of one DMA engine (shell_tx_dma, shell_rx_dma): the
// descriptor queue (shell_desc_queue), the hand-over of a descriptor to the engine's
// state machine, the completion of descriptors that move no data, the in-packet flag and
// the STATUS / ERROR registers (shell_dma_status). Both engines take descriptors and
// report completions the same way; only what moves the data differs.
`default_nettype none

module shell_dma_front #(
    parameter integer IS_RX           = 0,     // 0: TX (descriptors' SRC), 1: RX (their DST)
    parameter integer RECORD_WORDS    = 1,     // stream record width in words (length check)
    parameter integer DESC_FIFO_DEPTH = 16     // MMIO descriptor FIFO entries
) (
    input  wire         clk,
    input  wire         rst,                // the engine's reset (hard or engine reset)
    `include "dma_desc_ports.vh"
    `include "dma_status_ports.vh"
    // the engine's state machine
    input  wire         idle,               // waits for a descriptor
    input  wire         drained,            // no earlier descriptor's data still in the engine
    output wire         take,               // a descriptor to run is taken: the fields below
    output wire [63:0]  d_addr,
    output wire [31:0]  d_len,
    output wire [31:0]  d_stride,
    output wire [31:0]  d_count,
    output wire [3:0]   d_ctrl,
    output wire         none_queued,        // no descriptor held, fetched, checked or queued
    // the engine's data side
    input  wire         end_pulse,          // a descriptor's last data moved
    input  wire         end_irq,            // ... and it asked for an interrupt
    input  wire         end_err,            // ... and its last flag was misplaced (RX)
    input  wire         pkt_end,            // the packet's last data moved: in-packet ends
    input  wire [6:0]   bytes_inc           // bytes moved this cycle
);
    `include "afushell_csr.vh"
    localparam integer CTRL_SOP = CSR_DMA_DESC_CTRL_SOP_LSB, CTRL_IRQ = CSR_DMA_DESC_CTRL_IRQ_LSB;

    wire        q_valid, q_nodata, q_busy, q_chaining, q_overflow, q_full;
    wire [7:0]  q_err, q_level;
    // a failed descriptor or a pure jump completes only after the earlier data, keeping
    // DONE_COUNT in order
    wire q_skip    = q_err != 8'd0 || q_nodata;
    wire skip_done = idle && q_valid && q_skip && drained;
    assign take = idle && q_valid && !q_skip;
    assign none_queued = !q_valid && !q_busy && q_level == 8'd0;

    shell_desc_queue #(.IS_RX(IS_RX), .RECORD_WORDS(RECORD_WORDS), .DESC_FIFO_DEPTH(DESC_FIFO_DEPTH)) queue (
        .clk (clk), .rst (rst),
        .push_valid (push_valid), .push_src (push_src), .push_dst (push_dst), .push_len (push_len),
        .push_stride (push_stride), .push_count (push_count), .push_next (push_next),
        .push_ctrl (push_ctrl), .push_overflow (q_overflow), .fifo_level (q_level), .fifo_full (q_full),
        .fetch_req_valid (fetch_req_valid), .fetch_req_ready (fetch_req_ready),
        .fetch_req_addr (fetch_req_addr), .fetch_resp_valid (fetch_resp_valid),
        .fetch_resp_data (fetch_resp_data),
        .m_valid (q_valid), .m_ready (take || skip_done), .m_addr (d_addr), .m_len (d_len),
        .m_stride (d_stride), .m_count (d_count), .m_ctrl (d_ctrl), .m_err (q_err),
        .m_nodata (q_nodata), .busy (q_busy), .chaining (q_chaining)
    );

    reg  in_packet_reg;
    always @(posedge clk) begin
        if (rst)
            in_packet_reg <= 1'b0;
        else if (take && d_ctrl[CTRL_SOP])
            in_packet_reg <= 1'b1;
        else if (pkt_end)
            in_packet_reg <= 1'b0;
    end

    wire [31:0] done_count, err_seq;
    wire [7:0]  err_code, err_count;
    wire busy = q_busy || q_level != 8'd0 || !idle || !drained;

    shell_dma_status stat (
        .clk (clk), .rst (rst),
        .done_pulse (end_pulse || skip_done), .done_irq (end_pulse ? end_irq : d_ctrl[CTRL_IRQ]),
        .err_a_pulse ((skip_done && q_err != 8'd0) || end_err),
        .err_a_code (end_err ? CSR_ERR_LAST_MISMATCH[7:0] : q_err),
        .err_b_pulse (q_overflow), .err_b_code (CSR_ERR_FIFO_OVERFLOW[7:0]),
        .err_clear (err_clear), .bytes_inc (bytes_inc), .busy (busy),
        .done_count (done_count), .err_code (err_code), .err_count (err_count), .err_seq (err_seq),
        .bytes (bytes), .busy_cycles (busy_cycles), .irq_pulse (irq_pulse)
    );

    assign status = {done_count, 16'd0, q_level, 2'b00, in_packet_reg, err_code != 8'd0,
                     q_chaining, q_level == 8'd0, q_full, busy};
    assign error  = {err_seq, 16'd0, err_count, err_code};

    initial begin
        if (IS_RX != 0 && IS_RX != 1) begin
            $display("shell_dma_front: IS_RX=%0d must be 0 or 1", IS_RX);
            $finish;
        end
    end
endmodule

`default_nettype wire
