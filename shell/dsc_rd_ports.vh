// The descriptor-table read master (dsc_rd_*): a pin group of afu_top (afu_ports.vh) that
// shell_dsc_arbiter drives for both DMA engines' chained-descriptor fetches. Single-beat
// Avalon-MM reads of 64-byte lines. Included inside a port list; the last port has no comma.
    output wire [63:0]  dsc_rd_address,
    output wire         dsc_rd_read,
    output wire [7:0]   dsc_rd_burstcount,
    input  wire         dsc_rd_waitrequest,
    input  wire [511:0] dsc_rd_readdata,
    input  wire         dsc_rd_readdatavalid
