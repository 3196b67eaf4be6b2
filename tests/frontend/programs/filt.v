// External module used by hier.spd (contents are not read by the front end).
module filt(input wire clk, input wire ce, input wire [31:0] i_0, output reg [31:0] o_0);
  always @(posedge clk) if (ce) o_0 <= i_0;
endmodule
