`default_nettype none
// External module for extern.spd: o_0 = i_0 + i_1 (u32), o_1 = i_0 ^ i_1, after
// exactly 3 cycles of ce; advances only while ce is high.
module ext_mac (
    input  wire        clk,
    input  wire        ce,
    input  wire [31:0] i_0,
    input  wire [31:0] i_1,
    output wire [31:0] o_0,
    output wire [31:0] o_1
);
    reg [31:0] s0_reg, s1_reg, s2_reg;
    reg [31:0] x0_reg, x1_reg, x2_reg;
    always @(posedge clk) begin
        if (ce) begin
            s0_reg <= i_0 + i_1;
            s1_reg <= s0_reg;
            s2_reg <= s1_reg;
            x0_reg <= i_0 ^ i_1;
            x1_reg <= x0_reg;
            x2_reg <= x1_reg;
        end
    end
    assign o_0 = s2_reg;
    assign o_1 = x2_reg;
endmodule
`default_nettype wire
