// The RDMA engine's 32-bit memory ports on 512-bit Avalon-MM masters like the shell's
// (64-byte beats, byte addresses). Reads: a word in the same 64-byte line as the word
// requested just before (in an unbroken run of requests) is served from that line's
// beat, so a sequential stream costs one beat per 16 words; otherwise the line is read
// as a one-beat burst. The run breaks -- and the line is forgotten -- on a cycle without a
// request or on an engine write to that line, so a word is never older than the run that
// read it. Beats return in order into a FIFO; a FIFO of {word index, new beat} entries
// says which word to hand back next. Writes are gathered into whole lines and sent as
// bursts of up to WR_BURST lines (rdma_wr_coalesce); `wr_pending` tells the engine when
// every word it wrote has been accepted by the memory.
`default_nettype none
module rdma_mem_adapter #(
    parameter integer READS = 64,    // word reads in flight (power of 2, >= the engine's PF_DEPTH)
    parameter integer WR_BURST = 4   // lines per write burst (power of 2, 1..64)
) (
    // the engine's 32-bit words
    output wire [31:0]  rd_readdata,
    input  wire [31:0]  wr_writedata,
    `include "rdma_adapter_ports.vh"
);
    localparam integer AW = $clog2(READS);
    // the line of the previous request, while the run of requests lasts
    reg         have_reg;
    reg  [57:0] line_reg;
    wire        hit = have_reg && rd_address[63:6] == line_reg;
    wire        wq_full, wq_empty, bq_full, bq_empty;
    wire [4:0]  wq_head;   // {new beat, word index}
    wire [511:0] bq_head;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [AW:0] wq_count, bq_count;
    wire        unused_ok = &{1'b0, rd_address[1:0], bq_full};
    /* verilator lint_on UNUSEDSIGNAL */
    // a request is taken at once on a hit, with the memory's acceptance otherwise
    assign avm_rd_address = {rd_address[63:6], 6'd0};
    assign avm_rd_read = rd_read && !hit && !wq_full;
    assign avm_rd_burstcount = 8'd1;
    assign rd_waitrequest = wq_full || (!hit && avm_rd_waitrequest);
    wire take = rd_read && !rd_waitrequest;
    always @(posedge clk) begin
        if (rst) begin
            have_reg <= 1'b0;
            line_reg <= 58'd0;
        end else if (take) begin
            have_reg <= !(wr_write && !wr_waitrequest && wr_address[63:6] == rd_address[63:6]);
            line_reg <= rd_address[63:6];
        end else begin
            have_reg <= 1'b0;
        end
    end
    wire wq_ready, wq_valid;
    shell_fifo #(.DATA_WIDTH(5), .FIFO_DEPTH(READS)) u_wq (
        .clk(clk), .rst(rst), .s_axis_tvalid(take), .s_axis_tready(wq_ready), .s_axis_tdata({!hit, rd_address[5:2]}),
        .m_axis_tvalid(wq_valid), .m_axis_tready(rd_readdatavalid), .m_axis_tdata(wq_head), .level(wq_count));
    assign wq_full = !wq_ready;
    assign wq_empty = !wq_valid;
    wire bq_ready, bq_valid;
    shell_fifo #(.DATA_WIDTH(512), .FIFO_DEPTH(READS)) u_bq (
        .clk(clk), .rst(rst), .s_axis_tvalid(avm_rd_readdatavalid), .s_axis_tready(bq_ready), .s_axis_tdata(avm_rd_readdata),
        .m_axis_tvalid(bq_valid), .m_axis_tready(rd_readdatavalid && wq_head[4]), .m_axis_tdata(bq_head), .level(bq_count));
    assign bq_full = !bq_ready;
    assign bq_empty = !bq_valid;
    // hand back the next word: from a newly arrived beat, or from the beat of the run
    reg  [511:0] cur_reg;
    assign rd_readdatavalid = !wq_empty && (!wq_head[4] || !bq_empty);
    wire [511:0] beat = wq_head[4] ? bq_head : cur_reg;
    assign rd_readdata = beat[32 * wq_head[3:0] +: 32];
    always @(posedge clk) begin
        if (rst) cur_reg <= 512'd0;
        else if (rd_readdatavalid && wq_head[4]) cur_reg <= bq_head;
    end

    rdma_wr_coalesce #(.BURST(WR_BURST)) u_wr (
        .clk(clk), .rst(rst), .wr_address(wr_address), .wr_write(wr_write), .wr_writedata(wr_writedata),
        .wr_waitrequest(wr_waitrequest), .flush(wr_flush), .pending(wr_pending), .avm_address(avm_wr_address),
        .avm_write(avm_wr_write), .avm_burstcount(avm_wr_burstcount), .avm_writedata(avm_wr_writedata),
        .avm_byteenable(avm_wr_byteenable), .avm_waitrequest(avm_wr_waitrequest));
endmodule
`default_nettype wire
