// The RDMA engine's 32-bit memory ports on 512-bit Avalon-MM masters like the shell's
// (64-byte beats, byte addresses): each word read is a one-beat read whose word is
// picked out on return (the word indices wait in a FIFO, reads return in order); each
// word written is a one-beat write with a 4-byte byteenable. Simple rather than fast:
// one DDR access per 4 bytes, 4 bytes per cycle at most.
`default_nettype none
module rdma_mem_adapter #(
    parameter integer READS = 64  // word reads in flight (power of 2, >= the engine's PF_DEPTH)
) (
    input  wire         clk,
    input  wire         rst,
    // engine side
    input  wire [63:0]  rd_address,
    input  wire         rd_read,
    output wire         rd_waitrequest,
    output wire [31:0]  rd_readdata,
    output wire         rd_readdatavalid,
    input  wire [63:0]  wr_address,
    input  wire         wr_write,
    input  wire [31:0]  wr_writedata,
    output wire         wr_waitrequest,
    // memory side
    output wire [63:0]  avm_rd_address,
    output wire         avm_rd_read,
    output wire [7:0]   avm_rd_burstcount,
    input  wire         avm_rd_waitrequest,
    input  wire [511:0] avm_rd_readdata,
    input  wire         avm_rd_readdatavalid,
    output wire [63:0]  avm_wr_address,
    output wire         avm_wr_write,
    output wire [7:0]   avm_wr_burstcount,
    output wire [511:0] avm_wr_writedata,
    output wire [63:0]  avm_wr_byteenable,
    input  wire         avm_wr_waitrequest
);
    localparam integer AW = $clog2(READS);
    wire       idx_full, idx_empty;
    wire [3:0] idx;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [AW:0] idx_count;
    wire        unused_ok = &{1'b0, rd_address[5:0], wr_address[1:0], idx_empty};
    /* verilator lint_on UNUSEDSIGNAL */
    rdma_fifo #(.WIDTH(4), .DEPTH(READS)) u_idx (
        .clk(clk), .rst(rst), .push(avm_rd_read && !avm_rd_waitrequest), .din(rd_address[5:2]), .full(idx_full),
        .pop(avm_rd_readdatavalid), .dout(idx), .empty(idx_empty), .count(idx_count));
    assign avm_rd_address = {rd_address[63:6], 6'd0};
    assign avm_rd_read = rd_read && !idx_full;
    assign avm_rd_burstcount = 8'd1;
    assign rd_waitrequest = avm_rd_waitrequest || idx_full;
    assign rd_readdata = avm_rd_readdata[32 * idx +: 32];
    assign rd_readdatavalid = avm_rd_readdatavalid;

    assign avm_wr_address = {wr_address[63:6], 6'd0};
    assign avm_wr_write = wr_write;
    assign avm_wr_burstcount = 8'd1;
    assign avm_wr_writedata = {16{wr_writedata}};
    assign avm_wr_byteenable = 64'hF << {wr_address[5:2], 2'b00};
    assign wr_waitrequest = avm_wr_waitrequest;
endmodule
`default_nettype wire
