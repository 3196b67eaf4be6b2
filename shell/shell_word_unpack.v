// Word unpacker: takes the words of a stream of 16-word (512-bit) input beats, each a
// span [lo, lo+cnt), and places them at the spans of output beats that the requester
// asks for one by one (word req_off, req_cnt words; OUT_WORDS lanes).
//  - RX realigner (OUT_WORDS=16, CUT_AT_LAST=0): packed input, destination beats as
//    spans; the stream runs on across last flags, which are reported per span;
//  - TX realigner (CUT_AT_LAST=1, req 0/OUT_WORDS): memory beats at any alignment to
//    packed beats (OUT_WORDS=16) or straight to records of OUT_WORDS words; a last ends
//    an output early (m_axis_cnt words, the rest zero with ZERO_PAD).
// An output needs the rest of the held beat and the start of the next one, which lie
// in that order in lanes [pos, 16) and [0, pos) when the held beat runs to lane 15 and
// the next one starts at lane 0: one lane-wise choice and one rotator place them, so
// no word is shifted twice. Where the input has a gap (a block or descriptor boundary,
// a short beat at a last), the held beat's rest is kept, in place, in a partial output
// that later words complete (one extra cycle at each gap). Words of an output outside
// the span are undefined unless ZERO_PAD.
`default_nettype none

module shell_word_unpack #(
    parameter integer OUT_WORDS   = 16,  // lanes of an output beat, 1..16
    parameter integer CUT_AT_LAST = 0,   // 1: a last ends an output beat
    parameter integer ZERO_PAD    = 0    // 1: words of a cut output past its count are zero
) (
    input  wire                   clk,
    input  wire                   rst,
    // input spans
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire [511:0]           s_axis_tdata,
    input  wire [3:0]             s_axis_lo,        // first word, lo + cnt <= 16
    input  wire [4:0]             s_axis_cnt,       // words, 1..16
    input  wire                   s_axis_tlast,
    // the next output span, held until the beat is taken
    input  wire                   req_valid,
    input  wire [3:0]             req_off,
    input  wire [4:0]             req_cnt,          // 1..OUT_WORDS-req_off
    // output beats
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output reg  [OUT_WORDS*32-1:0] m_axis_tdata,
    output wire [4:0]             m_axis_cnt,       // words from req_off (< req_cnt only at a cut)
    output wire                   m_axis_tlast,     // the output's final word is flagged last
    output wire                   m_axis_inner_last // another word of the output is flagged last
);
    initial begin
        if (OUT_WORDS < 1 || OUT_WORDS > 16) begin
            $display("shell_word_unpack: OUT_WORDS=%0d must be 1..16", OUT_WORDS);
            $finish;
        end
        if (CUT_AT_LAST != 0 && CUT_AT_LAST != 1) begin
            $display("shell_word_unpack: CUT_AT_LAST=%0d must be 0 or 1", CUT_AT_LAST);
            $finish;
        end
        if (ZERO_PAD != 0 && (ZERO_PAD != 1 || CUT_AT_LAST == 0)) begin
            $display("shell_word_unpack: ZERO_PAD=%0d must be 0, or 1 with CUT_AT_LAST", ZERO_PAD);
            $finish;
        end
    end

    reg [511:0] hold_reg;        // the input beat being consumed, words [pos, end)
    reg         hvalid_reg, hlast_reg;
    reg [4:0]   hend_reg;
    reg [3:0]   pos_reg;
    reg [OUT_WORDS*32-1:0] part_reg;   // words already placed, [off, off+fill)
    reg [4:0]   fill_reg;
    reg         part_inner_reg;  // a last flag was among them

    wire [4:0] dst     = {1'b0, req_off} + fill_reg;
    wire [4:0] need    = req_cnt - fill_reg;
    wire [4:0] hrem    = hend_reg - {1'b0, pos_reg};
    wire [5:0] mixrem  = {1'b0, hrem} + {1'b0, s_axis_cnt};
    wire       cut     = CUT_AT_LAST != 0;
    // the next input beat continues the held one only behind a beat that runs to lane 15
    wire contig    = hend_reg == 5'd16 && s_axis_lo == 4'd0;
    wire hold_only = hvalid_reg && (hrem >= need || (cut && hlast_reg));
    wire mix       = hvalid_reg && !hold_only && contig && s_axis_tvalid
                  && (mixrem >= {1'b0, need} || (cut && s_axis_tlast));
    // a gap, or a held beat followed by a too short one: keep its rest
    wire part      = req_valid && hvalid_reg && !hold_only && !mix
                  && (hend_reg != 5'd16 || s_axis_tvalid);

    assign m_axis_tvalid = req_valid && (hold_only || mix);
    wire m_fire   = m_axis_tvalid && m_axis_tready;
    // words this output takes from the held beat and from the input beat
    wire [4:0] taken     = hold_only ? (hrem < need ? hrem : need)
                                     : (mixrem < {1'b0, need} ? mixrem[4:0] : need);
    wire [3:0] pos_after = pos_reg + need[3:0];               // hold_only, not used up
    wire [4:0] in_end    = {1'b0, s_axis_lo} + s_axis_cnt;
    wire [4:0] pos_mix   = taken - hrem;                      // mix: into the new beat
    wire       h_used    = m_fire && hold_only && (hrem <= need);
    assign s_axis_tready = !hvalid_reg || h_used || (m_fire && mix) || part;
    wire s_fire = s_axis_tvalid && s_axis_tready;

    assign m_axis_cnt        = fill_reg + taken;
    assign m_axis_tlast      = hold_only ? hlast_reg && hrem <= need
                                         : s_axis_tlast && mixrem <= {1'b0, need};
    assign m_axis_inner_last = part_inner_reg || (mix && hlast_reg);

    // lane k holds stream word k of the held beat (k >= pos) or of the next one (k < pos);
    // rotating by dst - pos puts the word at pos at lane dst
    wire [3:0]  rot_w = dst[3:0] - pos_reg;
    wire [4:0]  out_end = dst + taken;
    reg [511:0] mixed, rot;
    integer     b, l;
    always @* begin
        for (l = 0; l < 16; l = l + 1)
            mixed[l*32 +: 32] = l >= pos_reg ? hold_reg[l*32 +: 32] : s_axis_tdata[l*32 +: 32];
        rot = mixed;
        for (b = 0; b < 4; b = b + 1)
            if (rot_w[b])
                rot = (rot << (32 * (1 << b))) | (rot >> (512 - 32 * (1 << b)));
        for (l = 0; l < OUT_WORDS; l = l + 1)
            if (l < dst)
                m_axis_tdata[l*32 +: 32] = part_reg[l*32 +: 32];
            else if (ZERO_PAD != 0 && l >= out_end)
                m_axis_tdata[l*32 +: 32] = 32'd0;
            else
                m_axis_tdata[l*32 +: 32] = rot[l*32 +: 32];
    end

    always @(posedge clk) begin
        if (rst) begin
            hvalid_reg     <= 1'b0;
            fill_reg       <= 5'd0;
            part_inner_reg <= 1'b0;
        end else begin
            if (m_fire) begin
                fill_reg       <= 5'd0;
                part_inner_reg <= 1'b0;
            end else if (part) begin
                part_reg       <= m_axis_tdata;
                fill_reg       <= fill_reg + hrem;
                part_inner_reg <= part_inner_reg || hlast_reg;
            end
            if (s_fire) begin
                hold_reg   <= s_axis_tdata;
                hend_reg   <= in_end;
                hlast_reg  <= s_axis_tlast;
                pos_reg    <= m_fire && mix ? pos_mix[3:0] : s_axis_lo;
                // a mix that takes the whole new beat leaves nothing held
                hvalid_reg <= !(m_fire && mix && pos_mix >= s_axis_cnt);
            end else if (m_fire && hold_only) begin
                pos_reg    <= pos_after;
                hvalid_reg <= !h_used;
            end else if (part) begin
                hvalid_reg <= 1'b0;
            end
        end
    end
endmodule

`default_nettype wire
