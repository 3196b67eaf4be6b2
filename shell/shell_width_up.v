// Width converter records of RECORD_WORDS x 32 bits -> 512-bit beats. Records are
// packed densely into beats; a record flagged last ends its beat early (m_axis_cnt
// words valid from word 0, the rest undefined), so the stream's last is kept.
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
    // records start at multiples of RECORD_WORDS: only rotations by multiples of its
    // largest power-of-two factor are built
    localparam integer FILL_STEP = RECORD_WORDS % 16 == 0 ? 16 : RECORD_WORDS % 8 == 0 ? 8
                                 : RECORD_WORDS % 4 == 0 ? 4 : RECORD_WORDS % 2 == 0 ? 2 : 1;

    initial begin
        if (RECORD_WORDS < 1 || RECORD_WORDS > 16) begin
            $display("shell_width_up: RECORD_WORDS=%0d must be 1..16", RECORD_WORDS);
            $finish;
        end
    end

    shell_word_pack #(.IN_WORDS (RECORD_WORDS), .FILL_STEP (FILL_STEP)) pack (
        .clk (clk), .rst (rst),
        .s_axis_tvalid (s_axis_tvalid), .s_axis_tready (s_axis_tready), .s_axis_tdata (s_axis_tdata),
        .s_axis_lo (4'd0), .s_axis_cnt (RECORD_WORDS[4:0]), .s_axis_tlast (s_axis_tlast),
        .m_axis_tvalid (m_axis_tvalid), .m_axis_tready (m_axis_tready), .m_axis_tdata (m_axis_tdata),
        .m_axis_cnt (m_axis_cnt), .m_axis_tlast (m_axis_tlast)
    );
endmodule

`default_nettype wire
