// Span packer: appends the words [0, cnt) of each input beat (records, or packed 512-bit
// beats) to output spans that the requester names one by one (lanes [off, off+cnt) of a
// 16-word output beat), so that words land straight at their destination lanes: the RX
// realigner without a record -> beat packer in front of it (one rotator, not two).
// One rotator places the input at the fill position of the span being built; the words
// that overflow it land, already in place, at lanes [0, ...) of the next span, which the
// requester announces in advance (req_next: how many words the next span takes from
// lane 0 on; 0 where it is not the continuation of this one). An input beat that runs
// past the end of both is split: its rest goes to the span after them. The stream runs
// on across last flags, which are reported per span. Words of an output beat outside
// its span are undefined.
`default_nettype none

module shell_span_pack #(
    parameter integer IN_WORDS = 16   // words per input beat, 1..16
) (
    input  wire                     clk,
    input  wire                     rst,
    // input beats
    input  wire                     s_axis_tvalid,
    output wire                     s_axis_tready,
    input  wire [IN_WORDS*32-1:0]   s_axis_tdata,
    input  wire [4:0]               s_axis_cnt,        // words from word 0, 1..IN_WORDS
    input  wire                     s_axis_tlast,      // flags the beat's final word
    // the output span, held until its beat is taken
    input  wire                     req_valid,
    input  wire [3:0]               req_off,
    input  wire [4:0]               req_cnt,           // 1..16-req_off
    input  wire [4:0]               req_next,          // the next span's words from lane 0, or 0
    // output beats
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output reg  [511:0]             m_axis_tdata,
    output wire                     m_axis_tlast,      // the span's final word is flagged last
    output wire                     m_axis_inner_last  // another word of the span is flagged last
);
    initial begin
        if (IN_WORDS < 1 || IN_WORDS > 16) begin
            $display("shell_span_pack: IN_WORDS=%0d must be 1..16", IN_WORDS);
            $finish;
        end
    end

    reg [511:0] acc_reg;        // the span being built: lanes [off, fill) hold its words
    reg [4:0]   fill_reg;       // 0: nothing placed yet, the span starts at req_off
    reg [3:0]   lo_reg;         // the input beat's first word not placed yet
    reg         done_reg;       // an overflow completed the span: it leaves without input
    reg         done_last_reg;
    reg         inner_reg;      // a word already placed in the span is flagged last

    wire [4:0] base  = fill_reg == 5'd0 ? {1'b0, req_off} : fill_reg;
    wire [4:0] avail = {1'b0, req_off} + req_cnt - base;          // 1..16
    wire [4:0] rem   = s_axis_cnt - {1'b0, lo_reg};               // 1..16
    // the beat's rest fills this span (emit), and what exceeds it fits into the next
    wire       emit  = rem >= avail;
    wire [4:0] over  = rem - avail;
    wire       whole = !emit || over <= req_next;
    wire [4:0] ovf   = whole ? over : req_next;                   // words placed in the next span

    wire data_cycle = req_valid && !done_reg && s_axis_tvalid;
    assign m_axis_tvalid = req_valid && (done_reg || (s_axis_tvalid && emit));
    wire m_fire = m_axis_tvalid && m_axis_tready;
    assign s_axis_tready = req_valid && !done_reg && (emit ? m_axis_tready && whole : 1'b1);
    // input placed this cycle (all of its rest, or the part up to the end of the next span)
    wire place = data_cycle && (emit ? m_axis_tready : 1'b1);
    wire last_here = whole && s_axis_tlast;

    assign m_axis_tlast      = done_reg ? done_last_reg : last_here && rem == avail;
    assign m_axis_inner_last = inner_reg;

    // input word k goes to lane (k - lo + base) mod 16; lanes below base keep acc's words
    wire [3:0]  rot_w = base[3:0] - lo_reg;
    reg [511:0] rot;
    integer     b, l;
    always @* begin
        rot = {{(512 - IN_WORDS*32){1'b0}}, s_axis_tdata};
        for (b = 0; b < 4; b = b + 1)
            if (rot_w[b])
                rot = (rot << (32 * (1 << b))) | (rot >> (512 - 32 * (1 << b)));
        for (l = 0; l < 16; l = l + 1)
            m_axis_tdata[l*32 +: 32] = l < base ? acc_reg[l*32 +: 32] : rot[l*32 +: 32];
    end

    // a span in progress keeps its placed lanes; a span that leaves leaves its overflow
    // in rot, at lanes [0, ovf) of the next one (a register enable, no multiplexer)
    always @(posedge clk) begin
        for (l = 0; l < 16; l = l + 1)
            if (place && (emit || l >= base))
                acc_reg[l*32 +: 32] <= rot[l*32 +: 32];
    end

    always @(posedge clk) begin
        if (rst) begin
            fill_reg  <= 5'd0;
            lo_reg    <= 4'd0;
            done_reg  <= 1'b0;
            inner_reg <= 1'b0;
        end else if (done_reg) begin
            if (m_fire) begin
                fill_reg  <= 5'd0;
                done_reg  <= 1'b0;
                inner_reg <= 1'b0;
            end
        end else if (place) begin
            lo_reg <= whole ? 4'd0 : lo_reg + avail[3:0] + req_next[3:0];
            if (emit) begin
                // an overflow that fills the next span completes it too
                fill_reg      <= ovf;
                done_reg      <= ovf != 5'd0 && ovf == req_next;
                done_last_reg <= last_here;
                inner_reg     <= last_here && ovf != 5'd0 && ovf != req_next;
            end else begin
                fill_reg  <= base + rem;
                inner_reg <= inner_reg || s_axis_tlast;
            end
        end
    end
endmodule

`default_nettype wire
