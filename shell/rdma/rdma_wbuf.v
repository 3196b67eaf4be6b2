// A FIFO of 32-bit words that takes up to IN words and gives up to OUT words a cycle: the
// realigning buffer of the wide RDMA engine. The sender pushes the words of a 64-byte line
// that belong to the transfer (IN = 16; a block may start or end mid-line) and pops a beat
// of up to LANES words per cycle; the receiver pushes a beat's payload words and pops up to
// a line's worth. Because any number of words can enter and leave, a transfer's words come
// out contiguous whatever the alignment of their line or beat: that is the realignment.
// A push or a pop touches consecutive addresses only, so the array splits into max(IN, OUT)
// banks by address modulo the bank count, each written and read at most once a cycle (a
// rotation on either side, no wide RAM port). The caller keeps push_n <= DEPTH - count and
// pop_n <= count.
`default_nettype none
module rdma_wbuf #(
    parameter integer DEPTH = 1024,  // words (power of 2, >= 2 * max(IN, OUT))
    parameter integer IN = 16,       // most words pushed per cycle
    parameter integer OUT = 16,      // most words popped per cycle
    parameter integer WIDTH = 32     // bits per word (a stream's words carry a last flag above 32)
) (
    input  wire                      clk,
    input  wire                      rst,
    input  wire [$clog2(IN):0]       push_n,
    input  wire [WIDTH*IN-1:0]       push_data,   // words 0..push_n-1
    input  wire [$clog2(OUT):0]      pop_n,
    output reg  [WIDTH*OUT-1:0]      head,        // the oldest OUT words (those beyond count: don't care)
    output wire [$clog2(DEPTH):0]    count
);
    localparam integer AW = $clog2(DEPTH);
    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW-1:0] wr_reg, rd_reg;
    reg [AW:0]   count_reg;
    assign count = count_reg;
    integer j;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [31:0] jv;  // loop index as an address offset
    /* verilator lint_on UNUSEDSIGNAL */
    always @(*) begin
        jv = 32'd0;
        for (j = 0; j < OUT; j = j + 1) begin
            jv = j;
            head[WIDTH * j +: WIDTH] = mem[rd_reg + jv[AW-1:0]];
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            wr_reg <= {AW{1'b0}};
            rd_reg <= {AW{1'b0}};
            count_reg <= {AW+1{1'b0}};
        end else begin
            for (j = 0; j < IN; j = j + 1)
                if (j < {{31-$clog2(IN){1'b0}}, push_n}) mem[wr_reg + j[AW-1:0]] <= push_data[WIDTH * j +: WIDTH];
            wr_reg <= wr_reg + {{AW-$clog2(IN)-1{1'b0}}, push_n};
            rd_reg <= rd_reg + {{AW-$clog2(OUT)-1{1'b0}}, pop_n};
            count_reg <= count_reg + {{AW-$clog2(IN){1'b0}}, push_n} - {{AW-$clog2(OUT){1'b0}}, pop_n};
        end
    end
    initial begin
        if (DEPTH < 2 * IN || DEPTH < 2 * OUT || (DEPTH & (DEPTH - 1)) != 0)
            $error("%m: DEPTH=%0d must be a power of 2 >= 2 * IN and 2 * OUT", DEPTH);
        if (IN < 2 || (IN & (IN - 1)) != 0 || OUT < 2 || (OUT & (OUT - 1)) != 0)
            $error("%m: IN=%0d and OUT=%0d must be powers of 2 >= 2", IN, OUT);
    end
endmodule
`default_nettype wire
