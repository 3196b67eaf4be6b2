// Records of WORDS 32-bit words (a core's branch stream, port 0 in the low bits) to the
// 32-bit word stream of rdma_stream, port 0 first; `last` goes with the record's final word.
`default_nettype none
module rdma_stream_ser #(
    parameter integer WORDS = 2  // 32-bit words per record (1..16)
) (
    input  wire [32*WORDS-1:0] s_data,
    output wire [31:0] m_data,
    `include "rdma_stream_rec_ports.vh"
);
    `include "rdma_stream_rec.vh"
    wire               fin = m_valid && m_ready && idx_reg == LAST[IW-1:0];
    assign s_ready = !full_reg || fin;
    assign m_valid = full_reg;
    assign m_data = rec_reg[32 * idx_reg +: 32];
    assign m_last = rlast_reg && idx_reg == LAST[IW-1:0];
    always @(posedge clk) begin
        if (rst) begin
            full_reg <= 1'b0; rlast_reg <= 1'b0; idx_reg <= {IW{1'b0}}; rec_reg <= {32*WORDS{1'b0}};
        end else begin
            if (m_valid && m_ready) idx_reg <= fin ? {IW{1'b0}} : idx_reg + 1'b1;
            if (s_valid && s_ready) begin
                rec_reg <= s_data;
                rlast_reg <= s_last;
                full_reg <= 1'b1;
            end else if (fin) begin
                full_reg <= 1'b0;
            end
        end
    end
endmodule
`default_nettype wire
