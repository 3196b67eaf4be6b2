// The RDMA engine's 32-bit word writes gathered into whole 64-byte lines and issued as
// multi-beat Avalon-MM bursts of up to BURST lines. Consecutive words fill a line; the
// next line of the burst starts when the word after the last one of a full line arrives.
// A burst closes -- and goes to the issuer, which sends it while the next one gathers --
// when a word does not continue it, when its BURST lines are full, or on `flush`.
// `pending` stays high while any accepted word has not been accepted by the memory: the
// engine raises `flush` at the end of a stream and waits for !pending before it reports
// the data as written (DONE to a put's initiator, completion of a get). The gathering and
// the issuer are rdma_wr_lines', fed each word as a line write with its four byte enables
// (bytes outside them are never enabled on the memory side).
`default_nettype none
module rdma_wr_coalesce #(
    parameter integer BURST = 4  // lines per burst (power of 2, 1..64)
) (
    input  wire [31:0]  wr_writedata,   // a word at wr_address
    `include "rdma_wr_burst_ports.vh"
);
    // a word is a line write of its four bytes: rdma_wr_lines gathers, merges and issues the
    // bursts alike (a word continues the line it falls in, a full line the next), so both
    // engines' writes leave through one burst issuer
    wire [3:0]    w_word = wr_address[5:2];
    /* verilator lint_off UNUSEDSIGNAL */
    wire          unused_ok = &{1'b0, wr_address[1:0]};  // word-aligned
    /* verilator lint_on UNUSEDSIGNAL */
    rdma_wr_lines #(.BURST(BURST)) u_lines (
        .clk(clk), .rst(rst), .wr_address({wr_address[63:6], 6'd0}), .wr_write(wr_write),
        .wr_writedata({16{wr_writedata}}), .wr_byteenable(64'hF << {w_word, 2'b00}),
        .wr_waitrequest(wr_waitrequest), .flush(flush), .pending(pending), .avm_address(avm_address),
        .avm_write(avm_write), .avm_burstcount(avm_burstcount), .avm_writedata(avm_writedata),
        .avm_byteenable(avm_byteenable), .avm_waitrequest(avm_waitrequest));
endmodule
`default_nettype wire
