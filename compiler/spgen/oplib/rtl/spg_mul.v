`default_nettype none
// spg_mul: integer a * b mod 2^32 (the low word; the same bits for i32 and u32).
// Latency 3: input registers, product, output register -- the registers a 32x32
// multiplier built from Arria 10 DSP blocks (27x27 / 18x19 modes and the adder
// that joins their partial products) absorbs to run well above 200 MHz.
    reg [31:0] a_reg, b_reg, p_reg, y_reg;
    always @(posedge clk) if (ce) begin
        a_reg <= a;
        b_reg <= b;
        p_reg <= a_reg * b_reg;
        y_reg <= p_reg;
    end
    assign y = y_reg;
endmodule
