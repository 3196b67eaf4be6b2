// The reduction unit's completion record (REDUCE_CPL, docs/rdma.md "Reductions"): when the
// unit's part ends (DONE rises, finished or refused) one 64-byte line goes to the address in
// REDUCE_CPL, with the host bit a line of host memory, so that the host waits on its own
// memory, as on a NIC's completion queue, instead of an MMIO round trip to every card of the
// chain. Word 0 is REDUCE_STATUS as it reads then, word 1 REDUCE_STALLS, word 2 the
// reduction number; the rest zeros. The line takes the unit's memory port while the unit is
// idle and is flushed at once, so it leaves the card a few cycles after DONE: while `rec_active`
// the caller (afu_rdma_top) hands the port's write and flush to `rec_*` and holds the unit's own
// writes. CPL 0: no record. ABORT drops a record not yet written.
// The CPL register answers its reads one cycle later, beside rdma_reduce_csr (which answers
// every read of the window, CPL's with 0).
`default_nettype none
module rdma_reduce_cpl (
    // MMIO (addresses already decoded to the REDUCE window by the caller); rst clears CPL
    `include "mmio_csr_ports.vh"
    input  wire         unit_rst,     // the unit's reset (reset or ABORT): drops the record
    // the unit's end and what its record says
    input  wire         done,
    input  wire [7:0]   code,
    input  wire [31:0]  words,
    input  wire [31:0]  in_stalls,
    input  wire [31:0]  out_stalls,
    input  wire [1:0]   ep_errors,    // {misrouted, overflow}
    input  wire [7:0]   sid,          // the sums' stream id, 128 + SID
    // the record's use of the unit's line adapter (whose waitrequest and pending it follows)
    output wire         rec_active,   // the record has the port: from DONE's rise to its flush's end
    output wire [63:0]  rec_address,
    output wire [511:0] rec_data,     // (all bytes enabled)
    output wire         rec_write,
    output wire         rec_flush,
    input  wire         wr_waitrequest,
    input  wire         wr_pending
);
    `include "afushell_csr.vh"
    localparam [1:0] C_IDLE = 2'd0, C_WRITE = 2'd1, C_FLUSH = 2'd2;

    reg  [57:0]  cpl_reg;                     // the record's line (0: none)
    reg  [1:0]   st_reg;
    reg          done_reg;                    // DONE a cycle ago: its rise starts a record
    reg  [191:0] rec_reg;                     // words 0..2 of the record
    wire         mine = st_reg != C_IDLE;

    // the record holds the port until its line has left the adapter
    assign rec_active  = mine;
    assign rec_address = {cpl_reg, 6'd0};
    assign rec_data    = {320'd0, rec_reg};
    assign rec_write   = st_reg == C_WRITE;
    assign rec_flush   = st_reg == C_FLUSH;

    always @(posedge clk) begin
        if (rst) cpl_reg <= 58'd0;
        else if (mmio_wr_valid && mmio_wr_addr == CSR_REDUCE_CPL_ADDR) cpl_reg <= mmio_wr_data[63:6];
    end

    always @(posedge clk) begin
        mmio_rd_resp_valid <= !rst && mmio_rd_valid && mmio_rd_addr == CSR_REDUCE_CPL_ADDR;
        mmio_rd_resp_data <= {cpl_reg, 6'd0};
    end

    always @(posedge clk) begin
        if (rst || unit_rst) begin
            st_reg <= C_IDLE; done_reg <= 1'b0; rec_reg <= 192'd0;
        end else begin
            done_reg <= done;
            case (st_reg)
                C_IDLE: if (done && !done_reg && cpl_reg != 58'd0) begin
                    rec_reg <= {56'd0, 2'b00, sid[5:0], out_stalls, in_stalls, words, 16'd0, code, 4'd0, ep_errors,
                                1'b1, 1'b0};
                    st_reg <= C_WRITE;
                end
                C_WRITE: if (!wr_waitrequest) st_reg <= C_FLUSH;
                C_FLUSH: if (!wr_pending) st_reg <= C_IDLE;
                default: st_reg <= C_IDLE;
            endcase
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, mmio_wr_data[5:0], sid[7:6]};
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
