// A PicoRV32 (rv32im, from the pythondata-cpu-picorv32 package) beside a RAM of 2^RAM_BITS
// bytes that answers a request the cycle after it, as an M20K would: the processor that the
// sort's plan would need on the card, measured by benchmarks/sort_plan_cpu.py. A store to
// DONE_ADDR ends the run (done, its value in done_value).
`default_nettype none
module plan_cpu #(
    parameter integer RAM_BITS = 18,
    parameter [31:0] DONE_ADDR = 32'h1000_0000
) (
    input  wire        clk,
    input  wire        resetn,
    output reg         done,
    output reg  [31:0] done_value,
    output wire        trap
);
    wire        mem_valid, mem_instr;
    reg         mem_ready;
    wire [31:0] mem_addr, mem_wdata;
    wire [3:0]  mem_wstrb;
    reg  [31:0] mem_rdata;
    /* verilator lint_off UNUSEDSIGNAL */
    wire        la_read, la_write;
    wire [31:0] la_addr, la_wdata, pcpi_insn, pcpi_rs1, pcpi_rs2, eoi;
    wire [3:0]  la_wstrb;
    wire        pcpi_valid;
    /* verilator lint_on UNUSEDSIGNAL */
    picorv32 #(
        .ENABLE_COUNTERS(1), .ENABLE_REGS_DUALPORT(1), .BARREL_SHIFTER(1), .ENABLE_MUL(0),
        .ENABLE_FAST_MUL(1), .ENABLE_DIV(1), .COMPRESSED_ISA(0), .CATCH_MISALIGN(1), .CATCH_ILLINSN(1),
        .STACKADDR(32'd1 << RAM_BITS), .PROGADDR_RESET(32'd0)
    ) u_cpu (
        .clk(clk), .resetn(resetn), .trap(trap),
        .mem_valid(mem_valid), .mem_instr(mem_instr), .mem_ready(mem_ready), .mem_addr(mem_addr),
        .mem_wdata(mem_wdata), .mem_wstrb(mem_wstrb), .mem_rdata(mem_rdata),
        .mem_la_read(la_read), .mem_la_write(la_write), .mem_la_addr(la_addr), .mem_la_wdata(la_wdata),
        .mem_la_wstrb(la_wstrb),
        .pcpi_valid(pcpi_valid), .pcpi_insn(pcpi_insn), .pcpi_rs1(pcpi_rs1), .pcpi_rs2(pcpi_rs2),
        .pcpi_wr(1'b0), .pcpi_rd(32'd0), .pcpi_wait(1'b0), .pcpi_ready(1'b0),
        .irq(32'd0), .eoi(eoi)
    );

    reg [31:0] ram [0:(1 << (RAM_BITS - 2)) - 1];
    wire [RAM_BITS-3:0] word = mem_addr[RAM_BITS-1:2];
    always @(posedge clk) begin
        mem_ready <= 1'b0;
        if (!resetn) begin
            done <= 1'b0;
            done_value <= 32'd0;
        end else if (mem_valid && !mem_ready) begin
            mem_ready <= 1'b1;
            if (mem_addr == DONE_ADDR && |mem_wstrb) begin
                done <= 1'b1;
                done_value <= mem_wdata;
            end else begin
                mem_rdata <= ram[word];
                if (mem_wstrb[0]) ram[word][7:0]   <= mem_wdata[7:0];
                if (mem_wstrb[1]) ram[word][15:8]  <= mem_wdata[15:8];
                if (mem_wstrb[2]) ram[word][23:16] <= mem_wdata[23:16];
                if (mem_wstrb[3]) ram[word][31:24] <= mem_wdata[31:24];
            end
        end
    end
endmodule
`default_nettype wire
