// CSR block of the card's stream endpoints (STREAM_* registers of shell/csr_map.json, at
// 0x1800): their binding (destination card and stream id, expected peer and own stream
// id), where the cascade's records come from and go to (IN_LINK, OUT_LINK), whether the
// endpoints carry the core's branch streams instead (IN_BRCH, OUT_BRCH), errors and
// counters. A CFG write clears the counters, so a host reads per-run figures. Reads
// answer one cycle later, as shell_csr's.
`default_nettype none
module rdma_stream_csr #(
    parameter integer RECORD_WORDS = 1,   // words per record on the link (STATUS.RECORD_WORDS; 0: no cores)
    parameter integer BRCH_IN_WORDS = 0,  // words per element of the core's Brch_In (STATUS; 0: none)
    parameter integer BRCH_OUT_WORDS = 0  // ... of its Brch_Out
) (
    // MMIO (addresses already decoded to the STREAM window by the caller; of the data, CFG's bits only)
    `include "mmio_csr_ports.vh"
    // configuration
    output wire [5:0]  tx_dst,
    output wire [7:0]  tx_sid,
    output wire [5:0]  rx_peer,
    output wire [7:0]  rx_sid,
    output wire        in_link,
    output wire        out_link,
    output wire        in_brch,
    output wire        out_brch,
    // the endpoints' core side, observed
    input  wire        tx_valid,
    input  wire        tx_ready,
    input  wire [5:0]  tx_words,     // words of a transfer (a record on wide endpoints)
    input  wire        rx_valid,
    input  wire        rx_ready,
    input  wire [5:0]  rx_words,
    input  wire [1:0]  errors       // {misrouted, overflow}, sticky in the endpoint
);
    `include "afushell_csr.vh"
    reg [35:0] cfg;
    reg [63:0] tx_count, rx_count, tx_stalls;
    assign tx_dst   = cfg[5:0];
    assign tx_sid   = cfg[15:8];
    assign rx_peer  = cfg[21:16];
    assign rx_sid   = cfg[31:24];
    assign in_link  = cfg[32];
    assign out_link = cfg[33];
    assign in_brch  = cfg[34];
    assign out_brch = cfg[35];

    wire cfg_write = mmio_wr_valid && mmio_wr_addr == CSR_STREAM_CFG_ADDR;
    always @(posedge clk) begin
        if (rst) begin
            cfg <= 36'd0;
        end else if (cfg_write) begin
            cfg <= {mmio_wr_data[35:24], 2'b00, mmio_wr_data[21:16], mmio_wr_data[15:8], 2'b00, mmio_wr_data[5:0]};
        end
        if (rst || cfg_write) begin
            tx_count <= 64'd0; rx_count <= 64'd0; tx_stalls <= 64'd0;
        end else begin
            if (tx_valid && tx_ready) tx_count <= tx_count + {58'd0, tx_words};
            if (tx_valid && !tx_ready) tx_stalls <= tx_stalls + 64'd1;
            if (rx_valid && rx_ready) rx_count <= rx_count + {58'd0, rx_words};
        end
    end

    localparam [7:0] RW = RECORD_WORDS[7:0];
    localparam [7:0] BIW = BRCH_IN_WORDS[7:0];
    localparam [7:0] BOW = BRCH_OUT_WORDS[7:0];
    always @(posedge clk) begin
        mmio_rd_resp_valid <= !rst && mmio_rd_valid;
        case (mmio_rd_addr)
            CSR_STREAM_CFG_ADDR:       mmio_rd_resp_data <= {28'd0, cfg};
            CSR_STREAM_STATUS_ADDR:    mmio_rd_resp_data <= {32'd0, BOW, BIW, RW, 6'd0, errors};
            CSR_STREAM_TX_WORDS_ADDR:  mmio_rd_resp_data <= tx_count;
            CSR_STREAM_RX_WORDS_ADDR:  mmio_rd_resp_data <= rx_count;
            CSR_STREAM_TX_STALLS_ADDR: mmio_rd_resp_data <= tx_stalls;
            default:                   mmio_rd_resp_data <= 64'd0;
        endcase
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, mmio_wr_data[63:36], mmio_wr_data[23:22], mmio_wr_data[7:6]};
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
