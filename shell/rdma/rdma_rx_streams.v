// Per-source stream state of both RDMA engines' receivers (rdma_engine_rx, rdma_engine_wrx):
// one entry for each of the 64 sources, since a target takes one stream at a time from each
// sender. A stream start (rdma_rx_ctrl) writes the whole entry; the receiver reads it when a
// packet of the source arrives, writes the position back at the packet's end and clears
// the entry's active flag at the stream's end. Reads are combinational, as from registers.
`default_nettype none
module rdma_rx_streams (
    input  wire         clk,
    input  wire         rst,
    `include "rdma_rx_stream_ports.vh"
    // a stream start: the whole entry, active
    input  wire         set,
    input  wire [5:0]   set_src,
    input  wire         set_put,      // a PUT (else a GETRESP)
    input  wire         set_disc,     // its data are discarded (a bad range, a stale get)
    input  wire [31:0]  set_op,
    input  wire [63:0]  set_addr,     // the first byte; base, position and block start
    input  wire [63:0]  set_len,      // bytes; the length and the bytes left
    input  wire [31:0]  set_blk,      // block bytes, 0: contiguous
    input  wire [31:0]  set_brem,     // bytes left in the first block
    input  wire [31:0]  set_stride
);
    reg        s_act [0:63];
    reg        s_put [0:63];
    reg        s_disc [0:63];
    reg [31:0] s_op [0:63];
    reg [63:0] s_base [0:63];
    reg [63:0] s_len [0:63];
    reg [63:0] s_cur [0:63];
    reg [63:0] s_rem [0:63];
    reg [63:0] s_bstart [0:63];
    reg [31:0] s_blk [0:63];
    reg [31:0] s_brem [0:63];
    reg [31:0] s_stride [0:63];

    assign rd_stream = {s_act[rd_src], s_put[rd_src], s_disc[rd_src], s_op[rd_src], s_base[rd_src],
                        s_len[rd_src], s_cur[rd_src], s_rem[rd_src], s_bstart[rd_src], s_blk[rd_src],
                        s_brem[rd_src], s_stride[rd_src]};

    // the receivers never start a source's stream while they update or end it: on one
    // entry in one cycle the start wins anyway
    integer i;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < 64; i = i + 1) s_act[i] <= 1'b0;
        end else begin
            if (clr) s_act[clr_src] <= 1'b0;
            if (upd) begin
                s_cur[upd_src] <= upd_cur;
                s_rem[upd_src] <= upd_rem;
                s_bstart[upd_src] <= upd_bstart;
                s_brem[upd_src] <= upd_brem;
            end
            if (set) begin
                s_act[set_src] <= 1'b1;
                s_put[set_src] <= set_put;
                s_disc[set_src] <= set_disc;
                s_op[set_src] <= set_op;
                s_base[set_src] <= set_addr;
                s_len[set_src] <= set_len;
                s_cur[set_src] <= set_addr;
                s_rem[set_src] <= set_len;
                s_bstart[set_src] <= set_addr;
                s_blk[set_src] <= set_blk;
                s_brem[set_src] <= set_brem;
                s_stride[set_src] <= set_stride;
            end
        end
    end
endmodule
`default_nettype wire
