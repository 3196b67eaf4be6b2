// Synchronous show-ahead FIFO with valid/ready on both sides and a fill level. The
// memory is read synchronously (block-RAM friendly). With FWD_WRITES a write into the
// entry being read is forwarded, so an entry shows the cycle after its write; without,
// it shows a cycle later and the entry-wide bypass register and multiplexer are not
// built (wide data buffers, where they cost as much logic as a realigner stage). The
// level counts every written entry either way.
`default_nettype none

module shell_fifo #(
    parameter integer DATA_WIDTH = 32,   // bits per entry
    parameter integer FIFO_DEPTH = 16,   // entries, a power of two >= 2
    parameter integer FWD_WRITES = 1     // 1: show a new entry one cycle after its write; 0: two
) (
    input  wire                     clk,
    input  wire                     rst,
    // write side
    input  wire                     s_axis_tvalid,
    output wire                     s_axis_tready,
    input  wire [DATA_WIDTH-1:0]    s_axis_tdata,
    // read side
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire [DATA_WIDTH-1:0]    m_axis_tdata,
    // entries held
    output wire [$clog2(FIFO_DEPTH):0] level
);
    localparam integer ADDR_WIDTH = $clog2(FIFO_DEPTH);

    initial begin
        if (FIFO_DEPTH < 2 || (1 << ADDR_WIDTH) != FIFO_DEPTH) begin
            $display("shell_fifo: FIFO_DEPTH=%0d must be a power of two >= 2", FIFO_DEPTH);
            $finish;
        end
        if (FWD_WRITES != 0 && FWD_WRITES != 1) begin
            $display("shell_fifo: FWD_WRITES=%0d must be 0 or 1", FWD_WRITES);
            $finish;
        end
        if (DATA_WIDTH < 1) begin
            $display("shell_fifo: DATA_WIDTH=%0d must be >= 1", DATA_WIDTH);
            $finish;
        end
    end

    reg [DATA_WIDTH-1:0] mem [0:FIFO_DEPTH-1];
    reg [ADDR_WIDTH:0]   wr_ptr_reg, rd_ptr_reg, shown_ptr_reg;
    reg [ADDR_WIDTH:0]   rd_inc_reg;  // rd_ptr_reg + 1, kept so a pop needs no adder
    reg [DATA_WIDTH-1:0] rd_data_reg;

    // entries before shown_ptr may be read: all written ones, or those written before this cycle
    wire [ADDR_WIDTH:0] shown = FWD_WRITES != 0 ? wr_ptr_reg : shown_ptr_reg;
    // same entry, other lap: an equality, not a subtraction, on the push path
    wire full  = (wr_ptr_reg ^ rd_ptr_reg) == FIFO_DEPTH[ADDR_WIDTH:0];
    wire empty = shown == rd_ptr_reg;
    wire push  = s_axis_tvalid && !full;
    wire pop   = m_axis_tready && !empty;

    assign s_axis_tready = !full;
    assign m_axis_tvalid = !empty;
    assign level         = wr_ptr_reg - rd_ptr_reg;

    // the entry shown next cycle: a select between two registers, no carry chain
    wire [ADDR_WIDTH:0] rd_next = pop ? rd_inc_reg : rd_ptr_reg;

    always @(posedge clk) begin
        if (push)
            mem[wr_ptr_reg[ADDR_WIDTH-1:0]] <= s_axis_tdata;
        rd_data_reg <= mem[rd_next[ADDR_WIDTH-1:0]];
        if (rst) begin
            wr_ptr_reg    <= 0;
            rd_ptr_reg    <= 0;
            rd_inc_reg    <= 1;
            shown_ptr_reg <= 0;
        end else begin
            if (push) wr_ptr_reg <= wr_ptr_reg + 1'b1;
            if (pop) begin
                rd_ptr_reg <= rd_inc_reg;
                rd_inc_reg <= rd_inc_reg + 1'b1;
            end
            shown_ptr_reg <= wr_ptr_reg;
        end
    end

    generate
        if (FWD_WRITES != 0) begin : g_fwd
            reg [DATA_WIDTH-1:0] fwd_data_reg;
            reg                  fwd_reg;
            always @(posedge clk) begin
                // write slot == rd_next, without waiting for pop: equal slots with pop low
                // mean empty (or full, and then no push); a pop needs !empty, so the
                // slot after rd_ptr_reg matches only when the ready input pops
                fwd_reg      <= push && (wr_ptr_reg[ADDR_WIDTH-1:0] == rd_ptr_reg[ADDR_WIDTH-1:0]
                                         || (m_axis_tready
                                             && wr_ptr_reg[ADDR_WIDTH-1:0] == rd_inc_reg[ADDR_WIDTH-1:0]));
                fwd_data_reg <= s_axis_tdata;
            end
            assign m_axis_tdata = fwd_reg ? fwd_data_reg : rd_data_reg;
        end else begin : g_no_fwd
            assign m_axis_tdata = rd_data_reg;
        end
    endgenerate

    wire unused_ok = &{1'b0, rd_next[ADDR_WIDTH], shown_ptr_reg};
endmodule

`default_nettype wire
