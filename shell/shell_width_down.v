// Width converter 512-bit beats -> records of RECORD_WORDS x 32 bits. Input beats
// carry 1..16 packed words (only the final beat of a stream may be short); records
// keep the stream's last. A stream ending inside a record gives a zero-padded record
// flagged last and a partial_record pulse. It is the unpacker in its TX form, which the
// TX DMA also builds in to give records straight from memory (no packed stage between).
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
    initial begin
        if (RECORD_WORDS < 1 || RECORD_WORDS > 16) begin
            $display("shell_width_down: RECORD_WORDS=%0d must be 1..16", RECORD_WORDS);
            $finish;
        end
    end

    wire [4:0] cnt;
    wire       inner_last;
    shell_word_unpack #(.OUT_WORDS (RECORD_WORDS), .CUT_AT_LAST (1), .ZERO_PAD (1)) unpack (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (s_axis_tvalid), .s_axis_tready (s_axis_tready), .s_axis_tdata (s_axis_tdata),
        .s_axis_lo (4'd0), .s_axis_cnt (s_axis_cnt), .s_axis_tlast (s_axis_tlast),
        .req_valid (1'b1), .req_off (4'd0), .req_cnt (RECORD_WORDS[4:0]),
        .m_axis_tvalid (m_axis_tvalid), .m_axis_tready (m_axis_tready), .m_axis_tdata (m_axis_tdata),
        .m_axis_cnt (cnt), .m_axis_tlast (m_axis_tlast), .m_axis_inner_last (inner_last)
    );

    assign partial_record = m_axis_tvalid && m_axis_tready && cnt != RECORD_WORDS[4:0];

    // a cut at last ends an output, so no last sits inside a record
    wire unused_ok = inner_last;
endmodule

`default_nettype wire
