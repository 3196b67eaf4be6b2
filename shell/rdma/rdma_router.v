// Router of one card: a packet crossbar over P link ports and the local engine port
// (index P), a routing table of 64 entries (destination card -> output port) written
// through a configuration port, round-robin arbitration per output over every
// (input, VC) head, and dateline virtual channels: a packet keeps its VC while it
// stays in one dimension, starts a new dimension on VC 0 and moves to VC 1 on a
// dateline link. A packet is granted an output only when the link behind it can take a
// packet on the packet's new VC now (out_can_take), so a packet waiting for credits on
// one VC never holds an output that the other VC could use; a granted packet holds its
// input and output until its last word (beat: LANES words; the header is lane 0 of the
// first). With LANES > 1 a granted packet's first beat passes in its grant cycle, so an
// output moves a beat every cycle even when packets are one or two beats long.
// With LOCALS = 2 the card has a second local port (index P + 1): packets the table sends to
// the card itself go there when their type is STREAM2 or CREDIT2, so two streams can enter
// and leave the card at the line at once (an allreduce's sums and result each need nearly
// half of a local port's beats).
`default_nettype none
module rdma_router #(
    parameter integer P = 4,     // link ports
    parameter integer LANES = 1, // 32-bit words per beat
    parameter integer LOCALS = 1 // local ports: P (and P + 1: STREAM2 / CREDIT2 packets)
) (
    input  wire                clk,
    input  wire                rst,
    // configuration: table[cfg_addr] <= cfg_port (P = this card, > P = no route)
    input  wire                cfg_we,
    input  wire [5:0]          cfg_addr,
    input  wire [3:0]          cfg_port,
    input  wire [2*P-1:0]      port_dim,       // dimension of each link port (3 = none)
    input  wire [P-1:0]        port_dateline,  // the link out of this port crosses a dateline
    // inputs: P link receivers + the local ports
    input  wire [2*(P+LOCALS)-1:0]  in_avail,
    input  wire [32*(P+LOCALS)-1:0] in_head0,
    input  wire [32*(P+LOCALS)-1:0] in_head1,
    output reg  [P+LOCALS-1:0]      in_sel_vc,
    input  wire [P+LOCALS-1:0]      in_valid,
    output reg  [P+LOCALS-1:0]      in_ready,
    input  wire [32*LANES*(P+LOCALS)-1:0] in_data,
    input  wire [P+LOCALS-1:0]      in_last,
    // outputs: P link senders + the local ports
    output reg  [P+LOCALS-1:0]      out_valid,
    input  wire [P+LOCALS-1:0]      out_ready,
    output reg  [32*LANES*(P+LOCALS)-1:0] out_data,
    output reg  [P+LOCALS-1:0]      out_last,
    input  wire [2*(P+LOCALS)-1:0]  out_can_take,  // per output and VC: credit and window now
    // debug: an idle output with a packet waiting for it that its link cannot take now
    // (no credit or a full replay window), and the crossbar's state (RDMA_ROUTER_STATE)
    output reg  [P+LOCALS-1:0]      out_blocked,
    output wire [63:0]         dbg
);
    `include "rdma_packet.vh"
    localparam integer N = P + LOCALS;
    localparam integer IB = $clog2(N);  // input index width: exactly the index of [P:0] (N >= 2)
    localparam integer DW = 32 * LANES;
    localparam integer FAST = LANES > 1 ? 1 : 0;  // pass the first beat in the grant cycle

    reg [3:0]    table_q [0:63];
    reg [N-1:0]  busy_reg, first_reg;
    reg [IB-1:0] own [0:N-1];
    reg [N-1:0]  own_vc_reg, ovc_reg;
    reg [N-1:0]  locked_reg;
    reg [7:0]    rr [0:N-1];
    // combinational grants
    reg [N-1:0]  grant;
    reg [IB-1:0] g_in [0:N-1];
    reg [N-1:0]  g_vc, g_ovc;
    reg [7:0]    g_next [0:N-1];

    integer o, k, s, i, v, nx;
    reg [N-1:0] taken;
    reg [5:0]   dst;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [31:0]  head;   // its destination and type fields only
    /* verilator lint_on UNUSEDSIGNAL */
    reg [3:0]   typ;
    reg [4:0]   tgt;    // the packet's output: the table's, or the second local port
    reg [1:0]   dim_in, dim_out;
    reg         ovc_c;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [31:0]  nxv, iv;  // integer -> narrow index: the upper bits are zero by construction
    /* verilator lint_on UNUSEDSIGNAL */
    always @(*) begin
        taken = locked_reg;
        grant = {N{1'b0}};
        out_blocked = {N{1'b0}};
        g_vc = {N{1'b0}};
        g_ovc = {N{1'b0}};
        s = 0; i = 0; v = 0; nx = 0; dst = 6'd0; head = 32'd0; typ = 4'd0; tgt = 5'd0; dim_in = 2'd3; dim_out = 2'd3; nxv = 32'd0; iv = 32'd0; ovc_c = 1'b0;
        for (o = 0; o < N; o = o + 1) begin
            g_in[o] = {IB{1'b0}};
            g_next[o] = rr[o];
            if (!busy_reg[o]) begin
                for (k = 0; k < 2 * N; k = k + 1) begin
                    s = (k + {24'd0, rr[o]}) % (2 * N);
                    i = s / 2;
                    v = s % 2;
                    head = v == 1 ? in_head1[32 * i +: 32] : in_head0[32 * i +: 32];
                    dst = head[RDMA_HDR_DST_LSB +: RDMA_HDR_DST_W];
                    typ = head[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
                    tgt = {1'b0, table_q[dst]};
                    if (LOCALS > 1 && {28'd0, table_q[dst]} == P && (typ == RDMA_T_STREAM2 || typ == RDMA_T_CREDIT2))
                        tgt = tgt + 5'd1;
                    // a new dimension starts on VC 0; a dateline link moves it to VC 1
                    dim_in = i < P ? port_dim[2 * i +: 2] : 2'd3;
                    dim_out = o < P ? port_dim[2 * o +: 2] : 2'd3;
                    if (o < P && port_dateline[o < P ? o : 0]) ovc_c = 1'b1;  // index in range for every unrolled o
                    else if (dim_out != 2'd3 && dim_in == dim_out) ovc_c = v[0];
                    else ovc_c = 1'b0;
                    if (!grant[o] && !taken[i] && in_avail[2 * i + v] && {27'd0, tgt} == o
                            && !out_can_take[2 * o + {31'd0, ovc_c}])
                        out_blocked[o] = 1'b1;
                    if (!grant[o] && !taken[i] && in_avail[2 * i + v] && {27'd0, tgt} == o
                            && out_can_take[2 * o + {31'd0, ovc_c}]) begin
                        grant[o] = 1'b1;
                        iv = i;
                        g_in[o] = iv[IB-1:0];
                        g_vc[o] = v[0];
                        g_ovc[o] = ovc_c;
                        nx = (s + 1) % (2 * N);
                        nxv = nx;
                        g_next[o] = nxv[7:0];
                        taken[i] = 1'b1;
                    end
                end
            end
        end
    end

    // the crossbar: each busy output follows its input (with FAST also a granted one); the
    // header gets its new VC
    integer x;
    reg [N-1:0]  pass, pass_first, pass_vc, pass_ovc;
    reg [IB-1:0] pass_in [0:N-1];
    always @(*) begin  // who passes: from registers and grants only (no valid / ready)
        in_sel_vc = {N{1'b0}};
        for (x = 0; x < N; x = x + 1) begin
            pass[x] = busy_reg[x] || (FAST == 1 && grant[x]);
            pass_in[x] = busy_reg[x] ? own[x] : g_in[x];
            pass_first[x] = busy_reg[x] ? first_reg[x] : 1'b1;
            pass_vc[x] = busy_reg[x] ? own_vc_reg[x] : g_vc[x];
            pass_ovc[x] = busy_reg[x] ? ovc_reg[x] : g_ovc[x];
            if (pass[x]) in_sel_vc[pass_in[x]] = pass_vc[x];
        end
    end
    integer z;
    always @(*) begin
        in_ready = {N{1'b0}};
        out_valid = {N{1'b0}};
        out_last = {N{1'b0}};
        out_data = {DW*N{1'b0}};
        for (z = 0; z < N; z = z + 1) begin
            if (pass[z]) begin
                in_ready[pass_in[z]] = out_ready[z];
                out_valid[z] = in_valid[pass_in[z]];
                out_last[z] = in_last[pass_in[z]];
                out_data[DW * z +: DW] = in_data[DW * pass_in[z] +: DW];
                if (pass_first[z]) out_data[DW * z + RDMA_HDR_VC_LSB] = pass_ovc[z];
            end
        end
    end

    // per output (8 bits each, outputs 0..4): {busy, input VC, output VC, 2'b0, input}; then
    // the (input, VC) heads present (2 bits per input) and the blocked outputs
    genvar gd;
    generate
        for (gd = 0; gd < 5; gd = gd + 1) begin : g_dbg
            if (gd < N) begin : g_out
                /* verilator lint_off UNUSEDSIGNAL */
                wire [31:0] ownx = {{32-IB{1'b0}}, own[gd]};
                /* verilator lint_on UNUSEDSIGNAL */
                assign dbg[8 * gd +: 8] = {busy_reg[gd], own_vc_reg[gd], ovc_reg[gd], 2'b00, ownx[2:0]};
            end else begin : g_none
                assign dbg[8 * gd +: 8] = 8'd0;
            end
        end
    endgenerate
    /* verilator lint_off UNUSEDSIGNAL */
    wire [63:0] dbg_tail = {{64-3*N{1'b0}}, out_blocked, in_avail};  // up to 8 ports reported
    /* verilator lint_on UNUSEDSIGNAL */
    assign dbg[63:40] = dbg_tail[23:0];

    integer y;
    always @(posedge clk) begin
        if (cfg_we) table_q[cfg_addr] <= cfg_port;
        if (rst) begin
            busy_reg <= {N{1'b0}};
            first_reg <= {N{1'b0}};
            own_vc_reg <= {N{1'b0}};
            ovc_reg <= {N{1'b0}};
            locked_reg <= {N{1'b0}};
            for (y = 0; y < N; y = y + 1) begin
                own[y] <= {IB{1'b0}};
                rr[y] <= 8'd0;
            end
        end else begin
            for (y = 0; y < N; y = y + 1) begin
                if (busy_reg[y]) begin
                    if (in_valid[own[y]] && out_ready[y]) begin
                        first_reg[y] <= 1'b0;
                        if (in_last[own[y]]) begin
                            busy_reg[y] <= 1'b0;
                            locked_reg[own[y]] <= 1'b0;
                        end
                    end
                end else if (grant[y]) begin
                    // with FAST the first beat may already have passed, or the whole packet
                    busy_reg[y] <= FAST == 0 || !(in_valid[g_in[y]] && out_ready[y] && in_last[g_in[y]]);
                    first_reg[y] <= FAST == 0 || !(in_valid[g_in[y]] && out_ready[y]);
                    own[y] <= g_in[y];
                    own_vc_reg[y] <= g_vc[y];
                    locked_reg[g_in[y]] <= FAST == 0 || !(in_valid[g_in[y]] && out_ready[y] && in_last[g_in[y]]);
                    rr[y] <= g_next[y];
                    ovc_reg[y] <= g_ovc[y];
                end
            end
        end
    end
    initial begin
        if (P < 1 || P > 14) $error("%m: P=%0d link ports must be 1..14 (15 in the routing table means no route)", P);
        if (LOCALS < 1 || LOCALS > 2) $error("%m: LOCALS=%0d must be 1 or 2", LOCALS);
    end
endmodule
`default_nettype wire
