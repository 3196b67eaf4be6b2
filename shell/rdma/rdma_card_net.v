// The network side of one card: the router joined to P link ports and to the local
// engine's injection (VC 0) and ejection ports; with LOCALS = 2 also to a second local port
// (inj2 / ej2: the STREAM2 and CREDIT2 packets of an endpoint of its own).
`default_nettype none
module rdma_card_net #(
    parameter integer P = 4,
    parameter integer WINDOW = 8,
    parameter integer VC_BUF = 4,
    parameter integer TIMEOUT = 512,
    parameter integer LANES = 1,      // 32-bit words per beat, everywhere (rdma_link_tx)
    parameter integer MAX_WORDS = 16, // largest payload: 16, or up to 256 with bulk packets
    parameter integer LOCALS = 1,     // local ports: 1, or 2 (inj2 / ej2 in use)
    // min cycles between a port's ACK/credit (CTRL) packets. On a wide port a CTRL packet is a
    // beat of its own, and the PHY takes a beat a cycle: each one costs a wire cycle (nearly a
    // full beat's line time at 100 Gb/s) to the data going the same way. When both ways carry
    // data (an allreduce's sums and result, a stream and its credits), ACKing every packet at
    // 16 cycles took 5-7 % of the line; the 256-packet window and 128-packet VC buffers of a
    // wide port need an ACK far less often than every 128 cycles. Word links, and ports whose VC
    // buffers hold fewer than 64 packets (16 packets of 5 beats are 80 cycles of line: credits
    // every 128 cycles would hold such a link to 80/128 of it), keep the model's 16.
    parameter integer CTRL_INTERVAL = (LANES > 1 && VC_BUF >= 64) ? 128 : 16
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            cfg_we,
    input  wire [5:0]      cfg_addr,
    input  wire [3:0]      cfg_port,
    input  wire [2*P-1:0]  port_dim,
    input  wire [P-1:0]    port_dateline,
    // local engine
    input  wire            inj_valid,
    output wire            inj_ready,
    input  wire [32*LANES-1:0] inj_data,
    input  wire            inj_last,
    output wire            ej_valid,
    input  wire            ej_ready,
    output wire [32*LANES-1:0] ej_data,
    output wire            ej_last,
    // the second local port (LOCALS = 2; else never valid, never ready)
    input  wire            inj2_valid,
    output wire            inj2_ready,
    input  wire [32*LANES-1:0] inj2_data,
    input  wire            inj2_last,
    output wire            ej2_valid,
    input  wire            ej2_ready,
    output wire [32*LANES-1:0] ej2_data,
    output wire            ej2_last,
    // cables
    output wire [P-1:0]    link_out_valid,
    output wire [32*LANES*P-1:0] link_out_data,
    output wire [P-1:0]    link_out_last,
    input  wire [P-1:0]    link_out_ready,  // the PHY takes a beat (1: a cable that never holds back)
    input  wire [P-1:0]    link_in_valid,
    input  wire [32*LANES*P-1:0] link_in_data,
    input  wire [P-1:0]    link_in_last,
    output wire [P-1:0]    overflow,
    output wire [16*P-1:0] replays,
    // debug: per link port the RDMA_LINK_* words (see rdma_link_port), the router's state
    output wire [256*P-1:0] link_dbg,
    output wire [63:0]     router_dbg
);
    localparam integer N = P + LOCALS;
    wire [2*N-1:0]  in_avail;
    localparam integer DW = 32 * LANES;
    wire [32*N-1:0] in_head0, in_head1, in_next0, in_next1;
    wire [2*N-1:0]  in_more;
    wire [DW*N-1:0] in_data, out_data;
    wire [N-1:0]    in_sel_vc, in_valid, in_ready, in_last, out_valid, out_ready, out_last;
    wire [2*N-1:0]  out_can_take;
    wire [N-1:0]    out_blocked;

    genvar g;
    generate
        for (g = 0; g < P; g = g + 1) begin : g_port
            /* verilator lint_off UNUSEDSIGNAL */
            wire        vc_unused;          // the router knows the VC it selected
            wire [15:0] crc_errors_unused;  // reported through link_dbg
            /* verilator lint_on UNUSEDSIGNAL */
            rdma_link_port #(.WINDOW(WINDOW), .VC_BUF(VC_BUF), .TIMEOUT(TIMEOUT), .CTRL_INTERVAL(CTRL_INTERVAL),
                             .LANES(LANES), .MAX_WORDS(MAX_WORDS)) u_port (
                .clk(clk), .rst(rst),
                .tx_valid(out_valid[g]), .tx_ready(out_ready[g]), .tx_data(out_data[DW * g +: DW]),
                .tx_last(out_last[g]),
                .rx_sel_vc(in_sel_vc[g]), .rx_avail(in_avail[2 * g +: 2]), .rx_head0(in_head0[32 * g +: 32]),
                .rx_head1(in_head1[32 * g +: 32]), .rx_more(in_more[2 * g +: 2]),
                .rx_next0(in_next0[32 * g +: 32]), .rx_next1(in_next1[32 * g +: 32]), .rx_valid(in_valid[g]), .rx_ready(in_ready[g]),
                .rx_data(in_data[DW * g +: DW]), .rx_last(in_last[g]), .rx_vc(vc_unused),
                .link_out_valid(link_out_valid[g]), .link_out_data(link_out_data[DW * g +: DW]),
                .link_out_last(link_out_last[g]), .link_out_ready(link_out_ready[g]),
                .link_in_valid(link_in_valid[g]), .link_in_data(link_in_data[DW * g +: DW]),
                .link_in_last(link_in_last[g]), .overflow(overflow[g]), .crc_errors(crc_errors_unused),
                .replays(replays[16 * g +: 16]), .tx_can_take(out_can_take[2 * g +: 2]),
                .tx_blocked(out_blocked[g]), .dbg(link_dbg[256 * g +: 256]));
        end
    endgenerate

    // the engine's port: VC 0 only; its header is the word on the bus at a packet start
    assign in_avail[2 * P +: 2] = {1'b0, inj_valid};
    assign in_head0[32 * P +: 32] = inj_data[31:0];
    assign in_head1[32 * P +: 32] = 32'd0;
    assign in_more[2 * P +: 2] = 2'b00;  // the router registers a local port's beats itself
    assign in_next0[32 * P +: 32] = 32'd0;
    assign in_next1[32 * P +: 32] = 32'd0;
    assign in_valid[P] = inj_valid;
    assign in_data[DW * P +: DW] = inj_data;
    assign in_last[P] = inj_last;
    assign inj_ready = in_ready[P];
    assign ej_valid = out_valid[P];
    assign ej_data = out_data[DW * P +: DW];
    assign ej_last = out_last[P];
    assign out_ready[P] = ej_ready;
    assign out_can_take[2 * P +: 2] = 2'b11;  // the engine drains its port
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_sel = in_sel_vc[P];  // the engine port has VC 0 only
    wire unused_blocked = out_blocked[P];  // the engine port always takes
    /* verilator lint_on UNUSEDSIGNAL */
    generate
        if (LOCALS > 1) begin : g_local2
            // the second local port, as the first: VC 0, drained by its endpoint
            assign in_avail[2 * (P + 1) +: 2] = {1'b0, inj2_valid};
            assign in_head0[32 * (P + 1) +: 32] = inj2_data[31:0];
            assign in_head1[32 * (P + 1) +: 32] = 32'd0;
            assign in_more[2 * (P + 1) +: 2] = 2'b00;
            assign in_next0[32 * (P + 1) +: 32] = 32'd0;
            assign in_next1[32 * (P + 1) +: 32] = 32'd0;
            assign in_valid[P + 1] = inj2_valid;
            assign in_data[DW * (P + 1) +: DW] = inj2_data;
            assign in_last[P + 1] = inj2_last;
            assign inj2_ready = in_ready[P + 1];
            assign ej2_valid = out_valid[P + 1];
            assign ej2_data = out_data[DW * (P + 1) +: DW];
            assign ej2_last = out_last[P + 1];
            assign out_ready[P + 1] = ej2_ready;
            assign out_can_take[2 * (P + 1) +: 2] = 2'b11;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_local2 = &{1'b0, in_sel_vc[P + 1], out_blocked[P + 1]};
            /* verilator lint_on UNUSEDSIGNAL */
        end else begin : g_local1
            assign inj2_ready = 1'b0;
            assign ej2_valid = 1'b0;
            assign ej2_data = {DW{1'b0}};
            assign ej2_last = 1'b0;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_local2 = &{1'b0, inj2_valid, inj2_data, inj2_last, ej2_ready};
            /* verilator lint_on UNUSEDSIGNAL */
        end
    endgenerate

    rdma_router #(.P(P), .LANES(LANES), .LOCALS(LOCALS)) u_router (
        .clk(clk), .rst(rst), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_port(cfg_port), .port_dim(port_dim),
        .port_dateline(port_dateline), .in_avail(in_avail), .in_head0(in_head0), .in_head1(in_head1),
        .in_more(in_more), .in_next0(in_next0), .in_next1(in_next1), .in_sel_vc(in_sel_vc), .in_valid(in_valid), .in_ready(in_ready), .in_data(in_data), .in_last(in_last),
        .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data), .out_last(out_last),
        .out_can_take(out_can_take), .out_blocked(out_blocked), .dbg(router_dbg));
    initial begin
        if (LOCALS < 1 || LOCALS > 2) $error("%m: LOCALS=%0d must be 1 or 2", LOCALS);
        if (CTRL_INTERVAL < 1 || CTRL_INTERVAL >= TIMEOUT / 2)
            $error("%m: CTRL_INTERVAL=%0d must be 1..TIMEOUT/2-1 (an ACK must come before a replay)", CTRL_INTERVAL);
    end
endmodule
`default_nettype wire
