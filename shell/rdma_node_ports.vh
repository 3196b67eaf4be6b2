// Ports of rdma_node but its memory ports: the clock, the reset, the routing table, the
// engine's command and status, the stream and reduction endpoint pairs, the cables and the
// debug words (P and LANES are the including module's parameters). Included at the head of
// rdma_node's port list, which declares its memory ports after it, and of test tops that
// pass them straight through (tests/rdma/tb_rdma_wide_card.v).
    input  wire            clk,
    input  wire            rst,
    input  wire [5:0]      card_id,
    input  wire            cfg_we,
    input  wire [5:0]      cfg_addr,
    input  wire [3:0]      cfg_port,
    input  wire [2*P-1:0]  port_dim,
    input  wire [P-1:0]    port_dateline,
    // engine command and status (see rdma_engine)
    input  wire            cmd_valid,
    output wire            cmd_ready,
    input  wire            cmd_get,
    input  wire [5:0]      cmd_dst,
    input  wire [63:0]     cmd_local,
    input  wire [63:0]     cmd_remote,
    input  wire [63:0]     cmd_len,
    input  wire [31:0]     cmd_block,
    input  wire [31:0]     cmd_count,
    input  wire [31:0]     cmd_local_stride,
    input  wire [31:0]     cmd_remote_stride,
    input  wire [8:0]      cmd_pkt_words,  // DATA payload words (LANES > 1; 0: 256), see rdma_engine
    output wire [31:0]     op_id,
    output wire            busy,
    output wire            done,
    output wire [31:0]     done_op,
    output wire [7:0]      done_code,
    output wire [31:0]     ops_done,
    output wire            evt_valid,
    output wire [137:0]    evt_data,
    input  wire            evt_ready,
    output wire [15:0]     evt_lost,
    // stream endpoints (STREAM = 1; see rdma_stream, with LANES > 1 rdma_stream_wide: up to a
    // beat of words each way a cycle, st_s_words / st_m_words of them; 1 when LANES = 1)
    input  wire [5:0]      st_tx_dst,
    input  wire [7:0]      st_tx_sid,
    input  wire [5:0]      st_rx_peer,
    input  wire [7:0]      st_rx_sid,
    input  wire            st_s_valid,
    output wire            st_s_ready,
    input  wire [32*LANES-1:0] st_s_data,
    input  wire [5:0]      st_s_words,
    input  wire            st_s_last,
    output wire            st_m_valid,
    input  wire            st_m_ready,
    output wire [32*LANES-1:0] st_m_data,
    input  wire [5:0]      st_m_want,     // words the consumer takes at a time (its record)
    output wire [5:0]      st_m_words,    // words it gets: st_m_want, fewer where a segment ends
    output wire            st_m_last,
    output wire [1:0]      st_errors,     // {misrouted, overflow}, sticky
    // the reductions' endpoint pairs (STREAM = 1, LANES > 1; see rdma_reduce): the partial sums
    // from PREV to NEXT (stream ids 128..191) and an allreduce's result from NEXT back to PREV
    // (192..255), up to 16 words each way a cycle (rd_*_words of them, lanes 0..15)
    input  wire            rd_rst,        // a new reduction: fresh credits and buffers
    input  wire [5:0]      rd_next,       // card the partial sums go to (the result comes from)
    input  wire [5:0]      rd_prev,       // card they come from (the result goes to)
    input  wire [7:0]      rd_sid,        // the sums' stream id (bits 7:6 = 2), same on every card
    input  wire [7:0]      rd_rsid,       // the result's (bits 7:6 = 3)
    input  wire            rd_s_valid,
    output wire            rd_s_ready,
    input  wire [511:0]    rd_s_data,
    input  wire [5:0]      rd_s_words,
    input  wire            rd_s_last,
    output wire            rd_m_valid,
    input  wire            rd_m_ready,
    output wire [511:0]    rd_m_data,
    input  wire [5:0]      rd_m_want,
    output wire [5:0]      rd_m_words,
    output wire            rd_m_last,
    input  wire            rd_rs_valid,
    output wire            rd_rs_ready,
    input  wire [511:0]    rd_rs_data,
    input  wire [5:0]      rd_rs_words,
    input  wire            rd_rs_last,
    output wire            rd_rm_valid,
    input  wire            rd_rm_ready,
    output wire [511:0]    rd_rm_data,
    input  wire [5:0]      rd_rm_want,
    output wire [5:0]      rd_rm_words,
    output wire            rd_rm_last,
    output wire [1:0]      rd_errors,     // {misrouted, overflow} of either pair, sticky until rd_rst
    // cables
    output wire [P-1:0]    link_out_valid,
    output wire [32*LANES*P-1:0] link_out_data,
    output wire [P-1:0]    link_out_last,
    input  wire [P-1:0]    link_out_ready,  // each port's PHY takes a beat
    input  wire [P-1:0]    link_in_valid,
    input  wire [32*LANES*P-1:0] link_in_data,
    input  wire [P-1:0]    link_in_last,
    output wire [P-1:0]    overflow,
    output wire [16*P-1:0] replays,
    // debug words behind the RDMA_LINK_*, RDMA_ROUTER_STATE, RDMA_ENG_* CSRs
    output wire [256*P-1:0] link_dbg,
    output wire [63:0]     router_dbg,
    output wire [63:0]     eng_dbg,
    output wire [1023:0]   eng_slots,
