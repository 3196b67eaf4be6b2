// The chunks a vector moves in through the reduction unit (rdma_reduce): cut at 16-word lines
// from a word offset in the first line, so the first chunk runs to the end of that line, the
// middle ones are whole lines and the last one holds the rest. The sizes come from registers,
// one chunk after the other, so the unit's handshakes never wait on a 62-bit comparison of the
// words left: the count of lines is worked out once, in the cycle after load (the operation's
// setup cycle), and counted down as chunks move on.
`default_nettype none
module rdma_chunks (
    input  wire        clk,
    input  wire        rst,
    input  wire        load,   // a new vector: off and words sampled; n, last, more valid two cycles on
    input  wire [3:0]  off,    // the first word's place in its 16-word line
    input  wire [61:0] words,  // the vector's words (> 0)
    input  wire        take,   // the current chunk moved on
    output reg  [4:0]  n,      // the current chunk's words (1..16)
    output reg         first,  // it is the first chunk
    output reg         last,   // it is the last chunk
    output reg         more    // a chunk is still to move (n, first, last mean something)
);
    reg  [61:0] end_reg;       // off + words: one past the last word, counted from the first line
    reg  [4:0]  words_lo_reg;  // a single chunk's words
    reg  [3:0]  off_reg;
    reg         setup_reg;
    reg  [57:0] rem_reg;       // chunks after the current one
    reg  [4:0]  tail_reg;      // the last chunk's words
    wire        single = end_reg[61:5] == 57'd0 && (!end_reg[4] || end_reg[3:0] == 4'd0);
    wire [57:0] end_m1_lines = end_reg[61:4] - {57'd0, end_reg[3:0] == 4'd0};  // (end - 1) / 16

    always @(posedge clk) begin
        if (rst) begin
            setup_reg <= 1'b0; more <= 1'b0; first <= 1'b0; last <= 1'b0; n <= 5'd0;
            end_reg <= 62'd0; words_lo_reg <= 5'd0; off_reg <= 4'd0; rem_reg <= 58'd0; tail_reg <= 5'd0;
        end else begin
            setup_reg <= load;
            if (load) begin
                end_reg <= {58'd0, off} + words;
                words_lo_reg <= words[4:0];
                off_reg <= off;
                more <= 1'b0;
            end else if (setup_reg) begin
                n <= single ? words_lo_reg : 5'd16 - {1'b0, off_reg};
                first <= 1'b1;
                last <= single;
                more <= 1'b1;
                rem_reg <= end_m1_lines;
                tail_reg <= end_reg[3:0] == 4'd0 ? 5'd16 : {1'b0, end_reg[3:0]};
            end else if (take && more) begin
                first <= 1'b0;
                if (rem_reg == 58'd0) more <= 1'b0;
                rem_reg <= rem_reg - 58'd1;
                n <= rem_reg == 58'd1 ? tail_reg : 5'd16;
                last <= rem_reg == 58'd1;
            end
        end
    end
endmodule
`default_nettype wire
