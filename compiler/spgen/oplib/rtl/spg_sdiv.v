`default_nettype none
// spg_sdiv: signed a / b rounded toward zero; b == 0 gives 0; INT_MIN / -1 gives INT_MIN.
// The shared restoring divider spg_idiv_core (see there for the timing), initiation
// interval 1, no DSPs.
// Latency 34: operand magnitudes, 32 division steps, negate the quotient when the
// signs differ (b == 0 gives 0).
module spg_sdiv (
    input  wire        clk,
    input  wire        ce,  // clock enable: the pipeline holds while low
    input  wire [31:0] a,
    input  wire [31:0] b,
    output wire [31:0] y
);
    spg_idiv_core #(.SIGNED(1), .REMAINDER(0)) core (.clk(clk), .ce(ce), .a(a), .b(b), .y(y));
endmodule
