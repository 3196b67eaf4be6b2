// CRC-32 (IEEE 802.3, reflected) of the first `nwords` 32-bit little-endian words of a beat of
// LANES words, lane 0 first: one beat per cycle (LANES = 1: one word per cycle).
`default_nettype none
module rdma_crc32 #(
    parameter integer LANES = 1
) (
    input  wire [31:0]         crc_in,
    input  wire [32*LANES-1:0] data,
    input  wire [$clog2(LANES+1)-1:0] nwords,  // 0..LANES words of `data` are folded in
    output reg  [31:0]         crc_out
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
    integer k;
    always @(*) begin
        crc_out = crc_in;
        for (k = 0; k < LANES; k = k + 1)
            if (k < {{32-$clog2(LANES+1){1'b0}}, nwords}) crc_out = step(crc_out, data[32 * k +: 32]);
    end
endmodule
`default_nettype wire
