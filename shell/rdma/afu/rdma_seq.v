// The card's sequencer (SEQ_* registers, docs/sort.md "The sequencer"): a second master on
// the card's MMIO bus that runs a program of register writes and polls, so that a sequence
// of passes, DMA transfers and RDMA operations runs on the card from one start by the host.
// The host writes the program once (SEQ_PROG_ADDR, then per instruction SEQ_PROG_DATA and
// SEQ_PROG_CTRL), writes SEQ_CTRL.START and polls SEQ_STATUS; each instruction does what the
// host would have done through MMIO, with the same registers, so one program format serves
// every block of the card.
//
// Instructions (PROG_CTRL's fields; DATA is the 64-bit operand):
//   END            stop: STATUS.DONE
//   WRITE  A       write DATA to register A
//   WAIT   A B P   read A until its bit B equals P; a bit of DATA set in the value read
//                  (an error flag) stops the program instead: STATUS.FAILED
//   CHECK  A S     read A once; unless (its word S (0: bits 31:0, 32: bits 63:32) &
//                  DATA[63:32]) == DATA[31:0] the program stops: STATUS.FAILED (e.g. a
//                  pass's key count)
// The host keeps priority on the bus: the sequencer issues an access only in a cycle in
// which the host issues none to the bus, and the read responses of its own reads (every block answers
// one cycle after the request) are kept from the host. Its own window is answered here and
// never reaches the bus.
`default_nettype none

module rdma_seq #(
    parameter integer DEPTH_BITS = 10      // program words: 2^DEPTH_BITS (at most 16)
) (
    // the host's MMIO
    `include "mmio_ports.vh"
    output wire         mmio_rd_resp_valid,
    output wire [63:0]  mmio_rd_resp_data,
    // the card's MMIO bus: the host's accesses outside the window, and the program's
    output wire         b_wr_valid,
    output wire [17:0]  b_wr_addr,
    output wire [63:0]  b_wr_data,
    output wire         b_rd_valid,
    output wire [17:0]  b_rd_addr,
    input  wire         b_rd_resp_valid,
    input  wire [63:0]  b_rd_resp_data
);
    localparam [3:0] OP_END = 4'd0, OP_WRITE = 4'd1, OP_WAIT = 4'd2, OP_CHECK = 4'd3;
    // FETCH: the RAM reads pc; LATCH: its word into a register; DECODE; ISSUE: the access;
    // RESP: a read's answer into a register; EVAL: what it means
    localparam [2:0] S_IDLE = 3'd0, S_FETCH = 3'd1, S_LATCH = 3'd2, S_DECODE = 3'd3, S_ISSUE = 3'd4,
                     S_RESP = 3'd5, S_EVAL = 3'd6;
    `include "afushell_csr.vh"

    localparam [7:0] DEPTH8 = DEPTH_BITS[7:0];
    // the SEQ_* window: 256 bytes from SEQ_CTRL
    wire h_wr_own = mmio_wr_valid && mmio_wr_addr[17:8] == CSR_SEQ_CTRL_ADDR[17:8];
    wire h_rd_own = mmio_rd_valid && mmio_rd_addr[17:8] == CSR_SEQ_CTRL_ADDR[17:8];

    // ---- program memory: 96-bit words {PROG_CTRL[31:0], DATA[63:0]} (an M20K RAM)
    reg [95:0]           prog [0:(1 << DEPTH_BITS) - 1];
    reg [DEPTH_BITS-1:0] prog_addr;   // the next word the host writes
    reg [63:0]           prog_data;   // its staged DATA
    /* verilator lint_off UNUSEDSIGNAL */
    reg [95:0]           word;        // the RAM's registered read of pc
    reg [95:0]           ins;         // the instruction at pc, from a register of its own (bits 80:75 reserved)
    /* verilator lint_on UNUSEDSIGNAL */
    reg [DEPTH_BITS-1:0] pc;
    reg [2:0]            state;
    reg                  done, failed, aborted;
    reg [63:0]           fail_value;
    reg [31:0]           cycles;

    wire running = state != S_IDLE;
    wire start   = h_wr_own && mmio_wr_addr == CSR_SEQ_CTRL_ADDR && mmio_wr_data[0] && !running;
    wire abort   = h_wr_own && mmio_wr_addr == CSR_SEQ_CTRL_ADDR && mmio_wr_data[1];
    // the program is written only while it does not run
    wire load    = h_wr_own && mmio_wr_addr == CSR_SEQ_PROG_CTRL_ADDR && !running;

    always @(posedge clk) begin
        if (load) prog[prog_addr] <= {mmio_wr_data[31:0], prog_data};
        word <= prog[pc];
        if (state == S_LATCH) ins <= word;  // the RAM's output leaves its block through a register
    end

    // the instruction's fields
    wire [3:0]  op    = ins[67:64];
    wire [5:0]  bit_i = ins[73:68];
    wire        pol   = ins[74];
    wire [17:0] addr  = {ins[95:81], 3'b000};
    wire [63:0] data  = ins[63:0];

    // the bus: the host's accesses first; the program's in a cycle free of them
    wire h_wr_bus = mmio_wr_valid && !h_wr_own;
    wire h_rd_bus = mmio_rd_valid && !h_rd_own;
    // the host's accesses of the window (its polls of STATUS) never delay the program, so a
    // run takes the same cycles however often the host looks
    wire free     = !h_wr_bus && !h_rd_bus;
    wire s_wr     = state == S_ISSUE && op == OP_WRITE && free;
    wire s_rd     = state == S_ISSUE && (op == OP_WAIT || op == OP_CHECK) && free;
    assign b_wr_valid = h_wr_bus || s_wr;
    assign b_wr_addr  = h_wr_bus ? mmio_wr_addr : addr;
    assign b_wr_data  = h_wr_bus ? mmio_wr_data : data;
    assign b_rd_valid = h_rd_bus || s_rd;
    assign b_rd_addr  = h_rd_bus ? mmio_rd_addr : addr;

    // the value a WAIT or CHECK read, registered the cycle after its request; CHECK compares
    // the word BIT picks (0: the low one, 32: the high one)
    reg  [63:0] value;
    always @(posedge clk) if (state == S_RESP) value <= b_rd_resp_data;
    wire        err_hit  = |(value & data);
    wire        bit_ok   = value[bit_i] == pol;
    wire [31:0] half     = bit_i[5] ? value[63:32] : value[31:0];
    wire        check_ok = (half & data[63:32]) == data[31:0];

    always @(posedge clk) begin
        if (rst) begin
            state <= S_IDLE;
            pc <= {DEPTH_BITS{1'b0}};
            prog_addr <= {DEPTH_BITS{1'b0}};
            prog_data <= 64'd0;
            {done, failed, aborted} <= 3'b000;
            fail_value <= 64'd0;
            cycles <= 32'd0;
        end else begin
            if (h_wr_own && mmio_wr_addr == CSR_SEQ_PROG_ADDR_ADDR && !running) prog_addr <= mmio_wr_data[DEPTH_BITS-1:0];
            if (h_wr_own && mmio_wr_addr == CSR_SEQ_PROG_DATA_ADDR) prog_data <= mmio_wr_data;
            if (load) prog_addr <= prog_addr + 1'b1;
            if (running && cycles != 32'hFFFF_FFFF) cycles <= cycles + 32'd1;
            if (start) begin
                state <= S_FETCH;
                pc <= {DEPTH_BITS{1'b0}};
                {done, failed, aborted} <= 3'b000;
                cycles <= 32'd0;
            end else if (abort && running) begin
                state <= S_IDLE;
                aborted <= 1'b1;
            end else case (state)
                S_FETCH:  state <= S_LATCH;
                S_LATCH:  state <= S_DECODE;
                S_DECODE: if (op == OP_END) begin
                              state <= S_IDLE;
                              done <= 1'b1;
                          end else if (op > OP_CHECK) begin
                              state <= S_IDLE;
                              failed <= 1'b1;
                              fail_value <= {60'd0, op};
                          end else state <= S_ISSUE;
                S_ISSUE:  if (s_wr) begin
                              pc <= pc + 1'b1;
                              state <= S_FETCH;
                          end else if (s_rd) state <= S_RESP;
                S_RESP:   state <= S_EVAL;
                S_EVAL:   if (op == OP_WAIT ? err_hit : !check_ok) begin
                              state <= S_IDLE;
                              failed <= 1'b1;
                              fail_value <= value;
                          end else if (op == OP_WAIT && !bit_ok) state <= S_ISSUE;  // poll again
                          else begin
                              pc <= pc + 1'b1;
                              state <= S_FETCH;
                          end
                default:  state <= S_IDLE;
            endcase
        end
    end

    // ---- the host's reads: the window from here, the rest from the bus unless the program read
    reg        s_rd_q, own_q;
    reg [63:0] own_data;
    always @(posedge clk) begin
        s_rd_q <= !rst && s_rd;
        own_q  <= !rst && h_rd_own;
        case (mmio_rd_addr)
            CSR_SEQ_STATUS_ADDR: own_data <= {1'b1, 31'd0, {(16 - DEPTH_BITS){1'b0}}, pc, 12'd0, aborted, failed, done, running};
            CSR_SEQ_PROG_ADDR_ADDR: own_data <= {{(64 - DEPTH_BITS){1'b0}}, prog_addr};
            CSR_SEQ_FAIL_VALUE_ADDR: own_data <= fail_value;
            CSR_SEQ_CYCLES_ADDR: own_data <= {32'd0, cycles};
            CSR_SEQ_INFO_ADDR: own_data <= {56'd0, DEPTH8};
            default:      own_data <= 64'd0;
        endcase
    end
    assign mmio_rd_resp_valid = own_q || (b_rd_resp_valid && !s_rd_q);
    assign mmio_rd_resp_data  = own_q ? own_data : b_rd_resp_data;
endmodule

`default_nettype wire
