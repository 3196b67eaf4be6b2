// Connections of shell_dma_front's descriptor and status ports (dma_desc_ports.vh,
// dma_status_ports.vh) to the same-named ports of the engine that instantiates it
// (shell_tx_dma, shell_rx_dma). Included inside a port connection list; each ends in a comma.
        .push_valid (push_valid), .push_src (push_src), .push_dst (push_dst), .push_len (push_len),
        .push_stride (push_stride), .push_count (push_count), .push_next (push_next),
        .push_ctrl (push_ctrl), .fetch_req_valid (fetch_req_valid), .fetch_req_ready (fetch_req_ready),
        .fetch_req_addr (fetch_req_addr), .fetch_resp_valid (fetch_resp_valid),
        .fetch_resp_data (fetch_resp_data), .err_clear (err_clear), .status (status), .error (error),
        .bytes (bytes), .busy_cycles (busy_cycles), .irq_pulse (irq_pulse),
