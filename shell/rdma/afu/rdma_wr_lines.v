// The wide RDMA engine's 64-byte line writes (with byte enables) joined into multi-beat
// Avalon-MM bursts of up to BURST lines; the word engine's writes come through it too, each
// word a line write with four byte enables (rdma_wr_coalesce). A write to the line being
// gathered merges into it (its byte enables OR-ed: the engine writes a partial line at a
// packet's end only when the next packet of another stream comes first, and the
// rest of that line later); a write to the next line continues the burst once the current
// line is complete; anything else, a full burst, or `flush` closes the burst, which goes to
// the issuer and leaves while the next one gathers. `pending` stays high while any accepted
// line has not been accepted by the memory: the engine raises `flush` at the end of a stream
// and reports the data as written (DONE, a get's completion) only once `pending` is low.
//
// Pipelined for the card's clock: a write waits in a two-line queue (wr_waitrequest from a
// register) that compares its line with the line written before it (the same, the next) as it
// comes in, so a cycle's decisions (close the burst, take the head) are a few LUTs behind
// registers; the gathered lines' data and the copy of a closed burst to the issuer follow a
// cycle after their decision (op_*), and the issuer starts with the copy.
`default_nettype none
module rdma_wr_lines #(
    parameter integer BURST = 4  // lines per burst (power of 2, 1..64)
) (
    input  wire [511:0] wr_writedata,   // a line at wr_address (64-byte aligned)
    input  wire [63:0]  wr_byteenable,
    `include "rdma_wr_burst_ports.vh"
);
    localparam integer BW = BURST > 1 ? $clog2(BURST) : 1;

    // the input queue, entry 0 its head: a line, its byte enables all set, its line the same as
    // the write's before it or the next one
    reg  [1:0]    q_n_reg;
    reg  [57:0]   q_line_reg [0:1];
    reg  [511:0]  q_data_reg [0:1];
    reg  [63:0]   q_be_reg [0:1];
    reg  [1:0]    q_all_reg, q_same_reg, q_next_reg;
    reg  [57:0]   last_line_reg, last_next_reg;  // the last write's line, and the one after
    // the burst being gathered: what the decisions read, updated with them ...
    reg           g_valid_reg;
    reg  [57:0]   g_line_reg;            // its first line
    reg  [BW:0]   g_idx_reg;             // the line being filled
    reg           g_last_reg;            // ... is the burst's last
    reg  [63:0]   g_cur_be_reg;          // ... its byte enables
    reg           g_cur_full_reg;        // ... all set
    // ... and its lines, written a cycle later
    reg  [511:0]  g_data_reg [0:BURST-1];
    reg  [63:0]   g_be_reg [0:BURST-1];
    reg           op_take_reg, op_close_reg, op_merge_reg;
    reg  [BW-1:0] op_idx_reg;
    reg  [511:0]  op_data_reg;
    reg  [63:0]   op_be_reg;
    // the burst being issued
    reg           i_valid_reg;
    reg  [57:0]   i_line_reg;
    reg  [BW:0]   i_n_reg, i_beat_reg;
    reg           i_lastbeat_reg;        // i_beat_reg is the burst's last beat
    reg  [511:0]  i_data_reg [0:BURST-1];
    reg  [63:0]   i_be_reg [0:BURST-1];

    wire [57:0]   w_line = wr_address[63:6];
    /* verilator lint_off UNUSEDSIGNAL */
    wire          unused_ok = &{1'b0, wr_address[5:0]};  // line-aligned
    /* verilator lint_on UNUSEDSIGNAL */
    wire          h_valid = q_n_reg != 2'd0;
    wire          same_line = g_valid_reg && q_same_reg[0];
    wire          next_line = g_valid_reg && g_cur_full_reg && !g_last_reg && q_next_reg[0];
    wire          fits = !g_valid_reg || same_line || next_line;
    wire          burst_done = g_valid_reg && g_last_reg && g_cur_full_reg;
    wire          want_close = g_valid_reg && ((h_valid && !fits) || burst_done || flush);
    // In the cycle after a close the burst's lines are still in the gather registers (they are
    // copied to the issuer at its end), so its first beat is read from there: bursts of
    // consecutive lines leave back to back, a line a cycle.
    assign avm_write = i_valid_reg;
    wire          i_free = !i_valid_reg || (avm_write && i_lastbeat_reg && !avm_waitrequest);
    wire          close = want_close && i_free;
    wire          take = h_valid && (fits || close);
    assign wr_waitrequest = q_n_reg == 2'd2;
    wire          push = wr_write && !wr_waitrequest;
    assign pending = h_valid || g_valid_reg || i_valid_reg;

    assign avm_address = {i_line_reg, 6'd0};
    assign avm_burstcount = {{7-BW{1'b0}}, i_n_reg};
    assign avm_writedata = op_close_reg ? g_data_reg[0] : i_data_reg[i_beat_reg[BW-1:0]];
    assign avm_byteenable = op_close_reg ? g_be_reg[0] : i_be_reg[i_beat_reg[BW-1:0]];

    // a line merged into what the gathered line holds, byte by byte
    function automatic [511:0] merge(input [511:0] old, input [511:0] new_data, input [63:0] be);
        integer b;
        for (b = 0; b < 64; b = b + 1) merge[8 * b +: 8] = be[b] ? new_data[8 * b +: 8] : old[8 * b +: 8];
    endfunction

    // the incoming write's entry: entry 0 if the queue is empty after this cycle's take
    wire          to_head = q_n_reg == 2'd0 || (q_n_reg == 2'd1 && take);

    integer k;
    always @(posedge clk) begin
        if (rst) begin
            q_n_reg <= 2'd0;
            g_valid_reg <= 1'b0; g_line_reg <= 58'd0; g_idx_reg <= {BW+1{1'b0}}; g_last_reg <= 1'b0;
            g_cur_be_reg <= 64'd0; g_cur_full_reg <= 1'b0;
            op_take_reg <= 1'b0; op_close_reg <= 1'b0;
            i_valid_reg <= 1'b0; i_line_reg <= 58'd0; i_n_reg <= {BW+1{1'b0}}; i_beat_reg <= {BW+1{1'b0}};
            i_lastbeat_reg <= 1'b0;
            for (k = 0; k < BURST; k = k + 1) begin
                g_be_reg[k] <= 64'd0;
                i_be_reg[k] <= 64'd0;
            end
        end else begin
            // the queue
            q_n_reg <= q_n_reg + {1'b0, push} - {1'b0, take};
            if (take) begin
                q_line_reg[0] <= q_line_reg[1]; q_data_reg[0] <= q_data_reg[1]; q_be_reg[0] <= q_be_reg[1];
                q_all_reg[0] <= q_all_reg[1]; q_same_reg[0] <= q_same_reg[1]; q_next_reg[0] <= q_next_reg[1];
            end
            if (push) begin
                for (k = 0; k < 2; k = k + 1)
                    if ((k == 0) == to_head) begin
                        q_line_reg[k] <= w_line; q_data_reg[k] <= wr_writedata; q_be_reg[k] <= wr_byteenable;
                        q_all_reg[k] <= &wr_byteenable;
                        q_same_reg[k] <= w_line == last_line_reg;
                        q_next_reg[k] <= w_line == last_next_reg;
                    end
                last_line_reg <= w_line;
                last_next_reg <= w_line + 58'd1;
            end
            // the issuer
            if (avm_write && !avm_waitrequest) begin
                i_beat_reg <= i_beat_reg + 1'b1;
                i_lastbeat_reg <= i_beat_reg + 1'b1 == i_n_reg - 1'b1;
                if (i_lastbeat_reg) i_valid_reg <= 1'b0;
            end
            // the decisions
            op_close_reg <= close;
            op_take_reg <= take;
            if (close) begin
                i_valid_reg <= 1'b1;
                i_line_reg <= g_line_reg;
                i_n_reg <= g_idx_reg + 1'b1;
                i_beat_reg <= {BW+1{1'b0}};
                i_lastbeat_reg <= g_idx_reg == {BW+1{1'b0}};
                g_valid_reg <= 1'b0;
            end
            if (take) begin
                op_data_reg <= q_data_reg[0];
                op_be_reg <= q_be_reg[0];
                if (close || !g_valid_reg) begin  // a new burst
                    g_valid_reg <= 1'b1;
                    g_line_reg <= q_line_reg[0];
                    g_idx_reg <= {BW+1{1'b0}};
                    g_last_reg <= BURST == 1;
                    g_cur_be_reg <= q_be_reg[0];
                    g_cur_full_reg <= q_all_reg[0];
                    op_merge_reg <= 1'b0;
                    op_idx_reg <= {BW{1'b0}};
                end else if (same_line) begin
                    g_cur_be_reg <= g_cur_be_reg | q_be_reg[0];
                    g_cur_full_reg <= &(g_cur_be_reg | q_be_reg[0]);
                    op_merge_reg <= 1'b1;
                    op_idx_reg <= g_idx_reg[BW-1:0];
                end else begin  // next_line
                    g_idx_reg <= g_idx_reg + 1'b1;
                    g_last_reg <= g_idx_reg + 1'b1 == BURST[BW:0] - 1'b1;
                    g_cur_be_reg <= q_be_reg[0];
                    g_cur_full_reg <= q_all_reg[0];
                    op_merge_reg <= 1'b0;
                    op_idx_reg <= g_idx_reg[BW-1:0] + 1'b1;
                end
            end
            // a cycle after the decisions: the closed burst's lines to the issuer, the taken line
            // into the gathered burst
            if (op_close_reg)
                for (k = 0; k < BURST; k = k + 1) begin
                    i_data_reg[k] <= g_data_reg[k];
                    i_be_reg[k] <= g_be_reg[k];
                    g_be_reg[k] <= 64'd0;
                end
            if (op_take_reg) begin
                if (op_merge_reg) begin
                    g_data_reg[op_idx_reg] <= merge(g_data_reg[op_idx_reg], op_data_reg, op_be_reg);
                    g_be_reg[op_idx_reg] <= g_be_reg[op_idx_reg] | op_be_reg;
                end else begin
                    g_data_reg[op_idx_reg] <= op_data_reg;
                    g_be_reg[op_idx_reg] <= op_be_reg;
                end
            end
        end
    end
    initial begin
        if (BURST < 1 || BURST > 64 || (BURST & (BURST - 1)) != 0)
            $error("%m: BURST=%0d must be a power of 2 in 1..64", BURST);
    end
endmodule
`default_nettype wire
