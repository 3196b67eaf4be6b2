// Word packer: appends the words [lo, lo+cnt) of each input beat to a stream of
// 16-word (512-bit) output beats, which are full except the one ending at a last flag.
// One rotator places an input span at the fill position of the beat being built; the
// words that overflow it land, already in place, at the start of the next beat, so no
// word is ever shifted twice (the general gearbox needed three 1024-bit shifters).
// FILL_STEP tells the build that every lo, cnt and hence every fill position is a
// multiple of it (records of a fixed width), so only those rotations are built.
// Output beats are registered; with both sides ready the input never stalls. Words of
// an output beat past m_axis_cnt are undefined.
`default_nettype none

module shell_word_pack #(
    parameter integer IN_WORDS  = 16,  // words per input beat, 1..16
    parameter integer FILL_STEP = 1    // lo and cnt are multiples of this: 1, 2, 4, 8 or 16
) (
    input  wire                           clk,
    input  wire                           rst,
    // input spans
    input  wire                           s_axis_tvalid,
    output wire                           s_axis_tready,
    input  wire [IN_WORDS*32-1:0]         s_axis_tdata,
    input  wire [3:0]                     s_axis_lo,      // first word, lo + cnt <= IN_WORDS
    input  wire [4:0]                     s_axis_cnt,     // words, 1..IN_WORDS
    input  wire                           s_axis_tlast,
    // packed beats
    output wire                           m_axis_tvalid,
    input  wire                           m_axis_tready,
    output wire [511:0]                   m_axis_tdata,
    output wire [4:0]                     m_axis_cnt,     // valid words from word 0, 1..16
    output wire                           m_axis_tlast
);
    localparam integer STEP_BITS = FILL_STEP == 16 ? 4 : FILL_STEP == 8 ? 3 : FILL_STEP == 4 ? 2
                                 : FILL_STEP == 2 ? 1 : 0;

    initial begin
        if (IN_WORDS < 1 || IN_WORDS > 16) begin
            $display("shell_word_pack: IN_WORDS=%0d must be 1..16", IN_WORDS);
            $finish;
        end
        if ((1 << STEP_BITS) != FILL_STEP) begin
            $display("shell_word_pack: FILL_STEP=%0d must be 1, 2, 4, 8 or 16", FILL_STEP);
            $finish;
        end
    end

    reg  [511:0] acc_reg;          // the beat being built, words [0, fill) valid
    reg  [4:0]   fill_reg;
    reg          done_reg;         // acc holds a finished beat (full, or ending at a last)
    reg          done_last_reg;
    reg  [511:0] out_data_reg;
    reg  [4:0]   out_cnt_reg;
    reg          out_valid_reg, out_last_reg;

    wire out_free = !out_valid_reg || m_axis_tready;
    wire s_fire   = s_axis_tvalid && out_free;
    wire flush    = done_reg && out_free;
    assign s_axis_tready = out_free;

    // a finished beat leaves this cycle, so a new one starts at word 0
    wire [4:0] base  = done_reg ? 5'd0 : fill_reg;
    wire [3:0] rot_w = base[3:0] - s_axis_lo;
    wire [5:0] total = {1'b0, base} + {1'b0, s_axis_cnt};
    wire       emit  = !done_reg && (total >= 6'd16 || s_axis_tlast);

    // input word k goes to lane (k - lo + base) mod 16; rotation stages below FILL_STEP
    // are never needed
    reg [511:0] rot;
    reg [15:0]  keep;      // lanes of acc that stay: the words before base of a beat in progress
    integer     b, l;
    always @* begin
        rot = {{(512 - IN_WORDS*32){1'b0}}, s_axis_tdata};
        for (b = STEP_BITS; b < 4; b = b + 1)
            if (rot_w[b])
                rot = (rot << (32 * (1 << b))) | (rot >> (512 - 32 * (1 << b)));
        for (l = 0; l < 16; l = l + 1)
            keep[l] = l < base;
    end

    // Every lane of acc takes rot or keeps its word (a register enable, no multiplexer):
    // a beat in progress keeps its words, and a beat that leaves leaves its overflow in
    // rot. An output beat is acc's kept words and rot's others, or all of a finished acc.
    always @(posedge clk) begin
        for (l = 0; l < 16; l = l + 1)
            if (s_fire && !(keep[l] && !emit))
                acc_reg[l*32 +: 32] <= rot[l*32 +: 32];
        for (l = 0; l < 16; l = l + 1)
            if (flush || (s_fire && emit))
                out_data_reg[l*32 +: 32] <= keep[l] || done_reg ? acc_reg[l*32 +: 32] : rot[l*32 +: 32];
    end

    always @(posedge clk) begin
        if (rst) begin
            fill_reg      <= 5'd0;
            done_reg      <= 1'b0;
            done_last_reg <= 1'b0;
            out_valid_reg <= 1'b0;
        end else begin
            if (flush) begin
                out_valid_reg <= 1'b1;
                out_cnt_reg   <= fill_reg;
                out_last_reg  <= done_last_reg;
            end else if (s_fire && emit) begin
                out_valid_reg <= 1'b1;
                out_cnt_reg   <= total > 6'd16 ? 5'd16 : total[4:0];
                out_last_reg  <= s_axis_tlast && total <= 6'd16;
            end else if (m_axis_tready) begin
                out_valid_reg <= 1'b0;
            end

            if (s_fire) begin
                if (done_reg || !emit) begin
                    fill_reg      <= total[4:0];
                    done_reg      <= total == 6'd16 || s_axis_tlast;
                    done_last_reg <= s_axis_tlast;
                end else begin
                    // the overflow is already at lanes [0, total - 16) of rot
                    fill_reg      <= total > 6'd16 ? total[4:0] - 5'd16 : 5'd0;
                    done_reg      <= s_axis_tlast && total > 6'd16;
                    done_last_reg <= s_axis_tlast;
                end
            end else if (flush) begin
                fill_reg <= 5'd0;
                done_reg <= 1'b0;
            end
        end
    end

    assign m_axis_tvalid = out_valid_reg;
    assign m_axis_tdata  = out_data_reg;
    assign m_axis_cnt    = out_cnt_reg;
    assign m_axis_tlast  = out_last_reg;
endmodule

`default_nettype wire
