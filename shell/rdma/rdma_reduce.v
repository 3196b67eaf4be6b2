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
    output reg  [31:0] words_out,  // sums passed on / written, plus (ALL) the result's written / sent
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
    localparam [1:0] S_IDLE = 2'd0, S_RUN = 2'd1, S_FLUSH = 2'd2;
    localparam [7:0] E_LOCAL_RANGE = 8'd4, E_ALIGN = 8'd5;

    reg  [1:0]  st_reg;
    reg         first_reg, last_reg, f32_reg, all_reg;
    reg  [3:0]  doff_reg;                     // DST's word in its line: the chunks' cut
    reg  [3:0]  soff_reg;                     // SRC's word in its line
    reg  [63:0] src_line_reg, dst_line_reg;   // their lines' addresses
    assign busy = st_reg != S_IDLE;
    wire running = st_reg == S_RUN;

    // a chunk: up to 16 words, the first to the end of DST's first line
    function automatic [4:0] chunk(input is_first, input [3:0] off, input [61:0] left);
        reg [4:0] room;
        begin
            room = is_first ? 5'd16 - {1'b0, off} : 5'd16;
            chunk = left < {57'd0, room} ? left[4:0] : room;
        end
    endfunction
    // lanes [lo, lo + n) set, word-wise (4 byte enables a lane)
    function automatic [63:0] lane_be(input [3:0] lo, input [4:0] n);
        integer j;
        for (j = 0; j < 16; j = j + 1)
            lane_be[4 * j +: 4] = (j >= lo && j < {27'd0, lo} + {27'd0, n}) ? 4'hF : 4'h0;
    endfunction

    // ---- start: check the arguments ---------------------------------------------------------
    wire bad_align = src[1:0] != 2'd0 || dst[1:0] != 2'd0 || len[1:0] != 2'd0 || len == 64'd0;
    wire [63:0] src_span = {58'd0, src[5:0]} + len + 64'd63;  // SRC's lines, x 64, + 63
    wire bad_range = src > MEM_BYTES || len > MEM_BYTES - src || ((last || allreduce) && (dst > MEM_BYTES || len > MEM_BYTES - dst));

    // ---- the sums: reads into the local buffer -----------------------------------------------
    reg  [57:0] rd_line_reg, rd_lines_reg;   // lines issued, lines to read
    reg  [61:0] push_left_reg;               // words still to push
    reg         push_first_reg;
    reg  [LW:0] lroom_reg;                    // buffer words not spoken for (16 a line read)
    assign mem_rd_read = running && rd_line_reg != rd_lines_reg && lroom_reg >= 16;
    assign mem_rd_address = src_line_reg + {rd_line_reg, 6'd0};
    wire rd_issue = mem_rd_read && !mem_rd_waitrequest;
    wire [4:0]   push_n = mem_rd_readdatavalid ? chunk(push_first_reg, soff_reg, push_left_reg) : 5'd0;
    wire [511:0] push_data = push_first_reg ? mem_rd_readdata >> {soff_reg, 5'd0} : mem_rd_readdata;
    wire [LW:0]  l_count;
    wire [511:0] l_head;
    wire [4:0]   pop_n;
    rdma_wbuf #(.DEPTH(LOCAL_DEPTH), .IN(16), .OUT(16)) u_local (
        .clk(clk), .rst(rst), .push_n(push_n), .push_data(push_data), .pop_n(pop_n), .head(l_head), .count(l_count));

    // ---- the sums: combine a chunk of local words with the arriving partial sums -----------
    reg  [61:0] c_left_reg;                   // words still to combine
    reg         c_first_reg;
    reg  [4:0]  oroom_reg;                    // output FIFO credits
    wire [4:0]  c_n = chunk(c_first_reg, doff_reg, c_left_reg);
    wire        c_have_local = running && c_left_reg != 62'd0 && l_count >= {{LW-4{1'b0}}, c_n};
    wire        c_have_in = first_reg || m_valid;
    wire        comb = c_have_local && c_have_in && oroom_reg != 5'd0;
    assign pop_n = comb ? c_n : 5'd0;
    assign m_want = running && !first_reg && c_left_reg != 62'd0 ? {1'b0, c_n} : 6'd0;
    assign m_ready = comb && !first_reg;
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
        tag_q[0] <= {c_left_reg == {57'd0, c_n}, 1'b0, c_n};
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
    reg  [61:0]  r_left_reg;
    reg          r_first_reg;
    wire [4:0]   r_n = chunk(r_first_reg, doff_reg, r_left_reg);
    assign rm_want = running && all_reg && !last_reg && r_left_reg != 62'd0 ? {1'b0, r_n} : 6'd0;
    wire         y_valid = rm_valid && rm_want != 6'd0;
    wire         y_end = r_left_reg == {57'd0, r_n};

    // ---- the sides: a chunk leaves once every side it goes to took it (ok flags remember
    // the sides that did). Sums: NEXT (not LAST); LAST: memory, and with ALL the result's PREV.
    // Result arriving (ALL, not LAST): memory, and PREV (not FIRST).
    wire x_to_s = !last_reg;
    wire x_to_r = last_reg && all_reg;
    wire y_to_r = !first_reg;
    // memory and the result's stream take the LAST card's sums, or else the arriving result
    wire         w_valid_src = last_reg ? x_valid : y_valid;
    wire [511:0] w_data = last_reg ? x_head[511:0] : rm_data;
    wire [4:0]   w_n = last_reg ? x_n : r_n;
    wire         w_end = last_reg ? x_end : y_end;
    wire         w_need_r = last_reg ? x_to_r : y_to_r;
    reg          s_ok_reg, m_ok_reg, r_ok_reg;
    reg  [57:0]  w_line_reg;                  // DST's line of this chunk
    wire         w_first = w_line_reg == 58'd0;
    assign s_valid = running && x_valid && x_to_s && !s_ok_reg;
    assign s_data = x_head[511:0];
    assign s_words = {1'b0, x_n};
    assign s_last = x_end;
    assign mem_wr_write = running && w_valid_src && !m_ok_reg;
    assign mem_wr_address = dst_line_reg + {w_line_reg, 6'd0};
    assign mem_wr_writedata = w_first ? w_data << {doff_reg, 5'd0} : w_data;
    assign mem_wr_byteenable = lane_be(w_first ? doff_reg : 4'd0, w_n);
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

    always @(posedge clk) begin
        if (rst) begin
            st_reg <= S_IDLE; first_reg <= 1'b0; last_reg <= 1'b0; f32_reg <= 1'b0; all_reg <= 1'b0;
            doff_reg <= 4'd0; soff_reg <= 4'd0; src_line_reg <= 64'd0; dst_line_reg <= 64'd0;
            rd_line_reg <= 58'd0; rd_lines_reg <= 58'd0; push_left_reg <= 62'd0; push_first_reg <= 1'b0;
            lroom_reg <= LOCAL_DEPTH[LW:0]; c_left_reg <= 62'd0; c_first_reg <= 1'b0; oroom_reg <= OUT_DEPTH[4:0];
            r_left_reg <= 62'd0; r_first_reg <= 1'b0; s_ok_reg <= 1'b0; m_ok_reg <= 1'b0; r_ok_reg <= 1'b0;
            w_line_reg <= 58'd0; x_over_reg <= 1'b0; y_over_reg <= 1'b0;
            done <= 1'b0; code <= 8'd0; words_out <= 32'd0; in_stalls <= 32'd0; out_stalls <= 32'd0;
        end else begin
            case (st_reg)
                S_IDLE: if (start) begin
                    done <= 1'b0; words_out <= 32'd0; in_stalls <= 32'd0; out_stalls <= 32'd0;
                    first_reg <= first; last_reg <= last; f32_reg <= f32; all_reg <= allreduce;
                    doff_reg <= dst[5:2]; soff_reg <= src[5:2];
                    src_line_reg <= {src[63:6], 6'd0}; dst_line_reg <= {dst[63:6], 6'd0};
                    rd_line_reg <= 58'd0;
                    rd_lines_reg <= src_span[63:6];
                    push_left_reg <= len[63:2]; push_first_reg <= 1'b1;
                    lroom_reg <= LOCAL_DEPTH[LW:0];
                    c_left_reg <= len[63:2]; c_first_reg <= 1'b1; oroom_reg <= OUT_DEPTH[4:0];
                    r_left_reg <= len[63:2]; r_first_reg <= 1'b1;
                    s_ok_reg <= 1'b0; m_ok_reg <= 1'b0; r_ok_reg <= 1'b0;
                    w_line_reg <= 58'd0; x_over_reg <= 1'b0; y_over_reg <= 1'b0;
                    if (bad_align || bad_range) begin
                        code <= bad_align ? E_ALIGN : E_LOCAL_RANGE;
                        done <= 1'b1;
                    end else begin
                        code <= 8'd0;
                        st_reg <= S_RUN;
                    end
                end
                S_RUN: begin
                    if (rd_issue) rd_line_reg <= rd_line_reg + 58'd1;
                    if (push_n != 5'd0) begin
                        push_left_reg <= push_left_reg - {57'd0, push_n};
                        push_first_reg <= 1'b0;
                    end
                    // a line read takes 16 words of room; words it did not push and words
                    // combined give it back
                    lroom_reg <= lroom_reg - (rd_issue ? 16 : 0)
                               + (mem_rd_readdatavalid ? {{LW-4{1'b0}}, 5'd16 - push_n} : 0) + {{LW-4{1'b0}}, pop_n};
                    oroom_reg <= oroom_reg - (comb ? 5'd1 : 5'd0) + (x_pop ? 5'd1 : 5'd0);
                    if (comb) begin
                        c_left_reg <= c_left_reg - {57'd0, c_n};
                        c_first_reg <= 1'b0;
                    end
                    if (rm_ready) begin
                        r_left_reg <= r_left_reg - {57'd0, r_n};
                        r_first_reg <= 1'b0;
                    end
                    s_ok_reg <= !x_pop && (s_ok_reg || s_take);
                    m_ok_reg <= !w_pop && (m_ok_reg || m_take);
                    r_ok_reg <= !w_pop && (r_ok_reg || r_take);
                    if (w_pop) w_line_reg <= w_line_reg + 58'd1;
                    // (the LAST card of an allreduce counts its sums twice: written, and sent back)
                    words_out <= words_out + (x_pop ? {27'd0, x_n} << x_to_r : 32'd0) + (rm_ready ? {27'd0, r_n} : 32'd0);
                    x_over_reg <= x_over;
                    y_over_reg <= y_over;
                    if (c_have_local && !c_have_in) in_stalls <= in_stalls + 32'd1;
                    if ((x_valid && !x_pop) || (y_valid && !rm_ready && !last_reg)) out_stalls <= out_stalls + 32'd1;
                    // both flows over: done, once the writes are in memory
                    if (x_over && y_over) st_reg <= writes ? S_FLUSH : S_IDLE;
                    if (x_over && y_over && !writes) done <= 1'b1;
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
    wire unused_ok = &{1'b0, x_ready_unused, x_head[517], src_span[5:0]};
    /* verilator lint_on UNUSEDSIGNAL */
    initial begin
        if (LOCAL_DEPTH < 256 || (LOCAL_DEPTH & (LOCAL_DEPTH - 1)) != 0) $error("%m: LOCAL_DEPTH must be a power of 2 >= 256");
    end
endmodule
`default_nettype wire
