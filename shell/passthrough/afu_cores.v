// Stand-in for the generated cascade wrapper `afu_cores` (spgen build writes the
// real one): a pass-through with a register stage, used in loop-back builds (where
// afu_top does not instantiate it) and as a null core in shell tests.
`default_nettype none

module afu_cores #(
    parameter integer N_CORES   = 1,    // cores in the cascade (one register stage in all)
    parameter integer IN_WORDS  = 1,    // 32-bit words per input record
    parameter integer OUT_WORDS = 1,    // 32-bit words per output record (= IN_WORDS)
    parameter integer REG_WIDTH = 32,   // bits of the Reg value bus
    parameter integer BI_WORDS  = 0,    // branch streams: none here (ports idle)
    parameter integer BO_WORDS  = 0
) (
    input  wire                     clk,
    input  wire                     rst,
    // records in
    input  wire                     s_valid,
    output wire                     s_ready,
    input  wire [IN_WORDS*32-1:0]   s_data,
    input  wire                     s_last,
    // records out
    output wire                     m_valid,
    input  wire                     m_ready,
    output wire [OUT_WORDS*32-1:0]  m_data,
    output wire                     m_last,
    // Reg values, 32 bits each
    input  wire [REG_WIDTH-1:0]     regs,
    // branch streams of the generated wrapper's cores (none here)
    input  wire                     bi_valid,
    output wire                     bi_ready,
    input  wire [32*(BI_WORDS > 0 ? BI_WORDS : 1)-1:0] bi_data,
    input  wire                     bi_last,
    output wire                     bo_valid,
    input  wire                     bo_ready,
    output wire [32*(BO_WORDS > 0 ? BO_WORDS : 1)-1:0] bo_data,
    output wire                     bo_last
);
    initial begin
        if (N_CORES < 1 || IN_WORDS != OUT_WORDS || IN_WORDS < 1 || IN_WORDS > 16 || BI_WORDS != 0 || BO_WORDS != 0) begin
            $display("afu_cores (pass-through): N_CORES=%0d >= 1, IN_WORDS=%0d OUT_WORDS=%0d equal, 1..16, no branch streams",
                     N_CORES, IN_WORDS, OUT_WORDS);
            $finish;
        end
    end

    reg                    valid_reg;
    reg [IN_WORDS*32-1:0]  data_reg;
    reg                    last_reg;

    assign s_ready = !valid_reg || m_ready;
    assign m_valid = valid_reg;
    assign m_data  = data_reg;
    assign m_last  = last_reg;

    always @(posedge clk) begin
        if (rst)
            valid_reg <= 1'b0;
        else if (s_ready)
            valid_reg <= s_valid;
        if (s_ready) begin
            data_reg <= s_data;
            last_reg <= s_last;
        end
    end

    assign bi_ready = 1'b0;
    assign bo_valid = 1'b0;
    assign bo_data  = {32*(BO_WORDS > 0 ? BO_WORDS : 1){1'b0}};
    assign bo_last  = 1'b0;
    wire unused_ok = &{1'b0, regs, bi_valid, bi_data, bi_last, bo_ready};
endmodule

`default_nettype wire
