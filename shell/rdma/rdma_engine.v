// RDMA engine of one card: put (local memory -> remote card), get (remote -> local) and
// block-stride put, over the router's engine port, with the packet formats of the C++
// model (runtime/rdma, docs/rdma.md). Up to MAX_OPS operations in flight as initiator
// (command port; each completes with its id and a status code; their streams leave one
// after the other in command order); any number of peers served at once as target
// (their puts written, their gets answered), each target completion reported as an
// event. Errors end the operation with a code instead of hanging: NO_ROUTE (no route to
// the card, at once), REMOTE_RANGE (answered by the target), TIMEOUT (no answer within
// OP_TIMEOUT cycles), LOCAL_RANGE, ALIGN -- the codes of the C API.
//
// LANES = 1: the word engine (rdma_engine_tx / rdma_engine_rx): a 32-bit word a cycle on
// the router's port and on the memory ports, 16-word DATA packets. LANES = 16 or 32: the
// wide engine (rdma_engine_wtx / rdma_engine_wrx): beats of LANES words on the router's
// port, 64-byte lines on the memory ports, DATA packets of cmd_pkt_words words (bulk
// packets up to 1 KiB), a line per cycle each way.
//
// Memory side: a read port and a write port, Avalon-MM style, at byte addresses:
//   mem_rd_read/address, waitrequest stalls; readdatavalid/readdata return the data in
//   request order, any latency.  mem_wr_write/address/writedata, waitrequest stalls; a
//   write is visible to later reads once accepted.
// LANES = 1: 32-bit words at 4-byte aligned addresses (mem_wr_byteenable is all ones).
// LANES > 1: 512-bit lines at 64-byte aligned addresses, written with mem_wr_byteenable
// (a transfer may start and end anywhere 4-byte aligned).
`default_nettype none
module rdma_engine #(
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000,  // card memory, bytes (range checks)
    parameter integer OP_TIMEOUT = 2000000,        // cycles before an operation fails
    parameter integer QUEUE_DEPTH = 256,           // reply and get-request queues (>= cards x MAX_OPS)
    parameter integer EVENT_DEPTH = 16,            // target events kept until read
    parameter integer PF_DEPTH = 32,               // read-ahead FIFO, words; the wide engine's buffer is
                                                   // PF_DEPTH words when >= 512, else 2048 (a read round
                                                   // trip of ~100 cycles at a line per cycle + two 1 KiB packets)
    parameter integer MAX_OPS = 4,                 // operations in flight as initiator (1, 2, 4, 8, 16)
    parameter integer LANES = 1                    // words per beat on the router's port: 1, 16 or 32
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [5:0]   card_id,
    input  wire [63:0]  route_ok,    // a route to card i exists
    // command: put (cmd_get 0) or get; block-stride put when cmd_block != 0:
    // cmd_count blocks of cmd_block bytes, cmd_local_stride / cmd_remote_stride apart
    input  wire         cmd_valid,
    output wire         cmd_ready,
    input  wire         cmd_get,
    input  wire [5:0]   cmd_dst,
    input  wire [63:0]  cmd_local,
    input  wire [63:0]  cmd_remote,
    input  wire [63:0]  cmd_len,     // bytes (contiguous)
    input  wire [31:0]  cmd_block,
    input  wire [31:0]  cmd_count,
    input  wire [31:0]  cmd_local_stride,
    input  wire [31:0]  cmd_remote_stride,
    // payload words per DATA packet (wide engine; the word engine always sends 16): 16..256
    // in steps of 16 (64 B for the comparison with CIRCUS, 1 KiB bulk packets); 0 or above
    // 256: 256; below 16: 16; rounded down to a multiple of 16
    input  wire [8:0]   cmd_pkt_words,
    // operations: the id given to the last accepted command; one completion per cycle at
    // most (done pulse with the operation's id and status code)
    output reg  [31:0]  op_id,
    output wire         busy,        // some operation is in flight
    output reg          done,
    output reg  [31:0]  done_op,
    output reg  [7:0]   done_code,   // 0 ok, 1 NO_ROUTE, 2 REMOTE_RANGE, 3 TIMEOUT, 4 LOCAL_RANGE, 5 ALIGN
    output reg  [31:0]  ops_done,
    // target events {kind 4 (1 put received, 4 get served), peer 6, addr 64, len 64}
    output wire         evt_valid,
    output wire [137:0] evt_data,
    input  wire         evt_ready,
    output reg  [15:0]  evt_lost,
    // memory
    output wire [63:0]  mem_rd_address,
    output wire         mem_rd_read,
    input  wire         mem_rd_waitrequest,
    input  wire [(LANES > 1 ? 512 : 32)-1:0] mem_rd_readdata,
    input  wire         mem_rd_readdatavalid,
    output wire [63:0]  mem_wr_address,
    output wire         mem_wr_write,
    output wire [(LANES > 1 ? 512 : 32)-1:0] mem_wr_writedata,
    output wire [(LANES > 1 ? 64 : 4)-1:0] mem_wr_byteenable,
    input  wire         mem_wr_waitrequest,
    output wire         mem_wr_flush,    // end of a stream: a write buffer behind the port empties itself
    input  wire         mem_wr_pending,  // such a buffer holds written words (0 without one)
    // router engine port
    output wire         inj_valid,
    input  wire         inj_ready,
    output wire [32*LANES-1:0] inj_data,
    output wire         inj_last,
    input  wire         ej_valid,
    output wire         ej_ready,
    input  wire [32*LANES-1:0] ej_data,
    input  wire         ej_last,
    // debug: RDMA_ENG_STATE, and RDMA_ENG_SLOT(s) for slots 0..15 ({live, timer 31, op 32})
    output wire [63:0]  dbg_state,
    output wire [1023:0] dbg_slots
);
    localparam [7:0] E_NO_ROUTE = 8'd1, E_TIMEOUT = 8'd3, E_LOCAL_RANGE = 8'd4, E_ALIGN = 8'd5;
    localparam integer QW = $clog2(QUEUE_DEPTH);
    localparam integer EW = $clog2(EVENT_DEPTH);
    localparam integer MW = LANES > 1 ? 512 : 32;  // memory port data bits
    localparam integer WPF = PF_DEPTH >= 512 ? PF_DEPTH : 2048;
    localparam integer RQW = LANES > 1 ? 335 : 326;  // a queued get request (+ packet size when wide)
    // the packet size of a command, normalised
    wire [8:0]  pkt = cmd_pkt_words == 9'd0 || cmd_pkt_words > 9'd256 ? 9'd256
                    : cmd_pkt_words < 9'd16 ? 9'd16 : {cmd_pkt_words[8:4], 4'd0};

    // ---- initiator: checks, MAX_OPS operation slots, the command queue, timeouts ----------
    localparam integer SB = MAX_OPS > 1 ? $clog2(MAX_OPS) : 1;
    localparam integer SLOTS = 1 << SB;
    reg  [SLOTS-1:0] live_reg;
    reg  [31:0] sl_op [0:SLOTS-1];
    reg  [31:0] sl_timer [0:SLOTS-1];
    reg  [31-SB:0] seq_reg;
    wire        c_take;
    wire        comp_valid;
    wire [31:0] comp_op;
    wire [7:0]  comp_code;
    wire [31:0] q_op;

    wire        strided = cmd_block != 32'd0;  // block-stride put or get
    wire [63:0] s_len = {32'd0, cmd_block} * {32'd0, cmd_count};
    wire [63:0] s_span = {32'd0, cmd_count - 32'd1} * {32'd0, cmd_local_stride} + {32'd0, cmd_block};
    wire [63:0] len = strided ? s_len : cmd_len;
    wire [63:0] span = strided ? s_span : cmd_len;
    wire        bad_align = cmd_local[1:0] != 2'd0 || cmd_remote[1:0] != 2'd0 || len == 64'd0 || len[1:0] != 2'd0
                            || (strided && (cmd_count == 32'd0 || cmd_block[1:0] != 2'd0
                                || cmd_local_stride[1:0] != 2'd0 || cmd_remote_stride[1:0] != 2'd0
                                || cmd_local_stride < cmd_block || cmd_remote_stride < cmd_block));
    wire        bad_local = cmd_local > MEM_BYTES || span > MEM_BYTES - cmd_local;
    wire [7:0]  check = bad_align ? E_ALIGN : bad_local ? E_LOCAL_RANGE : !route_ok[cmd_dst] ? E_NO_ROUTE : 8'd0;

    // the lowest free slot, the lowest timed-out one
    integer i;
    reg          has_free, has_late;
    reg [SB-1:0] free_slot, late_slot;
    /* verilator lint_off UNUSEDSIGNAL */
    reg [31:0]   iv;  // integer -> slot index: the upper bits are zero by construction
    /* verilator lint_on UNUSEDSIGNAL */
    always @(*) begin
        has_free = 1'b0; has_late = 1'b0; free_slot = {SB{1'b0}}; late_slot = {SB{1'b0}}; iv = 32'd0;
        for (i = SLOTS - 1; i >= 0; i = i - 1) begin
            iv = i;
            if (i < MAX_OPS && !live_reg[i]) begin has_free = 1'b1; free_slot = iv[SB-1:0]; end
            if (live_reg[i] && sl_timer[i] >= OP_TIMEOUT) begin has_late = 1'b1; late_slot = iv[SB-1:0]; end
        end
    end
    wire [SB-1:0] c_slot = comp_op[SB-1:0];
    wire          comp_hit = comp_valid && live_reg[c_slot] && sl_op[c_slot] == comp_op;
    wire          q_live = live_reg[q_op[SB-1:0]] && sl_op[q_op[SB-1:0]] == q_op;
    // one completion per cycle: a command is not taken while a completion arrives
    wire          cq_full, cq_empty;
    assign cmd_ready = has_free && !comp_valid && !cq_full;
    wire          accept = cmd_valid && cmd_ready;
    wire [31:0]   new_op = {seq_reg, free_slot};
    assign busy = |live_reg;

    always @(posedge clk) begin
        done <= 1'b0;
        if (rst) begin
            live_reg <= {SLOTS{1'b0}}; seq_reg <= {{31-SB{1'b0}}, 1'b1}; op_id <= 32'd0; done_op <= 32'd0;
            done_code <= 8'd0; ops_done <= 32'd0;
            for (i = 0; i < SLOTS; i = i + 1) begin
                sl_op[i] <= 32'd0;
                sl_timer[i] <= 32'd0;
            end
        end else begin
            for (i = 0; i < SLOTS; i = i + 1)
                if (live_reg[i] && sl_timer[i] != 32'hFFFFFFFF) sl_timer[i] <= sl_timer[i] + 32'd1;
            if (accept) begin
                op_id <= new_op;
                seq_reg <= seq_reg + 1'b1;
                if (check == 8'd0) begin
                    live_reg[free_slot] <= 1'b1;
                    sl_op[free_slot] <= new_op;
                    sl_timer[free_slot] <= 32'd0;
                end
            end
            if (comp_hit) begin
                live_reg[c_slot] <= 1'b0;
                done <= 1'b1; done_op <= comp_op; done_code <= comp_code; ops_done <= ops_done + 32'd1;
            end else if (accept && check != 8'd0) begin
                done <= 1'b1; done_op <= new_op; done_code <= check; ops_done <= ops_done + 32'd1;
            end else if (has_late) begin
                live_reg[late_slot] <= 1'b0;
                done <= 1'b1; done_op <= sl_op[late_slot]; done_code <= E_TIMEOUT; ops_done <= ops_done + 32'd1;
            end
        end
    end

    // commands wait here for the sender: {get, dst, op, local, remote, len, count, block, lstride, rstride, pkt}
    localparam integer CQW = 1 + 6 + 32 + 64 + 64 + 64 + 32 + 32 + 32 + 32 + 9;
    wire [CQW-1:0] cq_dout;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [SB:0]    cq_count;
    /* verilator lint_on UNUSEDSIGNAL */
    wire cq_ready, cq_valid;
    shell_fifo #(.DATA_WIDTH(CQW), .FIFO_DEPTH(SLOTS > 1 ? SLOTS : 2)) u_cq (
        .clk(clk), .rst(rst), .s_axis_tvalid(accept && check == 8'd0), .s_axis_tready(cq_ready),
        .s_axis_tdata({cmd_get, cmd_dst, new_op, cmd_local, cmd_remote, len, cmd_count, cmd_block, cmd_local_stride,
                       cmd_remote_stride, pkt}),
        .m_axis_tvalid(cq_valid), .m_axis_tready(c_take), .m_axis_tdata(cq_dout), .level(cq_count));
    assign cq_full = !cq_ready;
    assign cq_empty = !cq_valid;
    wire        c_get = cq_dout[CQW-1];
    wire [5:0]  c_dst = cq_dout[CQW-2 -: 6];
    wire [31:0] c_op = cq_dout[CQW-8 -: 32];
    wire [63:0] c_local = cq_dout[CQW-40 -: 64];
    wire [63:0] c_remote = cq_dout[CQW-104 -: 64];
    wire [63:0] c_len = cq_dout[CQW-168 -: 64];
    wire [31:0] c_count = cq_dout[136:105];
    wire [31:0] c_block = cq_dout[104:73];
    wire [31:0] c_lstride = cq_dout[72:41];
    wire [31:0] c_rstride = cq_dout[40:9];
    wire [8:0]  c_pkt = cq_dout[8:0];

    // ---- queues -------------------------------------------------------------------------
    wire         rp_push, rp_full, rp_empty, rp_pop, rq_push, rq_full, rq_empty, rq_pop;
    wire [49:0]  rp_din, rp_dout;
    wire [RQW-1:0] rq_din, rq_dout;
    wire         rx_ev_push, tx_ev_push, ev_full, ev_empty;
    wire [137:0] rx_ev_data, tx_ev_data;
    wire [2:0]   rx_dbg;
    wire [8:0]   tx_dbg;
    wire [QW:0]  rp_count, rq_count;  // debug only
    wire [EW:0]  ev_count;
    wire rp_ready, rp_valid;
    shell_fifo #(.DATA_WIDTH(50), .FIFO_DEPTH(QUEUE_DEPTH)) u_rp (
        .clk(clk), .rst(rst), .s_axis_tvalid(rp_push), .s_axis_tready(rp_ready), .s_axis_tdata(rp_din),
        .m_axis_tvalid(rp_valid), .m_axis_tready(rp_pop), .m_axis_tdata(rp_dout), .level(rp_count));
    assign rp_full = !rp_ready;
    assign rp_empty = !rp_valid;
    wire rq_ready, rq_valid;
    shell_fifo #(.DATA_WIDTH(RQW), .FIFO_DEPTH(QUEUE_DEPTH)) u_rq (
        .clk(clk), .rst(rst), .s_axis_tvalid(rq_push), .s_axis_tready(rq_ready), .s_axis_tdata(rq_din),
        .m_axis_tvalid(rq_valid), .m_axis_tready(rq_pop), .m_axis_tdata(rq_dout), .level(rq_count));
    assign rq_full = !rq_ready;
    assign rq_empty = !rq_valid;
    // events from both sides; the receiver's go first, the sender's wait in a holding
    // register (the receiver never pushes in two cycles running, the sender once a stream)
    reg          hold_reg;
    reg  [137:0] hold_data_reg;
    always @(posedge clk) begin
        if (rst) begin
            hold_reg <= 1'b0;
            hold_data_reg <= 138'd0;
        end else if (tx_ev_push) begin
            hold_reg <= 1'b1;
            hold_data_reg <= tx_ev_data;
        end else if (!rx_ev_push) begin
            hold_reg <= 1'b0;
        end
    end
    wire ev_push = rx_ev_push || hold_reg;
    wire ev_ready, ev_valid;
    shell_fifo #(.DATA_WIDTH(138), .FIFO_DEPTH(EVENT_DEPTH)) u_ev (
        .clk(clk), .rst(rst), .s_axis_tvalid(ev_push), .s_axis_tready(ev_ready), .s_axis_tdata(rx_ev_push ? rx_ev_data : hold_data_reg),
        .m_axis_tvalid(ev_valid), .m_axis_tready(evt_ready), .m_axis_tdata(evt_data), .level(ev_count));
    assign ev_full = !ev_ready;
    assign ev_empty = !ev_valid;
    assign evt_valid = !ev_empty;
    always @(posedge clk) begin
        if (rst) evt_lost <= 16'd0;
        else if (ev_push && ev_full && evt_lost != 16'hFFFF) evt_lost <= evt_lost + 16'd1;
    end

    generate
        if (LANES == 1) begin : g_word
            rdma_engine_rx #(.MEM_BYTES(MEM_BYTES)) u_rx (
                .clk(clk), .rst(rst), .ej_valid(ej_valid), .ej_ready(ej_ready), .ej_data(ej_data), .ej_last(ej_last),
                .mem_wr_address(mem_wr_address), .mem_wr_write(mem_wr_write), .mem_wr_writedata(mem_wr_writedata),
                .mem_wr_waitrequest(mem_wr_waitrequest), .mem_wr_flush(mem_wr_flush), .mem_wr_pending(mem_wr_pending),
                .q_op(q_op), .q_live(q_live), .comp_valid(comp_valid),
                .comp_op(comp_op), .comp_code(comp_code), .rp_push(rp_push), .rp_data(rp_din), .rp_full(rp_full),
                .rq_push(rq_push), .rq_data(rq_din), .rq_full(rq_full), .ev_push(rx_ev_push), .ev_data(rx_ev_data),
                .dbg(rx_dbg));
            assign mem_wr_byteenable = {MW/8{1'b1}};
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_pkt = &{1'b0, c_pkt};  // the word engine's packets are 16 words
            /* verilator lint_on UNUSEDSIGNAL */
            rdma_engine_tx #(.PF_DEPTH(PF_DEPTH)) u_tx (
                .clk(clk), .rst(rst), .card_id(card_id), .c_valid(!cq_empty), .c_take(c_take), .c_get(c_get), .c_dst(c_dst),
                .c_op(c_op), .c_local(c_local), .c_remote(c_remote), .c_len(c_len), .c_count(c_count), .c_block(c_block),
                .c_lstride(c_lstride), .c_rstride(c_rstride), .rp_empty(rp_empty), .rp_data(rp_dout), .rp_pop(rp_pop),
                .rq_empty(rq_empty), .rq_data(rq_dout), .rq_pop(rq_pop), .ev_push(tx_ev_push), .ev_data(tx_ev_data),
                .mem_rd_address(mem_rd_address), .mem_rd_read(mem_rd_read),
                .mem_rd_waitrequest(mem_rd_waitrequest), .mem_rd_readdata(mem_rd_readdata),
                .mem_rd_readdatavalid(mem_rd_readdatavalid), .inj_valid(inj_valid), .inj_ready(inj_ready),
                .inj_data(inj_data), .inj_last(inj_last), .dbg(tx_dbg));
        end else begin : g_wide
            // 4 KiB between ejection and writer: the port takes a beat of LANES words a cycle,
            // the writer a line, so the ejection port is free half the time and a burst of
            // packets from several cards does not stop the router (the sort's single pass)
            rdma_engine_wrx #(.MEM_BYTES(MEM_BYTES), .LANES(LANES), .BUF_DEPTH(1024)) u_rx (
                .clk(clk), .rst(rst), .ej_valid(ej_valid), .ej_ready(ej_ready), .ej_data(ej_data), .ej_last(ej_last),
                .mem_wr_address(mem_wr_address), .mem_wr_write(mem_wr_write), .mem_wr_writedata(mem_wr_writedata),
                .mem_wr_byteenable(mem_wr_byteenable), .mem_wr_waitrequest(mem_wr_waitrequest),
                .mem_wr_flush(mem_wr_flush), .mem_wr_pending(mem_wr_pending),
                .q_op(q_op), .q_live(q_live), .comp_valid(comp_valid),
                .comp_op(comp_op), .comp_code(comp_code), .rp_push(rp_push), .rp_data(rp_din), .rp_full(rp_full),
                .rq_push(rq_push), .rq_data(rq_din), .rq_full(rq_full), .ev_push(rx_ev_push), .ev_data(rx_ev_data),
                .dbg(rx_dbg));
            rdma_engine_wtx #(.LANES(LANES), .PF_DEPTH(WPF)) u_tx (
                .clk(clk), .rst(rst), .card_id(card_id), .c_valid(!cq_empty), .c_take(c_take), .c_get(c_get), .c_dst(c_dst),
                .c_op(c_op), .c_local(c_local), .c_remote(c_remote), .c_len(c_len), .c_count(c_count), .c_block(c_block),
                .c_lstride(c_lstride), .c_rstride(c_rstride), .c_pkt(c_pkt), .rp_empty(rp_empty), .rp_data(rp_dout),
                .rp_pop(rp_pop), .rq_empty(rq_empty), .rq_data(rq_dout), .rq_pop(rq_pop), .ev_push(tx_ev_push),
                .ev_data(tx_ev_data), .mem_rd_address(mem_rd_address), .mem_rd_read(mem_rd_read),
                .mem_rd_waitrequest(mem_rd_waitrequest), .mem_rd_readdata(mem_rd_readdata),
                .mem_rd_readdatavalid(mem_rd_readdatavalid), .inj_valid(inj_valid), .inj_ready(inj_ready),
                .inj_data(inj_data), .inj_last(inj_last), .dbg(tx_dbg));
        end
    endgenerate

    // ---- debug: where an operation waits ------------------------------------------------
    integer d;
    reg [7:0] n_live;
    always @(*) begin
        n_live = 8'd0;
        for (d = 0; d < SLOTS; d = d + 1) n_live = n_live + {7'd0, live_reg[d]};
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] cq_n = {{31-SB{1'b0}}, cq_count};
    wire [31:0] rp_n = {{31-QW{1'b0}}, rp_count};
    wire [31:0] rq_n = {{31-QW{1'b0}}, rq_count};
    wire [31:0] ev_n = {{31-EW{1'b0}}, ev_count};
    /* verilator lint_on UNUSEDSIGNAL */
    // RDMA_ENG_STATE, fields at the offsets of shell/csr_map.json; tx_dbg = {dst, stream, state}
    `include "afushell_csr.vh"
    reg [63:0] eng_state;
    always @(*) begin
        eng_state = 64'd0;
        eng_state[CSR_RDMA_ENG_STATE_OPS_IN_FLIGHT_LSB +: CSR_RDMA_ENG_STATE_OPS_IN_FLIGHT_WIDTH] = n_live;
        eng_state[CSR_RDMA_ENG_STATE_CMDS_QUEUED_LSB +: CSR_RDMA_ENG_STATE_CMDS_QUEUED_WIDTH] = cq_n[7:0];
        eng_state[CSR_RDMA_ENG_STATE_REPLIES_QUEUED_LSB +: CSR_RDMA_ENG_STATE_REPLIES_QUEUED_WIDTH] = rp_n[9:0];
        eng_state[CSR_RDMA_ENG_STATE_GETS_QUEUED_LSB +: CSR_RDMA_ENG_STATE_GETS_QUEUED_WIDTH] = rq_n[9:0];
        eng_state[CSR_RDMA_ENG_STATE_EVENTS_QUEUED_LSB +: CSR_RDMA_ENG_STATE_EVENTS_QUEUED_WIDTH] = ev_n[5:0];
        eng_state[CSR_RDMA_ENG_STATE_RX_STATE_LSB +: CSR_RDMA_ENG_STATE_RX_STATE_WIDTH] = rx_dbg;
        eng_state[CSR_RDMA_ENG_STATE_TX_STATE_LSB +: CSR_RDMA_ENG_STATE_TX_STATE_WIDTH] = tx_dbg[1:0];
        eng_state[CSR_RDMA_ENG_STATE_TX_STREAM_LSB] = tx_dbg[2];
        eng_state[CSR_RDMA_ENG_STATE_TX_DST_LSB +: CSR_RDMA_ENG_STATE_TX_DST_WIDTH] = tx_dbg[8:3];
        eng_state[CSR_RDMA_ENG_STATE_INJ_VALID_LSB] = inj_valid;
        eng_state[CSR_RDMA_ENG_STATE_INJ_READY_LSB] = inj_ready;
        eng_state[CSR_RDMA_ENG_STATE_EJ_VALID_LSB] = ej_valid;
        eng_state[CSR_RDMA_ENG_STATE_EJ_READY_LSB] = ej_ready;
        eng_state[CSR_RDMA_ENG_STATE_MEM_RD_STALL_LSB] = mem_rd_read && mem_rd_waitrequest;
        eng_state[CSR_RDMA_ENG_STATE_MEM_WR_STALL_LSB] = mem_wr_write && mem_wr_waitrequest;
    end
    assign dbg_state = eng_state;
    genvar gs;
    generate
        for (gs = 0; gs < 16; gs = gs + 1) begin : g_slot_dbg
            if (gs < SLOTS) begin : g_used
                assign dbg_slots[64 * gs + CSR_RDMA_ENG_SLOT_OP_ID_LSB +: CSR_RDMA_ENG_SLOT_OP_ID_WIDTH] = sl_op[gs];
                assign dbg_slots[64 * gs + CSR_RDMA_ENG_SLOT_AGE_LSB +: CSR_RDMA_ENG_SLOT_AGE_WIDTH] = sl_timer[gs][30:0];
                assign dbg_slots[64 * gs + CSR_RDMA_ENG_SLOT_LIVE_LSB] = live_reg[gs];
            end else begin : g_none
                assign dbg_slots[64 * gs +: 64] = 64'd0;
            end
        end
    endgenerate
    initial begin
        if (MAX_OPS < 1 || MAX_OPS > 16 || (MAX_OPS & (MAX_OPS - 1)) != 0) $error("%m: MAX_OPS=%0d must be 1, 2, 4, 8 or 16", MAX_OPS);
        if (QUEUE_DEPTH < 2 || (QUEUE_DEPTH & (QUEUE_DEPTH - 1)) != 0) $error("%m: QUEUE_DEPTH=%0d must be a power of 2 >= 2", QUEUE_DEPTH);
        if (EVENT_DEPTH < 2 || (EVENT_DEPTH & (EVENT_DEPTH - 1)) != 0) $error("%m: EVENT_DEPTH=%0d must be a power of 2 >= 2", EVENT_DEPTH);
        if (LANES != 1 && LANES != 16 && LANES != 32) $error("%m: LANES=%0d must be 1, 16 or 32", LANES);
    end
endmodule
`default_nettype wire
