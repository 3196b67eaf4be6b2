// Two stream endpoints (rdma_stream) on one port of rdma_local_mux: a = the cascade's
// stream (ids 0..127), b = the reductions' (rdma_reduce; ids 128..255, bit 7 set).
// Injection: whole packets, round-robin (rdma_local_mux's arbiter). Ejection: STREAM and
// CREDIT packets carry the stream id in their second word, so the header waits in a
// register until that word arrives and names the endpoint; the rest of the packet follows
// one cycle late. Both endpoints take every word they are given (credits), so nothing
// here ever waits.
`default_nettype none
module rdma_stream_mux (
    input  wire        clk,
    input  wire        rst,
    // to / from the local port's stream side (rdma_local_mux b)
    output wire        inj_valid,
    input  wire        inj_ready,
    output wire [31:0] inj_data,
    output wire        inj_last,
    input  wire        ej_valid,
    input  wire [31:0] ej_data,
    input  wire        ej_last,
    // endpoint a
    input  wire        a_inj_valid,
    output wire        a_inj_ready,
    input  wire [31:0] a_inj_data,
    input  wire        a_inj_last,
    output wire        a_ej_valid,
    // endpoint b
    input  wire        b_inj_valid,
    output wire        b_inj_ready,
    input  wire [31:0] b_inj_data,
    input  wire        b_inj_last,
    output wire        b_ej_valid,
    // both endpoints' ejection words
    output wire [31:0] out_data,
    output wire        out_last
);
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ej_ready, unused_a_ej, unused_b_ej;  // its ejection side is not used
    /* verilator lint_on UNUSEDSIGNAL */
    rdma_local_mux u_inj (
        .clk(clk), .rst(rst), .inj_valid(inj_valid), .inj_ready(inj_ready), .inj_data(inj_data),
        .inj_last(inj_last), .ej_valid(1'b0), .ej_ready(unused_ej_ready), .ej_data(32'd0), .ej_last(1'b0),
        .a_inj_valid(a_inj_valid), .a_inj_ready(a_inj_ready), .a_inj_data(a_inj_data), .a_inj_last(a_inj_last),
        .a_ej_valid(unused_a_ej), .a_ej_ready(1'b1), .b_inj_valid(b_inj_valid), .b_inj_ready(b_inj_ready),
        .b_inj_data(b_inj_data), .b_inj_last(b_inj_last), .b_ej_valid(unused_b_ej), .b_ej_ready(1'b1));

    // ejection: the header in hdr_reg until the id word, then one word of delay (q_*)
    reg        expect_id_reg;          // a header waits for its stream id word
    reg        in_body_reg;            // after a packet's id word, before its last word
    reg [31:0] hdr_reg;
    reg        q_valid_reg, q_last_reg, q_b_reg, dest_b_reg;
    reg [31:0] q_data_reg;
    wire       id_now = ej_valid && expect_id_reg;  // the id word: the header goes out now
    wire       id_b = ej_data[7];
    assign out_data = id_now ? hdr_reg : q_data_reg;
    assign out_last = id_now ? 1'b0 : q_last_reg;
    assign a_ej_valid = id_now ? !id_b : q_valid_reg && !q_b_reg;
    assign b_ej_valid = id_now ? id_b : q_valid_reg && q_b_reg;
    always @(posedge clk) begin
        if (rst) begin
            expect_id_reg <= 1'b0; hdr_reg <= 32'd0; q_valid_reg <= 1'b0; q_last_reg <= 1'b0; q_b_reg <= 1'b0;
            dest_b_reg <= 1'b0; q_data_reg <= 32'd0; in_body_reg <= 1'b0;
        end else begin
            q_valid_reg <= 1'b0;
            if (ej_valid && ej_last) in_body_reg <= 1'b0;
            if (id_now) begin
                expect_id_reg <= 1'b0;
                in_body_reg <= !ej_last;
                dest_b_reg <= id_b;
                q_valid_reg <= 1'b1; q_data_reg <= ej_data; q_last_reg <= ej_last; q_b_reg <= id_b;
            end else if (ej_valid && !in_body_reg) begin
                // a header: a one-word packet (not a stream's) goes to a at once
                if (ej_last) begin
                    q_valid_reg <= 1'b1; q_data_reg <= ej_data; q_last_reg <= 1'b1; q_b_reg <= 1'b0;
                end else begin
                    hdr_reg <= ej_data;
                    expect_id_reg <= 1'b1;
                end
            end else if (ej_valid) begin
                q_valid_reg <= 1'b1; q_data_reg <= ej_data; q_last_reg <= ej_last; q_b_reg <= dest_b_reg;
            end
        end
    end
endmodule
`default_nettype wire
