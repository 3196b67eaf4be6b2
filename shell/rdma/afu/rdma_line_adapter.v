// The wide RDMA engine's memory ports (rdma_node / rdma_engine with LANES > 1: 64-byte lines)
// on 512-bit Avalon-MM masters like the shell's (64-byte beats, byte addresses). Reads are
// already whole lines in order: each leaves as a one-beat read (burstcount 1), a line per
// cycle while the memory takes them, and the beats come back in order to the engine, whose
// read-ahead accounts for every line in flight (no queue is needed here). Writes are joined
// into multi-beat bursts of up to WR_BURST lines (rdma_wr_lines); `wr_pending` tells the
// engine when every line it wrote has been accepted by the memory. The word engine
// (LANES = 1) keeps rdma_mem_adapter.
`default_nettype none
module rdma_line_adapter #(
    parameter integer WR_BURST = 4   // lines per write burst (power of 2, 1..64)
) (
    // the engine's 64-byte lines
    output wire [511:0] rd_readdata,
    input  wire [511:0] wr_writedata,
    input  wire [63:0]  wr_byteenable,
    `include "rdma_adapter_ports.vh"
);
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, rd_address[5:0]};  // the engine reads whole lines
    /* verilator lint_on UNUSEDSIGNAL */
    assign avm_rd_address = {rd_address[63:6], 6'd0};
    assign avm_rd_read = rd_read;
    assign avm_rd_burstcount = 8'd1;
    assign rd_waitrequest = avm_rd_waitrequest;
    assign rd_readdata = avm_rd_readdata;
    assign rd_readdatavalid = avm_rd_readdatavalid;
    rdma_wr_lines #(.BURST(WR_BURST)) u_wr (
        .clk(clk), .rst(rst), .wr_address(wr_address), .wr_write(wr_write), .wr_writedata(wr_writedata),
        .wr_byteenable(wr_byteenable), .wr_waitrequest(wr_waitrequest), .flush(wr_flush), .pending(wr_pending),
        .avm_address(avm_wr_address), .avm_write(avm_wr_write), .avm_burstcount(avm_wr_burstcount),
        .avm_writedata(avm_wr_writedata), .avm_byteenable(avm_wr_byteenable), .avm_waitrequest(avm_wr_waitrequest));
endmodule
`default_nettype wire
