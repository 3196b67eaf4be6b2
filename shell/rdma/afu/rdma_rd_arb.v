// Two Avalon-MM read masters on one: master 0 (the shell's descriptor fetch, rare and
// short) first, master 1 (the RDMA engine) otherwise. Returning beats go to the master
// that issued the read, in issue order (a FIFO of owners and burst lengths).
`default_nettype none
module rdma_rd_arb #(
    parameter integer READS = 64  // reads in flight (power of 2)
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  m0_address,
    input  wire         m0_read,
    input  wire [7:0]   m0_burstcount,
    output wire         m0_waitrequest,
    output wire         m0_readdatavalid,
    input  wire [63:0]  m1_address,
    input  wire         m1_read,
    input  wire [7:0]   m1_burstcount,
    output wire         m1_waitrequest,
    output wire         m1_readdatavalid,
    output wire [511:0] readdata,
    output wire [63:0]  s_address,
    output wire         s_read,
    output wire [7:0]   s_burstcount,
    input  wire         s_waitrequest,
    input  wire [511:0] s_readdata,
    input  wire         s_readdatavalid
);
    localparam integer AW = $clog2(READS);
    wire       own_full, own_empty;
    wire [8:0] head;
    reg  [7:0] beats_reg;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [AW:0] own_count;
    wire        unused_ok = &{1'b0, own_empty};
    /* verilator lint_on UNUSEDSIGNAL */
    wire sel1 = !m0_read;
    assign s_read = (m0_read || m1_read) && !own_full;
    assign s_address = sel1 ? m1_address : m0_address;
    assign s_burstcount = sel1 ? m1_burstcount : m0_burstcount;
    assign m0_waitrequest = s_waitrequest || own_full || sel1;
    assign m1_waitrequest = s_waitrequest || own_full || !sel1;
    wire last_beat = s_readdatavalid && beats_reg + 8'd1 == head[7:0];
    wire own_ready, own_valid;
    shell_fifo #(.DATA_WIDTH(9), .FIFO_DEPTH(READS)) u_own (
        .clk(clk), .rst(rst), .s_axis_tvalid(s_read && !s_waitrequest), .s_axis_tready(own_ready), .s_axis_tdata({sel1, s_burstcount}),
        .m_axis_tvalid(own_valid), .m_axis_tready(last_beat), .m_axis_tdata(head), .level(own_count));
    assign own_full = !own_ready;
    assign own_empty = !own_valid;
    assign readdata = s_readdata;
    assign m0_readdatavalid = s_readdatavalid && !head[8];
    assign m1_readdatavalid = s_readdatavalid && head[8];
    always @(posedge clk) begin
        if (rst) beats_reg <= 8'd0;
        else if (last_beat) beats_reg <= 8'd0;
        else if (s_readdatavalid) beats_reg <= beats_reg + 8'd1;
    end
endmodule
`default_nettype wire
