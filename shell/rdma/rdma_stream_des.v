// The 32-bit word stream of rdma_stream back to records of WORDS words (port 0 first on
// the wire, in the low bits of the record); a record's `last` is that of its final word.
`default_nettype none
module rdma_stream_des #(
    parameter integer WORDS = 2  // 32-bit words per record (1..16)
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              s_valid,
    output wire              s_ready,
    input  wire [31:0]       s_data,
    input  wire              s_last,
    output wire              m_valid,
    input  wire              m_ready,
    output wire [32*WORDS-1:0] m_data,
    output wire              m_last
);
    localparam integer IW = WORDS > 1 ? $clog2(WORDS) : 1;
    localparam integer LAST = WORDS - 1;  // index of the record's final word
    reg [32*WORDS-1:0] rec_reg;
    reg                full_reg, rlast_reg;
    reg [IW-1:0]       idx_reg;
    assign s_ready = !full_reg || m_ready;
    assign m_valid = full_reg;
    assign m_data = rec_reg;
    assign m_last = rlast_reg;
    wire take = s_valid && s_ready;
    // one enable per word: an indexed part-select would build a multiplier-shifter
    integer w;
    always @(posedge clk)
        if (rst)
            rec_reg <= {32*WORDS{1'b0}};
        else if (take)
            for (w = 0; w < WORDS; w = w + 1)
                if (idx_reg == w[IW-1:0])
                    rec_reg[32*w +: 32] <= s_data;
    always @(posedge clk) begin
        if (rst) begin
            full_reg <= 1'b0; rlast_reg <= 1'b0; idx_reg <= {IW{1'b0}};
        end else begin
            if (m_valid && m_ready) full_reg <= 1'b0;
            if (take) begin
                if (idx_reg == LAST[IW-1:0]) begin
                    idx_reg <= {IW{1'b0}};
                    full_reg <= 1'b1;
                    rlast_reg <= s_last;
                end else begin
                    idx_reg <= idx_reg + 1'b1;
                end
            end
        end
    end
    initial begin
        if (WORDS < 1 || WORDS > 16) $error("%m: WORDS must be 1..16");
    end
endmodule
`default_nettype wire
