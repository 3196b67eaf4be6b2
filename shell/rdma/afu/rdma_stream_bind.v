// What the card's stream endpoint pair carries (STREAM_CFG): the outgoing stream takes the
// cascade's output records (OUT_LINK) or the core's Brch_Out elements (OUT_BRCH), port 0
// first; the arriving stream becomes the cascade's input records (IN_LINK, the first core's
// input in afu_shell) or the core's Brch_In elements (IN_BRCH). LANES = 1: word by word
// (rdma_stream_ser, rdma_stream_des). LANES > 1: a record a cycle, whole (rdma_stream_wide
// packs the words of records of any width into beats and asks for the consumer's width). One pair, so one stream each way: with both bits of a
// direction set the branch stream has the endpoint and the cascade's side waits.
// A Brch_Out that is not bound holds its core once the core's output buffer fills, and
// an unbound Brch_In never delivers: the core waits for it (it never sees made-up words).
`default_nettype none
module rdma_stream_bind #(
    parameter integer LANES     = 1,   // the endpoints' words a cycle: 1, or a beat (16, 32)
    parameter integer IN_WORDS  = 1,   // words per cascade input record
    parameter integer OUT_WORDS = 1,   // words per cascade output record
    parameter integer BI_WORDS  = 0,   // words per Brch_In element (0: the core has none)
    parameter integer BO_WORDS  = 0    // words per Brch_Out element (0: none)
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    in_brch,
    input  wire                    out_brch,
    // the cascade's records (afu_shell's ext_* ports: valid only with IN_LINK / OUT_LINK)
    input  wire                    x_out_valid,
    output wire                    x_out_ready,
    input  wire [32*OUT_WORDS-1:0] x_out_data,
    input  wire                    x_out_last,
    output wire                    x_in_valid,
    input  wire                    x_in_ready,
    output wire [32*IN_WORDS-1:0]  x_in_data,
    output wire                    x_in_last,
    // the core's branch streams (afu_shell's brch_* ports)
    input  wire                    b_out_valid,
    output wire                    b_out_ready,
    input  wire [32*(BO_WORDS > 0 ? BO_WORDS : 1)-1:0] b_out_data,
    input  wire                    b_out_last,
    output wire                    b_in_valid,
    input  wire                    b_in_ready,
    output wire [32*(BI_WORDS > 0 ? BI_WORDS : 1)-1:0] b_in_data,
    output wire                    b_in_last,
    // the endpoints' core side: words into the outgoing stream, words of the arriving one
    output wire                    st_s_valid,
    input  wire                    st_s_ready,
    output wire [32*LANES-1:0]     st_s_data,
    output wire [5:0]              st_s_words,
    output wire                    st_s_last,
    input  wire                    st_m_valid,
    output wire                    st_m_ready,
    input  wire [32*LANES-1:0]     st_m_data,
    output wire [5:0]              st_m_want,
    input  wire                    st_m_last
);
    localparam integer BOW = BO_WORDS > 0 ? BO_WORDS : 1;
    localparam integer BIW = BI_WORDS > 0 ? BI_WORDS : 1;
    generate if (LANES > 1) begin : g_wide
        // records whole: the endpoint packs and unpacks them
        assign st_s_valid = out_brch ? b_out_valid : x_out_valid;
        assign st_s_data  = out_brch ? {{32*(LANES-BOW){1'b0}}, b_out_data} : {{32*(LANES-OUT_WORDS){1'b0}}, x_out_data};
        assign st_s_words = out_brch ? BOW[5:0] : OUT_WORDS[5:0];
        assign st_s_last  = out_brch ? b_out_last : x_out_last;
        assign x_out_ready = st_s_ready && !out_brch;
        assign b_out_ready = st_s_ready && out_brch && BO_WORDS > 0;
        assign st_m_want  = in_brch ? BIW[5:0] : IN_WORDS[5:0];
        assign st_m_ready = in_brch ? b_in_ready && BI_WORDS > 0 : x_in_ready;
        assign x_in_valid = st_m_valid && !in_brch;
        assign x_in_data  = st_m_data[32*IN_WORDS-1:0];
        assign x_in_last  = st_m_last;
        assign b_in_valid = st_m_valid && in_brch && BI_WORDS > 0;
        assign b_in_data  = st_m_data[32*BIW-1:0];
        assign b_in_last  = st_m_last;
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_w = &{1'b0, clk, rst, st_m_data};
        /* verilator lint_on UNUSEDSIGNAL */
    end else begin : g_word
        assign st_s_words = 6'd1;
        assign st_m_want = 6'd1;
        // ---- outgoing: cascade records or branch elements, as words ----
        wire        xs_valid, xs_ready, xs_last;
        wire [31:0] xs_data;
        rdma_stream_ser #(.WORDS(OUT_WORDS)) u_ser (
            .clk(clk), .rst(rst), .s_valid(x_out_valid), .s_ready(x_out_ready), .s_data(x_out_data),
            .s_last(x_out_last), .m_valid(xs_valid), .m_ready(xs_ready), .m_data(xs_data), .m_last(xs_last));
        wire        bs_valid, bs_ready, bs_last;
        wire [31:0] bs_data;
            if (BO_WORDS > 0) begin : g_bo
                rdma_stream_ser #(.WORDS(BO_WORDS)) u_bser (
                    .clk(clk), .rst(rst), .s_valid(b_out_valid), .s_ready(b_out_ready), .s_data(b_out_data),
                    .s_last(b_out_last), .m_valid(bs_valid), .m_ready(bs_ready), .m_data(bs_data), .m_last(bs_last));
            end else begin : g_no_bo
                assign b_out_ready = 1'b0;
                assign bs_valid = 1'b0;
                assign bs_data = 32'd0;
                assign bs_last = 1'b0;
                /* verilator lint_off UNUSEDSIGNAL */
                wire unused_bo = &{1'b0, b_out_valid, b_out_data, b_out_last, bs_ready};
                /* verilator lint_on UNUSEDSIGNAL */
            end
        assign st_s_valid = out_brch ? bs_valid : xs_valid;
        assign st_s_data  = out_brch ? bs_data : xs_data;
        assign st_s_last  = out_brch ? bs_last : xs_last;
        assign xs_ready   = st_s_ready && !out_brch;
        assign bs_ready   = st_s_ready && out_brch;

        // ---- arriving: words to cascade records or branch elements ----
        wire xm_ready, bm_ready;
        assign st_m_ready = in_brch ? bm_ready : xm_ready;
        rdma_stream_des #(.WORDS(IN_WORDS)) u_des (
            .clk(clk), .rst(rst), .s_valid(st_m_valid && !in_brch), .s_ready(xm_ready), .s_data(st_m_data),
            .s_last(st_m_last), .m_valid(x_in_valid), .m_ready(x_in_ready), .m_data(x_in_data), .m_last(x_in_last));
            if (BI_WORDS > 0) begin : g_bi
                rdma_stream_des #(.WORDS(BI_WORDS)) u_bdes (
                    .clk(clk), .rst(rst), .s_valid(st_m_valid && in_brch), .s_ready(bm_ready), .s_data(st_m_data),
                    .s_last(st_m_last), .m_valid(b_in_valid), .m_ready(b_in_ready), .m_data(b_in_data),
                    .m_last(b_in_last));
            end else begin : g_no_bi
                assign bm_ready = 1'b0;
                assign b_in_valid = 1'b0;
                assign b_in_data = 32'd0;
                assign b_in_last = 1'b0;
                /* verilator lint_off UNUSEDSIGNAL */
                wire unused_bi = &{1'b0, b_in_ready};
                /* verilator lint_on UNUSEDSIGNAL */
            end
    end endgenerate
    initial begin
        if (LANES > 1 && (IN_WORDS > LANES || OUT_WORDS > LANES || BIW > LANES || BOW > LANES))
            $error("%m: records of up to LANES=%0d words", LANES);
    end
endmodule
`default_nettype wire
