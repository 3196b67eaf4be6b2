// Completion and error bookkeeping of one DMA engine: done count, first-error latch,
// byte and busy-cycle counters, and the interrupt request pulse.
`default_nettype none

module shell_dma_status (
    input  wire         clk,
    input  wire         rst,
    // events
    input  wire         done_pulse,      // a descriptor finished (data, jump or failure)
    input  wire         done_irq,        // ... and it asked for an interrupt
    input  wire         err_a_pulse,     // a descriptor failed
    input  wire [7:0]   err_a_code,
    input  wire         err_b_pulse,     // a push overflowed the FIFO
    input  wire [7:0]   err_b_code,
    input  wire         err_clear,       // host wrote ERROR
    input  wire [6:0]   bytes_inc,       // bytes moved this cycle
    input  wire         busy,
    // registers
    output reg  [31:0]  done_count,
    output reg  [7:0]   err_code,
    output reg  [7:0]   err_count,
    output reg  [31:0]  err_seq,
    output reg  [63:0]  bytes,
    output reg  [63:0]  busy_cycles,
    output wire         irq_pulse
);
    wire [1:0] n_err   = {1'b0, err_a_pulse} + {1'b0, err_b_pulse};
    wire [8:0] cnt_sum = {1'b0, err_count} + {7'd0, n_err};

    assign irq_pulse = (done_pulse && done_irq) || err_a_pulse || err_b_pulse;

    always @(posedge clk) begin
        if (rst) begin
            done_count  <= 32'd0;
            err_code    <= 8'd0;
            err_count   <= 8'd0;
            err_seq     <= 32'd0;
            bytes       <= 64'd0;
            busy_cycles <= 64'd0;
        end else begin
            if (done_pulse)
                done_count <= done_count + 32'd1;
            bytes <= bytes + {57'd0, bytes_inc};
            if (busy)
                busy_cycles <= busy_cycles + 64'd1;
            if (err_clear) begin
                err_code  <= 8'd0;
                err_count <= 8'd0;
                err_seq   <= 32'd0;
            end else if (n_err != 2'd0) begin
                err_count <= cnt_sum[8] ? 8'hff : cnt_sum[7:0];
                if (err_code == 8'd0) begin
                    err_code <= err_a_pulse ? err_a_code : err_b_code;
                    err_seq  <= done_count;
                end
            end
        end
    end
endmodule

`default_nettype wire
