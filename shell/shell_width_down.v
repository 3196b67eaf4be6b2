// Width converter 512-bit beats -> records of RECORD_WORDS x 32 bits. Input beats
// carry 1..16 packed words (only the final beat of a stream may be short); records
// keep the stream's last. A stream ending inside a record gives a zero-padded record
// flagged last and a partial_record pulse.
`default_nettype none

module shell_width_down #(
    parameter integer RECORD_WORDS = 10   // 32-bit words per output record, 1..16
) (
    input  wire                         clk,
    input  wire                         rst,
    // 512-bit packed beats
    input  wire                         s_axis_tvalid,
    output wire                         s_axis_tready,
    input  wire [511:0]                 s_axis_tdata,
    input  wire [4:0]                   s_axis_cnt,      // valid words, 1..16, from word 0
    input  wire                         s_axis_tlast,
    // records
    output wire                         m_axis_tvalid,
    input  wire                         m_axis_tready,
    output wire [RECORD_WORDS*32-1:0]   m_axis_tdata,
    output wire                         m_axis_tlast,
    // a record was cut short by last (one pulse per record)
    output wire                         partial_record
);
    localparam integer CNT_WIDTH = $clog2(RECORD_WORDS + 1);

    initial begin
        if (RECORD_WORDS < 1 || RECORD_WORDS > 16) begin
            $display("shell_width_down: RECORD_WORDS=%0d must be 1..16", RECORD_WORDS);
            $finish;
        end
    end

    wire [CNT_WIDTH-1:0] out_cnt;
    wire                 inner_last;

    shell_word_gearbox #(
        .WORD_WIDTH (32),
        .IN_WORDS   (16),
        .OUT_WORDS  (RECORD_WORDS),
        .SPAN_OUT   (0)
    ) gearbox (
        .clk               (clk),
        .rst               (rst),
        .s_axis_tvalid     (s_axis_tvalid),
        .s_axis_tready     (s_axis_tready),
        .s_axis_tdata      (s_axis_tdata),
        .s_axis_lo         (4'd0),
        .s_axis_cnt        (s_axis_cnt),
        .s_axis_tlast      (s_axis_tlast),
        .req_valid         (1'b0),
        .req_off           ({(RECORD_WORDS > 1 ? $clog2(RECORD_WORDS) : 1){1'b0}}),
        .req_cnt           ({CNT_WIDTH{1'b0}}),
        .m_axis_tvalid     (m_axis_tvalid),
        .m_axis_tready     (m_axis_tready),
        .m_axis_tdata      (m_axis_tdata),
        .m_axis_cnt        (out_cnt),
        .m_axis_tlast      (m_axis_tlast),
        .m_axis_inner_last (inner_last)
    );

    assign partial_record = m_axis_tvalid && m_axis_tready && out_cnt != RECORD_WORDS[CNT_WIDTH-1:0];

    // pack mode ends a beat at its first last flag, so no last sits inside a record
    wire unused_ok = inner_last;
endmodule

`default_nettype wire
