// Ports of every CSR block on the host's MMIO bus (shell_csr, rdma_csr, rdma_stream_csr,
// rdma_reduce_csr): mmio_ports.vh and the read response each answers from registers, one
// cycle after the request. Included at the head of a port list; each ends in a comma.
    `include "mmio_ports.vh"
    output reg          mmio_rd_resp_valid,
    output reg  [63:0]  mmio_rd_resp_data,
