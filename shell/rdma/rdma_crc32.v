// CRC-32 (IEEE 802.3, reflected) of one 32-bit little-endian word per cycle.
`default_nettype none
module rdma_crc32 (
    input  wire [31:0] crc_in,
    input  wire [31:0] data,
    output wire [31:0] crc_out
);
    function automatic [31:0] step(input [31:0] c, input [31:0] d);
        integer i;
        reg [31:0] x;
        begin
            x = c;
            // bit 0 of byte 0 first: the byte order of the C++ model's crc32()
            for (i = 0; i < 32; i = i + 1)
                x = (x[0] ^ d[i]) ? ((x >> 1) ^ 32'hEDB88320) : (x >> 1);
            step = x;
        end
    endfunction
    assign crc_out = step(crc_in, data);
endmodule
`default_nettype wire
