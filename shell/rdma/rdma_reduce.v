// One card's part of a pipelined reduction along a chain of cards (REDUCE_* CSRs,
// docs/rdma.md "Reductions"): it reads the card's own vector from memory, adds the
// partial sums arriving from the previous card of the chain (FIRST: none), and passes the
// sums on to the next card (LAST: writes them to memory instead). u32 sums wrap; f32 sums
// go through the operator library's bit-exact adder (spg_fadd, round to nearest even,
// subnormals kept), each card adding its vector to what arrives, so the result is
// ((v0 + v1) + v2) + ... in chain order, the same on every run.
//
// Allreduce (ALL): after the sums, every card of the chain gets the result. The last card
// writes it, flushes, reads it back and streams it to the first card (its NEXT), which
// writes it and passes it on (FWD) to the second, and so on to the card before the last:
// a second pipelined pass over the same endpoint pair, each card sending on to the same
// NEXT and receiving from the same PREV as for the sums. The result follows the sums on
// one stream in order, and the last card starts it only once it holds every sum -- so the
// first card has sent all of its words before it must take the result (a result streamed
// at once would wait behind the first card's own words, which wait on the chain: wedged).
//
// The partial sums travel over a stream endpoint pair of their own (rdma_stream, on the
// node's local port beside the engine): end-to-end credits keep a waiting reduction out of
// the routers, so it cannot block other traffic, and other traffic cannot wedge it. The
// unit only waits on its three sides -- the memory, the arriving stream, the credits of
// the outgoing one -- and never holds anything the network needs.
//
// Datapath, one word per cycle: word reads run ahead into a local FIFO (credits: reads in
// flight + words held <= LOCAL_DEPTH); a word is combined when the local word, the
// arriving partial sum (unless FIRST) and room in the output FIFO (counted with the adder
// pipeline's LAT words in flight) are all there; the output FIFO drains into the stream
// (the final word marked last) or, on the LAST card, into memory, whose write buffer is
// flushed before DONE.
`default_nettype none
module rdma_reduce #(
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000, // card memory, bytes
    parameter integer LOCAL_DEPTH = 128             // local read-ahead, words (power of 2; covers the read latency)
) (
    input  wire        clk,
    input  wire        rst,
    // control (REDUCE_CFG/SRC/DST/LEN/CTRL), sampled at start
    input  wire        start,
    input  wire        first,      // no arriving partial sums: the chain starts here
    input  wire        last,       // the sums go to memory at dst instead of the next card
    input  wire        f32,        // 0: u32 wrap-around sum, 1: f32 sum
    input  wire        allreduce,  // allreduce: afterwards the result goes round to every card
    input  wire        fwd,        // allreduce: pass the result on to NEXT (all but the card before the last)
    input  wire [63:0] src,        // this card's vector
    input  wire [63:0] dst,        // the result (LAST; with ALL every card)
    input  wire [63:0] len,        // bytes (multiple of 4, > 0)
    output wire        busy,
    output reg         done,       // sticky until the next start
    output reg  [7:0]  code,       // 0 ok, 4 LOCAL_RANGE, 5 ALIGN (afushell/rdma.h codes)
    output reg  [31:0] words_out,  // words passed on / written so far (with ALL: both passes)
    output reg  [31:0] in_stalls,  // cycles a local word waited for the arriving partial sum
    output reg  [31:0] out_stalls, // cycles a sum waited for the outgoing stream or the memory
    // memory (word ports as the engine's, through an rdma_mem_adapter)
    output wire [63:0] mem_rd_address,
    output wire        mem_rd_read,
    input  wire        mem_rd_waitrequest,
    input  wire [31:0] mem_rd_readdata,
    input  wire        mem_rd_readdatavalid,
    output wire [63:0] mem_wr_address,
    output wire        mem_wr_write,
    output wire [31:0] mem_wr_writedata,
    input  wire        mem_wr_waitrequest,
    output wire        mem_wr_flush,
    input  wire        mem_wr_pending,
    // the partial sums to the next card (core side of a stream endpoint)
    output wire        s_valid,
    input  wire        s_ready,
    output wire [31:0] s_data,
    output wire        s_last,
    // the partial sums from the previous card
    input  wire        m_valid,
    output wire        m_ready,
    input  wire [31:0] m_data,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire        m_last      // the word count decides the end
    /* verilator lint_on UNUSEDSIGNAL */
);
    localparam integer LAT = 6;        // spg_fadd's latency; u32 sums take the same path
    localparam integer OUT_DEPTH = 16; // > LAT: room for the adder's words in flight
    localparam integer LW = $clog2(LOCAL_DEPTH);
    localparam [1:0] S_IDLE = 2'd0, S_RUN = 2'd1, S_FLUSH = 2'd2;
    // ---- the pass: the sums, or (allreduce) the result going round ---------------------------
    //   sums:   read src (all), take arriving sums (all but FIRST), to NEXT (all but LAST) / to dst (LAST)
    //   result: read dst (LAST only), take arriving words (all but LAST), to dst (all but LAST), to NEXT (LAST, FWD)
    localparam [7:0] E_LOCAL_RANGE = 8'd4, E_ALIGN = 8'd5;

    reg  [1:0]  st_reg;
    reg         first_reg, last_reg, f32_reg, all_reg, fwd_reg;
    reg         bcast_reg;                    // the result's pass (allreduce)
    reg  [63:0] src_reg, dst_reg;
    reg  [61:0] words_reg;                    // words of the vector
    reg  [61:0] rd_idx_reg, comb_idx_reg, out_idx_reg;
    reg  [LW:0] lroom_reg;                    // local FIFO credits
    reg  [4:0]  oroom_reg;                    // output FIFO credits
    assign busy = st_reg != S_IDLE;

    // ---- start: check the arguments ---------------------------------------------------------
    wire        bad_align = src[1:0] != 2'd0 || dst[1:0] != 2'd0 || len[1:0] != 2'd0 || len == 64'd0;
    wire        bad_range = src > MEM_BYTES || len > MEM_BYTES - src || ((last || allreduce) && (dst > MEM_BYTES || len > MEM_BYTES - dst));
    wire use_local = !bcast_reg || last_reg;                // reads its memory
    wire use_in    = bcast_reg ? !last_reg : !first_reg;    // takes words from PREV
    wire to_mem    = bcast_reg ? !last_reg : last_reg;      // writes dst
    wire to_next   = bcast_reg ? last_reg || fwd_reg : !last_reg;  // sends to NEXT

    // ---- reads into the local FIFO -------------------------------------------------------------
    wire running = st_reg == S_RUN;
    assign mem_rd_read = running && use_local && rd_idx_reg != words_reg && lroom_reg != {(LW + 1){1'b0}};
    assign mem_rd_address = (bcast_reg ? dst_reg : src_reg) + {rd_idx_reg, 2'b00};
    wire rd_issue = mem_rd_read && !mem_rd_waitrequest;
    wire        lf_valid, lf_ready_unused;
    wire [31:0] lf_data;
    wire        comb;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [LW:0] lf_level;
    /* verilator lint_on UNUSEDSIGNAL */
    shell_fifo #(.DATA_WIDTH(32), .FIFO_DEPTH(LOCAL_DEPTH)) u_local (
        .clk(clk), .rst(rst), .s_axis_tvalid(mem_rd_readdatavalid), .s_axis_tready(lf_ready_unused),
        .s_axis_tdata(mem_rd_readdata), .m_axis_tvalid(lf_valid), .m_axis_tready(comb), .m_axis_tdata(lf_data),
        .level(lf_level));

    // ---- combine: local word + arriving partial sum, LAT cycles ------------------------------
    wire have_in = !use_in || m_valid;
    wire have_local = !use_local || lf_valid;
    assign comb = running && have_local && have_in && oroom_reg != 5'd0;
    assign m_ready = running && use_in && have_local && oroom_reg != 5'd0;
    wire [31:0] partial = use_in ? m_data : 32'd0;
    wire [31:0] fsum;
    // partial sum first: ((v0 + v1) + v2) + ...; the first card's words and the result's
    // pass around the adder (pass_q), so they leave it bit for bit, NaN payloads included
    spg_fadd #(.FTZ(0)) u_fadd (.clk(clk), .ce(1'b1), .a(m_data), .b(lf_data), .y(fsum));
    reg  [LAT-1:0] v_q;
    reg  [31:0]    isum_q [0:LAT-1];
    reg  [31:0]    pass_q [0:LAT-1];
    integer i;
    always @(posedge clk) begin
        v_q <= {v_q[LAT-2:0], comb};
        isum_q[0] <= partial + lf_data;
        pass_q[0] <= use_local ? lf_data : m_data;
        for (i = 1; i < LAT; i = i + 1) begin
            isum_q[i] <= isum_q[i - 1];
            pass_q[i] <= pass_q[i - 1];
        end
        if (rst) v_q <= {LAT{1'b0}};
    end
    // (the pipeline is empty when the pass changes: a pass ends once its last word left)
    wire [31:0] sum = !(use_local && use_in) ? pass_q[LAT-1] : f32_reg ? fsum : isum_q[LAT-1];

    // ---- output FIFO into the stream and / or the memory ------------------------------------
    // (a word leaves once both of its sides took it; ok flags remember the side that did)
    wire        of_valid, of_ready_unused, of_pop;
    wire [31:0] of_data;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [4:0]  of_level;
    /* verilator lint_on UNUSEDSIGNAL */
    shell_fifo #(.DATA_WIDTH(32), .FIFO_DEPTH(OUT_DEPTH)) u_out (
        .clk(clk), .rst(rst), .s_axis_tvalid(v_q[LAT-1]), .s_axis_tready(of_ready_unused), .s_axis_tdata(sum),
        .m_axis_tvalid(of_valid), .m_axis_tready(of_pop), .m_axis_tdata(of_data), .level(of_level));
    reg  s_ok_reg, m_ok_reg;
    assign s_valid = running && to_next && of_valid && !s_ok_reg;
    assign s_data = of_data;
    assign s_last = out_idx_reg + 62'd1 == words_reg;
    assign mem_wr_write = running && to_mem && of_valid && !m_ok_reg;
    assign mem_wr_address = dst_reg + {out_idx_reg, 2'b00};
    assign mem_wr_writedata = of_data;
    assign mem_wr_flush = st_reg == S_FLUSH;
    wire s_take = s_valid && s_ready;
    wire m_take = mem_wr_write && !mem_wr_waitrequest;
    assign of_pop = running && of_valid && (!to_next || s_ok_reg || s_take) && (!to_mem || m_ok_reg || m_take);
    wire pass_end = of_pop && out_idx_reg + 62'd1 == words_reg;
    wire more = all_reg && !bcast_reg;                      // the result's pass follows
    // a pass is over when its last word went on to the next card, or, on a card that writes
    // to memory, once those writes are in memory (S_FLUSH)
    wire pass_over = st_reg == S_RUN ? pass_end && !to_mem : st_reg != S_IDLE && !mem_wr_pending;

    always @(posedge clk) begin
        if (rst) begin
            st_reg <= S_IDLE; first_reg <= 1'b0; last_reg <= 1'b0; f32_reg <= 1'b0;
            all_reg <= 1'b0; fwd_reg <= 1'b0; bcast_reg <= 1'b0; s_ok_reg <= 1'b0; m_ok_reg <= 1'b0;
            src_reg <= 64'd0; dst_reg <= 64'd0; words_reg <= 62'd0;
            rd_idx_reg <= 62'd0; comb_idx_reg <= 62'd0; out_idx_reg <= 62'd0;
            lroom_reg <= LOCAL_DEPTH[LW:0]; oroom_reg <= OUT_DEPTH[4:0];
            done <= 1'b0; code <= 8'd0; words_out <= 32'd0; in_stalls <= 32'd0; out_stalls <= 32'd0;
        end else begin
            case (st_reg)
                S_IDLE: if (start) begin
                    done <= 1'b0; words_out <= 32'd0; in_stalls <= 32'd0; out_stalls <= 32'd0;
                    first_reg <= first; last_reg <= last; f32_reg <= f32;
                    all_reg <= allreduce; fwd_reg <= fwd; bcast_reg <= 1'b0; s_ok_reg <= 1'b0; m_ok_reg <= 1'b0;
                    src_reg <= src; dst_reg <= dst; words_reg <= len[63:2];
                    rd_idx_reg <= 62'd0; comb_idx_reg <= 62'd0; out_idx_reg <= 62'd0;
                    lroom_reg <= LOCAL_DEPTH[LW:0]; oroom_reg <= OUT_DEPTH[4:0];
                    if (bad_align || bad_range) begin
                        code <= bad_align ? E_ALIGN : E_LOCAL_RANGE;
                        done <= 1'b1;
                    end else begin
                        code <= 8'd0;
                        st_reg <= S_RUN;
                    end
                end
                S_RUN: begin
                    if (rd_issue) rd_idx_reg <= rd_idx_reg + 62'd1;
                    // (a word taken from the local FIFO frees its room; the result's pass
                    // on a card that only writes takes none)
                    lroom_reg <= lroom_reg - {{LW{1'b0}}, rd_issue} + {{LW{1'b0}}, comb && use_local};
                    oroom_reg <= oroom_reg - (comb ? 5'd1 : 5'd0) + (of_pop ? 5'd1 : 5'd0);
                    if (comb) comb_idx_reg <= comb_idx_reg + 62'd1;
                    s_ok_reg <= !of_pop && (s_ok_reg || s_take);
                    m_ok_reg <= !of_pop && (m_ok_reg || m_take);
                    if (of_pop) begin
                        out_idx_reg <= out_idx_reg + 62'd1;
                        words_out <= words_out + 32'd1;
                    end
                    if (pass_end && to_mem) st_reg <= S_FLUSH;
                    if (have_local && !have_in && comb_idx_reg != words_reg) in_stalls <= in_stalls + 32'd1;
                    if (of_valid && !of_pop) out_stalls <= out_stalls + 32'd1;
                end
                default: ;  // S_FLUSH: waits for the writes (pass_over)
            endcase
            // after this pass the result goes round (allreduce, the last card's sum), from
            // the first word again; else the reduction is done
            if (pass_over) begin
                if (more) begin
                    st_reg <= S_RUN;
                    bcast_reg <= 1'b1;
                    rd_idx_reg <= 62'd0; comb_idx_reg <= 62'd0; out_idx_reg <= 62'd0;
                end else begin
                    st_reg <= S_IDLE;
                    done <= 1'b1;
                end
            end
        end
    end

    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, lf_ready_unused, of_ready_unused};
    /* verilator lint_on UNUSEDSIGNAL */
    initial begin
        if (LOCAL_DEPTH < 16 || (LOCAL_DEPTH & (LOCAL_DEPTH - 1)) != 0) $error("%m: LOCAL_DEPTH must be a power of 2 >= 16");
    end
endmodule
`default_nettype wire
