// Run counters at the first core's input and the last core's output: total cycles
// from START until the run's final record passed, and cycles in which a record moved.
`default_nettype none

module shell_run_counters (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,          // clear and begin a run
    input  wire        stop,           // end the run now
    input  wire [63:0] elements,       // records per run, 0 = until an output last
    // stream taps
    input  wire        in_fire,        // a record entered the first core
    input  wire        in_last,        // ... flagged last
    input  wire        out_fire,       // a record left the last core
    input  wire        out_last,       // ... flagged last
    // registers
    output reg         running,
    output reg         done,
    output reg         in_done,
    output reg  [63:0] in_total,
    output reg  [63:0] in_moved,
    output reg  [63:0] out_total,
    output reg  [63:0] out_moved
);
    wire by_count  = elements != 64'd0;
    wire in_final  = in_fire && (by_count ? in_moved + 64'd1 == elements : in_last);
    wire out_final = out_fire && (by_count ? out_moved + 64'd1 == elements : out_last);

    always @(posedge clk) begin
        if (rst) begin
            running   <= 1'b0;
            done      <= 1'b0;
            in_done   <= 1'b0;
            in_total  <= 64'd0;
            in_moved  <= 64'd0;
            out_total <= 64'd0;
            out_moved <= 64'd0;
        end else if (start) begin
            running   <= 1'b1;
            done      <= 1'b0;
            in_done   <= 1'b0;
            in_total  <= 64'd0;
            in_moved  <= 64'd0;
            out_total <= 64'd0;
            out_moved <= 64'd0;
        end else if (running) begin
            if (!in_done) begin
                in_total <= in_total + 64'd1;
                if (in_fire)
                    in_moved <= in_moved + 64'd1;
                if (in_final)
                    in_done <= 1'b1;
            end
            out_total <= out_total + 64'd1;
            if (out_fire)
                out_moved <= out_moved + 64'd1;
            if (out_final || stop) begin
                running <= 1'b0;
                done    <= 1'b1;
            end
        end
    end
endmodule

`default_nettype wire
