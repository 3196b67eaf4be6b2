// Ports both record converters of the stream endpoints (rdma_stream_ser, rdma_stream_des)
// share: the clock, the reset and the handshakes of the two streams but their data (records
// of WORDS words on one side, 32-bit words on the other: each declares s_data and m_data
// before this include, which ends its port list).
    input  wire clk,
    input  wire rst,
    input  wire s_valid,
    output wire s_ready,
    input  wire s_last,
    output wire m_valid,
    input  wire m_ready,
    output wire m_last
