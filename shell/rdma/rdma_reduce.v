// One card's part of a pipelined reduction along a chain of cards (REDUCE_* CSRs,
// docs/rdma.md "Reductions"), a 64-byte line a cycle: it reads the card's own vector from
// memory in lines, adds the partial sums arriving from the previous card (FIRST: none) 16
// lanes at a time, and passes the sums on to the next card (LAST: writes them to memory
// instead). u32 sums wrap; f32 sums go through the operator library's bit-exact adder
// (spg_fadd, round to nearest even, subnormals kept), one per lane, each card adding its
// vector to what arrives, so every element is ((v0 + v1) + v2) + ... in chain order.
//
// Allreduce (ALL): the result flows back along the chain while the sums still flow forward.
// The last card sends each line of sums it writes also to its PREV over a second endpoint
// pair (the result's); every other card writes what arrives there to its DST and passes it
// on to its PREV (all but the FIRST). The sums take each link one way, the result the other
// way, so both run at the line at once; the result's words are the last card's bits.
//
// Both pairs are line-wide stream endpoints (rdma_stream_wide in rdma_node) with end-to-end
// credits: a waiting reduction never sits in a router. The unit only waits on its sides --
// the memory, the arriving streams, the outgoing streams' credits -- and never holds
// anything the network needs; its two flows (sums, result) share nothing but the memory.
//
// Chunks: the vector moves in chunks of up to 16 words cut at DST's lines (the first
// chunk runs to the end of DST's first line), the same cut on every card, so each chunk is
// one line write at the LAST card and at every card of an allreduce. The local vector is
// read in SRC's lines and realigned to the chunks in a word buffer (rdma_wbuf).
//
// Timing (the card's 200 MHz, docs/fit.md): at most 5 LUT levels a path. A start takes two
// cycles before the first read (the chunks' line counts in rdma_chunks, the range checks'
// sums, then their comparisons); chunk sizes and ends come from registers; the credits a cycle
// gives back (the local buffer's room, the output FIFO's places) and the counters' increments
// are registered before they are added, and the end of the operation is seen a cycle after
// its last chunk left. A line still moves every cycle.
`default_nettype none
module rdma_reduce #(
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000, // card memory, bytes
    parameter integer LOCAL_DEPTH = 2048            // local read-ahead, words (power of 2; covers the read latency)
) (
    input  wire        clk,
    input  wire        rst,
    // control (REDUCE_CFG/SRC/DST/LEN/CTRL), sampled at start
    input  wire        start,
    input  wire        first,      // no arriving partial sums: the chain starts here
    input  wire        last,       // the sums go to memory at dst instead of the next card
    input  wire        f32,        // 0: u32 wrap-around sum, 1: f32 sum
    input  wire        allreduce,  // allreduce: the result flows back to every card
    input  wire [63:0] src,        // this card's vector
    input  wire [63:0] dst,        // the result (LAST; with ALL every card)
    input  wire [63:0] len,        // bytes (multiple of 4, > 0)
    output wire        busy,
    output reg         done,       // sticky until the next start
    output reg  [7:0]  code,       // 0 ok, 4 LOCAL_RANGE, 5 ALIGN (afushell/rdma.h codes)
    output wire [31:0] words_out,  // sums passed on / written, plus (ALL) the result's written / sent
    output reg  [31:0] in_stalls,  // cycles a local chunk waited for the arriving partial sums
    output reg  [31:0] out_stalls, // cycles a chunk waited for an outgoing stream or the memory
    // memory, 64-byte lines (rdma_line_adapter)
    output wire [63:0]  mem_rd_address,
    output wire         mem_rd_read,
    input  wire         mem_rd_waitrequest,
    input  wire [511:0] mem_rd_readdata,
    input  wire         mem_rd_readdatavalid,
    output wire [63:0]  mem_wr_address,
    output wire         mem_wr_write,
    output wire [511:0] mem_wr_writedata,
    output wire [63:0]  mem_wr_byteenable,
    input  wire         mem_wr_waitrequest,
    output wire         mem_wr_flush,
    input  wire         mem_wr_pending,
    // the partial sums to the next card (core side of a rdma_stream_wide)
    output wire         s_valid,
    input  wire         s_ready,
    output wire [511:0] s_data,
    output wire [5:0]   s_words,
    output wire         s_last,
    // the partial sums from the previous card
    input  wire         m_valid,
    output wire         m_ready,
    input  wire [511:0] m_data,
    output wire [5:0]   m_want,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [5:0]   m_words,   // m_want: both sides cut the same chunks
    input  wire         m_last,    // the word count decides the end
    /* verilator lint_on UNUSEDSIGNAL */
    // allreduce: the result to the previous card
    output wire         rs_valid,
    input  wire         rs_ready,
    output wire [511:0] rs_data,
    output wire [5:0]   rs_words,
    output wire         rs_last,
    // allreduce: the result from the next card
    input  wire         rm_valid,
    output wire         rm_ready,
    input  wire [511:0] rm_data,
    output wire [5:0]   rm_want,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [5:0]   rm_words,
    input  wire         rm_last
    /* verilator lint_on UNUSEDSIGNAL */
);
    localparam integer LAT = 6;        // spg_fadd's latency; u32 sums take the same path
    localparam integer OUT_DEPTH = 16; // > LAT: room for the adder's chunks in flight
    localparam integer LW = $clog2(LOCAL_DEPTH);
    localparam [2:0] S_IDLE = 3'd0, S_SETUP = 3'd1, S_CHECK = 3'd2, S_RUN = 3'd3, S_FLUSH = 3'd4;
    localparam [7:0] E_LOCAL_RANGE = 8'd4, E_ALIGN = 8'd5;

    reg  [2:0]  st_reg;
    reg         first_reg, last_reg, f32_reg, all_reg;
    reg  [3:0]  doff_reg;                     // DST's word in its line: the chunks' cut
    reg  [3:0]  soff_reg;                     // SRC's word in its line
    assign busy = st_reg != S_IDLE;
    reg  run_reg;                               // st_reg == S_RUN, a flag of its own
    wire running = run_reg;
    wire load = st_reg == S_IDLE && start;

    // ---- start: check the arguments (the ranges' comparisons in the setup cycle) -------------
    wire bad_align = src[1:0] != 2'd0 || dst[1:0] != 2'd0 || len[1:0] != 2'd0 || len == 64'd0;
    reg         bad_align_reg, need_dst_reg;
    reg  [64:0] src_end_reg, dst_end_reg;     // src + len, dst + len
    reg         bad_range_reg;
    // DST's lanes a write enables: from DST's word on in its first line, up to the vector's
    // end in its last line (a chunk's lanes, as DST's first and last lines cut them)
    reg  [15:0] lanes_lo_reg, lanes_hi_reg;
    wire [3:0]  dst_end_lane = dst[5:2] + len[5:2];
    wire [15:0] lanes_lo = 16'hFFFF << dst[5:2];
    wire [15:0] lanes_hi = dst_end_lane == 4'd0 ? 16'hFFFF : ~(16'hFFFF << dst_end_lane);
    genvar k;
    // the chunks of each flow: SRC's lines read, the words they push, the sums, the result
    wire [4:0] p_n, c_n, r_n;
    wire       p_first, c_last, r_last, rd_more, p_more, c_more, r_more;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [4:0] rd_n_unused;
    wire       rd_first_unused, rd_last_unused, p_last_unused, c_first_unused, r_first_unused;
    /* verilator lint_on UNUSEDSIGNAL */

    // ---- the sums: reads into the local buffer -----------------------------------------------
    reg  [63:0] rd_addr_reg;                  // the next line to read
    reg  [LW:0] lroom_reg;                    // buffer words not spoken for (16 a line read)
    reg  [4:0]  unpushed_reg, popped_reg;     // words a cycle gave back: not pushed, combined
    reg  [5:0]  lgive_reg;                    // their sum, a cycle later
    assign mem_rd_read = running && rd_more && lroom_reg[LW:4] != {(LW-3){1'b0}};
    assign mem_rd_address = rd_addr_reg;
    wire rd_issue = mem_rd_read && !mem_rd_waitrequest;
    wire [4:0]   push_n = mem_rd_readdatavalid && p_more ? p_n : 5'd0;
    wire [511:0] push_data = p_first ? mem_rd_readdata >> {soff_reg, 5'd0} : mem_rd_readdata;
    rdma_chunks u_rd_chunks (.clk(clk), .rst(rst), .load(load), .off(src[5:2]), .words(len[63:2]), .take(rd_issue),
                             .n(rd_n_unused), .first(rd_first_unused), .last(rd_last_unused), .more(rd_more));
    rdma_chunks u_push_chunks (.clk(clk), .rst(rst), .load(load), .off(src[5:2]), .words(len[63:2]),
                               .take(mem_rd_readdatavalid), .n(p_n), .first(p_first), .last(p_last_unused), .more(p_more));
    wire [LW:0]  l_count;
    wire [511:0] l_head;
    wire [4:0]   pop_n;
    rdma_wbuf #(.DEPTH(LOCAL_DEPTH), .IN(16), .OUT(16)) u_local (
        .clk(clk), .rst(rst), .push_n(push_n), .push_data(push_data), .pop_n(pop_n), .head(l_head), .count(l_count));

    // ---- the sums: combine a chunk of local words with the arriving partial sums -----------
    reg  [4:0]  oroom_reg;                    // output FIFO credits
    reg         oback_reg;                    // a credit back (a chunk left the FIFO last cycle)
    // l_count >= c_n (c_n <= 16) without a carry chain behind the chunk's size
    wire        l_enough = l_count[LW:4] != {(LW-3){1'b0}} || (!c_n[4] && l_count[3:0] >= c_n[3:0]);
    wire        c_have_local = running && c_more && l_enough;
    wire        c_have_in = first_reg || m_valid;
    wire        comb = c_have_local && c_have_in && oroom_reg != 5'd0;
    assign pop_n = comb ? c_n : 5'd0;
    assign m_want = running && !first_reg && c_more ? {1'b0, c_n} : 6'd0;
    assign m_ready = comb && !first_reg;
    rdma_chunks u_c_chunks (.clk(clk), .rst(rst), .load(load), .off(dst[5:2]), .words(len[63:2]), .take(comb),
                            .n(c_n), .first(c_first_unused), .last(c_last), .more(c_more));
    // partial sum first in each lane: ((v0 + v1) + v2) + ...; the first card's words pass
    // around the adders (pass_q), so they leave bit for bit, NaN payloads included
    wire [511:0] fsum;
    genvar g;
    generate
        for (g = 0; g < 16; g = g + 1) begin : g_lane
            spg_fadd #(.FTZ(0)) u_fadd (.clk(clk), .ce(1'b1), .a(m_data[32 * g +: 32]), .b(l_head[32 * g +: 32]),
                                        .y(fsum[32 * g +: 32]));
        end
    endgenerate
    reg  [511:0] isum0, isum_q [0:LAT-1];
    integer i, j;
    always @(*) begin
        for (j = 0; j < 16; j = j + 1) isum0[32 * j +: 32] = first_reg ? l_head[32 * j +: 32] : m_data[32 * j +: 32] + l_head[32 * j +: 32];
    end
    reg  [LAT-1:0] v_q;
    reg  [6:0]     tag_q [0:LAT-1];           // {last chunk, words}
    always @(posedge clk) begin
        v_q <= {v_q[LAT-2:0], comb};
        isum_q[0] <= isum0;
        tag_q[0] <= {c_last, 1'b0, c_n};
        for (i = 1; i < LAT; i = i + 1) begin
            isum_q[i] <= isum_q[i - 1];
            tag_q[i] <= tag_q[i - 1];
        end
        if (rst) v_q <= {LAT{1'b0}};
    end
    wire [511:0] sum = f32_reg && !first_reg ? fsum : isum_q[LAT-1];

    // ---- the sums: output FIFO to the next card, or (LAST) to memory and the result's stream
    wire         x_valid, x_ready_unused, x_pop;
    wire [518:0] x_head;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [4:0]   x_level;
    /* verilator lint_on UNUSEDSIGNAL */
    shell_fifo #(.DATA_WIDTH(519), .FIFO_DEPTH(OUT_DEPTH)) u_out (
        .clk(clk), .rst(rst), .s_axis_tvalid(v_q[LAT-1]), .s_axis_tready(x_ready_unused),
        .s_axis_tdata({tag_q[LAT-1], sum}), .m_axis_tvalid(x_valid), .m_axis_tready(x_pop), .m_axis_tdata(x_head),
        .level(x_level));
    wire [4:0]   x_n = x_head[516:512];
    wire         x_end = x_head[518];
    // the result arriving from the next card (ALL, all but the LAST)
    wire         r_want = running && all_reg && !last_reg && r_more;
    assign rm_want = r_want ? {1'b0, r_n} : 6'd0;
    wire         y_valid = rm_valid && r_want;
    wire         y_end = r_last;
    rdma_chunks u_r_chunks (.clk(clk), .rst(rst), .load(load), .off(dst[5:2]), .words(len[63:2]), .take(rm_ready),
                            .n(r_n), .first(r_first_unused), .last(r_last), .more(r_more));

    // ---- the sides: a chunk leaves once every side it goes to took it (ok flags remember
    // the sides that did). Sums: NEXT (not LAST); LAST: memory, and with ALL the result's PREV.
    // Result arriving (ALL, not LAST): memory, and PREV (not FIRST).
    wire x_to_s = !last_reg;
    wire x_to_r = last_reg && all_reg;
    // memory and the result's stream take the LAST card's sums, or else the arriving result
    wire         w_valid_src = last_reg ? x_valid : y_valid;
    wire [511:0] w_data = last_reg ? x_head[511:0] : rm_data;
    wire [4:0]   w_n = last_reg ? x_n : r_n;
    wire         w_end = last_reg ? x_end : y_end;
    reg          w_need_r_reg;                // LAST: x_to_r; else the result goes on to PREV (not FIRST)
    wire         w_need_r = w_need_r_reg;
    reg          s_ok_reg, m_ok_reg, r_ok_reg;
    reg  [63:0]  w_addr_reg;                  // DST's line of this chunk
    reg          w_first_reg;                 // it is DST's first line
    wire         w_first = w_first_reg;
    assign s_valid = running && x_valid && x_to_s && !s_ok_reg;
    assign s_data = x_head[511:0];
    assign s_words = {1'b0, x_n};
    assign s_last = x_end;
    assign mem_wr_write = running && w_valid_src && !m_ok_reg;
    assign mem_wr_address = w_addr_reg;
    assign mem_wr_writedata = w_first ? w_data << {doff_reg, 5'd0} : w_data;
    generate
        for (k = 0; k < 16; k = k + 1) begin : g_be
            assign mem_wr_byteenable[4 * k +: 4] = {4{(!w_first || lanes_lo_reg[k]) && (!w_end || lanes_hi_reg[k])}};
        end
    endgenerate
    assign mem_wr_flush = st_reg == S_FLUSH;
    assign rs_valid = running && w_valid_src && w_need_r && !r_ok_reg;
    assign rs_data = w_data;
    assign rs_words = {1'b0, w_n};
    assign rs_last = w_end;
    wire s_take = s_valid && s_ready;
    wire m_take = mem_wr_write && !mem_wr_waitrequest;
    wire r_take = rs_valid && rs_ready;
    wire s_done = s_ok_reg || s_take, m_done = m_ok_reg || m_take, r_done = r_ok_reg || r_take;
    wire w_done = m_done && (!w_need_r || r_done);
    assign x_pop = running && x_valid && (last_reg ? w_done : s_done);
    assign rm_ready = running && y_valid && !last_reg && w_done;
    wire w_pop = last_reg ? x_pop : rm_ready;
    reg  x_over_reg, y_over_reg;              // the sums' last chunk left; the result's
    wire x_over = x_over_reg || (x_pop && x_end);
    wire y_over = y_over_reg || (rm_ready && y_end) || !all_reg || last_reg;
    wire writes = last_reg || all_reg;
    reg  [5:0]  x_words_reg, r_words_reg;     // the counts' increments, a cycle late
    reg  [31:0] x_count_reg, r_count_reg;     // words of the sums, of the result
    assign words_out = x_count_reg + r_count_reg;
    wire [LW:0] lroom_sum = lroom_reg + {{LW-5{1'b0}}, lgive_reg};
    reg         out_stall_reg;

    always @(posedge clk) begin
        if (rst) begin
            st_reg <= S_IDLE; run_reg <= 1'b0; w_need_r_reg <= 1'b0; first_reg <= 1'b0; last_reg <= 1'b0; f32_reg <= 1'b0; all_reg <= 1'b0;
            doff_reg <= 4'd0; soff_reg <= 4'd0; rd_addr_reg <= 64'd0; w_addr_reg <= 64'd0; w_first_reg <= 1'b0;
            bad_align_reg <= 1'b0; need_dst_reg <= 1'b0; src_end_reg <= 65'd0; dst_end_reg <= 65'd0; bad_range_reg <= 1'b0;
            lanes_lo_reg <= 16'd0; lanes_hi_reg <= 16'd0;
            lroom_reg <= LOCAL_DEPTH[LW:0]; lgive_reg <= 6'd0; unpushed_reg <= 5'd0; popped_reg <= 5'd0;
            oroom_reg <= OUT_DEPTH[4:0]; oback_reg <= 1'b0;
            s_ok_reg <= 1'b0; m_ok_reg <= 1'b0; r_ok_reg <= 1'b0; x_over_reg <= 1'b0; y_over_reg <= 1'b0;
            x_words_reg <= 6'd0; r_words_reg <= 6'd0; out_stall_reg <= 1'b0;
            done <= 1'b0; code <= 8'd0; x_count_reg <= 32'd0; r_count_reg <= 32'd0; in_stalls <= 32'd0; out_stalls <= 32'd0;
        end else begin
            case (st_reg)
                S_IDLE: if (start) begin
                    done <= 1'b0; x_count_reg <= 32'd0; r_count_reg <= 32'd0; in_stalls <= 32'd0; out_stalls <= 32'd0;
                    first_reg <= first; last_reg <= last; f32_reg <= f32; all_reg <= allreduce;
                    doff_reg <= dst[5:2]; soff_reg <= src[5:2];
                    rd_addr_reg <= {src[63:6], 6'd0}; w_addr_reg <= {dst[63:6], 6'd0}; w_first_reg <= 1'b1;
                    bad_align_reg <= bad_align;
                    need_dst_reg <= last || allreduce;
                    src_end_reg <= {1'b0, src} + {1'b0, len}; dst_end_reg <= {1'b0, dst} + {1'b0, len};
                    w_need_r_reg <= last ? allreduce : !first;
                    lanes_lo_reg <= lanes_lo; lanes_hi_reg <= lanes_hi;
                    lroom_reg <= LOCAL_DEPTH[LW:0]; lgive_reg <= 6'd0; unpushed_reg <= 5'd0; popped_reg <= 5'd0;
                    oroom_reg <= OUT_DEPTH[4:0]; oback_reg <= 1'b0;
                    s_ok_reg <= 1'b0; m_ok_reg <= 1'b0; r_ok_reg <= 1'b0;
                    x_over_reg <= 1'b0; y_over_reg <= 1'b0;
                    x_words_reg <= 6'd0; r_words_reg <= 6'd0; out_stall_reg <= 1'b0;
                    st_reg <= S_SETUP;
                end
                S_SETUP: begin
                    bad_range_reg <= src_end_reg > {1'b0, MEM_BYTES} || (need_dst_reg && dst_end_reg > {1'b0, MEM_BYTES});
                    st_reg <= S_CHECK;
                end
                S_CHECK: if (bad_align_reg || bad_range_reg) begin
                    code <= bad_align_reg ? E_ALIGN : E_LOCAL_RANGE;
                    done <= 1'b1;
                    st_reg <= S_IDLE;
                end else begin
                    code <= 8'd0;
                    st_reg <= S_RUN;
                    run_reg <= 1'b1;
                end
                S_RUN: begin
                    if (rd_issue) rd_addr_reg <= rd_addr_reg + 64'd64;
                    // a line read takes 16 words of room; words it did not push and words
                    // combined give it back, a cycle later (the room only looks smaller meanwhile)
                    unpushed_reg <= mem_rd_readdatavalid ? 5'd16 - push_n : 5'd0;
                    popped_reg <= pop_n;
                    lgive_reg <= {1'b0, unpushed_reg} + {1'b0, popped_reg};
                    lroom_reg <= rd_issue ? lroom_sum - 16 : lroom_sum;
                    oback_reg <= x_pop;
                    if (comb && !oback_reg) oroom_reg <= oroom_reg - 5'd1;
                    if (!comb && oback_reg) oroom_reg <= oroom_reg + 5'd1;
                    s_ok_reg <= !x_pop && (s_ok_reg || s_take);
                    m_ok_reg <= !w_pop && (m_ok_reg || m_take);
                    r_ok_reg <= !w_pop && (r_ok_reg || r_take);
                    if (w_pop) begin
                        w_addr_reg <= w_addr_reg + 64'd64;
                        w_first_reg <= 1'b0;
                    end
                    // (the LAST card of an allreduce counts its sums twice: written, and sent back)
                    x_words_reg <= x_pop ? {1'b0, x_n} << x_to_r : 6'd0;
                    r_words_reg <= rm_ready ? {1'b0, r_n} : 6'd0;
                    x_count_reg <= x_count_reg + {26'd0, x_words_reg};
                    r_count_reg <= r_count_reg + {26'd0, r_words_reg};
                    x_over_reg <= x_over;
                    y_over_reg <= y_over;
                    if (c_have_local && !c_have_in) in_stalls <= in_stalls + 32'd1;
                    out_stall_reg <= (x_valid && !x_pop) || (y_valid && !rm_ready && !last_reg);
                    if (out_stall_reg) out_stalls <= out_stalls + 32'd1;
                    // both flows over (a cycle after the last chunk left, when the counters
                    // have their last increments): done, once the writes are in memory
                    if (x_over_reg && y_over_reg) begin
                        st_reg <= writes ? S_FLUSH : S_IDLE;
                        run_reg <= 1'b0;
                        if (!writes) done <= 1'b1;
                    end
                end
                S_FLUSH: if (!mem_wr_pending) begin
                    st_reg <= S_IDLE;
                    done <= 1'b1;
                end
                default: st_reg <= S_IDLE;
            endcase
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, x_ready_unused, x_head[517]};
    /* verilator lint_on UNUSEDSIGNAL */
    initial begin
        if (LOCAL_DEPTH < 256 || (LOCAL_DEPTH & (LOCAL_DEPTH - 1)) != 0) $error("%m: LOCAL_DEPTH must be a power of 2 >= 256");
    end
endmodule
`default_nettype wire
