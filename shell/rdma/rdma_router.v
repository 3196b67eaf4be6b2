// Router of one card: a packet crossbar over P link ports and the local engine port
// (index P), a routing table of 64 entries (destination card -> output port) written
// through a configuration port, and dateline virtual channels: a packet keeps its VC while
// it stays in one dimension, starts a new dimension on VC 0 and moves to VC 1 on a dateline
// link. A packet is granted an output only when the link behind it can take a packet on the
// packet's new VC now (out_can_take), so a packet waiting for credits on one VC never holds
// an output that the other VC could use; a granted packet holds its input and output until
// its last word (beat: LANES words; the header is lane 0 of the first). With LANES > 1 a
// granted packet's first beat passes in its grant cycle, so an output moves a beat every
// cycle even when packets are several beats long.
// With LOCALS = 2 the card has a second local port (index P + 1): packets the table sends to
// the card itself go there when their type is STREAM2 or CREDIT2, so two streams can enter
// and leave the card at the line at once (an allreduce's sums and result each need nearly
// half of a local port's beats).
//
// Pipelined for the card's clock, one decision per output per cycle:
// - routes are registered: every cycle each (input, VC) head's output (a 64:1 multiplexer
//   per output bit of a one-hot table) is computed for the next cycle, from the head, or from
//   the header behind it (in_next*, in_more: the link receiver's next slot) when the head's
//   last beat leaves now, so a VC's next packet asks for its output the cycle after the one
//   before ends. Local inputs have a two-beat input register whose header beats carry their
//   route (1 cycle of latency);
// - an input asks with one VC a cycle (registered from the heads there: both VCs with a head
//   take turns), so each output arbitrates round-robin over the inputs asking it, all outputs
//   at once, every grant a function of the asks and a registered pointer (no output's grant
//   waits on another's);
// - an input whose whole packet passed in its grant cycle (one beat) rests a cycle, while its
//   registered route catches up with the head behind it.
`default_nettype none
module rdma_router #(
    parameter integer P = 4,     // link ports
    parameter integer LANES = 1, // 32-bit words per beat
    parameter integer LOCALS = 1 // local ports: P (and P + 1: STREAM2 / CREDIT2 packets)
) (
    input  wire                clk,
    input  wire                rst,
    // configuration: table[cfg_addr] <= cfg_port (P = this card, > P = no route; STREAM2 and
    // CREDIT2 packets to this card leave at P + 1)
    input  wire                cfg_we,
    input  wire [5:0]          cfg_addr,
    input  wire [3:0]          cfg_port,
    input  wire [2*P-1:0]      port_dim,       // dimension of each link port (3 = none)
    input  wire [P-1:0]        port_dateline,  // the link out of this port crosses a dateline
    // inputs: P link receivers + the local ports (a local port's head is lane 0 of its bus;
    // its avail, second head and next headers are not used)
    input  wire [2*(P+LOCALS)-1:0]  in_avail,
    input  wire [32*(P+LOCALS)-1:0] in_head0,
    input  wire [32*(P+LOCALS)-1:0] in_head1,
    input  wire [2*(P+LOCALS)-1:0]  in_more,   // per (input, VC): a packet behind the head
    input  wire [32*(P+LOCALS)-1:0] in_next0,  // ... its header, VC 0
    input  wire [32*(P+LOCALS)-1:0] in_next1,  // ... VC 1
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

    // the table one-hot per output (the link ports and this card): a head's outputs are one
    // 64:1 multiplexer of registers per bit, not a lookup followed by a comparison with every
    // output (registers, not a RAM: every head reads it at once)
    (* mem2reg *) reg [P:0] table_q [0:63];
    // per output
    reg [N-1:0]  busy_reg, first_reg, ovc_reg;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [N-1:0]  own_vc_reg;       // debug: outputs 0..4 only
    /* verilator lint_on UNUSEDSIGNAL */
    reg [N-1:0]  own_oh [0:N-1];   // the input it follows, one-hot
    reg [IB-1:0] own [0:N-1];      // ... its index (debug)
    reg [IB-1:0] rr_ptr [0:N-1];   // the input that goes first: the one after the last granted
    // per input
    reg [N-1:0]  locked_reg;       // an output follows it
    reg [N-1:0]  hold_reg;         // it asks for nothing this cycle (locked, or resting)
    reg [N-1:0]  ivc_reg;          // the VC it passes
    reg [N-1:0]  iown_oh [0:N-1];  // the output that follows it, one-hot
    reg [N-1:0]  vsel_reg;         // the VC it asks with
    reg [N-1:0]  rq0 [0:N-1];      // the head of that VC goes to these outputs on VC 0 ...
    reg [N-1:0]  rq1 [0:N-1];      // ... on VC 1 (at most one bit of both set)

    // the local inputs' registers: head and second beat, a header beat with its route
    reg [N-1:0]  h_valid, s_valid, h_last, s_last, mid_reg;
    reg [DW-1:0] h_data [0:N-1];
    reg [DW-1:0] s_data [0:N-1];
    reg [N-1:0]  h_rq0 [0:N-1];
    reg [N-1:0]  h_rq1 [0:N-1];
    reg [N-1:0]  s_rq0 [0:N-1];
    reg [N-1:0]  s_rq1 [0:N-1];

    // the crossbar's view of every input
    reg [N-1:0]  xv, xl, xr;
    reg [DW-1:0] xd [0:N-1];
    integer a;
    always @(*) begin
        for (a = 0; a < N; a = a + 1) begin
            xv[a] = a < P ? in_valid[a] : h_valid[a];
            xl[a] = a < P ? in_last[a] : h_last[a];
            xd[a] = a < P ? in_data[DW * a +: DW] : h_data[a];
        end
    end

    // routes of every head, of the header behind it, and of a local port's incoming beat:
    // rt[4 * input + {head0, head1, next0, next1}], one-hot
    reg [N-1:0] rt [0:4*N-1];
    integer b, o;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [31:0]  hw;     // its destination and type fields only
    /* verilator lint_on UNUSEDSIGNAL */
    reg [3:0]   typ;
    reg [P:0]   row;
    reg         s2;
    always @(*) begin
        for (b = 0; b < 4 * N; b = b + 1) begin
            case (b % 4)
                0: hw = in_head0[32 * (b / 4) +: 32];
                1: hw = in_head1[32 * (b / 4) +: 32];
                2: hw = in_next0[32 * (b / 4) +: 32];
                default: hw = in_next1[32 * (b / 4) +: 32];
            endcase
            if (b / 4 >= P && b % 4 != 0) hw = 32'd0;  // a local port: its bus only
            typ = hw[RDMA_HDR_TYPE_LSB +: RDMA_HDR_TYPE_W];
            row = table_q[hw[RDMA_HDR_DST_LSB +: RDMA_HDR_DST_W]];
            s2 = LOCALS > 1 && (typ == RDMA_T_STREAM2 || typ == RDMA_T_CREDIT2);
            rt[b] = {N{1'b0}};
            rt[b][P:0] = row;
            rt[b][P] = row[P] && !s2;
            rt[b][N-1] = row[P] && (s2 || LOCALS == 1);  // the card itself: STREAM2 / CREDIT2 at the second local port
        end
    end

    // the new VC at each output: a new dimension starts on VC 0; a dateline link moves it to VC 1
    function automatic [N-1:0] ovc_at(input integer i, input reg v);
        integer oo;
        reg [1:0] di, dd;
        begin
            di = i < P ? port_dim[2 * (i < P ? i : 0) +: 2] : 2'd3;
            for (oo = 0; oo < N; oo = oo + 1) begin
                dd = oo < P ? port_dim[2 * (oo < P ? oo : 0) +: 2] : 2'd3;
                ovc_at[oo] = oo < P && (port_dateline[oo < P ? oo : 0] || (dd != 2'd3 && di == dd && v));
            end
        end
    endfunction

    // requests: an input asks the output of its selected VC's head when the output is idle
    // and its link can take the packet on the new VC; per output a round-robin arbiter picks
    // the lowest asking input above the last one granted, else the lowest asking input
    reg [N-1:0]  ask [0:N-1];      // per output: the inputs asking it
    reg [N-1:0]  pick [0:N-1];     // per output: the input granted, one-hot
    reg [N-1:0]  grant, g_ovc, blocked_w;
    reg          beaten;
    integer      k;
    integer i;
    always @(*) begin
        for (o = 0; o < N; o = o + 1) begin
            blocked_w[o] = 1'b0;
            g_ovc[o] = 1'b0;
            for (i = 0; i < N; i = i + 1) begin
                ask[o][i] = (rq0[i][o] && out_can_take[2 * o] || rq1[i][o] && out_can_take[2 * o + 1])
                            && !hold_reg[i] && !busy_reg[o];
                blocked_w[o] = blocked_w[o] || ((rq0[i][o] && !out_can_take[2 * o] || rq1[i][o]
                                                 && !out_can_take[2 * o + 1]) && !hold_reg[i]);
            end
            // input i wins unless an asking input comes before it from the pointer on: each
            // grant a function of the asks and the pointer only
            for (i = 0; i < N; i = i + 1) begin
                beaten = 1'b0;
                for (k = 0; k < N; k = k + 1)  // k comes before i, counting from the pointer
                    if (ask[o][k] && (k < i ? {{32-IB{1'b0}}, rr_ptr[o]} <= k || {{32-IB{1'b0}}, rr_ptr[o]} > i
                                            : k > i && {{32-IB{1'b0}}, rr_ptr[o]} > i && {{32-IB{1'b0}}, rr_ptr[o]} <= k))
                        beaten = 1'b1;
                pick[o][i] = ask[o][i] && !beaten;
                if (pick[o][i] && rq1[i][o]) g_ovc[o] = 1'b1;
            end
            grant[o] = |ask[o];
            out_blocked[o] = !busy_reg[o] && !grant[o] && blocked_w[o];
        end
    end

    // the crossbar: each busy output follows its input (with FAST also a granted one); the
    // header gets its new VC
    reg [N-1:0] sel [0:N-1];  // per output: the input it passes, one-hot
    reg [N-1:0] first_now, ovc_now;
    integer z;
    always @(*) begin  // who passes: from registers and grants only (no valid / ready)
        for (z = 0; z < N; z = z + 1) begin
            sel[z] = busy_reg[z] ? own_oh[z] : (FAST == 1 ? pick[z] : {N{1'b0}});
            first_now[z] = busy_reg[z] ? first_reg[z] : 1'b1;
            ovc_now[z] = busy_reg[z] ? ovc_reg[z] : g_ovc[z];
        end
        for (z = 0; z < N; z = z + 1) in_sel_vc[z] = locked_reg[z] ? ivc_reg[z] : vsel_reg[z];
    end
    integer c, d;
    always @(*) begin
        out_valid = {N{1'b0}};
        out_last = {N{1'b0}};
        out_data = {DW*N{1'b0}};
        for (c = 0; c < N; c = c + 1) begin
            for (d = 0; d < N; d = d + 1) begin
                if (sel[c][d]) begin
                    out_valid[c] = out_valid[c] | xv[d];
                    out_last[c] = out_last[c] | xl[d];
                    out_data[DW * c +: DW] = out_data[DW * c +: DW] | xd[d];
                end
            end
            if (first_now[c]) out_data[DW * c + RDMA_HDR_VC_LSB] = ovc_now[c];
        end
    end
    integer e, f;
    always @(*) begin
        xr = {N{1'b0}};
        for (e = 0; e < N; e = e + 1)
            for (f = 0; f < N; f = f + 1)
                if (sel[e][f]) xr[f] = xr[f] | out_ready[e];
        for (f = 0; f < N; f = f + 1) in_ready[f] = f < P ? xr[f] : !s_valid[f];
    end

    // next cycle's routes: a link input's last beat leaving now (pop) puts the header behind
    // it at the head
    reg [N-1:0] pop, granted, whole, endp;
    reg [N-1:0] ok0, ok1, vsel_n;
    reg [N-1:0] r0, r1, rs;
    reg [N-1:0] rq0_n [0:N-1];
    reg [N-1:0] rq1_n [0:N-1];
    integer j;
    always @(*) begin
        for (j = 0; j < N; j = j + 1) begin
            granted[j] = 1'b0;
            whole[j] = 1'b0;
            for (o = 0; o < N; o = o + 1)
                if (pick[o][j]) begin
                    granted[j] = 1'b1;
                    whole[j] = FAST == 1 && xv[j] && xl[j] && out_ready[o];
                end
            endp[j] = locked_reg[j] && xv[j] && xl[j] && |(iown_oh[j] & out_ready);
            pop[j] = endp[j] && j < P;
            ok0[j] = pop[j] && !ivc_reg[j] ? in_more[2 * j] : in_avail[2 * j];
            ok1[j] = pop[j] && ivc_reg[j] ? in_more[2 * j + 1] : in_avail[2 * j + 1];
            // from the heads there now: a VC whose last packet leaves now asks nothing for a cycle
            vsel_n[j] = j < P && in_avail[2 * j + 1] && (!in_avail[2 * j] || !vsel_reg[j]);
            r0 = ok0[j] ? (pop[j] && !ivc_reg[j] ? rt[4 * j + 2] : rt[4 * j]) : {N{1'b0}};
            r1 = ok1[j] ? (pop[j] && ivc_reg[j] ? rt[4 * j + 3] : rt[4 * j + 1]) : {N{1'b0}};
            rs = vsel_n[j] ? r1 : r0;
            rq0_n[j] = rs & ~ovc_at(j, vsel_n[j]);
            rq1_n[j] = rs & ovc_at(j, vsel_n[j]);
        end
    end

    integer y, q;
    always @(posedge clk) begin
        if (cfg_we)
            for (y = 0; y <= P; y = y + 1) table_q[cfg_addr][y] <= {28'd0, cfg_port} == y;
        if (rst) begin
            busy_reg <= {N{1'b0}};
            first_reg <= {N{1'b0}};
            own_vc_reg <= {N{1'b0}};
            ovc_reg <= {N{1'b0}};
            locked_reg <= {N{1'b0}};
            hold_reg <= {N{1'b0}};
            ivc_reg <= {N{1'b0}};
            vsel_reg <= {N{1'b0}};
            h_valid <= {N{1'b0}};
            s_valid <= {N{1'b0}};
            mid_reg <= {N{1'b0}};
            for (y = 0; y < N; y = y + 1) begin
                own[y] <= {IB{1'b0}};
                own_oh[y] <= {N{1'b0}};
                iown_oh[y] <= {N{1'b0}};
                rr_ptr[y] <= {IB{1'b0}};
                rq0[y] <= {N{1'b0}};
                rq1[y] <= {N{1'b0}};
            end
        end else begin
            for (y = 0; y < N; y = y + 1) begin
                // outputs
                if (busy_reg[y]) begin
                    if (|(own_oh[y] & xv) && out_ready[y]) begin
                        first_reg[y] <= 1'b0;
                        if (|(own_oh[y] & xl)) busy_reg[y] <= 1'b0;
                    end
                end else if (grant[y]) begin
                    // with FAST the first beat may already have passed, or the whole packet
                    busy_reg[y] <= FAST == 0 || !(|(pick[y] & xv & xl) && out_ready[y]);
                    first_reg[y] <= FAST == 0 || !(|(pick[y] & xv) && out_ready[y]);
                    own_oh[y] <= pick[y];
                    own_vc_reg[y] <= |(pick[y] & vsel_reg);
                    ovc_reg[y] <= g_ovc[y];
                    for (q = 0; q < N; q = q + 1)
                        if (pick[y][q]) rr_ptr[y] <= q == N - 1 ? {IB{1'b0}} : q[IB-1:0] + 1'b1;
                    for (q = 0; q < N; q = q + 1)
                        if (pick[y][q]) own[y] <= q[IB-1:0];
                end
                // inputs
                locked_reg[y] <= (granted[y] && !whole[y]) || (locked_reg[y] && !endp[y]);
                hold_reg[y] <= granted[y] || (locked_reg[y] && !endp[y]);
                if (granted[y]) begin
                    ivc_reg[y] <= vsel_reg[y];
                    for (q = 0; q < N; q = q + 1) iown_oh[y][q] <= pick[q][y];
                end
                if (y < P) begin
                    vsel_reg[y] <= vsel_n[y];
                    rq0[y] <= rq0_n[y];
                    rq1[y] <= rq1_n[y];
                end else begin
                    // a local input: a two-beat register; its head's route asks
                    if (in_valid[y] && !s_valid[y]) mid_reg[y] <= !in_last[y];
                    if (!h_valid[y] || xr[y]) begin
                        if (s_valid[y]) begin
                            h_valid[y] <= 1'b1; h_data[y] <= s_data[y]; h_last[y] <= s_last[y];
                            h_rq0[y] <= s_rq0[y]; h_rq1[y] <= s_rq1[y];
                            rq0[y] <= s_rq0[y]; rq1[y] <= s_rq1[y];
                            s_valid[y] <= 1'b0;
                        end else begin
                            h_valid[y] <= in_valid[y]; h_data[y] <= in_data[DW * y +: DW]; h_last[y] <= in_last[y];
                            h_rq0[y] <= in_valid[y] && !mid_reg[y] ? rt[4 * y] & ~ovc_at(y, 1'b0) : {N{1'b0}};
                            h_rq1[y] <= in_valid[y] && !mid_reg[y] ? rt[4 * y] & ovc_at(y, 1'b0) : {N{1'b0}};
                            rq0[y] <= in_valid[y] && !mid_reg[y] ? rt[4 * y] & ~ovc_at(y, 1'b0) : {N{1'b0}};
                            rq1[y] <= in_valid[y] && !mid_reg[y] ? rt[4 * y] & ovc_at(y, 1'b0) : {N{1'b0}};
                        end
                    end else begin
                        rq0[y] <= h_rq0[y]; rq1[y] <= h_rq1[y];
                        if (in_valid[y] && !s_valid[y]) begin
                            s_valid[y] <= 1'b1; s_data[y] <= in_data[DW * y +: DW]; s_last[y] <= in_last[y];
                            s_rq0[y] <= !mid_reg[y] ? rt[4 * y] & ~ovc_at(y, 1'b0) : {N{1'b0}};
                            s_rq1[y] <= !mid_reg[y] ? rt[4 * y] & ovc_at(y, 1'b0) : {N{1'b0}};
                        end
                    end
                end
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
    initial begin
        if (P < 1 || P > 14) $error("%m: P=%0d link ports must be 1..14 (15 in the routing table means no route)", P);
        if (LOCALS < 1 || LOCALS > 2) $error("%m: LOCALS=%0d must be 1 or 2", LOCALS);
    end
endmodule
`default_nettype wire
