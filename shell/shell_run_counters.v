// Run control and counters at the first core's input and the last core's output: total
// cycles from the run's start until its final record passed, and cycles in which a
// record moved. A run starts on START, or armed: ARM holds the stream at the first
// core's input until the TX engine has read ahead, then starts the run by itself, so
// the DMA start-up latency (descriptor checks, first memory reads) is spent before the
// run and the cores see a stream that is already flowing.
`default_nettype none

module shell_run_counters (
    input  wire        clk,
    input  wire        rst,
    input  wire        start,          // clear and begin a run
    input  wire        stop,           // end the run now (and cancel an arm)
    input  wire        arm,            // hold the stream, begin the run when tx_primed
    input  wire [63:0] elements,       // records per run, 0 = until an output last
    input  wire        tx_push,        // a descriptor was pushed into the TX engine
    input  wire        tx_primed,      // the TX engine's read-ahead is complete
    // stream taps
    input  wire        in_fire,        // a record entered the first core
    input  wire        in_last,        // ... flagged last
    input  wire        out_fire,       // a record left the last core
    input  wire        out_last,       // ... flagged last
    // stream gate: low holds the first core's input
    output wire        in_open,
    // registers
    output reg         armed,
    output reg         running,
    output reg         done,
    output reg         in_done,
    output reg  [63:0] in_total,
    output reg  [63:0] in_moved,
    output reg  [63:0] in_first,
    output reg  [63:0] out_total,
    output reg  [63:0] out_moved,
    output reg  [63:0] prime_cycles
);
    // ELEMENTS is an MMIO register written before the START or ARM write, so the compares
    // with it are registered: whether the count equals ELEMENTS - 1 (no record counted
    // this cycle) or ELEMENTS - 2 (one counted) is decided a cycle ahead, and which of
    // the two holds is picked after the registers; no 64-bit adder and equality in series
    // with the run's control. A write of ELEMENTS during a run is seen two cycles later
    // than the counts' own updates.
    reg  [63:0] elements_m1, elements_m2;
    reg         in_seen;           // a record of this run entered the first core
    reg         by_count, in_eq0, in_eq1, in_inc, out_eq0, out_eq1, out_inc;
    always @(posedge clk) begin
        elements_m1 <= elements - 64'd1;
        elements_m2 <= elements - 64'd2;
        by_count    <= elements != 64'd0;
    end
    wire in_final  = in_fire && (by_count ? (in_inc ? in_eq1 : in_eq0) : in_last);
    wire out_final = out_fire && (by_count ? (out_inc ? out_eq1 : out_eq0) : out_last);

    // an armed run waits for a TX descriptor, so arming before pushing cannot start early
    reg  pushed;
    wire release_run = armed && pushed && tx_primed;
    wire begin_run   = start || release_run;

    assign in_open = !armed;

    always @(posedge clk) begin
        if (rst || stop || start) begin
            armed  <= 1'b0;
            pushed <= 1'b0;
        end else if (arm) begin
            armed  <= 1'b1;
            pushed <= 1'b0;
        end else if (armed) begin
            // tx_primed may still describe earlier traffic in the push cycle: wait one more
            if (tx_push)
                pushed <= 1'b1;
            if (release_run)
                armed <= 1'b0;
        end
        if (rst || start || arm)
            prime_cycles <= 64'd0;
        else if (armed)
            prime_cycles <= prime_cycles + 64'd1;
    end

    always @(posedge clk) begin
        // a reset and a new (or armed) run clear the same state; only a begun run runs
        in_eq0  <= rst || begin_run || arm ? elements == 64'd1 : in_moved == elements_m1;
        in_eq1  <= in_moved == elements_m2;
        in_inc  <= !(rst || begin_run || arm) && running && !in_done && in_fire;
        out_eq0 <= rst || begin_run || arm ? elements == 64'd1 : out_moved == elements_m1;
        out_eq1 <= out_moved == elements_m2;
        out_inc <= !(rst || begin_run || arm) && running && out_fire;
        if (rst || begin_run || arm) begin
            running   <= !rst && begin_run;
            done      <= 1'b0;
            in_done   <= 1'b0;
            in_total  <= 64'd0;
            in_moved  <= 64'd0;
            in_first  <= 64'd0;
            in_seen   <= 1'b0;
            out_total <= 64'd0;
            out_moved <= 64'd0;
        end else if (running) begin
            if (!in_done) begin
                in_total <= in_total + 64'd1;
                if (in_fire) begin
                    in_moved <= in_moved + 64'd1;
                    in_seen  <= 1'b1;
                end else if (!in_seen) begin
                    in_first <= in_first + 64'd1;
                end
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
