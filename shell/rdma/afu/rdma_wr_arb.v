// Two Avalon-MM write masters on one: master 0 (the shell's RX DMA) first, master 1 (the
// RDMA engine's write coalescer) in the gaps; both write bursts (write held high until
// their last beat), and a burst keeps the slave from its first beat to its last.
`default_nettype none
module rdma_wr_arb (
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  m0_address,
    input  wire         m0_write,
    input  wire [7:0]   m0_burstcount,
    input  wire [511:0] m0_writedata,
    input  wire [63:0]  m0_byteenable,
    output wire         m0_waitrequest,
    input  wire [63:0]  m1_address,
    input  wire         m1_write,
    input  wire [7:0]   m1_burstcount,
    input  wire [511:0] m1_writedata,
    input  wire [63:0]  m1_byteenable,
    output wire         m1_waitrequest,
    output wire [63:0]  s_address,
    output wire         s_write,
    output wire [7:0]   s_burstcount,
    output wire [511:0] s_writedata,
    output wire [63:0]  s_byteenable,
    input  wire         s_waitrequest
);
    reg       lock_reg;   // inside a burst of master owner_reg
    reg       owner_reg;
    reg [7:0] left_reg;   // beats of that burst still to come
    wire sel1 = lock_reg ? owner_reg : !m0_write;
    assign s_write = sel1 ? m1_write : m0_write;
    assign s_address = sel1 ? m1_address : m0_address;
    assign s_burstcount = sel1 ? m1_burstcount : m0_burstcount;
    assign s_writedata = sel1 ? m1_writedata : m0_writedata;
    assign s_byteenable = sel1 ? m1_byteenable : m0_byteenable;
    assign m0_waitrequest = s_waitrequest || sel1;
    assign m1_waitrequest = s_waitrequest || !sel1;
    wire beat = s_write && !s_waitrequest;
    always @(posedge clk) begin
        if (rst) begin
            lock_reg <= 1'b0;
            owner_reg <= 1'b0;
            left_reg <= 8'd0;
        end else if (beat) begin
            if (!lock_reg) begin
                lock_reg <= s_burstcount[7:1] != 7'd0;   // > 1, without a carry chain
                owner_reg <= sel1;
                left_reg <= s_burstcount - 8'd1;
            end else begin
                left_reg <= left_reg - 8'd1;
                if (left_reg == 8'd1) lock_reg <= 1'b0;
            end
        end
    end
endmodule
`default_nettype wire
