`default_nettype none
// spg_udiv: unsigned a / b; b == 0 gives 0.
// The shared restoring divider spg_idiv_core (see there for the timing), initiation
// interval 1, no DSPs.
// Latency 33: 32 division steps, select the quotient (b == 0 gives 0).
module spg_udiv (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    spg_idiv_core #(.SIGNED(0), .REMAINDER(0)) core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule
