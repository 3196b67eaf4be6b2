// Descriptor port from the fabric: logic on the card (shell_p2p_ctrl, or a core's output)
// issues TX/RX descriptor pairs to the DMA engines beside the host's MMIO descriptors.
// A fabric pair enters only while both engines are idle and the host has not pushed for
// QUIET_CYCLES, so it is the next descriptor each engine finishes: the port knows its own
// completions without tagging descriptors, hides them from the engines' STATUS.DONE_COUNT
// (the host runtime counts its own descriptors there) and reports them on m_done. A core
// run owns the stream (its element count and last flag): no pair enters while one is armed
// or running.
`default_nettype none

module shell_fabric_desc #(
    parameter integer QUIET_CYCLES = 4   // cycles after a host push before the port may push
) (
    input  wire         clk,
    input  wire         rst,                 // datapath reset (also SOFT_RESET)
    // host descriptors from the CSR block
    input  wire         host_tx_push,
    input  wire         host_rx_push,
    input  wire [63:0]  host_src,
    input  wire [63:0]  host_dst,
    input  wire [31:0]  host_len,
    input  wire [31:0]  host_stride,
    input  wire [31:0]  host_count,
    input  wire [63:0]  host_next,
    input  wire [3:0]   host_ctrl,
    input  wire         run_active,          // a core run is armed or running: it owns the stream
    input  wire         tx_srst,             // an engine's CONTROL.RESET clears its DONE_COUNT
    input  wire         rx_srst,
    // fabric descriptor port: one 1-D transfer SRC -> stream -> DST as one packet
    input  wire         s_desc_valid,
    output wire         s_desc_ready,
    input  wire [63:0]  s_desc_src,
    input  wire [63:0]  s_desc_dst,
    input  wire [31:0]  s_desc_len,
    output reg          m_done,              // pulse: the fabric pair's last byte is written
    output reg          m_aborted,           // with m_done: an engine reset dropped it
    // to the engines
    `include "dma_push_ports.vh"
    // engine status: raw in, with the fabric's completions taken out for the CSR block
    input  wire [63:0]  tx_status,
    input  wire [63:0]  rx_status,
    output wire [63:0]  tx_status_host,
    output wire [63:0]  rx_status_host
);
    localparam [3:0] CTRL_PACKET = 4'b0011;   // {CHAIN, IRQ, EOP, SOP}: one packet, no irq

    initial begin
        if (QUIET_CYCLES < 2 || QUIET_CYCLES > 15) begin
            $display("shell_fabric_desc: QUIET_CYCLES=%0d must be 2..15", QUIET_CYCLES);
            $finish;
        end
    end

    wire host_push = host_tx_push || host_rx_push;
    reg  [3:0]  quiet_reg;
    reg         run_reg, tx_pend_reg, rx_pend_reg;
    reg  [31:0] tx_prev_reg, rx_prev_reg, tx_fab_reg, rx_fab_reg;  // prev: DONE_COUNT + 1
    wire [31:0] tx_done = tx_status[63:32], rx_done = rx_status[63:32];
    wire        idle = !tx_status[0] && !rx_status[0];

    assign s_desc_ready = !run_reg && !host_push && quiet_reg == 4'd0 && idle && !run_active
                          && !tx_srst && !rx_srst;
    wire   fab_push     = s_desc_valid && s_desc_ready;

    assign tx_push     = host_tx_push || fab_push;
    assign rx_push     = host_rx_push || fab_push;
    assign push_src    = fab_push ? s_desc_src : host_src;
    assign push_dst    = fab_push ? s_desc_dst : host_dst;
    assign push_len    = fab_push ? s_desc_len : host_len;
    assign push_stride = fab_push ? 32'd0 : host_stride;
    assign push_count  = fab_push ? 32'd0 : host_count;
    assign push_next   = fab_push ? 64'd0 : host_next;
    assign push_ctrl   = fab_push ? CTRL_PACKET : host_ctrl;

    // an increment of DONE_COUNT (a reset to 0 is not one); the previous count + 1 is
    // registered, so only the equality is in front of the run's control
    wire tx_inc = tx_done == tx_prev_reg;
    wire rx_inc = rx_done == rx_prev_reg;
    wire tx_mine = run_reg && tx_pend_reg && tx_inc;
    wire rx_mine = run_reg && rx_pend_reg && rx_inc;

    assign tx_status_host = {tx_done - tx_fab_reg, tx_status[31:0]};
    assign rx_status_host = {rx_done - rx_fab_reg, rx_status[31:0]};

    always @(posedge clk) begin
        if (rst) begin
            quiet_reg   <= 4'd0;
            run_reg     <= 1'b0;
            tx_pend_reg <= 1'b0;
            rx_pend_reg <= 1'b0;
            tx_prev_reg <= 32'd1;
            rx_prev_reg <= 32'd1;
            tx_fab_reg  <= 32'd0;
            rx_fab_reg  <= 32'd0;
            m_done      <= 1'b0;
            m_aborted   <= 1'b0;
        end else begin
            tx_prev_reg <= tx_done + 32'd1;
            rx_prev_reg <= rx_done + 32'd1;
            quiet_reg   <= host_push ? QUIET_CYCLES[3:0] : (quiet_reg != 4'd0 ? quiet_reg - 4'd1 : 4'd0);
            m_done      <= 1'b0;
            m_aborted   <= 1'b0;
            if (tx_srst) tx_fab_reg <= 32'd0;
            else if (tx_mine) tx_fab_reg <= tx_fab_reg + 32'd1;
            if (rx_srst) rx_fab_reg <= 32'd0;
            else if (rx_mine) rx_fab_reg <= rx_fab_reg + 32'd1;
            if (fab_push) begin
                run_reg     <= 1'b1;
                tx_pend_reg <= 1'b1;
                rx_pend_reg <= 1'b1;
            end else if (run_reg && (tx_srst || rx_srst)) begin
                run_reg   <= 1'b0;
                m_done    <= 1'b1;
                m_aborted <= 1'b1;
            end else if (run_reg) begin
                if (tx_mine) tx_pend_reg <= 1'b0;
                if (rx_mine) rx_pend_reg <= 1'b0;
                if ((!tx_pend_reg || tx_mine) && (!rx_pend_reg || rx_mine)) begin
                    run_reg <= 1'b0;
                    m_done  <= 1'b1;
                end
            end
        end
    end
endmodule

`default_nettype wire
