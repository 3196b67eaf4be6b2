// CSR block of the sort's single-pass stage (STAGE_* registers of shell/csr_map.json, at
// 0x1A00): its mode, window and table, the counts' puts, START / FLUSH, status and counters. Reads answer one
// cycle later, as shell_csr's.
`default_nettype none
module rdma_sort_stage_csr #(
    parameter integer BIN_BITS    = 8,
    parameter integer RING_LINES  = 64,
    parameter integer CHUNK_LINES = 32
) (
    // MMIO (addresses already decoded to the STAGE window by the caller)
    `include "mmio_csr_ports.vh"
    output wire                enable,
    output wire [4:0]          cap_shift,
    output reg  [63:0]         base,
    output wire                tbl_we,
    output wire [BIN_BITS-1:0] tbl_bin,
    output wire [5:0]          tbl_dst,
    output reg  [63:0]         tbl_remote,
    output reg  [63:0]         cnt_local,
    output reg  [63:0]         cnt_remote,
    output reg  [31:0]         cnt_len,
    output reg  [63:0]         cnt_dests,
    output wire                start,
    output wire                flush,
    input  wire                idle,
    input  wire [31:0]         puts,
    input  wire [31:0]         puts_done,
    input  wire [7:0]          code,
    input  wire [31:0]         dropped,
    input  wire [31:0]         pass_cycles,
    input  wire [31:0]         writer_waits,
    input  wire [31:0]         engine_reads,
    input  wire [31:0]         engine_gaps
);
    `include "afushell_csr.vh"
    reg [5:0] cfg;   // {CAP_SHIFT, ENABLE}
    assign enable = cfg[0];
    assign cap_shift = cfg[5:1];
    wire ctrl = mmio_wr_valid && mmio_wr_addr == CSR_STAGE_CTRL_ADDR;
    assign start = ctrl && mmio_wr_data[0];
    assign flush = ctrl && mmio_wr_data[1];
    assign tbl_we = mmio_wr_valid && mmio_wr_addr == CSR_STAGE_TBL_ADDR;
    assign tbl_bin = mmio_wr_data[BIN_BITS-1:0];
    assign tbl_dst = mmio_wr_data[13:8];
    wire unused_ok = &{1'b0, mmio_wr_data[63:14], mmio_wr_data[7:BIN_BITS > 7 ? 7 : BIN_BITS]};

    always @(posedge clk) begin
        if (rst) begin
            cfg <= 6'd0; base <= 64'd0; tbl_remote <= 64'd0;
            cnt_local <= 64'd0; cnt_remote <= 64'd0; cnt_len <= 32'd0; cnt_dests <= 64'd0;
        end else if (mmio_wr_valid) begin
            case (mmio_wr_addr)
                CSR_STAGE_CFG_ADDR:        cfg <= {mmio_wr_data[12:8], mmio_wr_data[0]};
                CSR_STAGE_BASE_ADDR:       base <= {mmio_wr_data[63:6], 6'd0};
                CSR_STAGE_TBL_REMOTE_ADDR: tbl_remote <= {mmio_wr_data[63:6], 6'd0};
                CSR_STAGE_CNT_LOCAL_ADDR:  cnt_local <= {mmio_wr_data[63:2], 2'd0};
                CSR_STAGE_CNT_REMOTE_ADDR: cnt_remote <= {mmio_wr_data[63:2], 2'd0};
                CSR_STAGE_CNT_LEN_ADDR:    cnt_len <= {mmio_wr_data[31:2], 2'd0};
                CSR_STAGE_CNT_DESTS_ADDR:  cnt_dests <= mmio_wr_data;
                default: ;
            endcase
        end
    end

    always @(posedge clk) begin
        mmio_rd_resp_valid <= !rst && mmio_rd_valid;
        case (mmio_rd_addr)
            CSR_STAGE_CFG_ADDR:        mmio_rd_resp_data <= {51'd0, cfg[5:1], 7'd0, cfg[0]};
            CSR_STAGE_BASE_ADDR:       mmio_rd_resp_data <= base;
            CSR_STAGE_TBL_REMOTE_ADDR: mmio_rd_resp_data <= tbl_remote;
            CSR_STAGE_CNT_LOCAL_ADDR:  mmio_rd_resp_data <= cnt_local;
            CSR_STAGE_CNT_REMOTE_ADDR: mmio_rd_resp_data <= cnt_remote;
            CSR_STAGE_CNT_LEN_ADDR:    mmio_rd_resp_data <= {32'd0, cnt_len};
            CSR_STAGE_CNT_DESTS_ADDR:  mmio_rd_resp_data <= cnt_dests;
            CSR_STAGE_STATUS_ADDR:     mmio_rd_resp_data <= {1'b1, 47'd0, code, 7'd0, idle};
            CSR_STAGE_PUTS_ADDR:       mmio_rd_resp_data <= {puts_done, puts};
            CSR_STAGE_DROPPED_ADDR:    mmio_rd_resp_data <= {32'd0, dropped};
            CSR_STAGE_CYCLES_ADDR:     mmio_rd_resp_data <= {writer_waits, pass_cycles};
            CSR_STAGE_ENGINE_ADDR:     mmio_rd_resp_data <= {engine_gaps, engine_reads};
            CSR_STAGE_INFO_ADDR:       mmio_rd_resp_data <= {23'd0, 1'b1, CHUNK_LINES[15:0], RING_LINES[15:0], BIN_BITS[7:0]};
            default:                   mmio_rd_resp_data <= 64'd0;
        endcase
    end
endmodule
`default_nettype wire
