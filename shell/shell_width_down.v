// Width converter 512-bit beats -> records of RECORD_WORDS x 32 bits. Input beats
// carry 1..16 packed words (only the final beat of a stream may be short); records
// keep the stream's last. A stream ending inside a record gives a zero-padded record
// flagged last and a partial_record pulse.
// Records start at word multiples of RECORD_WORDS, so within a beat only the offsets
// that are multiples of the largest power of two dividing RECORD_WORDS occur: a record
// is the rest of the held beat followed by the start of the next one (a lane-wise
// choice) read out at one of those offsets, and only those are built (8 for 10-word
// records). Records are registered.
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
    localparam integer STEP_BITS = RECORD_WORDS % 16 == 0 ? 4 : RECORD_WORDS % 8 == 0 ? 3
                                 : RECORD_WORDS % 4 == 0 ? 2 : RECORD_WORDS % 2 == 0 ? 1 : 0;
    localparam [4:0]   R = RECORD_WORDS[4:0];

    initial begin
        if (RECORD_WORDS < 1 || RECORD_WORDS > 16) begin
            $display("shell_width_down: RECORD_WORDS=%0d must be 1..16", RECORD_WORDS);
            $finish;
        end
    end

    reg  [511:0] hold_reg;       // the beat being consumed, words [pos, end)
    reg          hvalid_reg, hlast_reg;
    reg  [4:0]   hend_reg;
    reg  [3:0]   pos_reg;
    reg  [RECORD_WORDS*32-1:0] out_data_reg;
    reg          out_valid_reg, out_last_reg, out_partial_reg;

    wire [4:0] hrem   = hend_reg - {1'b0, pos_reg};
    wire [5:0] mixrem = {1'b0, hrem} + {1'b0, s_axis_cnt};
    wire out_free  = !out_valid_reg || m_axis_tready;
    // from the held beat alone (also a stream's padded final record), or with the next
    // beat behind a held full beat
    wire hold_only = hvalid_reg && (hrem >= R || hlast_reg);
    wire mix       = hvalid_reg && !hold_only && s_axis_tvalid;
    wire produce   = out_free && (hold_only || mix);
    wire [5:0] avail = hold_only ? {1'b0, hrem} : mixrem;
    wire rec_last  = hold_only ? hlast_reg && hrem <= R : s_axis_tlast && mixrem <= {1'b0, R};
    wire [4:0] pos_after = {1'b0, pos_reg} + R;
    wire [4:0] pos_mix   = R - hrem;
    wire h_used    = produce && hold_only && (hlast_reg ? pos_after >= hend_reg : pos_after == 5'd16);
    wire mix_used  = s_axis_tlast && pos_mix >= s_axis_cnt;
    assign s_axis_tready = !hvalid_reg || h_used || (produce && mix);
    wire s_fire = s_axis_tvalid && s_axis_tready;

    reg [511:0] mixed, rot;
    reg [RECORD_WORDS*32-1:0] rec;
    integer b, l;
    always @* begin
        for (l = 0; l < 16; l = l + 1)
            mixed[l*32 +: 32] = l >= pos_reg ? hold_reg[l*32 +: 32] : s_axis_tdata[l*32 +: 32];
        rot = mixed;
        for (b = STEP_BITS; b < 4; b = b + 1)
            if (pos_reg[b])
                rot = (rot >> (32 * (1 << b))) | (rot << (512 - 32 * (1 << b)));
        for (l = 0; l < RECORD_WORDS; l = l + 1)
            rec[l*32 +: 32] = l < avail ? rot[l*32 +: 32] : 32'd0;
    end

    always @(posedge clk) begin
        if (rst) begin
            hvalid_reg    <= 1'b0;
            out_valid_reg <= 1'b0;
        end else begin
            if (produce) begin
                out_valid_reg   <= 1'b1;
                out_data_reg    <= rec;
                out_last_reg    <= rec_last;
                out_partial_reg <= avail < {1'b0, R};
            end else if (m_axis_tready) begin
                out_valid_reg <= 1'b0;
            end
            if (s_fire) begin
                hold_reg   <= s_axis_tdata;
                hend_reg   <= s_axis_cnt;
                hlast_reg  <= s_axis_tlast;
                pos_reg    <= produce && mix ? pos_mix[3:0] : 4'd0;
                hvalid_reg <= !(produce && mix && mix_used);
            end else if (produce && hold_only) begin
                pos_reg    <= pos_after[3:0];
                hvalid_reg <= !h_used;
            end
        end
    end

    assign m_axis_tvalid  = out_valid_reg;
    assign m_axis_tdata   = out_data_reg;
    assign m_axis_tlast   = out_last_reg;
    assign partial_record = out_valid_reg && m_axis_tready && out_partial_reg;
endmodule

`default_nettype wire
