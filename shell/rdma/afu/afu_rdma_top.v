// An AFU with the card-to-card RDMA block: afu_top unchanged beside rdma_node (engine,
// router, P link ports), its CSRs (rdma_csr, MMIO window 0x1000-0x1FFF, the RDMA_*
// registers of shell/csr_map.json) and its memory side (rdma_mem_adapter). The RDMA
// engine shares the shell's masters: its reads go through the descriptor-fetch master
// (rdma_rd_arb, descriptor fetches first), its writes through the RX DMA write master
// (rdma_wr_arb, RX bursts first and whole). So the ports are afu_top's, plus the links
// and the RDMA interrupt; with the block left out (afu_top alone) nothing changes.
// The node's stream endpoints (rdma_stream, STREAM_* CSRs in rdma_stream_csr) carry the
// cascade's records between cards: with STREAM_CFG.OUT_LINK the last core's records go,
// a record a cycle (rdma_stream_wide; word by word through rdma_stream_ser when RDMA_LANES
// is 1), to another card's stream instead of the RX DMA; with IN_LINK the first core takes
// the records of the arriving stream instead of the TX DMA's -- a pipeline of cascades
// across cards, credits end to end.
// With OUT_BRCH / IN_BRCH they carry the core's branch streams instead (rdma_stream_bind):
// a core's Brch_Out on this card feeds a core's Brch_In on another.
// The reduction unit (rdma_reduce, REDUCE_* CSRs in rdma_reduce_csr) sums vectors along a
// chain of cards, a 64-byte line a cycle, over two endpoint pairs of its own (sums forward,
// an allreduce's result back); its memory port is a second rdma_line_adapter, behind the
// engine's on the shared masters, and also carries the unit's completion record to host
// memory (rdma_reduce_cpl). A 32-bit link port (RDMA_LANES 1) has no reduction unit.
`default_nettype none
module afu_rdma_top #(
    `include "afu_params.vh"
    ,
    parameter integer RDMA_PORTS       = 2,              // serial-link ports (1..4)
    // the link datapath: LANES 32-bit words a beat, so that one port sustains its line at
    // 200 MHz (16 = 512 bits = 102.4 Gb/s for a 40 Gb/s line, 32 = 1024 bits for 100 Gb/s;
    // 1 = the 32-bit port, 6.4 Gb/s), and the largest DATA payload (256 words: 1 KiB bulk
    // packets; 16 on a 32-bit port)
    parameter integer RDMA_LANES       = 16,
    parameter integer RDMA_MAX_WORDS   = RDMA_LANES > 1 ? 256 : 16,
    // link buffers sized for 200 ns cables: a credit and an ACK return after ~130 cycles,
    // which 16 packets of 18 words cover (8 left the link credit-bound); 64-byte packets
    // on a 100 Gb/s line need about 100 in flight (spgen build sizes them by --link-gbps)
    parameter integer RDMA_WINDOW      = 32,             // go-back-N replay window per port
    parameter integer RDMA_VC_BUF      = 16,             // link input buffer per VC, packets
    // engine read-ahead: words in flight to the DDR, to cover its read round trip (~45
    // cycles through the shared master) at one word per cycle (32 held a put to ~0.7)
    parameter integer RDMA_PF_DEPTH    = 128,
    parameter [63:0]  RDMA_MEM_BYTES   = 64'h2_0000_0000, // memories A and B
    parameter integer RDMA_OP_TIMEOUT  = 2000000,        // cycles before an operation fails
    parameter integer RDMA_MAX_OPS     = 4,              // operations in flight per card
    parameter integer RDMA_WR_BURST    = 4,              // lines per write burst of the engine (1..64)
    parameter integer RDMA_STREAM_DEPTH = 256,           // stream receive FIFO, words (the credits)
    parameter integer BRCH_IN_WORDS    = 0,              // words per element of the core's Brch_In (0: none)
    parameter integer BRCH_OUT_WORDS   = 0,              // ... of its Brch_Out
    // the sort's single-pass stage (rdma_sort_stage; with SORT_SCATTER and line-wide links):
    // up to 2^STAGE_BIN_BITS bins, a ring of STAGE_RING_LINES lines each, puts of
    // STAGE_CHUNK_LINES lines
    parameter integer STAGE_BIN_BITS    = 6,
    parameter integer STAGE_RING_LINES  = 256,
    parameter integer STAGE_CHUNK_LINES = 128
) (
    `include "afu_ports.vh"
    ,
    output wire         rdma_irq,
    // serial links
    // serial links: a beat of RDMA_LANES words per port and cycle; link_out_ready is the
    // PHY's (MAC's) ready, low while it is still sending the beats before
    output wire [RDMA_PORTS-1:0]    link_out_valid,
    output wire [32*RDMA_LANES*RDMA_PORTS-1:0] link_out_data,
    output wire [RDMA_PORTS-1:0]    link_out_last,
    input  wire [RDMA_PORTS-1:0]    link_out_ready,
    input  wire [RDMA_PORTS-1:0]    link_in_valid,
    input  wire [32*RDMA_LANES*RDMA_PORTS-1:0] link_in_data,
    input  wire [RDMA_PORTS-1:0]    link_in_last
);
    localparam integer P = RDMA_PORTS;
    localparam integer IN_WORDS  = N_CORES > 0 ? RECORD_WORDS : 1;
    localparam integer OUT_WORDS = N_CORES > 0 ? OUT_RECORD_WORDS : 1;
    // The card's MMIO bus: the host's accesses, and on cards with the scatter writer the
    // sequencer's (rdma_seq, SEQ_* at 0x1B00, which answers its own window), which take the
    // bus in cycles the host leaves free. Elsewhere the SEQ_* window reads 0.
    wire        bus_wr_valid, bus_rd_valid, bus_rd_resp_valid;
    wire [17:0] bus_wr_addr, bus_rd_addr;
    wire [63:0] bus_wr_data, bus_rd_resp_data;
    wire        r_seq = bus_rd_addr[17:8] == 10'h01B;
    reg         q_valid;  // a read of the SEQ_* window on the bus: answered 0
    always @(posedge clk) q_valid <= !rst && bus_rd_valid && r_seq;
    generate
        if (SORT_SCATTER != 0) begin : g_seq
            rdma_seq u_seq (
                .clk(clk), .rst(rst),
                .mmio_wr_valid(mmio_wr_valid), .mmio_wr_addr(mmio_wr_addr), .mmio_wr_data(mmio_wr_data),
                .mmio_rd_valid(mmio_rd_valid), .mmio_rd_addr(mmio_rd_addr),
                .mmio_rd_resp_valid(mmio_rd_resp_valid), .mmio_rd_resp_data(mmio_rd_resp_data),
                .b_wr_valid(bus_wr_valid), .b_wr_addr(bus_wr_addr), .b_wr_data(bus_wr_data),
                .b_rd_valid(bus_rd_valid), .b_rd_addr(bus_rd_addr),
                .b_rd_resp_valid(bus_rd_resp_valid || q_valid), .b_rd_resp_data(q_valid ? 64'd0 : bus_rd_resp_data));
        end else begin : g_no_seq
            assign {bus_wr_valid, bus_wr_addr, bus_wr_data} = {mmio_wr_valid, mmio_wr_addr, mmio_wr_data};
            assign {bus_rd_valid, bus_rd_addr} = {mmio_rd_valid, mmio_rd_addr};
            assign mmio_rd_resp_valid = bus_rd_resp_valid || q_valid;
            assign mmio_rd_resp_data  = q_valid ? 64'd0 : bus_rd_resp_data;
        end
    endgenerate
    // MMIO: 0x1800-0x18FF to rdma_stream_csr, 0x1900-0x19FF to rdma_reduce_csr (REDUCE_CPL
    // also to rdma_reduce_cpl, whose answer wins), the rest of the RDMA window to rdma_csr,
    // the rest to afu_shell; each answers one cycle later
    wire w_strm = bus_wr_addr[17:8] == 10'h018;
    wire r_strm = bus_rd_addr[17:8] == 10'h018;
    wire w_red = bus_wr_addr[17:8] == 10'h019;
    wire r_red = bus_rd_addr[17:8] == 10'h019;
    wire w_stg = bus_wr_addr[17:8] == 10'h01A;
    wire r_stg = bus_rd_addr[17:8] == 10'h01A;
    wire w_seq = bus_wr_addr[17:8] == 10'h01B;
    wire w_rdma = bus_wr_addr[17:12] == 6'd1 && !w_strm && !w_red && !w_stg && !w_seq;
    wire r_rdma = bus_rd_addr[17:12] == 6'd1 && !r_strm && !r_red && !r_stg && !r_seq;
    wire        a_resp_valid, r_resp_valid, s_resp_valid, d_resp_valid, c_resp_valid, g_resp_valid;
    wire [63:0] a_resp_data, r_resp_data, s_resp_data, d_resp_data, c_resp_data, g_resp_data;
    assign bus_rd_resp_valid = a_resp_valid || r_resp_valid || s_resp_valid || d_resp_valid || c_resp_valid
                             || g_resp_valid;
    assign bus_rd_resp_data = r_resp_valid ? r_resp_data : s_resp_valid ? s_resp_data
                             : c_resp_valid ? c_resp_data : d_resp_valid ? d_resp_data
                             : g_resp_valid ? g_resp_data : a_resp_data;

    // the cascade's records to and from the stream endpoints
    wire                   in_link, out_link, x_in_valid, x_in_ready, x_in_last, x_out_valid, x_out_ready, x_out_last;
    wire [32*IN_WORDS-1:0]  x_in_data;
    wire [32*OUT_WORDS-1:0] x_out_data;
    // the core's branch streams to and from the stream endpoints
    wire                   in_brch, out_brch, b_in_valid, b_in_ready, b_in_last, b_out_valid, b_out_ready, b_out_last;
    wire [32*(BRCH_IN_WORDS > 0 ? BRCH_IN_WORDS : 1)-1:0]   b_in_data;
    wire [32*(BRCH_OUT_WORDS > 0 ? BRCH_OUT_WORDS : 1)-1:0] b_out_data;

    // the shell's descriptor-fetch and RX write masters, shared below
    wire [63:0]  a_dsc_address, a_rx_address;
    wire         a_dsc_read, a_dsc_wait, a_dsc_valid, a_rx_write, a_rx_wait;
    wire [7:0]   a_dsc_burst, a_rx_burst;
    wire [511:0] a_rx_data, dsc_data;
    wire [63:0]  a_rx_be;

    afu_shell #(
        .N_CORES(N_CORES), .RECORD_WORDS(RECORD_WORDS), .OUT_RECORD_WORDS(OUT_RECORD_WORDS), .N_REGS(N_REGS),
        .REG_DEFAULTS(REG_DEFAULTS), .DESC_FIFO_DEPTH(DESC_FIFO_DEPTH), .MAX_BURST(MAX_BURST),
        .MAX_READS(MAX_READS), .SORT_SCATTER(SORT_SCATTER), .AFU_ID_L(AFU_ID_L), .AFU_ID_H(AFU_ID_H),
        .BRCH_IN_WORDS(BRCH_IN_WORDS), .BRCH_OUT_WORDS(BRCH_OUT_WORDS)
    ) u_afu (
        .clk(clk), .rst(rst),
        .mmio_wr_valid(bus_wr_valid && !w_rdma && !w_red && !w_stg && !w_seq), .mmio_wr_addr(bus_wr_addr), .mmio_wr_data(bus_wr_data),
        .mmio_rd_valid(bus_rd_valid && !r_rdma && !r_red && !r_stg && !r_seq), .mmio_rd_addr(bus_rd_addr),
        .mmio_rd_resp_valid(a_resp_valid), .mmio_rd_resp_data(a_resp_data),
        .tx_rd_address(tx_rd_address), .tx_rd_read(tx_rd_read), .tx_rd_burstcount(tx_rd_burstcount),
        .tx_rd_waitrequest(tx_rd_waitrequest), .tx_rd_readdata(tx_rd_readdata),
        .tx_rd_readdatavalid(tx_rd_readdatavalid),
        .rx_wr_address(a_rx_address), .rx_wr_write(a_rx_write), .rx_wr_burstcount(a_rx_burst),
        .rx_wr_writedata(a_rx_data), .rx_wr_byteenable(a_rx_be), .rx_wr_waitrequest(a_rx_wait),
        .dsc_rd_address(a_dsc_address), .dsc_rd_read(a_dsc_read), .dsc_rd_burstcount(a_dsc_burst),
        .dsc_rd_waitrequest(a_dsc_wait), .dsc_rd_readdata(dsc_data), .dsc_rd_readdatavalid(a_dsc_valid),
        .irq(irq),
        .in_link(in_link), .ext_in_valid(x_in_valid), .ext_in_ready(x_in_ready), .ext_in_data(x_in_data),
        .ext_in_last(x_in_last), .out_link(out_link), .ext_out_valid(x_out_valid), .ext_out_ready(x_out_ready),
        .ext_out_data(x_out_data), .ext_out_last(x_out_last),
        .brch_in_valid(b_in_valid), .brch_in_ready(b_in_ready), .brch_in_data(b_in_data), .brch_in_last(b_in_last),
        .brch_out_valid(b_out_valid), .brch_out_ready(b_out_ready), .brch_out_data(b_out_data),
        .brch_out_last(b_out_last));

    // RDMA: CSRs, engine + network, memory adapter
    wire [5:0]   card_id, cfg_addr, cmd_dst;
    wire [3:0]   cfg_port;
    wire [2*P-1:0] port_dim;
    wire [P-1:0] port_dateline, overflow;
    wire [16*P-1:0] replays;
    wire [256*P-1:0] link_dbg;
    wire [63:0]     router_dbg, eng_dbg;
    wire [1023:0]   eng_slots;
    wire         cfg_we, cmd_valid, cmd_ready, cmd_get, busy, done, evt_valid, evt_ready;
    wire [63:0]  cmd_local, cmd_remote, cmd_len;
    wire [31:0]  cmd_block, cmd_count, cmd_lstride, cmd_rstride, op_id, ops_done, done_op;
    wire [7:0]   done_code;
    wire [137:0] evt_data;
    wire [15:0]  evt_lost;
    wire [63:0]  e_rd_address, e_wr_address;
    wire         e_rd_read, e_rd_wait, e_rd_valid, e_wr_write, e_wr_wait, e_wr_flush, e_wr_pending;
    // the engine's memory side: 32-bit words (RDMA_LANES 1) or 64-byte lines (the wide engine)
    localparam integer EMW = RDMA_LANES > 1 ? 512 : 32;
    // reads in flight through the read arbiters: the word engine's read-ahead in words, the
    // wide engine's 128 lines (the DDR's round trip through the shared master at a line a cycle)
    localparam integer RD_INFLIGHT = RDMA_LANES > 1 ? 128 : RDMA_PF_DEPTH;
    wire [EMW-1:0]   e_rd_data, e_wr_data;
    wire [EMW/8-1:0] e_wr_be;
    wire [5:0]   st_tx_dst, st_rx_peer;
    wire [7:0]   st_tx_sid, st_rx_sid;
    wire         st_s_valid, st_s_ready, st_s_last, st_m_valid, st_m_ready, st_m_last;
    wire [32*RDMA_LANES-1:0] st_s_data, st_m_data;
    wire [5:0]   st_s_words, st_m_want, st_m_words;
    wire [1:0]   st_errors;

    // the reduction unit: CSRs, the unit, its endpoint pairs' core side (in rdma_node)
    wire [5:0]   red_next, red_prev;
    wire [7:0]   red_sid, red_rsid, red_code;
    wire         red_first, red_last, red_f32, red_all, red_start, red_unit_rst, red_ep_rst, red_busy, red_done;
    wire [63:0]  red_src, red_dst, red_len;
    wire [31:0]  red_words, red_in_stalls, red_out_stalls;
    wire [1:0]   red_errors;
    wire         rd_s_valid, rd_s_ready, rd_s_last, rd_m_valid, rd_m_ready, rd_m_last;
    wire         rd_rs_valid, rd_rs_ready, rd_rs_last, rd_rm_valid, rd_rm_ready, rd_rm_last;
    wire [511:0] rd_s_data, rd_m_data, rd_rs_data, rd_rm_data;
    wire [5:0]   rd_s_words, rd_m_want, rd_m_words, rd_rs_words, rd_rm_want, rd_rm_words;
    wire [63:0]  q_rd_address, q_wr_address, u_wr_address;
    wire         q_rd_read, q_rd_wait, q_rd_valid, q_wr_write, q_wr_wait, q_wr_flush, q_wr_pending;
    wire         u_wr_write, u_wr_wait, u_wr_flush, u_wr_pending;
    wire [511:0] q_rd_data, q_wr_data, u_wr_data;
    wire [63:0]  q_wr_be, u_wr_be;
    wire         rec_active, rec_write, rec_flush;
    wire [63:0]  rec_address;
    wire [511:0] rec_data;
    rdma_reduce_csr u_red_csr (
        .clk(clk), .rst(rst), .mmio_wr_valid(bus_wr_valid && w_red), .mmio_wr_addr(bus_wr_addr),
        .mmio_wr_data(bus_wr_data), .mmio_rd_valid(bus_rd_valid && r_red), .mmio_rd_addr(bus_rd_addr),
        .mmio_rd_resp_valid(d_resp_valid), .mmio_rd_resp_data(d_resp_data), .next(red_next), .prev(red_prev),
        .sid(red_sid), .rsid(red_rsid), .first(red_first), .last(red_last), .f32(red_f32), .allreduce(red_all),
        .src(red_src), .dst(red_dst),
        .len(red_len), .start(red_start), .unit_rst(red_unit_rst), .ep_rst(red_ep_rst), .busy(red_busy),
        .done(red_done), .code(red_code), .words(red_words), .in_stalls(red_in_stalls),
        .out_stalls(red_out_stalls), .ep_errors(red_errors));
    // its completion record (REDUCE_CPL): a line to host memory when DONE rises, on the
    // unit's memory port
    rdma_reduce_cpl u_red_cpl (
        .clk(clk), .rst(rst), .mmio_wr_valid(bus_wr_valid && w_red), .mmio_wr_addr(bus_wr_addr),
        .mmio_wr_data(bus_wr_data), .mmio_rd_valid(bus_rd_valid && r_red), .mmio_rd_addr(bus_rd_addr),
        .mmio_rd_resp_valid(c_resp_valid), .mmio_rd_resp_data(c_resp_data), .unit_rst(red_unit_rst), .done(red_done), .code(red_code), .words(red_words),
        .in_stalls(red_in_stalls), .out_stalls(red_out_stalls), .ep_errors(red_errors), .sid(red_sid),
        .rec_active(rec_active), .rec_address(rec_address), .rec_data(rec_data), .rec_write(rec_write),
        .rec_flush(rec_flush), .wr_waitrequest(q_wr_wait), .wr_pending(q_wr_pending));
    // the unit's line adapter takes the record's write while it is active, the unit's otherwise
    assign q_wr_address = rec_active ? rec_address : u_wr_address;
    assign q_wr_write   = rec_active ? rec_write : u_wr_write;
    assign q_wr_data    = rec_active ? rec_data : u_wr_data;
    assign q_wr_be      = rec_active ? 64'hFFFF_FFFF_FFFF_FFFF : u_wr_be;
    assign q_wr_flush   = rec_active ? rec_flush : u_wr_flush;
    assign u_wr_wait    = rec_active || q_wr_wait;
    assign u_wr_pending = rec_active || q_wr_pending;
    generate
        if (RDMA_LANES > 1) begin : g_reduce
            rdma_reduce #(.MEM_BYTES(RDMA_MEM_BYTES)) u_reduce (
                .clk(clk), .rst(red_unit_rst), .start(red_start), .first(red_first), .last(red_last), .f32(red_f32),
                .allreduce(red_all), .src(red_src), .dst(red_dst), .len(red_len), .busy(red_busy), .done(red_done),
                .code(red_code), .words_out(red_words), .in_stalls(red_in_stalls), .out_stalls(red_out_stalls),
                .mem_rd_address(q_rd_address), .mem_rd_read(q_rd_read), .mem_rd_waitrequest(q_rd_wait),
                .mem_rd_readdata(q_rd_data), .mem_rd_readdatavalid(q_rd_valid), .mem_wr_address(u_wr_address),
                .mem_wr_write(u_wr_write), .mem_wr_writedata(u_wr_data), .mem_wr_byteenable(u_wr_be),
                .mem_wr_waitrequest(u_wr_wait), .mem_wr_flush(u_wr_flush), .mem_wr_pending(u_wr_pending),
                .s_valid(rd_s_valid), .s_ready(rd_s_ready), .s_data(rd_s_data), .s_words(rd_s_words),
                .s_last(rd_s_last), .m_valid(rd_m_valid), .m_ready(rd_m_ready), .m_data(rd_m_data),
                .m_want(rd_m_want), .m_words(rd_m_words), .m_last(rd_m_last), .rs_valid(rd_rs_valid),
                .rs_ready(rd_rs_ready), .rs_data(rd_rs_data), .rs_words(rd_rs_words), .rs_last(rd_rs_last),
                .rm_valid(rd_rm_valid), .rm_ready(rd_rm_ready), .rm_data(rd_rm_data), .rm_want(rd_rm_want),
                .rm_words(rd_rm_words), .rm_last(rd_rm_last));
        end else begin : g_no_reduce
            // a 32-bit link port has no reduction unit: START leaves it idle, never DONE
            assign red_busy = 1'b0;
            assign red_done = 1'b0;
            assign red_code = 8'd0;
            assign red_words = 32'd0;
            assign red_in_stalls = 32'd0;
            assign red_out_stalls = 32'd0;
            assign q_rd_address = 64'd0;
            assign q_rd_read = 1'b0;
            assign u_wr_address = 64'd0;
            assign u_wr_write = 1'b0;
            assign u_wr_data = 512'd0;
            assign u_wr_be = 64'd0;
            assign u_wr_flush = 1'b0;
            assign rd_s_valid = 1'b0;
            assign rd_s_data = 512'd0;
            assign rd_s_words = 6'd0;
            assign rd_s_last = 1'b0;
            assign rd_m_ready = 1'b0;
            assign rd_m_want = 6'd0;
            assign rd_rs_valid = 1'b0;
            assign rd_rs_data = 512'd0;
            assign rd_rs_words = 6'd0;
            assign rd_rs_last = 1'b0;
            assign rd_rm_ready = 1'b0;
            assign rd_rm_want = 6'd0;
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_red = &{1'b0, red_unit_rst, red_start, red_first, red_last, red_f32, red_all, red_src, red_dst,
                                red_len, q_rd_wait, q_rd_data, q_rd_valid, u_wr_wait, u_wr_pending, rd_s_ready,
                                rd_m_valid, rd_m_data, rd_m_words, rd_m_last, rd_rs_ready, rd_rm_valid, rd_rm_data,
                                rd_rm_words, rd_rm_last};
            /* verilator lint_on UNUSEDSIGNAL */
        end
    endgenerate

    // the endpoints carry the cascade's records (IN_LINK / OUT_LINK) or the core's branch
    // streams (IN_BRCH / OUT_BRCH), a record a cycle
    rdma_stream_bind #(.LANES(RDMA_LANES), .IN_WORDS(IN_WORDS), .OUT_WORDS(OUT_WORDS), .BI_WORDS(BRCH_IN_WORDS),
                       .BO_WORDS(BRCH_OUT_WORDS)) u_bind (
        .clk(clk), .rst(rst), .in_brch(in_brch), .out_brch(out_brch),
        .x_out_valid(x_out_valid), .x_out_ready(x_out_ready), .x_out_data(x_out_data), .x_out_last(x_out_last),
        .x_in_valid(x_in_valid), .x_in_ready(x_in_ready), .x_in_data(x_in_data), .x_in_last(x_in_last),
        .b_out_valid(b_out_valid), .b_out_ready(b_out_ready), .b_out_data(b_out_data), .b_out_last(b_out_last),
        .b_in_valid(b_in_valid), .b_in_ready(b_in_ready), .b_in_data(b_in_data), .b_in_last(b_in_last),
        .st_s_valid(st_s_valid), .st_s_ready(st_s_ready), .st_s_data(st_s_data), .st_s_words(st_s_words),
        .st_s_last(st_s_last), .st_m_valid(st_m_valid), .st_m_ready(st_m_ready), .st_m_data(st_m_data),
        .st_m_want(st_m_want), .st_m_last(st_m_last));

    rdma_stream_csr #(.RECORD_WORDS(N_CORES > 0 ? OUT_RECORD_WORDS : 0), .BRCH_IN_WORDS(BRCH_IN_WORDS),
                      .BRCH_OUT_WORDS(BRCH_OUT_WORDS)) u_stream_csr (
        .clk(clk), .rst(rst), .mmio_wr_valid(bus_wr_valid && w_strm), .mmio_wr_addr(bus_wr_addr),
        .mmio_wr_data(bus_wr_data), .mmio_rd_valid(bus_rd_valid && r_strm), .mmio_rd_addr(bus_rd_addr),
        .mmio_rd_resp_valid(s_resp_valid), .mmio_rd_resp_data(s_resp_data), .tx_dst(st_tx_dst),
        .tx_sid(st_tx_sid), .rx_peer(st_rx_peer), .rx_sid(st_rx_sid), .in_link(in_link), .out_link(out_link),
        .in_brch(in_brch), .out_brch(out_brch), .tx_valid(st_s_valid), .tx_ready(st_s_ready), .tx_words(st_s_words), .rx_valid(st_m_valid),
        .rx_ready(st_m_ready), .rx_words(st_m_words), .errors(st_errors));

    // ---- the sort's single-pass stage (rdma_sort_stage): with STAGE_CFG.ENABLE the scatter
    // writer's lines into the window (the RX master's single-line writes) go to the stage's
    // rings, the engine's reads of the window are answered from them, and the engine's
    // commands come from the stage (the host's wait) and its completions go to it
    localparam STAGE = SORT_SCATTER != 0 && RDMA_LANES > 1;
    // the stage's puts in 1 KiB packets (the largest): a header beat per 16 lines
    localparam [8:0] STAGE_PKT_WORDS = 9'd256;
    wire         sg_en, sg_w_wait, sg_r_valid, sg_cmd_valid;
    wire [63:0]  sg_base, sg_mask, sg_cmd_local, sg_cmd_remote, sg_cmd_len;
    wire [511:0] sg_r_data;
    wire [5:0]   sg_cmd_dst;
    wire         m0_rx_wait, m_rd_read, m_rd_wait, m_rd_valid;
    wire [EMW-1:0] m_rd_data;
    wire         n_cmd_valid, n_cmd_ready, n_cmd_get, n_done;
    wire [5:0]   n_cmd_dst;
    wire [63:0]  n_cmd_local, n_cmd_remote, n_cmd_len;
    wire [31:0]  n_cmd_block, n_cmd_count, n_cmd_lstride, n_cmd_rstride;
    // a DDR burst of the RX master in progress goes on to the DDR whatever its beats' addresses
    reg  [7:0]   rx_left;
    // an address in the window: the window is aligned to its size (a power of 2), so its bits
    // above the size equal the base's, an equality of ORs (a subtraction and a compare of 64
    // bits each would take two carry chains in front of the waitrequest mux)
    function automatic in_window(input [63:0] a);
        in_window = ((a ^ sg_base) & sg_mask) == 64'd0;
    endfunction
    wire         rx_stage = sg_en && rx_left == 8'd0 && in_window(a_rx_address);
    assign a_rx_wait = rx_stage ? sg_w_wait : m0_rx_wait;
    always @(posedge clk)
        if (rst) rx_left <= 8'd0;
        else if (a_rx_write && !rx_stage && !m0_rx_wait) rx_left <= rx_left == 8'd0 ? a_rx_burst - 8'd1 : rx_left - 8'd1;
    // the engine's reads: the window's from the stage (two cycles later), once the DDR's in
    // flight have returned, and the DDR's once the stage's have, so that data come back in
    // request order
    reg  [15:0]  ddr_reads;
    reg  [1:0]   sg_reads;
    wire         e_rd_stage = sg_en && in_window(e_rd_address);
    assign m_rd_read = e_rd_read && !e_rd_stage && sg_reads == 2'd0;
    assign e_rd_wait = e_rd_stage ? ddr_reads != 16'd0 : m_rd_wait || sg_reads != 2'd0;
    assign e_rd_valid = m_rd_valid || sg_r_valid;
    assign e_rd_data = sg_r_valid ? sg_r_data[EMW-1:0] : m_rd_data;
    always @(posedge clk)
        if (rst) begin
            ddr_reads <= 16'd0;
            sg_reads <= 2'd0;
        end else begin
            ddr_reads <= ddr_reads + {15'd0, m_rd_read && !m_rd_wait} - {15'd0, m_rd_valid};
            sg_reads <= sg_reads + {1'b0, e_rd_read && e_rd_stage && ddr_reads == 16'd0} - {1'b0, sg_r_valid};
        end
    // the engine's commands: the stage's while it is enabled, the host's otherwise
    assign n_cmd_valid   = sg_en ? sg_cmd_valid : cmd_valid;
    assign cmd_ready     = !sg_en && n_cmd_ready;
    assign n_cmd_get     = !sg_en && cmd_get;
    assign n_cmd_dst     = sg_en ? sg_cmd_dst : cmd_dst;
    assign n_cmd_local   = sg_en ? sg_cmd_local : cmd_local;
    assign n_cmd_remote  = sg_en ? sg_cmd_remote : cmd_remote;
    assign n_cmd_len     = sg_en ? sg_cmd_len : cmd_len;
    assign n_cmd_block   = sg_en ? 32'd0 : cmd_block;
    assign n_cmd_count   = sg_en ? 32'd0 : cmd_count;
    assign n_cmd_lstride = sg_en ? 32'd0 : cmd_lstride;
    assign n_cmd_rstride = sg_en ? 32'd0 : cmd_rstride;
    assign done          = n_done && !sg_en;
    generate
        if (STAGE) begin : g_stage
            wire [4:0]  cap_shift;
            wire [STAGE_BIN_BITS-1:0] tbl_bin;
            wire [5:0]  tbl_dst;
            wire [63:0] tbl_remote, cnt_local, cnt_remote, cnt_dests;
            wire [31:0] cnt_len;
            wire        tbl_we, start, flush, idle;
            wire [31:0] puts, puts_done, dropped, pass_cycles, writer_waits, engine_reads, engine_gaps;
            wire [7:0]  code;
            wire [63:0] base;
            // the window: 2^(bin bits + cap_shift) bytes from base, its bits below that ignored
            // (registers: the configuration is held while a pass runs)
            reg  [63:0] w_base, w_mask;
            always @(posedge clk) begin
                w_mask <= ~(((64'd1 << STAGE_BIN_BITS) << cap_shift) - 64'd1);
                w_base <= base & w_mask;
            end
            assign sg_base = w_base;
            assign sg_mask = w_mask;
            rdma_sort_stage_csr #(.BIN_BITS(STAGE_BIN_BITS), .RING_LINES(STAGE_RING_LINES),
                                  .CHUNK_LINES(STAGE_CHUNK_LINES)) u_stage_csr (
                .clk(clk), .rst(rst), .mmio_wr_valid(bus_wr_valid && w_stg), .mmio_wr_addr(bus_wr_addr),
                .mmio_wr_data(bus_wr_data), .mmio_rd_valid(bus_rd_valid && r_stg), .mmio_rd_addr(bus_rd_addr),
                .mmio_rd_resp_valid(g_resp_valid), .mmio_rd_resp_data(g_resp_data), .enable(sg_en),
                .cap_shift(cap_shift), .base(base), .tbl_we(tbl_we), .tbl_bin(tbl_bin), .tbl_dst(tbl_dst),
                .tbl_remote(tbl_remote), .cnt_local(cnt_local), .cnt_remote(cnt_remote), .cnt_len(cnt_len),
                .cnt_dests(cnt_dests), .start(start), .flush(flush), .idle(idle), .puts(puts),
                .puts_done(puts_done), .code(code), .dropped(dropped), .pass_cycles(pass_cycles),
                .writer_waits(writer_waits), .engine_reads(engine_reads), .engine_gaps(engine_gaps));
            rdma_sort_stage #(.BIN_BITS(STAGE_BIN_BITS), .RING_LINES(STAGE_RING_LINES),
                              .CHUNK_LINES(STAGE_CHUNK_LINES)) u_stage (
                .clk(clk), .rst(rst), .base(sg_base), .cap_shift(cap_shift), .tbl_we(tbl_we), .tbl_bin(tbl_bin),
                .tbl_dst(tbl_dst), .tbl_remote(tbl_remote), .card_id(card_id), .cnt_local(cnt_local),
                .cnt_remote(cnt_remote), .cnt_len(cnt_len), .cnt_dests(cnt_dests), .start(start), .flush(flush), .idle(idle),
                .puts(puts), .puts_done(puts_done), .err_code(code), .dropped(dropped), .pass_cycles(pass_cycles),
                .writer_waits(writer_waits), .engine_reads(engine_reads), .engine_gaps(engine_gaps),
                .w_write(a_rx_write && rx_stage), .w_address(a_rx_address), .w_writedata(a_rx_data),
                .w_byteenable(a_rx_be), .w_waitrequest(sg_w_wait),
                .r_read(e_rd_read && e_rd_stage && ddr_reads == 16'd0), .r_address(e_rd_address),
                .r_readdatavalid(sg_r_valid), .r_readdata(sg_r_data),
                .cmd_valid(sg_cmd_valid), .cmd_ready(sg_en && n_cmd_ready), .cmd_dst(sg_cmd_dst),
                .cmd_local(sg_cmd_local), .cmd_remote(sg_cmd_remote), .cmd_len(sg_cmd_len),
                .done(n_done && sg_en), .done_code(done_code));
        end else begin : g_no_stage
            assign sg_en = 1'b0;
            assign sg_base = 64'd0;
            assign sg_mask = 64'd0;
            assign sg_w_wait = 1'b0;
            assign sg_r_valid = 1'b0;
            assign sg_r_data = 512'd0;
            assign sg_cmd_valid = 1'b0;
            assign sg_cmd_dst = 6'd0;
            assign sg_cmd_local = 64'd0;
            assign sg_cmd_remote = 64'd0;
            assign sg_cmd_len = 64'd0;
            assign g_resp_data = 64'd0;
            // STAGE_* reads answer 0, as every absent block's
            reg g_valid;
            always @(posedge clk) g_valid <= !rst && bus_rd_valid && r_stg;
            assign g_resp_valid = g_valid;
        end
    endgenerate

    wire [8:0] cmd_pkt_words;
    rdma_csr #(.P(P), .MAX_OPS(RDMA_MAX_OPS), .LANES(RDMA_LANES), .MAX_WORDS(RDMA_MAX_WORDS)) u_csr (
        .clk(clk), .rst(rst), .mmio_wr_valid(bus_wr_valid && w_rdma), .mmio_wr_addr(bus_wr_addr),
        .mmio_wr_data(bus_wr_data), .mmio_rd_valid(bus_rd_valid && r_rdma), .mmio_rd_addr(bus_rd_addr),
        .mmio_rd_resp_valid(r_resp_valid), .mmio_rd_resp_data(r_resp_data), .card_id(card_id),
        .port_dim(port_dim), .port_dateline(port_dateline), .cfg_we(cfg_we), .cfg_addr(cfg_addr),
        .cfg_port(cfg_port), .cmd_valid(cmd_valid), .cmd_ready(cmd_ready), .cmd_get(cmd_get), .cmd_dst(cmd_dst),
        .cmd_local(cmd_local), .cmd_remote(cmd_remote), .cmd_len(cmd_len), .cmd_block(cmd_block),
        .cmd_count(cmd_count), .cmd_local_stride(cmd_lstride), .cmd_remote_stride(cmd_rstride),
        .cmd_pkt_words(cmd_pkt_words), .op_id(op_id), .busy(busy), .done(done), .done_op(done_op), .done_code(done_code), .ops_done(ops_done),
        .evt_valid(evt_valid), .evt_data(evt_data), .evt_ready(evt_ready), .evt_lost(evt_lost), .overflow(overflow),
        .replays(replays), .link_dbg(link_dbg), .router_dbg(router_dbg), .eng_dbg(eng_dbg), .eng_slots(eng_slots),
        .irq(rdma_irq));

    rdma_node #(.P(P), .WINDOW(RDMA_WINDOW), .VC_BUF(RDMA_VC_BUF), .MEM_BYTES(RDMA_MEM_BYTES),
                .OP_TIMEOUT(RDMA_OP_TIMEOUT), .MAX_OPS(RDMA_MAX_OPS), .PF_DEPTH(RDMA_PF_DEPTH), .STREAM(1),
                .STREAM_DEPTH(RDMA_STREAM_DEPTH), .LANES(RDMA_LANES), .MAX_WORDS(RDMA_MAX_WORDS)) u_node (
        .clk(clk), .rst(rst), .card_id(card_id), .cfg_we(cfg_we), .cfg_addr(cfg_addr), .cfg_port(cfg_port),
        .port_dim(port_dim), .port_dateline(port_dateline), .cmd_valid(n_cmd_valid), .cmd_ready(n_cmd_ready),
        .cmd_get(n_cmd_get), .cmd_dst(n_cmd_dst), .cmd_local(n_cmd_local), .cmd_remote(n_cmd_remote), .cmd_len(n_cmd_len),
        .cmd_block(n_cmd_block), .cmd_count(n_cmd_count), .cmd_local_stride(n_cmd_lstride),
        .cmd_remote_stride(n_cmd_rstride), .cmd_pkt_words(sg_en ? STAGE_PKT_WORDS : cmd_pkt_words), .op_id(op_id), .busy(busy), .done(n_done), .done_op(done_op),
        .done_code(done_code), .ops_done(ops_done), .evt_valid(evt_valid), .evt_data(evt_data), .evt_ready(evt_ready),
        .evt_lost(evt_lost), .mem_rd_address(e_rd_address), .mem_rd_read(e_rd_read),
        .mem_rd_waitrequest(e_rd_wait), .mem_rd_readdata(e_rd_data), .mem_rd_readdatavalid(e_rd_valid),
        .mem_wr_address(e_wr_address), .mem_wr_write(e_wr_write), .mem_wr_writedata(e_wr_data),
        .mem_wr_byteenable(e_wr_be), .mem_wr_waitrequest(e_wr_wait), .mem_wr_flush(e_wr_flush), .mem_wr_pending(e_wr_pending), .st_tx_dst(st_tx_dst), .st_tx_sid(st_tx_sid),
        .st_rx_peer(st_rx_peer), .st_rx_sid(st_rx_sid), .st_s_valid(st_s_valid), .st_s_ready(st_s_ready),
        .st_s_data(st_s_data), .st_s_words(st_s_words), .st_s_last(st_s_last), .st_m_valid(st_m_valid),
        .st_m_ready(st_m_ready), .st_m_data(st_m_data), .st_m_want(st_m_want), .st_m_words(st_m_words),
        .st_m_last(st_m_last),
        .st_errors(st_errors), .rd_rst(red_ep_rst), .rd_next(red_next), .rd_prev(red_prev), .rd_sid(red_sid),
        .rd_rsid(red_rsid), .rd_s_valid(rd_s_valid), .rd_s_ready(rd_s_ready), .rd_s_data(rd_s_data),
        .rd_s_words(rd_s_words), .rd_s_last(rd_s_last), .rd_m_valid(rd_m_valid), .rd_m_ready(rd_m_ready),
        .rd_m_data(rd_m_data), .rd_m_want(rd_m_want), .rd_m_words(rd_m_words), .rd_m_last(rd_m_last),
        .rd_rs_valid(rd_rs_valid), .rd_rs_ready(rd_rs_ready), .rd_rs_data(rd_rs_data), .rd_rs_words(rd_rs_words),
        .rd_rs_last(rd_rs_last), .rd_rm_valid(rd_rm_valid), .rd_rm_ready(rd_rm_ready), .rd_rm_data(rd_rm_data),
        .rd_rm_want(rd_rm_want), .rd_rm_words(rd_rm_words), .rd_rm_last(rd_rm_last),
        .rd_errors(red_errors), .link_out_valid(link_out_valid), .link_out_data(link_out_data),
        .link_out_last(link_out_last), .link_out_ready(link_out_ready), .link_in_valid(link_in_valid), .link_in_data(link_in_data),
        .link_in_last(link_in_last), .overflow(overflow), .replays(replays), .link_dbg(link_dbg),
        .router_dbg(router_dbg), .eng_dbg(eng_dbg), .eng_slots(eng_slots));

    wire [63:0]  r_address, w_address;
    wire         r_read, r_wait, r_valid, w_write, w_wait;
    wire [7:0]   r_burst, w_burst;
    wire [511:0] w_data;
    wire [63:0]  w_be;
    // the engine's adapter (e_*) and the reduction's (q_*) on one read and one write master
    wire [63:0]  er_address, qr_address, ew_address, qw_address, ew_be, qw_be;
    wire         er_read, er_wait, er_valid, qr_read, qr_wait, qr_valid, ew_write, ew_wait, qw_write, qw_wait;
    wire [7:0]   er_burst, qr_burst, ew_burst, qw_burst;
    wire [511:0] ew_data, qw_data;
    rdma_line_adapter #(.WR_BURST(RDMA_WR_BURST)) u_red_mem (
        .clk(clk), .rst(rst), .rd_address(q_rd_address), .rd_read(q_rd_read), .rd_waitrequest(q_rd_wait),
        .rd_readdata(q_rd_data), .rd_readdatavalid(q_rd_valid), .wr_address(q_wr_address), .wr_write(q_wr_write),
        .wr_writedata(q_wr_data), .wr_byteenable(q_wr_be), .wr_waitrequest(q_wr_wait), .wr_flush(q_wr_flush),
        .wr_pending(q_wr_pending),
        .avm_rd_address(qr_address), .avm_rd_read(qr_read), .avm_rd_burstcount(qr_burst),
        .avm_rd_waitrequest(qr_wait), .avm_rd_readdata(dsc_data), .avm_rd_readdatavalid(qr_valid),
        .avm_wr_address(qw_address), .avm_wr_write(qw_write), .avm_wr_burstcount(qw_burst),
        .avm_wr_writedata(qw_data), .avm_wr_byteenable(qw_be), .avm_wr_waitrequest(qw_wait));
    /* verilator lint_off UNUSEDSIGNAL */
    wire [511:0] unused_rdata;  // the same beats as dsc_data
    /* verilator lint_on UNUSEDSIGNAL */
    rdma_rd_arb #(.READS(RD_INFLIGHT)) u_rd_arb_red (
        .clk(clk), .rst(rst), .m0_address(er_address), .m0_read(er_read), .m0_burstcount(er_burst),
        .m0_waitrequest(er_wait), .m0_readdatavalid(er_valid), .m1_address(qr_address), .m1_read(qr_read),
        .m1_burstcount(qr_burst), .m1_waitrequest(qr_wait), .m1_readdatavalid(qr_valid), .readdata(unused_rdata),
        .s_address(r_address), .s_read(r_read), .s_burstcount(r_burst), .s_waitrequest(r_wait),
        .s_readdata(dsc_data), .s_readdatavalid(r_valid));
    rdma_wr_arb u_wr_arb_red (
        .clk(clk), .rst(rst), .m0_address(ew_address), .m0_write(ew_write), .m0_burstcount(ew_burst),
        .m0_writedata(ew_data), .m0_byteenable(ew_be), .m0_waitrequest(ew_wait), .m1_address(qw_address),
        .m1_write(qw_write), .m1_burstcount(qw_burst), .m1_writedata(qw_data), .m1_byteenable(qw_be),
        .m1_waitrequest(qw_wait), .s_address(w_address), .s_write(w_write), .s_burstcount(w_burst),
        .s_writedata(w_data), .s_byteenable(w_be), .s_waitrequest(w_wait));
    generate
        if (RDMA_LANES > 1) begin : g_line_mem
            // the wide engine reads and writes whole lines: passed through, writes joined into bursts
            rdma_line_adapter #(.WR_BURST(RDMA_WR_BURST)) u_mem (
                .clk(clk), .rst(rst), .rd_address(e_rd_address), .rd_read(m_rd_read), .rd_waitrequest(m_rd_wait),
                .rd_readdata(m_rd_data), .rd_readdatavalid(m_rd_valid), .wr_address(e_wr_address),
                .wr_write(e_wr_write), .wr_writedata(e_wr_data), .wr_byteenable(e_wr_be), .wr_waitrequest(e_wr_wait),
                .wr_flush(e_wr_flush), .wr_pending(e_wr_pending), .avm_rd_address(er_address), .avm_rd_read(er_read),
                .avm_rd_burstcount(er_burst), .avm_rd_waitrequest(er_wait), .avm_rd_readdata(dsc_data),
                .avm_rd_readdatavalid(er_valid), .avm_wr_address(ew_address), .avm_wr_write(ew_write),
                .avm_wr_burstcount(ew_burst), .avm_wr_writedata(ew_data), .avm_wr_byteenable(ew_be),
                .avm_wr_waitrequest(ew_wait));
        end else begin : g_word_mem
            /* verilator lint_off UNUSEDSIGNAL */
            wire [EMW/8-1:0] unused_be = e_wr_be;  // all ones: whole words
            /* verilator lint_on UNUSEDSIGNAL */
            rdma_mem_adapter #(.READS(RDMA_PF_DEPTH), .WR_BURST(RDMA_WR_BURST)) u_mem (
                .clk(clk), .rst(rst), .rd_address(e_rd_address), .rd_read(m_rd_read), .rd_waitrequest(m_rd_wait),
                .rd_readdata(m_rd_data), .rd_readdatavalid(m_rd_valid), .wr_address(e_wr_address),
                .wr_write(e_wr_write), .wr_writedata(e_wr_data), .wr_waitrequest(e_wr_wait), .wr_flush(e_wr_flush),
                .wr_pending(e_wr_pending), .avm_rd_address(er_address), .avm_rd_read(er_read),
                .avm_rd_burstcount(er_burst), .avm_rd_waitrequest(er_wait), .avm_rd_readdata(dsc_data),
                .avm_rd_readdatavalid(er_valid), .avm_wr_address(ew_address), .avm_wr_write(ew_write),
                .avm_wr_burstcount(ew_burst), .avm_wr_writedata(ew_data), .avm_wr_byteenable(ew_be),
                .avm_wr_waitrequest(ew_wait));
        end
    endgenerate

    rdma_rd_arb #(.READS(RD_INFLIGHT)) u_rd_arb (
        .clk(clk), .rst(rst), .m0_address(a_dsc_address), .m0_read(a_dsc_read), .m0_burstcount(a_dsc_burst),
        .m0_waitrequest(a_dsc_wait), .m0_readdatavalid(a_dsc_valid), .m1_address(r_address), .m1_read(r_read),
        .m1_burstcount(r_burst), .m1_waitrequest(r_wait), .m1_readdatavalid(r_valid), .readdata(dsc_data),
        .s_address(dsc_rd_address), .s_read(dsc_rd_read), .s_burstcount(dsc_rd_burstcount),
        .s_waitrequest(dsc_rd_waitrequest), .s_readdata(dsc_rd_readdata), .s_readdatavalid(dsc_rd_readdatavalid));

    rdma_wr_arb u_wr_arb (
        .clk(clk), .rst(rst), .m0_address(a_rx_address), .m0_write(a_rx_write && !rx_stage), .m0_burstcount(a_rx_burst),
        .m0_writedata(a_rx_data), .m0_byteenable(a_rx_be), .m0_waitrequest(m0_rx_wait), .m1_address(w_address),
        .m1_write(w_write), .m1_burstcount(w_burst), .m1_writedata(w_data), .m1_byteenable(w_be),
        .m1_waitrequest(w_wait), .s_address(rx_wr_address), .s_write(rx_wr_write),
        .s_burstcount(rx_wr_burstcount), .s_writedata(rx_wr_writedata), .s_byteenable(rx_wr_byteenable),
        .s_waitrequest(rx_wr_waitrequest));
endmodule
`default_nettype wire
