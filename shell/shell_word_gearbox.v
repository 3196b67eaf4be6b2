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

    reg [CAP_WORDS*WORD_WIDTH-1:0] acc_reg, acc_next;
    reg [CAP_WORDS-1:0]            lst_reg, lst_next;   // last flag per held word
    reg [CNT_WIDTH-1:0]            cnt_reg, cnt_next;   // words held (words above are zero)

    // pack mode: the first last flag inside the output window ends the beat early
    reg                     pack_found;
    reg [CNT_WIDTH-1:0]     pack_cnt;
    integer                 i;
    always @* begin
        pack_found = 1'b0;
        pack_cnt   = OUT_WORDS[CNT_WIDTH-1:0];
        for (i = OUT_WORDS - 1; i >= 0; i = i - 1)
            if (lst_reg[i]) begin
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
    reg [OUT_WORDS-1:0] out_mask;
    always @* begin
        for (i = 0; i < OUT_WORDS; i = i + 1)
            out_mask[i] = i < out_cnt;
    end
    wire [OUT_WORDS-1:0] out_lst   = lst_reg[OUT_WORDS-1:0] & out_mask;
    wire [OUT_WORDS-1:0] final_bit = out_mask & ~(out_mask >> 1);
    assign m_axis_tlast      = |(out_lst & final_bit);
    assign m_axis_inner_last = |(out_lst & ~final_bit);

    reg [OUT_WORDS*WORD_WIDTH-1:0] out_words;
    always @* begin
        for (i = 0; i < OUT_WORDS; i = i + 1)
            out_words[i*WORD_WIDTH +: WORD_WIDTH] = out_mask[i] ? acc_reg[i*WORD_WIDTH +: WORD_WIDTH]
                                                                : {WORD_WIDTH{1'b0}};
        if (SPAN_OUT != 0)
            m_axis_tdata = out_words << (req_off * WORD_WIDTH);
        else
            m_axis_tdata = out_words;
    end

    // the input span, moved down to word 0 and masked to its count
    reg [IN_WORDS*WORD_WIDTH-1:0] in_shift;
    reg [CAP_WORDS*WORD_WIDTH-1:0] in_words;
    always @* begin
        in_shift = s_axis_tdata >> (s_axis_lo * WORD_WIDTH);
        in_words = {CAP_WORDS*WORD_WIDTH{1'b0}};
        for (i = 0; i < IN_WORDS; i = i + 1)
            if (i < s_axis_cnt)
                in_words[i*WORD_WIDTH +: WORD_WIDTH] = in_shift[i*WORD_WIDTH +: WORD_WIDTH];
    end

    always @* begin
        acc_next = acc_reg >> (take * WORD_WIDTH);
        lst_next = lst_reg >> take;
        cnt_next = rem;
        if (s_fire) begin
            acc_next = acc_next | (in_words << (rem * WORD_WIDTH));
            lst_next = lst_next | ({{(CAP_WORDS-1){1'b0}}, s_axis_tlast}
                                   << (rem + {{(CNT_WIDTH-IN_CNT_WIDTH){1'b0}}, s_axis_cnt} - 1'b1));
            cnt_next = rem + {{(CNT_WIDTH-IN_CNT_WIDTH){1'b0}}, s_axis_cnt};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            acc_reg <= {CAP_WORDS*WORD_WIDTH{1'b0}};
            lst_reg <= {CAP_WORDS{1'b0}};
            cnt_reg <= {CNT_WIDTH{1'b0}};
        end else begin
            acc_reg <= acc_next;
            lst_reg <= lst_next;
            cnt_reg <= cnt_next;
        end
    end
endmodule

`default_nettype wire
