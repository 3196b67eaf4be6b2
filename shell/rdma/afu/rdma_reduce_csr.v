// CSR block of the card's reduction unit (REDUCE_* registers of shell/csr_map.json, at
// 0x1900): its place in the chain, the vector, START / ABORT, status and stall counters.
// START (while idle) and ABORT also restart the reductions' endpoint pairs (ep_rst), so
// every reduction begins with full credits and empty FIFOs. Reads answer one cycle
// later, as shell_csr's.
`default_nettype none
module rdma_reduce_csr (
    // MMIO (addresses already decoded to the REDUCE window by the caller)
    `include "mmio_csr_ports.vh"
    // to the unit and its endpoint pair
    output wire [5:0]  next,
    output wire [5:0]  prev,
    output wire [7:0]  sid,        // the sums' stream id (128 + SID)
    output wire [7:0]  rsid,       // the result's (192 + SID)
    output wire        first,
    output wire        last,
    output wire        f32,
    output wire        allreduce,
    output reg  [63:0] src,
    output reg  [63:0] dst,
    output reg  [63:0] len,
    output wire        start,
    output wire        unit_rst,   // ABORT
    output wire        ep_rst,     // START or ABORT
    input  wire        busy,
    input  wire        done,
    input  wire [7:0]  code,
    input  wire [31:0] words,
    input  wire [31:0] in_stalls,
    input  wire [31:0] out_stalls,
    input  wire [1:0]  ep_errors   // {misrouted, overflow}, sticky in the endpoint
);
    `include "afushell_csr.vh"
    reg [27:0] cfg;
    assign next  = cfg[5:0];
    assign prev  = cfg[13:8];
    assign sid   = {2'b10, cfg[21:16]};
    assign rsid  = {2'b11, cfg[21:16]};
    assign first = cfg[24];
    assign last  = cfg[25];
    assign f32   = cfg[26];
    assign allreduce = cfg[27];
    wire ctrl = mmio_wr_valid && mmio_wr_addr == CSR_REDUCE_CTRL_ADDR;
    assign start = ctrl && mmio_wr_data[0] && !mmio_wr_data[1] && !busy;
    assign unit_rst = rst || (ctrl && mmio_wr_data[1]);
    assign ep_rst = start || (ctrl && mmio_wr_data[1]);

    always @(posedge clk) begin
        if (rst) begin
            cfg <= 28'd0; src <= 64'd0; dst <= 64'd0; len <= 64'd0;
        end else if (mmio_wr_valid) begin
            case (mmio_wr_addr)
                CSR_REDUCE_CFG_ADDR: cfg <= {mmio_wr_data[27:24], 2'b00, mmio_wr_data[21:16], 2'b00, mmio_wr_data[13:8],
                                             2'b00, mmio_wr_data[5:0]};
                CSR_REDUCE_SRC_ADDR: src <= mmio_wr_data;
                CSR_REDUCE_DST_ADDR: dst <= mmio_wr_data;
                CSR_REDUCE_LEN_ADDR: len <= mmio_wr_data;
                default: ;
            endcase
        end
    end

    always @(posedge clk) begin
        mmio_rd_resp_valid <= !rst && mmio_rd_valid;
        case (mmio_rd_addr)
            CSR_REDUCE_CFG_ADDR:    mmio_rd_resp_data <= {36'd0, cfg};
            CSR_REDUCE_SRC_ADDR:    mmio_rd_resp_data <= src;
            CSR_REDUCE_DST_ADDR:    mmio_rd_resp_data <= dst;
            CSR_REDUCE_LEN_ADDR:    mmio_rd_resp_data <= len;
            CSR_REDUCE_STATUS_ADDR: mmio_rd_resp_data <= {words, 16'd0, code, 4'd0, ep_errors[1], ep_errors[0], done, busy};
            CSR_REDUCE_STALLS_ADDR: mmio_rd_resp_data <= {out_stalls, in_stalls};
            default:                mmio_rd_resp_data <= 64'd0;
        endcase
    end
endmodule
`default_nettype wire
