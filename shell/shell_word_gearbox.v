// Word gearbox: moves 32-bit words from input beats of IN_WORDS to output beats of
// OUT_WORDS, realigning spans and keeping per-word last flags. It is the common core
// of the TX realigner, the RX realigner and the record-width converters.
//  - input beat: words [lo, lo+cnt) of s_axis_tdata are appended, the last of them
//    flagged with s_axis_tlast;
//  - SPAN_OUT=0 (pack): an output beat carries OUT_WORDS words, or fewer when a last
//    flag ends it early (m_axis_cnt says how many; the rest are zero);
//  - SPAN_OUT=1 (span): each output beat takes req_cnt words and places them at word
//    req_off (for partial memory beats); the request is consumed with the beat.
// Input and output move in the same cycle, so with both sides ready there are no bubbles.
`default_nettype none

module shell_word_gearbox #(
    parameter integer WORD_WIDTH = 32,   // bits per word
    parameter integer IN_WORDS   = 16,   // words per input beat, 1..16
    parameter integer OUT_WORDS  = 16,   // words per output beat, 1..16
    parameter integer SPAN_OUT   = 0     // 0: pack, 1: output spans from req_*
) (
    input  wire                            clk,
    input  wire                            rst,
    // input beats
    input  wire                            s_axis_tvalid,
    output wire                            s_axis_tready,
    input  wire [IN_WORDS*WORD_WIDTH-1:0]  s_axis_tdata,
    input  wire [(IN_WORDS > 1 ? $clog2(IN_WORDS) : 1)-1:0] s_axis_lo,      // first valid word
    input  wire [$clog2(IN_WORDS + 1)-1:0] s_axis_cnt,     // valid words, 1..IN_WORDS
    input  wire                            s_axis_tlast,
    // output span requests (SPAN_OUT=1 only)
    input  wire                            req_valid,
    input  wire [(OUT_WORDS > 1 ? $clog2(OUT_WORDS) : 1)-1:0] req_off,
    input  wire [$clog2(OUT_WORDS + 1)-1:0] req_cnt,        // 1..OUT_WORDS-req_off
    // output beats
    output wire                            m_axis_tvalid,
    input  wire                            m_axis_tready,
    output reg  [OUT_WORDS*WORD_WIDTH-1:0] m_axis_tdata,
    output wire [$clog2(OUT_WORDS + 1)-1:0] m_axis_cnt,
    output wire                            m_axis_tlast,   // the beat's final word is flagged last
    output wire                            m_axis_inner_last // another word of the beat is flagged last
);
    localparam integer IN_CNT_WIDTH  = $clog2(IN_WORDS + 1);
    localparam integer OUT_CNT_WIDTH = $clog2(OUT_WORDS + 1);
    localparam integer CAP_WORDS     = IN_WORDS + OUT_WORDS;   // enough for no bubbles
    localparam integer CNT_WIDTH     = $clog2(CAP_WORDS + 1);
    localparam integer PTR_WIDTH     = $clog2(CAP_WORDS);      // ring slots: CAP_WORDS rounded
    localparam integer RING_WORDS    = 1 << PTR_WIDTH;         // up to a power of two

    initial begin
        if (IN_WORDS < 1 || IN_WORDS > 16 || OUT_WORDS < 1 || OUT_WORDS > 16) begin
            $display("shell_word_gearbox: IN_WORDS=%0d OUT_WORDS=%0d must be 1..16", IN_WORDS, OUT_WORDS);
            $finish;
        end
        if (SPAN_OUT != 0 && SPAN_OUT != 1) begin
            $display("shell_word_gearbox: SPAN_OUT=%0d must be 0 or 1", SPAN_OUT);
            $finish;
        end
    end

    // The held words sit in a ring, the oldest at rd_ptr_reg: an input beat writes its
    // words after the held ones and an output beat only advances rd_ptr_reg, so a word
    // stays in its slot from input to output. (An accumulator shifted down by every
    // output beat and filled at a variable offset moved all held words each cycle, through
    // two CAP_WORDS-word variable shifters; in simulation, the shell's costliest logic.)
    reg [WORD_WIDTH-1:0] ring_reg [0:RING_WORDS-1];
    reg [RING_WORDS-1:0] lst_reg;      // last flag per slot
    reg [PTR_WIDTH-1:0]  rd_ptr_reg;   // slot of the oldest held word
    reg [CNT_WIDTH-1:0]  cnt_reg;      // words held
    wire [PTR_WIDTH-1:0] wr_ptr = rd_ptr_reg + cnt_reg[PTR_WIDTH-1:0];  // slot of the next word in

    // last flags of the held words, the oldest at bit 0 (the ring rotated by rd_ptr_reg)
    wire [RING_WORDS-1:0] held_mask = ~({RING_WORDS{1'b1}} << cnt_reg);
    wire [PTR_WIDTH-1:0]  rd_back   = -rd_ptr_reg;   // RING_WORDS - rd_ptr_reg, or 0
    wire [RING_WORDS-1:0] held_lst  = ((lst_reg >> rd_ptr_reg) | (lst_reg << rd_back)) & held_mask;

    // pack mode: the first last flag inside the output window ends the beat early
    reg                     pack_found;
    reg [CNT_WIDTH-1:0]     pack_cnt;
    integer                 i;
    always @* begin
        pack_found = 1'b0;
        pack_cnt   = OUT_WORDS[CNT_WIDTH-1:0];
        for (i = OUT_WORDS - 1; i >= 0; i = i - 1)
            if (held_lst[i]) begin
                pack_found = 1'b1;
                pack_cnt   = i[CNT_WIDTH-1:0] + 1'b1;
            end
    end

    wire [CNT_WIDTH-1:0] span_cnt = {{(CNT_WIDTH-OUT_CNT_WIDTH){1'b0}}, req_cnt};
    wire [CNT_WIDTH-1:0] out_cnt  = SPAN_OUT != 0 ? span_cnt : pack_cnt;
    wire                 out_ok   = SPAN_OUT != 0 ? (req_valid && cnt_reg >= span_cnt && span_cnt != 0)
                                                  : (pack_found || cnt_reg >= OUT_WORDS[CNT_WIDTH-1:0]);
    wire                 m_fire   = out_ok && m_axis_tready;
    wire [CNT_WIDTH-1:0] take     = m_fire ? out_cnt : {CNT_WIDTH{1'b0}};
    wire [CNT_WIDTH-1:0] rem      = cnt_reg - take;
    wire                 s_fire   = s_axis_tvalid && s_axis_tready;

    assign s_axis_tready = rem <= OUT_WORDS[CNT_WIDTH-1:0];
    assign m_axis_tvalid = out_ok;
    assign m_axis_cnt    = out_cnt[OUT_CNT_WIDTH-1:0];

    // flags of the output beat's words
    wire [OUT_WORDS-1:0] out_mask  = ~({OUT_WORDS{1'b1}} << out_cnt);
    wire [OUT_WORDS-1:0] out_lst   = held_lst[OUT_WORDS-1:0] & out_mask;
    wire [OUT_WORDS-1:0] final_bit = out_mask & ~(out_mask >> 1);
    assign m_axis_tlast      = |(out_lst & final_bit);
    assign m_axis_inner_last = |(out_lst & ~final_bit);
    wire unused_ok = |held_lst[RING_WORDS-1:OUT_WORDS];   // (held past the output window)

    // The output beat: held words [0, out_cnt) from word 0 (pack) or from word req_off
    // (span); zero elsewhere, and past the held words while no beat is valid.
    localparam integer IN_LO_WIDTH   = IN_WORDS > 1 ? $clog2(IN_WORDS) : 1;
    localparam integer OUT_OFF_WIDTH = OUT_WORDS > 1 ? $clog2(OUT_WORDS) : 1;
    wire [CNT_WIDTH-1:0] shown = out_cnt < cnt_reg ? out_cnt : cnt_reg;
    generate
        if (SPAN_OUT != 0) begin : g_span
            wire [PTR_WIDTH-1:0] out_base = rd_ptr_reg - {{(PTR_WIDTH-OUT_OFF_WIDTH){1'b0}}, req_off};
            wire [CNT_WIDTH:0]   show_end = {{(CNT_WIDTH+1-OUT_OFF_WIDTH){1'b0}}, req_off} + {1'b0, shown};
            always @* begin
                for (i = 0; i < OUT_WORDS; i = i + 1)
                    m_axis_tdata[i*WORD_WIDTH +: WORD_WIDTH] =
                        i >= req_off && i < show_end ? ring_reg[out_base + i[PTR_WIDTH-1:0]]
                                                     : {WORD_WIDTH{1'b0}};
            end
        end else begin : g_pack
            always @* begin
                for (i = 0; i < OUT_WORDS; i = i + 1)
                    m_axis_tdata[i*WORD_WIDTH +: WORD_WIDTH] =
                        i < shown ? ring_reg[rd_ptr_reg + i[PTR_WIDTH-1:0]] : {WORD_WIDTH{1'b0}};
            end
            wire unused_off = |req_off;   // (no spans in pack mode)
        end
    endgenerate

    // An input beat's words [lo, lo+cnt) go to the slots from wr_ptr on. Its words past
    // lo+cnt are written too, into slots no held word uses (rem + IN_WORDS <= RING_WORDS),
    // which cnt_reg leaves out; only the flags of the beat's own words are set.
    wire [PTR_WIDTH-1:0]  in_base  = wr_ptr - {{(PTR_WIDTH-IN_LO_WIDTH){1'b0}}, s_axis_lo};  // slot of word 0
    wire [RING_WORDS-1:0] in_mask  = ~({RING_WORDS{1'b1}} << s_axis_cnt);   // the beat's words, from bit 0
    wire [RING_WORDS-1:0] in_lst   = {{(RING_WORDS-1){1'b0}}, s_axis_tlast} << (s_axis_cnt - 1'b1);
    wire [PTR_WIDTH-1:0]  wr_back  = -wr_ptr;
    wire [RING_WORDS-1:0] set_mask = (in_mask << wr_ptr) | (in_mask >> wr_back);   // rotated to wr_ptr
    wire [RING_WORDS-1:0] set_lst  = (in_lst << wr_ptr) | (in_lst >> wr_back);
    integer j;
    always @(posedge clk) begin
        if (s_fire) begin
            for (j = 0; j < IN_WORDS; j = j + 1)
                if (j >= s_axis_lo)
                    ring_reg[in_base + j[PTR_WIDTH-1:0]] <= s_axis_tdata[j*WORD_WIDTH +: WORD_WIDTH];
            lst_reg <= (lst_reg & ~set_mask) | set_lst;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            rd_ptr_reg <= {PTR_WIDTH{1'b0}};
            cnt_reg    <= {CNT_WIDTH{1'b0}};
        end else begin
            rd_ptr_reg <= rd_ptr_reg + take[PTR_WIDTH-1:0];
            cnt_reg    <= s_fire ? rem + {{(CNT_WIDTH-IN_CNT_WIDTH){1'b0}}, s_axis_cnt} : rem;
        end
    end
endmodule

`default_nettype wire
