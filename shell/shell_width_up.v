// Width converter records of RECORD_WORDS x 32 bits -> 512-bit beats. Records are
// packed densely into beats; a record flagged last ends its beat early (m_axis_cnt
// words valid from word 0), so the stream's last is kept.
`default_nettype none

module shell_width_up #(
    parameter integer RECORD_WORDS = 10   // 32-bit words per input record, 1..16
) (
    input  wire                         clk,
    input  wire                         rst,
    // records
    input  wire                         s_axis_tvalid,
    output wire                         s_axis_tready,
    input  wire [RECORD_WORDS*32-1:0]   s_axis_tdata,
    input  wire                         s_axis_tlast,
    // 512-bit packed beats
    output wire                         m_axis_tvalid,
    input  wire                         m_axis_tready,
    output wire [511:0]                 m_axis_tdata,
    output wire [4:0]                   m_axis_cnt,      // valid words, 1..16, from word 0
    output wire                         m_axis_tlast
);
    localparam integer IN_CNT_WIDTH = $clog2(RECORD_WORDS + 1);

    initial begin
        if (RECORD_WORDS < 1 || RECORD_WORDS > 16) begin
            $display("shell_width_up: RECORD_WORDS=%0d must be 1..16", RECORD_WORDS);
            $finish;
        end
    end

    wire inner_last;

    shell_word_gearbox #(
        .WORD_WIDTH (32),
        .IN_WORDS   (RECORD_WORDS),
        .OUT_WORDS  (16),
        .SPAN_OUT   (0)
    ) gearbox (
        .clk               (clk),
        .rst               (rst),
        .s_axis_tvalid     (s_axis_tvalid),
        .s_axis_tready     (s_axis_tready),
        .s_axis_tdata      (s_axis_tdata),
        .s_axis_lo         ({(RECORD_WORDS > 1 ? $clog2(RECORD_WORDS) : 1){1'b0}}),
        .s_axis_cnt        (RECORD_WORDS[IN_CNT_WIDTH-1:0]),
        .s_axis_tlast      (s_axis_tlast),
        .req_valid         (1'b0),
        .req_off           (4'd0),
        .req_cnt           (5'd0),
        .m_axis_tvalid     (m_axis_tvalid),
        .m_axis_tready     (m_axis_tready),
        .m_axis_tdata      (m_axis_tdata),
        .m_axis_cnt        (m_axis_cnt),
        .m_axis_tlast      (m_axis_tlast),
        .m_axis_inner_last (inner_last)
    );

    // pack mode ends a beat at its first last flag, so no last sits inside a beat
    wire unused_ok = inner_last;
endmodule

`default_nettype wire
