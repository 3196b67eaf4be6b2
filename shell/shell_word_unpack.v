// Word unpacker: takes the words of a packed stream of 16-word (512-bit) beats (full
// except one ending at a last flag) and places them at the spans of output beats that
// the requester asks for one by one (word req_off, req_cnt words: a destination beat).
// An output beat needs the rest of the held input beat and the start of the next one,
// which lie in that order in lanes [pos, 16) and [0, pos): one lane-wise choice and
// one rotator place them, so no word is shifted twice. Where a short beat (at a last)
// cannot fill the request, its words are kept, in place, in a partial beat that later
// words complete (one extra cycle at such a packet end). Words of an output beat
// outside the span are undefined.
`default_nettype none

module shell_word_unpack (
    input  wire         clk,
    input  wire         rst,
    // packed beats
    input  wire         s_axis_tvalid,
    output wire         s_axis_tready,
    input  wire [511:0] s_axis_tdata,
    input  wire [4:0]   s_axis_cnt,       // valid words from word 0, 1..16
    input  wire         s_axis_tlast,
    // the next output span, held until the beat is taken
    input  wire         req_valid,
    input  wire [3:0]   req_off,
    input  wire [4:0]   req_cnt,          // 1..16-req_off
    // output beats
    output wire         m_axis_tvalid,
    input  wire         m_axis_tready,
    output reg  [511:0] m_axis_tdata,
    output wire         m_axis_tlast,     // the span's final word is flagged last
    output wire         m_axis_inner_last // another word of the span is flagged last
);
    reg [511:0] hold_reg;        // the input beat being consumed, words [pos, end)
    reg         hvalid_reg, hlast_reg;
    reg [4:0]   hend_reg;
    reg [3:0]   pos_reg;
    reg [511:0] part_reg;        // words already placed in the requested span, [off, off+fill)
    reg [4:0]   fill_reg;
    reg         part_inner_reg;  // a last flag was among them

    wire [4:0] dst    = {1'b0, req_off} + fill_reg;
    wire [4:0] need   = req_cnt - fill_reg;
    wire [4:0] hrem   = hend_reg - {1'b0, pos_reg};
    wire [5:0] mixrem = {1'b0, hrem} + {1'b0, s_axis_cnt};
    // the next input beat continues the held one only behind a full beat
    wire hold_only = hvalid_reg && hrem >= need;
    wire mix       = hvalid_reg && !hold_only && hend_reg == 5'd16 && s_axis_tvalid
                  && mixrem >= {1'b0, need};
    // a short held beat, or a full one followed by a too short one: keep its rest
    wire part      = req_valid && hvalid_reg && !hold_only && !mix
                  && (hend_reg != 5'd16 || s_axis_tvalid);

    assign m_axis_tvalid = req_valid && (hold_only || mix);
    wire m_fire   = m_axis_tvalid && m_axis_tready;
    wire [4:0] pos_after = {1'b0, pos_reg} + need;            // hold_only
    wire [4:0] pos_mix   = need - hrem;                       // mix: into the new beat
    wire       h_used    = m_fire && hold_only && pos_after == hend_reg;
    assign s_axis_tready = !hvalid_reg || h_used || (m_fire && mix) || part;
    wire s_fire = s_axis_tvalid && s_axis_tready;

    assign m_axis_tlast      = hold_only ? hlast_reg && hrem == need
                                         : s_axis_tlast && mixrem == {1'b0, need};
    assign m_axis_inner_last = part_inner_reg || (mix && hlast_reg);

    // lane k holds stream word k of the held beat (k >= pos) or of the next one (k < pos);
    // rotating by dst - pos puts the word at pos at lane dst
    wire [3:0]  rot_w = dst[3:0] - pos_reg;
    reg [511:0] mixed, rot;
    integer     b, l;
    always @* begin
        for (l = 0; l < 16; l = l + 1)
            mixed[l*32 +: 32] = l >= pos_reg ? hold_reg[l*32 +: 32] : s_axis_tdata[l*32 +: 32];
        rot = mixed;
        for (b = 0; b < 4; b = b + 1)
            if (rot_w[b])
                rot = (rot << (32 * (1 << b))) | (rot >> (512 - 32 * (1 << b)));
        for (l = 0; l < 16; l = l + 1)
            m_axis_tdata[l*32 +: 32] = l < dst ? part_reg[l*32 +: 32] : rot[l*32 +: 32];
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
                hend_reg   <= s_axis_cnt;
                hlast_reg  <= s_axis_tlast;
                pos_reg    <= m_fire && mix ? pos_mix[3:0] : 4'd0;
                // a mix that takes the whole new beat leaves nothing held
                hvalid_reg <= !(m_fire && mix && pos_mix == s_axis_cnt);
            end else if (m_fire && hold_only) begin
                pos_reg    <= pos_after[3:0];
                hvalid_reg <= !h_used;
            end else if (part) begin
                hvalid_reg <= 1'b0;
            end
        end
    end
endmodule

`default_nettype wire
