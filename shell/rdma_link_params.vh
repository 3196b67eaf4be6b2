// Parameters of a serial-link port (rdma_link_tx, and rdma_link_port that passes them to its
// sender and receiver). Included as a module's whole parameter list.
    parameter integer WINDOW = 8,          // replay slots (power of 2, < 512)
    parameter integer VC_BUF = 4,          // peer input buffer per VC, packets
    parameter integer TIMEOUT = 512,       // cycles without ACK progress before a replay
    parameter integer CTRL_INTERVAL = 16,  // min cycles between coalesced ACK/credit packets
    parameter integer KEEPALIVE = 256,     // a CTRL packet at least this often
    parameter integer LANES = 1,           // 32-bit words per beat (power of 2, 1..32)
    parameter integer MAX_WORDS = 16       // largest payload: 16, or up to 256 with bulk packets
