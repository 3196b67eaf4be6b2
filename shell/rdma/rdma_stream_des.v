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
    reg [32*WORDS-1:0] rec;
    reg                full, rlast;
    reg [IW-1:0]       idx;
    assign s_ready = !full || m_ready;
    assign m_valid = full;
    assign m_data = rec;
    assign m_last = rlast;
    wire take = s_valid && s_ready;
    always @(posedge clk) begin
        if (rst) begin
            full <= 1'b0; rlast <= 1'b0; idx <= {IW{1'b0}}; rec <= {32*WORDS{1'b0}};
        end else begin
            if (m_valid && m_ready) full <= 1'b0;
            if (take) begin
                rec[32 * idx +: 32] <= s_data;
                if (idx == LAST[IW-1:0]) begin
                    idx <= {IW{1'b0}};
                    full <= 1'b1;
                    rlast <= s_last;
                end else begin
                    idx <= idx + 1'b1;
                end
            end
        end
    end
    initial begin
        if (WORDS < 1 || WORDS > 16) $error("%m: WORDS must be 1..16");
    end
endmodule
`default_nettype wire
