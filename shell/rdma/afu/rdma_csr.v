// CSR block of the RDMA engine (RDMA_* registers of shell/csr_map.json, at 0x1000):
// routing table, port topology, the staged command and its GO, initiator status,
// target events and the block's interrupt. Reads answer one cycle later, as shell_csr's.
`default_nettype none
module rdma_csr #(
    parameter integer P = 2,          // link ports (1..4)
    parameter integer MAX_OPS = 4,    // the engine's operations in flight (reported in INFO)
    parameter integer LANES = 1,      // words a link port moves per cycle (INFO)
    parameter integer MAX_WORDS = 16  // largest DATA payload, words (INFO; CMD.PKT's limit)
) (
    // MMIO (addresses already decoded to the RDMA window by the caller)
    `include "mmio_csr_ports.vh"
    // configuration of rdma_node
    output reg  [5:0]      card_id,
    output wire [2*P-1:0]  port_dim,
    output wire [P-1:0]    port_dateline,
    output reg             cfg_we,
    output reg  [5:0]      cfg_addr,
    output reg  [3:0]      cfg_port,
    // command and status of the engine
    output reg             cmd_valid,
    input  wire            cmd_ready,
    output reg             cmd_get,
    output reg  [5:0]      cmd_dst,
    output reg  [63:0]     cmd_local,
    output reg  [63:0]     cmd_remote,
    output reg  [63:0]     cmd_len,
    output reg  [31:0]     cmd_block,
    output reg  [31:0]     cmd_count,
    output reg  [31:0]     cmd_local_stride,
    output reg  [31:0]     cmd_remote_stride,
    output reg  [8:0]      cmd_pkt_words,   // DATA payload of the operation: 16..MAX_WORDS, a multiple of 16
    input  wire [31:0]     op_id,
    input  wire            busy,
    input  wire            done,
    input  wire [31:0]     done_op,
    input  wire [7:0]      done_code,
    input  wire [31:0]     ops_done,
    input  wire            evt_valid,
    input  wire [137:0]    evt_data,
    output wire            evt_ready,
    input  wire [15:0]     evt_lost,
    input  wire [P-1:0]    overflow,
    input  wire [16*P-1:0] replays,
    // debug words (rdma_node): RDMA_LINK_*(p), RDMA_ROUTER_STATE, RDMA_ENG_STATE, RDMA_ENG_SLOT(s)
    input  wire [256*P-1:0] link_dbg,
    input  wire [63:0]     router_dbg,
    input  wire [63:0]     eng_dbg,
    input  wire [1023:0]   eng_slots,
    output wire            irq
);
    `include "afushell_csr.vh"

    wire [17:0] wa = {mmio_wr_addr[17:3], 3'b000};
    wire [17:3] ra = mmio_rd_addr[17:3];
    wire [63:0] wd = mmio_wr_data;
    wire        wr = mmio_wr_valid;
    // ROUTE(c): 64 registers from CSR_RDMA_ROUTE_ADDR
    wire        w_route = wa[17:9] == CSR_RDMA_ROUTE_ADDR[17:9];
    // pops take effect with the write, so a read right after sees the next entry
    assign evt_ready = wr && wa == CSR_RDMA_EVT_POP_ADDR && evt_valid;
    wire   dq_pop = wr && wa == CSR_RDMA_DONE_POP_ADDR;
    wire        r_route = ra[17:9] == CSR_RDMA_ROUTE_ADDR[17:9];
    // LINK_PKTS(p) .. LINK_STATE(p): 4 words per port, 0x20 apart, from CSR_RDMA_LINK_PKTS_ADDR
    wire        r_link = ra[17:7] == CSR_RDMA_LINK_PKTS_ADDR[17:7];
    wire [1:0]  r_port = ra[6:5];
    /* verilator lint_off UNUSEDSIGNAL */
    wire [1279:0] link_dbg4 = {{256*(5-P){1'b0}}, link_dbg};  // ports beyond P read 0
    /* verilator lint_on UNUSEDSIGNAL */
    // ENG_SLOT(s): 16 words from CSR_RDMA_ENG_SLOT_ADDR
    wire        r_slot = ra[17:7] == CSR_RDMA_ENG_SLOT_ADDR[17:7];
    // INFO .. ROUTER_STATE: one 256-byte page
    wire        r_main = ra[17:8] == CSR_RDMA_INFO_ADDR[17:8];
    initial begin
        if (CSR_RDMA_ROUTER_STATE_ADDR[17:8] != CSR_RDMA_INFO_ADDR[17:8]
            || CSR_RDMA_DONE_INFO_ADDR[17:8] != CSR_RDMA_INFO_ADDR[17:8]) begin
            $display("rdma_csr: the main registers of csr_map.json span more than 256 bytes");
            $finish;
        end
    end

    reg [63:0] port_cfg_reg, block_reg, strides_reg, local_reg, remote_reg, len_reg;
    reg [3:0]  route [0:63];
    reg [1:0]  irq_status_reg, irq_enable_reg;
    reg        dropped_reg;
    assign port_dim = port_cfg_reg[2*P-1:0];
    assign port_dateline = port_cfg_reg[16 +: P];
    assign irq = |(irq_status_reg & irq_enable_reg);

    wire [63:0] replays64 = {{16*(4-P){1'b0}}, replays};
    wire [63:0] info = {15'd0, MAX_WORDS[8:0], LANES[7:0], MAX_OPS[7:0], 8'd1, 8'd64, P[7:0]};
    // CMD.PKT: 0 or more than the port's largest payload asks for that, else whole 64-byte lines
    localparam [8:0] MAXW = MAX_WORDS[8:0];
    wire [8:0] pkt_req = mmio_wr_data[CSR_RDMA_CMD_PKT_LSB +: CSR_RDMA_CMD_PKT_WIDTH];
    wire [8:0] pkt_words = pkt_req == 9'd0 || pkt_req >= MAXW ? MAXW
                         : pkt_req < 9'd16 ? 9'd16 : {pkt_req[8:4], 4'd0};
    // completions wait here until DONE_POP: {code, op}
    reg  [15:0] dq_lost_reg;
    reg  [7:0]  last_code_reg;
    wire        dq_full, dq_empty;
    wire [39:0] dq_head;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [4:0]  dq_count;
    /* verilator lint_on UNUSEDSIGNAL */
    wire dq_ready, dq_valid;
    shell_fifo #(.DATA_WIDTH(40), .FIFO_DEPTH(16)) u_dq (
        .clk(clk), .rst(rst), .s_axis_tvalid(done), .s_axis_tready(dq_ready), .s_axis_tdata({done_code, done_op}),
        .m_axis_tvalid(dq_valid), .m_axis_tready(dq_pop), .m_axis_tdata(dq_head), .level(dq_count));
    assign dq_full = !dq_ready;
    assign dq_empty = !dq_valid;
    wire [63:0] done_info = {dq_lost_reg, 7'd0, !dq_empty, dq_empty ? 40'd0 : dq_head};
    // OPS_DONE, CODE and DONE_INFO change at the same edge, so a poll never sees one before the others
    reg  [31:0] n_done_reg;
    reg  [15:0] n_failed_reg;   // completions with a nonzero code: the sequencer's puts check it
    wire [63:0] status = {n_done_reg, n_failed_reg, last_code_reg, 3'd0, cmd_valid, |overflow, evt_valid, dropped_reg, busy};
    wire [63:0] evt_info = {16'd0, evt_lost, 15'd0, evt_valid, 6'd0, evt_data[133:128], evt_data[137:134]};

    reg [63:0] rd_data;
    always @(*) begin
        rd_data = 64'd0;
        if (r_route) rd_data = {60'd0, route[ra[8:3]]};
        else if (r_link) rd_data = link_dbg4[64 * {r_port, ra[4:3]} +: 64];   // no index adder
        else if (r_slot) rd_data = eng_slots[64 * ra[6:3] +: 64];
        else if (r_main) rd_data = rd_main;
    end
    // the main page's registers: a 32-way mux on ra[7:3], its page check beside it (a case
    // on all address bits maps to seven or eight LUT levels, over 5 ns)
    reg [63:0] rd_main;
    always @(*) begin
        case (ra[7:3])
            CSR_RDMA_INFO_ADDR[7:3]:       rd_main = info;
            CSR_RDMA_CARD_ID_ADDR[7:3]:    rd_main = {58'd0, card_id};
            CSR_RDMA_PORT_CFG_ADDR[7:3]:   rd_main = port_cfg_reg;
            CSR_RDMA_LOCAL_ADDR[7:3]:      rd_main = local_reg;
            CSR_RDMA_REMOTE_ADDR[7:3]:     rd_main = remote_reg;
            CSR_RDMA_LEN_ADDR[7:3]:        rd_main = len_reg;
            CSR_RDMA_BLOCK_ADDR[7:3]:      rd_main = block_reg;
            CSR_RDMA_STRIDES_ADDR[7:3]:    rd_main = strides_reg;
            CSR_RDMA_STATUS_ADDR[7:3]:     rd_main = status;
            CSR_RDMA_OP_ID_ADDR[7:3]:      rd_main = {32'd0, op_id};
            CSR_RDMA_EVT_INFO_ADDR[7:3]:   rd_main = evt_info;
            CSR_RDMA_EVT_ADDR_ADDR[7:3]:   rd_main = evt_data[127:64];
            CSR_RDMA_EVT_LEN_ADDR[7:3]:    rd_main = evt_data[63:0];
            CSR_RDMA_IRQ_STATUS_ADDR[7:3]: rd_main = {62'd0, irq_status_reg};
            CSR_RDMA_IRQ_ENABLE_ADDR[7:3]: rd_main = {62'd0, irq_enable_reg};
            CSR_RDMA_REPLAYS_ADDR[7:3]:    rd_main = replays64;
            CSR_RDMA_DONE_INFO_ADDR[7:3]:  rd_main = done_info;
            CSR_RDMA_ENG_STATE_ADDR[7:3]:  rd_main = eng_dbg;
            CSR_RDMA_ROUTER_STATE_ADDR[7:3]: rd_main = router_dbg;
            default:                  rd_main = 64'd0;
        endcase
    end

    integer i;
    always @(posedge clk) begin
        cfg_we <= 1'b0;
        if (rst) begin
            dq_lost_reg <= 16'd0; last_code_reg <= 8'd0; n_done_reg <= 32'd0; n_failed_reg <= 16'd0;
            card_id <= 6'd0; port_cfg_reg <= 64'hFFFF; block_reg <= 64'd0; strides_reg <= 64'd0;
            cmd_local <= 64'd0; cmd_remote <= 64'd0; cmd_len <= 64'd0; cmd_get <= 1'b0; cmd_dst <= 6'd0;
            cmd_valid <= 1'b0; cmd_block <= 32'd0; cmd_count <= 32'd0; cmd_local_stride <= 32'd0;
            cmd_remote_stride <= 32'd0; cmd_pkt_words <= MAXW; local_reg <= 64'd0; remote_reg <= 64'd0; len_reg <= 64'd0;
            irq_status_reg <= 2'd0; irq_enable_reg <= 2'b11; dropped_reg <= 1'b0; cfg_addr <= 6'd0; cfg_port <= 4'd0;
            for (i = 0; i < 64; i = i + 1) route[i] <= 4'hF;
            mmio_rd_resp_valid <= 1'b0;
            mmio_rd_resp_data <= 64'd0;
        end else begin
            mmio_rd_resp_valid <= mmio_rd_valid;
            if (mmio_rd_valid) mmio_rd_resp_data <= rd_data;
            if (cmd_valid && cmd_ready) cmd_valid <= 1'b0;
            if (done) begin
                irq_status_reg[0] <= 1'b1;
                last_code_reg <= done_code;
                n_done_reg <= n_done_reg + 32'd1;
                if (done_code != 8'd0) n_failed_reg <= n_failed_reg + 16'd1;
                if (dq_full && dq_lost_reg != 16'hFFFF) dq_lost_reg <= dq_lost_reg + 16'd1;
            end
            if (evt_valid) irq_status_reg[1] <= 1'b1;
            if (wr) begin
                if (w_route) begin
                    route[wa[8:3]] <= wd[3:0];
                    cfg_we <= 1'b1;
                    cfg_addr <= wa[8:3];
                    cfg_port <= wd[3:0];
                end
                case (wa)
                    CSR_RDMA_CARD_ID_ADDR:  card_id <= wd[5:0];
                    CSR_RDMA_PORT_CFG_ADDR: port_cfg_reg <= wd;
                    CSR_RDMA_LOCAL_ADDR:    local_reg <= wd;
                    CSR_RDMA_REMOTE_ADDR:   remote_reg <= wd;
                    CSR_RDMA_LEN_ADDR:      len_reg <= wd;
                    CSR_RDMA_BLOCK_ADDR:    block_reg <= wd;
                    CSR_RDMA_STRIDES_ADDR:  strides_reg <= wd;
                    CSR_RDMA_CMD_ADDR: if (wd[CSR_RDMA_CMD_GO_LSB]) begin
                        // the command is copied and offered until the engine takes it (a slot
                        // frees); a GO while the previous one still waits is dropped
                        if (!cmd_valid || cmd_ready) begin
                            cmd_valid <= 1'b1;
                            cmd_dst <= wd[CSR_RDMA_CMD_DST_LSB +: 6];
                            cmd_get <= wd[CSR_RDMA_CMD_GET_LSB];
                            cmd_pkt_words <= pkt_words;
                            cmd_local <= local_reg; cmd_remote <= remote_reg; cmd_len <= len_reg;
                            cmd_block <= block_reg[31:0]; cmd_count <= block_reg[63:32];
                            cmd_local_stride <= strides_reg[31:0]; cmd_remote_stride <= strides_reg[63:32];
                            dropped_reg <= 1'b0;
                        end else begin
                            dropped_reg <= 1'b1;
                        end
                    end
                    CSR_RDMA_IRQ_STATUS_ADDR: irq_status_reg <= irq_status_reg & ~wd[1:0];
                    CSR_RDMA_IRQ_ENABLE_ADDR: irq_enable_reg <= wd[1:0];
                    default: ;
                endcase
            end
        end
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, mmio_wr_addr[2:0], mmio_rd_addr[2:0], port_cfg_reg, ops_done};
    /* verilator lint_on UNUSEDSIGNAL */
    initial begin
        if (P < 1 || P > 4) $error("%m: P must be 1..4");
        if (MAX_WORDS < 16 || MAX_WORDS > 256 || MAX_WORDS % 16 != 0) $error("%m: MAX_WORDS=%0d must be 16..256, a multiple of 16", MAX_WORDS);
    end
endmodule
`default_nettype wire
