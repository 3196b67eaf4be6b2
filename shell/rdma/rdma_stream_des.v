// The 32-bit word stream of rdma_stream back to records of WORDS words (port 0 first on
// the wire, in the low bits of the record); a record's `last` is that of its final word.
`default_nettype none
module rdma_stream_des #(
    parameter integer WORDS = 2  // 32-bit words per record (1..16)
) (
    input  wire [31:0] s_data,
    output wire [32*WORDS-1:0] m_data,
    `include "rdma_stream_rec_ports.vh"
);
    `include "rdma_stream_rec.vh"
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
endmodule
`default_nettype wire
