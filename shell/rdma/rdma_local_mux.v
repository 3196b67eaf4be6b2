// The router's local port shared by the RDMA engine and the stream endpoints: packets
// from both are injected whole, round-robin; arriving packets go by type, STREAM (8)
// and CREDIT (9) to the stream endpoints (b_ej_ready: 1 where they take a word a cycle,
// the ready of a width converter in a wide node), the rest to the engine. Beats of LANES
// words, the header in lane 0 of the first. With BY_SID the same mux splits the stream side
// of a wide port between two endpoint pairs by a bit of the stream id (SID_BIT; the control
// word, lane 1 of the first beat): bit 7 a = the cascade's stream, b = the reductions' sums
// (an allreduce's result has the router's second local port).
`default_nettype none
module rdma_local_mux #(
    parameter integer LANES = 1,  // 32-bit words per beat
    parameter integer BY_SID = 0, // 1: arriving packets (all STREAM or CREDIT) go by a stream id bit
    parameter integer SID_BIT = 7 // ... this one (set: b)
) (
    input  wire        clk,
    input  wire        rst,
    // to / from the router's local port
    output wire        inj_valid,
    input  wire        inj_ready,
    output wire [32*LANES-1:0] inj_data,
    output wire        inj_last,
    input  wire        ej_valid,
    output wire        ej_ready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [32*LANES-1:0] ej_data,  // the header's type field only
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire        ej_last,
    // the engine
    input  wire        a_inj_valid,
    output wire        a_inj_ready,
    input  wire [32*LANES-1:0] a_inj_data,
    input  wire        a_inj_last,
    output wire        a_ej_valid,
    input  wire        a_ej_ready,
    // the stream endpoints (their ejection is always ready)
    input  wire        b_inj_valid,
    output wire        b_inj_ready,
    input  wire [32*LANES-1:0] b_inj_data,
    input  wire        b_inj_last,
    output wire        b_ej_valid,
    input  wire        b_ej_ready
);
    `include "rdma_packet.vh"
    // injection: a source keeps the port from its header until its last word
    reg  locked_reg, sel_reg, prefer_b_reg;
    wire pick = locked_reg ? sel_reg : (b_inj_valid && (prefer_b_reg || !a_inj_valid));
    assign inj_valid = pick ? b_inj_valid : a_inj_valid;
    assign inj_data = pick ? b_inj_data : a_inj_data;
    assign inj_last = pick ? b_inj_last : a_inj_last;
    assign a_inj_ready = !pick && inj_ready;
    assign b_inj_ready = pick && inj_ready;
    always @(posedge clk) begin
        if (rst) begin
            locked_reg <= 1'b0;
            sel_reg <= 1'b0;
            prefer_b_reg <= 1'b0;
        end else if (inj_valid) begin
            if (inj_ready && inj_last) begin
                locked_reg <= 1'b0;
                prefer_b_reg <= !pick;
            end else begin
                locked_reg <= 1'b1;
                sel_reg <= pick;
            end
        end
    end
    // ejection: the header's type decides the packet's way
    reg  in_pkt_reg, to_b_reg;
    wire [3:0] ej_type = ej_data[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
    wire hdr_b = BY_SID != 0 ? ej_data[32 + RDMA_STREAM_SID_LSB + SID_BIT] : ej_type == RDMA_T_STREAM || ej_type == RDMA_T_CREDIT;
    wire cur_b = in_pkt_reg ? to_b_reg : hdr_b;
    assign a_ej_valid = ej_valid && !cur_b;
    assign b_ej_valid = ej_valid && cur_b;
    assign ej_ready = cur_b ? b_ej_ready : a_ej_ready;
    always @(posedge clk) begin
        if (rst) begin
            in_pkt_reg <= 1'b0;
            to_b_reg <= 1'b0;
        end else if (ej_valid && ej_ready) begin
            in_pkt_reg <= !ej_last;
            to_b_reg <= cur_b;
        end
    end
    initial begin
        if (BY_SID != 0 && LANES < 2) $error("%m: BY_SID needs the control word in the first beat (LANES >= 2)");
        if (SID_BIT < 0 || SID_BIT > 7) $error("%m: SID_BIT must be 0..7");
    end
endmodule
`default_nettype wire
