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
`default_nettype none
module rdma_wr_lines #(
    parameter integer BURST = 4  // lines per burst (power of 2, 1..64)
) (
    input  wire [511:0] wr_writedata,   // a line at wr_address (64-byte aligned)
    input  wire [63:0]  wr_byteenable,
    `include "rdma_wr_burst_ports.vh"
);
    localparam integer BW = BURST > 1 ? $clog2(BURST) : 1;

    // the burst being gathered
    reg           g_valid_reg;
    reg  [57:0]   g_line_reg;            // its first line
    reg  [BW:0]   g_idx_reg;             // the line being filled
    reg  [511:0]  g_data_reg [0:BURST-1];
    reg  [63:0]   g_be_reg [0:BURST-1];
    // the burst being issued
    reg           i_valid_reg;
    reg  [57:0]   i_line_reg;
    reg  [BW:0]   i_n_reg, i_beat_reg;
    reg  [511:0]  i_data_reg [0:BURST-1];
    reg  [63:0]   i_be_reg [0:BURST-1];

    wire [57:0]   w_line = wr_address[63:6];
    /* verilator lint_off UNUSEDSIGNAL */
    wire          unused_ok = &{1'b0, wr_address[5:0]};  // line-aligned
    /* verilator lint_on UNUSEDSIGNAL */
    wire [57:0]   g_cur_line = g_line_reg + {{57-BW{1'b0}}, g_idx_reg};
    wire          g_cur_full = g_be_reg[g_idx_reg[BW-1:0]] == 64'hFFFF_FFFF_FFFF_FFFF;
    wire          g_last_line = g_idx_reg == BURST[BW:0] - 1'b1;
    wire          same_line = g_valid_reg && w_line == g_cur_line;
    wire          next_line = g_valid_reg && g_cur_full && !g_last_line && w_line == g_cur_line + 58'd1;
    wire          fits = !g_valid_reg || same_line || next_line;
    wire          burst_done = g_valid_reg && g_last_line && g_cur_full;
    wire          want_close = g_valid_reg && ((wr_write && !fits) || burst_done || flush);
    wire          i_free = !i_valid_reg || (i_beat_reg == i_n_reg - 1'b1 && !avm_waitrequest);
    wire          close = want_close && i_free;
    assign wr_waitrequest = wr_write && !fits && !close;
    wire          take = wr_write && !wr_waitrequest;
    assign pending = g_valid_reg || i_valid_reg;

    assign avm_write = i_valid_reg;
    assign avm_address = {i_line_reg, 6'd0};
    assign avm_burstcount = {{7-BW{1'b0}}, i_n_reg};
    assign avm_writedata = i_data_reg[i_beat_reg[BW-1:0]];
    assign avm_byteenable = i_be_reg[i_beat_reg[BW-1:0]];

    // a line merged into what the gathered line holds, byte by byte
    function automatic [511:0] merge(input [511:0] old, input [511:0] new_data, input [63:0] be);
        integer b;
        for (b = 0; b < 64; b = b + 1) merge[8 * b +: 8] = be[b] ? new_data[8 * b +: 8] : old[8 * b +: 8];
    endfunction

    integer k;
    always @(posedge clk) begin
        if (rst) begin
            g_valid_reg <= 1'b0; g_line_reg <= 58'd0; g_idx_reg <= {BW+1{1'b0}};
            i_valid_reg <= 1'b0; i_line_reg <= 58'd0; i_n_reg <= {BW+1{1'b0}}; i_beat_reg <= {BW+1{1'b0}};
            for (k = 0; k < BURST; k = k + 1) begin
                g_be_reg[k] <= 64'd0;
                i_be_reg[k] <= 64'd0;
            end
        end else begin
            if (i_valid_reg && !avm_waitrequest) begin
                i_beat_reg <= i_beat_reg + 1'b1;
                if (i_beat_reg == i_n_reg - 1'b1) i_valid_reg <= 1'b0;
            end
            if (close) begin
                i_valid_reg <= 1'b1;
                i_line_reg <= g_line_reg;
                i_n_reg <= g_idx_reg + 1'b1;
                i_beat_reg <= {BW+1{1'b0}};
                for (k = 0; k < BURST; k = k + 1) begin
                    i_data_reg[k] <= g_data_reg[k];
                    i_be_reg[k] <= g_be_reg[k];
                    g_be_reg[k] <= 64'd0;
                end
                g_valid_reg <= 1'b0;
            end
            if (take) begin
                if (close || !g_valid_reg) begin
                    g_valid_reg <= 1'b1;
                    g_line_reg <= w_line;
                    g_idx_reg <= {BW+1{1'b0}};
                    g_data_reg[0] <= wr_writedata;
                    g_be_reg[0] <= wr_byteenable;
                end else if (same_line) begin
                    g_data_reg[g_idx_reg[BW-1:0]] <= merge(g_data_reg[g_idx_reg[BW-1:0]], wr_writedata, wr_byteenable);
                    g_be_reg[g_idx_reg[BW-1:0]] <= g_be_reg[g_idx_reg[BW-1:0]] | wr_byteenable;
                end else begin  // next_line
                    g_idx_reg <= g_idx_reg + 1'b1;
                    g_data_reg[g_idx_reg[BW-1:0] + 1'b1] <= wr_writedata;
                    g_be_reg[g_idx_reg[BW-1:0] + 1'b1] <= wr_byteenable;
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
