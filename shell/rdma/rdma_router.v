// Router of one card: a packet crossbar over P link ports and the local engine port
// (index P), a routing table of 64 entries (destination card -> output port) written
// through a configuration port, and dateline virtual channels: a packet keeps its VC while
// it stays in one dimension, starts a new dimension on VC 0 and moves to VC 1 on a dateline
// link. A packet is granted an output only when the link behind it can take a packet on the
// packet's new VC (out_can_take of the cycle before, not right after a header passed there),
// so a packet waiting for credits on one VC never holds an output that the other VC could
// use; a granted packet holds its input and output until its last word (beat: LANES words;
// the header is lane 0 of the first).
// With LOCALS = 2 the card has a second local port (index P + 1): packets the table sends to
// the card itself go there when their type is STREAM2 or CREDIT2, so two streams can enter
// and leave the card at the line at once (an allreduce's sums and result each need nearly
// half of a local port's beats).
//
// Pipelined for the card's clock, one decision per output per cycle, and the crossbar's
// select, its data and its readies a function of registers (the grant is registered: a packet
// passes its first beat the cycle after its grant):
// - routes are registered: every cycle each (input, VC) head's output (a 64:1 multiplexer
//   per output bit of a one-hot table) is computed for the next cycle, from the head, or from
//   the header behind it (in_next*, in_more: the link receiver's next slot) when the head's
//   last beat leaves now. Local inputs have a three-beat input queue whose header beats carry
//   their route;
// - an input asks with one VC a cycle (registered from the heads there: both VCs with a head
//   take turns), so each output arbitrates round-robin over the inputs asking it, all outputs
//   at once, every grant a function of the asks and a registered pointer;
// - a flow keeps a beat a cycle through the registered grant by chaining: when a packet's last
//   beat leaves and the packet behind it on the same input and VC (its route registered a
//   cycle ahead: the receiver's next slot, a local queue's second beat) goes to the same
//   output, that output's link can take it (out_can_take counts the packet being written) and
//   no other input asks for the output, the output stays with the input and passes the next
//   header in the following cycle. Otherwise the output is free a cycle and arbitrates.
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
    localparam integer QD = 3;          // beats of a local input's queue

    // the table one-hot per output (the link ports and this card), a 64-bit vector per output:
    // a head's outputs are a tree of 4:1 multiplexers of registers per bit, not a lookup
    // followed by a comparison with every output (registers, not a RAM: every head reads it
    // at once)
    reg [63:0]   table_q [0:P];
    // per input, from the static port configuration: the outputs where a packet arriving on
    // VC 0 / VC 1 leaves on VC 1 (registered: the asks and routes do not decode port_dim)
    reg [N-1:0]  ovm0 [0:N-1];
    reg [N-1:0]  ovm1 [0:N-1];
    // per output
    reg [N-1:0]  busy_reg, first_reg, ovc_reg;
    reg [N-1:0]  hp_reg;           // a header passed last cycle (its credit not yet in rqk)
    reg [N-1:0]  wait_reg;         // an input other than its owner asked for it (no chaining)
    /* verilator lint_off UNUSEDSIGNAL */
    reg [N-1:0]  own_vc_reg;       // debug: outputs 0..4 only
    /* verilator lint_on UNUSEDSIGNAL */
    reg [N-1:0]  own_oh [0:N-1];   // the input it follows, one-hot (0 when idle)
    reg [IB-1:0] own [0:N-1];      // ... its index (debug)
    reg [N-1:0]  hi_reg [0:N-1];   // the inputs that go first: those after the last granted
    // per input
    reg [N-1:0]  locked_reg;       // an output follows it (it asks for nothing)
    reg [N-1:0]  ivc_reg;          // the VC it passes
    reg [N-1:0]  iown_oh [0:N-1];  // the output that follows it, one-hot
    reg [N-1:0]  vsel_reg;         // the VC it asks with
    reg [N-1:0]  rq [0:N-1];       // its asking head goes to this output (none: 0) ...
    reg [N-1:0]  rqv [0:N-1];      // ... leaving on VC 1 if it is one of these ...
    reg [N-1:0]  rqk [0:N-1];      // ... and the output's link could take it last cycle
    reg [N-1:0]  cn [0:N-1];       // a link input: the outputs of the packet behind its head
    // a link input's table lookups of last cycle (heads and the headers behind them), with the
    // heads present, the headers behind, and its pops (per VC)
    reg [N-1:0]  lh0 [0:N-1];
    reg [N-1:0]  lh1 [0:N-1];
    reg [N-1:0]  ln0 [0:N-1];
    reg [N-1:0]  ln1 [0:N-1];
    reg [2*N-1:0] av_reg, mo_reg;
    reg [N-1:0]  pv0_reg, pv1_reg;

    // the local inputs' queues (entry QD * input + k, k = 0 the head): a beat, and a header
    // beat's route; a header's route is looked up from the bus in the cycle it comes in and
    // joins its entry (pk, pr) a cycle later
    reg [N-1:0]  mid_reg;          // the next beat on a local bus is not a header
    reg          e_v [0:QD*N-1];
    reg          e_l [0:QD*N-1];
    reg [DW-1:0] e_d [0:QD*N-1];
    reg [N-1:0]  e_rt [0:QD*N-1];
    reg [QD*N-1:0] pk_reg;         // the entry holding the header that came in last cycle
    reg [N-1:0]  pr [0:N-1];       // ... its route

    // the crossbar's view of every input
    reg [N-1:0]  xv, xl, xr;
    reg [DW-1:0] xd [0:N-1];
    reg [N-1:0]  eff [0:QD*N-1];   // a local entry's route, the one of last cycle's header joined
    reg [N-1:0]  rc [0:N-1];       // every input's chain candidate
    integer a;
    always @(*) begin
        for (a = 0; a < QD * N; a = a + 1) eff[a] = pk_reg[a] ? pr[a / QD] : e_rt[a];
        for (a = 0; a < N; a = a + 1) begin
            xv[a] = a < P ? in_valid[a] : e_v[QD * a];
            xl[a] = a < P ? in_last[a] : e_l[QD * a];
            xd[a] = a < P ? in_data[DW * a +: DW] : e_d[QD * a];
            rc[a] = a < P ? cn[a] : eff[QD * a + 1];
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
    integer     tb;
    function automatic mux4(input [3:0] v, input [1:0] sl);
        mux4 = sl[1] ? (sl[0] ? v[3] : v[2]) : (sl[0] ? v[1] : v[0]);
    endfunction
    function automatic lookup(input [63:0] v, input [5:0] adr);  // 64:1 as a tree of 4:1
        reg [15:0] m1;
        reg [3:0]  m2;
        integer    u;
        begin
            for (u = 0; u < 16; u = u + 1) m1[u] = mux4(v[4 * u +: 4], adr[1:0]);
            for (u = 0; u < 4; u = u + 1) m2[u] = mux4(m1[4 * u +: 4], adr[3:2]);
            lookup = mux4(m2, adr[5:4]);
        end
    endfunction
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
            for (tb = 0; tb <= P; tb = tb + 1) row[tb] = lookup(table_q[tb], hw[RDMA_HDR_DST_LSB +: RDMA_HDR_DST_W]);
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

    // requests: an idle input asks the output of its selected VC's head when the output is idle
    // and its link could take the packet on the new VC (rqk: a cycle old, so not after a
    // header passed there); per output a round-robin arbiter picks the lowest asking input
    // above the last one granted, else the lowest asking input
    reg [N-1:0]  ask [0:N-1];      // per output: the inputs asking it
    reg [N-1:0]  pick [0:N-1];     // per output: the input granted, one-hot
    reg [N-1:0]  grant, g_ovc, blocked_w, wait_n;
    reg          beaten, hi_ask;
    integer      k;
    integer i;
    always @(*) begin
        for (o = 0; o < N; o = o + 1) begin
            blocked_w[o] = 1'b0;
            wait_n[o] = 1'b0;
            g_ovc[o] = 1'b0;
            for (i = 0; i < N; i = i + 1) begin
                ask[o][i] = rqk[i][o] && !locked_reg[i] && !busy_reg[o] && !hp_reg[o];
                blocked_w[o] = blocked_w[o] || (rq[i][o] && !rqk[i][o] && !locked_reg[i]);
                wait_n[o] = wait_n[o] || (rq[i][o] && !locked_reg[i]);
            end
            // the lowest asking input among those after the last granted (hi_reg), else the
            // lowest asking input: each grant a function of the asks and a register
            hi_ask = |(ask[o] & hi_reg[o]);
            for (i = 0; i < N; i = i + 1) begin
                beaten = 1'b0;
                for (k = 0; k < i; k = k + 1)
                    if (ask[o][k] && (hi_reg[o][k] || !hi_reg[o][i])) beaten = 1'b1;
                pick[o][i] = ask[o][i] && !beaten && (hi_reg[o][i] || !hi_ask);
                if (pick[o][i] && rqv[i][o]) g_ovc[o] = 1'b1;
            end
            grant[o] = |ask[o];
            out_blocked[o] = !busy_reg[o] && !grant[o] && blocked_w[o];
        end
    end

    // the crossbar: each busy output follows its input (registers only); the header gets its
    // new VC
    integer z;
    always @(*) begin
        for (z = 0; z < N; z = z + 1) in_sel_vc[z] = locked_reg[z] ? ivc_reg[z] : vsel_reg[z];
    end
    integer c, d;
    always @(*) begin
        out_valid = {N{1'b0}};
        out_last = {N{1'b0}};
        out_data = {DW*N{1'b0}};
        for (c = 0; c < N; c = c + 1) begin
            for (d = 0; d < N; d = d + 1) begin
                if (own_oh[c][d]) begin
                    out_valid[c] = out_valid[c] | xv[d];
                    out_last[c] = out_last[c] | xl[d];
                    out_data[DW * c +: DW] = out_data[DW * c +: DW] | xd[d];
                end
            end
            if (first_reg[c]) out_data[DW * c + RDMA_HDR_VC_LSB] = ovc_reg[c];
        end
    end
    integer e, f;
    always @(*) begin
        xr = {N{1'b0}};
        for (e = 0; e < N; e = e + 1)
            for (f = 0; f < N; f = f + 1)
                if (own_oh[e][f]) xr[f] = xr[f] | out_ready[e];
        for (f = 0; f < N; f = f + 1) in_ready[f] = f < P ? xr[f] : !e_v[QD * f + QD - 1];
    end

    // per output: its packet's last beat leaves now (fin), and the packet behind it on the
    // same input and VC follows at once (chain): its header has not passed in this cycle (so
    // out_can_take counts the packet passing), no other input asks
    reg [N-1:0] fin, chain, pass;
    integer g;
    always @(*) begin
        for (o = 0; o < N; o = o + 1) begin
            pass[o] = |(own_oh[o] & xv) && out_ready[o];
            fin[o] = pass[o] && |(own_oh[o] & xl);
            chain[o] = 1'b0;
            for (g = 0; g < N; g = g + 1)
                if (own_oh[o][g] && rc[g][o]) chain[o] = 1'b1;
            chain[o] = chain[o] && !first_reg[o] && !wait_reg[o]
                       && (ovc_reg[o] ? out_can_take[2 * o + 1] : out_can_take[2 * o]);
        end
    end

    // next cycle's asks. A link input: from last cycle's lookups of the heads, or of the
    // headers behind them where a head left then (a head that came since asks a cycle later);
    // one whose last beat leaves now (pop) asks nothing for a cycle. A local input: its head's
    // route, nothing when the head leaves now
    reg [N-1:0] pop, granted, endp, chained;
    reg [N-1:0] vsel_n, c0ok, c1ok, gn0, gn1;
    reg [N-1:0] cand0, cand1, rs, rv;
    reg [N-1:0] rq_n [0:N-1];
    reg [N-1:0] rqv_n [0:N-1];
    reg [N-1:0] rqk_n [0:N-1];
    reg [N-1:0] cn_n [0:N-1];
    reg [N-1:0] lpop, lpush;
    integer j;
    always @(*) begin
        for (j = 0; j < N; j = j + 1) begin
            granted[j] = 1'b0;
            for (o = 0; o < N; o = o + 1)
                if (pick[o][j]) granted[j] = 1'b1;
            endp[j] = locked_reg[j] && xv[j] && xl[j] && |(iown_oh[j] & out_ready);
            chained[j] = |(iown_oh[j] & chain);
            pop[j] = endp[j] && j < P;
            lpop[j] = j >= P && xr[j] && e_v[QD * j];
            lpush[j] = j >= P && in_valid[j] && !e_v[QD * j + QD - 1];
            c0ok[j] = pv0_reg[j] ? mo_reg[2 * j] : av_reg[2 * j];
            c1ok[j] = pv1_reg[j] ? mo_reg[2 * j + 1] : av_reg[2 * j + 1];
            cand0 = pv0_reg[j] ? (mo_reg[2 * j] ? ln0[j] : {N{1'b0}}) : (av_reg[2 * j] ? lh0[j] : {N{1'b0}});
            cand1 = pv1_reg[j] ? (mo_reg[2 * j + 1] ? ln1[j] : {N{1'b0}}) : (av_reg[2 * j + 1] ? lh1[j] : {N{1'b0}});
            // both VCs with a head take turns
            vsel_n[j] = j < P && c1ok[j] && (!c0ok[j] || !vsel_reg[j]);
            if (j < P) rs = pop[j] ? {N{1'b0}} : vsel_n[j] ? cand1 : cand0;
            else rs = lpop[j] ? {N{1'b0}} : eff[QD * j];
            rv = vsel_n[j] ? ovm1[j] : ovm0[j];
            rq_n[j] = rs;
            rqv_n[j] = rv;
            for (o = 0; o < N; o = o + 1)
                rqk_n[j][o] = rs[o] && (rv[o] ? out_can_take[2 * o + 1] : out_can_take[2 * o]);
            // the chain candidate: the packet behind the head of the VC it passes; not while the
            // other VC has a packet waiting, which then gets its turn. Used only in a cycle where
            // the head's last beat leaves and its header left before: the same head was there,
            // locked, when this was computed (ivc_reg its VC) and, unless it came by a pop the
            // cycle before, when the lookup was
            gn0[j] = !pv0_reg[j] && !pv1_reg[j] && !ivc_reg[j] && mo_reg[2 * j] && !av_reg[2 * j + 1];
            gn1[j] = !pv0_reg[j] && !pv1_reg[j] && ivc_reg[j] && mo_reg[2 * j + 1] && !av_reg[2 * j];
            cn_n[j] = (gn0[j] ? ln0[j] : {N{1'b0}}) | (gn1[j] ? ln1[j] : {N{1'b0}});
        end
    end

    // a local input's queue: the head leaves when its output takes it; a beat comes in while
    // the last entry is free (in_ready from a register), behind the others
    reg [QD*N-1:0] sv;             // the entries after the pop, valid
    reg [QD*N-1:0] take;           // the entry that takes the incoming beat
    integer l;
    always @(*) begin
        for (j = 0; j < N; j = j + 1)
            for (l = 0; l < QD; l = l + 1) begin
                sv[QD * j + l] = lpop[j] ? (l + 1 < QD ? e_v[QD * j + (l + 1 < QD ? l + 1 : l)] : 1'b0) : e_v[QD * j + l];
                take[QD * j + l] = lpush[j] && !sv[QD * j + l] && (l == 0 || sv[QD * j + (l > 0 ? l - 1 : 0)]);
            end
    end

    integer y, q, kq;
    always @(posedge clk) begin
        for (q = 0; q < 64; q = q + 1)
            if (cfg_we && cfg_addr == q[5:0])
                for (y = 0; y <= P; y = y + 1) table_q[y][q] <= {28'd0, cfg_port} == y;
        for (y = 0; y < N; y = y + 1) begin
            ovm0[y] <= ovc_at(y, 1'b0);
            ovm1[y] <= ovc_at(y, 1'b1);
            lh0[y] <= rt[4 * y];
            lh1[y] <= rt[4 * y + 1];
            ln0[y] <= rt[4 * y + 2];
            ln1[y] <= rt[4 * y + 3];
            pr[y] <= rt[4 * y];
        end
        av_reg <= in_avail;
        mo_reg <= in_more;
        pv0_reg <= pop & ~ivc_reg;
        pv1_reg <= pop & ivc_reg;
        hp_reg <= pass & first_reg;
        if (rst) begin
            busy_reg <= {N{1'b0}};
            first_reg <= {N{1'b0}};
            own_vc_reg <= {N{1'b0}};
            ovc_reg <= {N{1'b0}};
            wait_reg <= {N{1'b0}};
            locked_reg <= {N{1'b0}};
            ivc_reg <= {N{1'b0}};
            vsel_reg <= {N{1'b0}};
            mid_reg <= {N{1'b0}};
            pk_reg <= {QD*N{1'b0}};
            for (y = 0; y < N; y = y + 1) begin
                own[y] <= {IB{1'b0}};
                own_oh[y] <= {N{1'b0}};
                iown_oh[y] <= {N{1'b0}};
                hi_reg[y] <= {N{1'b0}};
                rq[y] <= {N{1'b0}};
                rqv[y] <= {N{1'b0}};
                rqk[y] <= {N{1'b0}};
                cn[y] <= {N{1'b0}};
            end
            for (y = 0; y < QD * N; y = y + 1) begin
                e_v[y] <= 1'b0;
                e_rt[y] <= {N{1'b0}};
            end
        end else begin
            wait_reg <= wait_n;
            for (y = 0; y < N; y = y + 1) begin
                // outputs
                if (busy_reg[y]) begin
                    if (pass[y]) first_reg[y] <= fin[y] && chain[y];
                    if (fin[y] && !chain[y]) begin
                        busy_reg[y] <= 1'b0;
                        own_oh[y] <= {N{1'b0}};
                    end
                end else begin  // idle: takes the grant if there is one (pick is 0 if not)
                    busy_reg[y] <= grant[y];
                    first_reg[y] <= 1'b1;
                    own_oh[y] <= pick[y];
                    ovc_reg[y] <= g_ovc[y];
                    if (grant[y]) begin
                        own_vc_reg[y] <= |(pick[y] & vsel_reg);
                        for (q = 0; q < N; q = q + 1) begin
                            hi_reg[y][q] <= 1'b0;
                            for (kq = 0; kq < q; kq = kq + 1)
                                if (pick[y][kq]) hi_reg[y][q] <= 1'b1;
                        end
                        for (q = 0; q < N; q = q + 1)
                            if (pick[y][q]) own[y] <= q[IB-1:0];
                    end
                end
                // inputs
                locked_reg[y] <= granted[y] || (locked_reg[y] && !(endp[y] && !chained[y]));
                if (granted[y]) begin
                    ivc_reg[y] <= vsel_reg[y];
                    for (q = 0; q < N; q = q + 1) iown_oh[y][q] <= pick[q][y];
                end
                vsel_reg[y] <= vsel_n[y];
                rq[y] <= rq_n[y];
                rqv[y] <= rqv_n[y];
                rqk[y] <= rqk_n[y];
                cn[y] <= cn_n[y];
                if (y >= P) begin
                    if (lpush[y]) mid_reg[y] <= !in_last[y];
                    for (l = 0; l < QD; l = l + 1) begin
                        e_v[QD * y + l] <= sv[QD * y + l] || take[QD * y + l];
                        pk_reg[QD * y + l] <= take[QD * y + l] && !mid_reg[y];
                        if (sv[QD * y + l]) begin
                            if (lpop[y]) begin
                                e_d[QD * y + l] <= e_d[QD * y + (l + 1 < QD ? l + 1 : l)];
                                e_l[QD * y + l] <= e_l[QD * y + (l + 1 < QD ? l + 1 : l)];
                            end
                            e_rt[QD * y + l] <= lpop[y] ? eff[QD * y + (l + 1 < QD ? l + 1 : l)] : eff[QD * y + l];
                        end else begin  // free: the incoming beat, valid if this entry takes it
                            e_d[QD * y + l] <= in_data[DW * y +: DW];
                            e_l[QD * y + l] <= in_last[y];
                            e_rt[QD * y + l] <= {N{1'b0}};
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
