// RDMA engine of one card: put (local memory -> remote card), get (remote -> local) and
// block-stride put, over the router's engine port, with the packet formats of the C++
// model (runtime/rdma, docs/rdma.md). One operation at a time as initiator (command
// port, completion with status code); any number of peers served at once as target
// (their puts written, their gets answered), each target completion reported as an
// event. Errors end the operation with a code instead of hanging: NO_ROUTE (no route to
// the card, at once), REMOTE_RANGE (answered by the target), TIMEOUT (no answer within
// OP_TIMEOUT cycles), LOCAL_RANGE, ALIGN -- the codes of the C API.
//
// Memory side: a read port and a write port, Avalon-MM style, 32-bit words at 4-byte
// aligned byte addresses (the shell's DDR masters would sit behind a width adapter):
//   mem_rd_read/address, waitrequest stalls; readdatavalid/readdata return the words in
//   request order, any latency.  mem_wr_write/address/writedata, waitrequest stalls; a
//   write is visible to later reads once accepted.
`default_nettype none
module rdma_engine #(
    parameter [63:0]  MEM_BYTES = 64'h2_0000_0000,  // card memory, bytes (range checks)
    parameter integer OP_TIMEOUT = 2000000,        // cycles before an operation fails
    parameter integer QUEUE_DEPTH = 64,            // reply and get-request queues (>= cards)
    parameter integer EVENT_DEPTH = 16,            // target events kept until read
    parameter integer PF_DEPTH = 32                // read-ahead FIFO, words
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [5:0]   card_id,
    input  wire [63:0]  route_ok,    // a route to card i exists
    // command: put (cmd_get 0) or get; block-stride put when cmd_block != 0:
    // cmd_count blocks of cmd_block bytes, cmd_local_stride / cmd_remote_stride apart
    input  wire         cmd_valid,
    output wire         cmd_ready,
    input  wire         cmd_get,
    input  wire [5:0]   cmd_dst,
    input  wire [63:0]  cmd_local,
    input  wire [63:0]  cmd_remote,
    input  wire [63:0]  cmd_len,     // bytes (contiguous)
    input  wire [31:0]  cmd_block,
    input  wire [31:0]  cmd_count,
    input  wire [31:0]  cmd_local_stride,
    input  wire [31:0]  cmd_remote_stride,
    // the operation: id given at acceptance, completion pulse with status code
    output reg  [31:0]  op_id,
    output reg          busy,
    output reg          done,
    output reg  [7:0]   done_code,   // 0 ok, 1 NO_ROUTE, 2 REMOTE_RANGE, 3 TIMEOUT, 4 LOCAL_RANGE, 5 ALIGN
    output reg  [31:0]  ops_done,
    // target events {kind 4 (1 put received, 4 get served), peer 6, addr 64, len 64}
    output wire         evt_valid,
    output wire [137:0] evt_data,
    input  wire         evt_ready,
    output reg  [15:0]  evt_lost,
    // memory
    output wire [63:0]  mem_rd_address,
    output wire         mem_rd_read,
    input  wire         mem_rd_waitrequest,
    input  wire [31:0]  mem_rd_readdata,
    input  wire         mem_rd_readdatavalid,
    output wire [63:0]  mem_wr_address,
    output wire         mem_wr_write,
    output wire [31:0]  mem_wr_writedata,
    input  wire         mem_wr_waitrequest,
    // router engine port
    output wire         inj_valid,
    input  wire         inj_ready,
    output wire [31:0]  inj_data,
    output wire         inj_last,
    input  wire         ej_valid,
    output wire         ej_ready,
    input  wire [31:0]  ej_data,
    input  wire         ej_last
);
    localparam [7:0] E_NO_ROUTE = 8'd1, E_TIMEOUT = 8'd3, E_LOCAL_RANGE = 8'd4, E_ALIGN = 8'd5;
    localparam integer QW = $clog2(QUEUE_DEPTH);
    localparam integer EW = $clog2(EVENT_DEPTH);

    // ---- initiator: checks, the pending command, timeout ------------------------------
    reg         pend;
    reg         c_get;
    reg  [5:0]  c_dst;
    reg  [63:0] c_local, c_remote, c_len;
    reg  [31:0] c_block, c_lstride, c_rstride;
    reg  [31:0] timer, next_op;
    wire        c_take;
    wire        comp_valid;
    wire [31:0] comp_op;
    wire [7:0]  comp_code;

    wire        strided = !cmd_get && cmd_block != 32'd0;
    wire [63:0] s_len = {32'd0, cmd_block} * {32'd0, cmd_count};
    wire [63:0] s_span = {32'd0, cmd_count - 32'd1} * {32'd0, cmd_local_stride} + {32'd0, cmd_block};
    wire [63:0] len = strided ? s_len : cmd_len;
    wire [63:0] span = strided ? s_span : cmd_len;
    wire        bad_align = cmd_local[1:0] != 2'd0 || cmd_remote[1:0] != 2'd0 || len == 64'd0 || len[1:0] != 2'd0
                            || (strided && (cmd_count == 32'd0 || cmd_block[1:0] != 2'd0
                                || cmd_local_stride[1:0] != 2'd0 || cmd_remote_stride[1:0] != 2'd0
                                || cmd_local_stride < cmd_block || cmd_remote_stride < cmd_block));
    wire        bad_local = cmd_local > MEM_BYTES || span > MEM_BYTES - cmd_local;
    wire [7:0]  check = bad_align ? E_ALIGN : bad_local ? E_LOCAL_RANGE : !route_ok[cmd_dst] ? E_NO_ROUTE : 8'd0;
    assign cmd_ready = !busy;

    always @(posedge clk) begin
        done <= 1'b0;
        if (rst) begin
            busy <= 1'b0; pend <= 1'b0; timer <= 32'd0; next_op <= 32'd1; op_id <= 32'd0; done_code <= 8'd0;
            ops_done <= 32'd0; c_get <= 1'b0; c_dst <= 6'd0; c_local <= 64'd0; c_remote <= 64'd0; c_len <= 64'd0;
            c_block <= 32'd0; c_lstride <= 32'd0; c_rstride <= 32'd0;
        end else if (!busy) begin
            if (cmd_valid) begin
                op_id <= next_op;
                next_op <= next_op + 32'd1;
                if (check != 8'd0) begin
                    done <= 1'b1;
                    done_code <= check;
                    ops_done <= ops_done + 32'd1;
                end else begin
                    busy <= 1'b1;
                    pend <= 1'b1;
                    timer <= 32'd0;
                    c_get <= cmd_get; c_dst <= cmd_dst; c_local <= cmd_local; c_remote <= cmd_remote; c_len <= len;
                    c_block <= strided ? cmd_block : 32'd0; c_lstride <= cmd_local_stride;
                    c_rstride <= cmd_remote_stride;
                end
            end
        end else begin
            timer <= timer + 32'd1;
            if (c_take) pend <= 1'b0;
            if ((comp_valid && comp_op == op_id) || timer >= OP_TIMEOUT) begin
                busy <= 1'b0;
                pend <= 1'b0;
                done <= 1'b1;
                done_code <= comp_valid && comp_op == op_id ? comp_code : E_TIMEOUT;
                ops_done <= ops_done + 32'd1;
            end
        end
    end

    // ---- queues -------------------------------------------------------------------------
    wire         rp_push, rp_full, rp_empty, rp_pop, rq_push, rq_full, rq_empty, rq_pop;
    wire [49:0]  rp_din, rp_dout;
    wire [229:0] rq_din, rq_dout;
    wire         rx_ev_push, tx_ev_push, ev_full, ev_empty;
    wire [137:0] rx_ev_data, tx_ev_data;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [QW:0]  rp_count, rq_count;  // statistics only
    wire [EW:0]  ev_count;
    /* verilator lint_on UNUSEDSIGNAL */
    rdma_fifo #(.WIDTH(50), .DEPTH(QUEUE_DEPTH)) u_rp (
        .clk(clk), .rst(rst), .push(rp_push), .din(rp_din), .full(rp_full), .pop(rp_pop), .dout(rp_dout),
        .empty(rp_empty), .count(rp_count));
    rdma_fifo #(.WIDTH(230), .DEPTH(QUEUE_DEPTH)) u_rq (
        .clk(clk), .rst(rst), .push(rq_push), .din(rq_din), .full(rq_full), .pop(rq_pop), .dout(rq_dout),
        .empty(rq_empty), .count(rq_count));
    // events from both sides; the receiver's go first, the sender's wait in a holding
    // register (the receiver never pushes in two cycles running, the sender once a stream)
    reg          hold;
    reg  [137:0] hold_data;
    always @(posedge clk) begin
        if (rst) begin
            hold <= 1'b0;
            hold_data <= 138'd0;
        end else if (tx_ev_push) begin
            hold <= 1'b1;
            hold_data <= tx_ev_data;
        end else if (!rx_ev_push) begin
            hold <= 1'b0;
        end
    end
    wire ev_push = rx_ev_push || hold;
    rdma_fifo #(.WIDTH(138), .DEPTH(EVENT_DEPTH)) u_ev (
        .clk(clk), .rst(rst), .push(ev_push), .din(rx_ev_push ? rx_ev_data : hold_data), .full(ev_full),
        .pop(evt_ready), .dout(evt_data), .empty(ev_empty), .count(ev_count));
    assign evt_valid = !ev_empty;
    always @(posedge clk) begin
        if (rst) evt_lost <= 16'd0;
        else if (ev_push && ev_full && evt_lost != 16'hFFFF) evt_lost <= evt_lost + 16'd1;
    end

    rdma_engine_rx #(.MEM_BYTES(MEM_BYTES)) u_rx (
        .clk(clk), .rst(rst), .ej_valid(ej_valid), .ej_ready(ej_ready), .ej_data(ej_data), .ej_last(ej_last),
        .mem_wr_address(mem_wr_address), .mem_wr_write(mem_wr_write), .mem_wr_writedata(mem_wr_writedata),
        .mem_wr_waitrequest(mem_wr_waitrequest), .init_busy(busy), .init_op(op_id), .comp_valid(comp_valid),
        .comp_op(comp_op), .comp_code(comp_code), .rp_push(rp_push), .rp_data(rp_din), .rp_full(rp_full),
        .rq_push(rq_push), .rq_data(rq_din), .rq_full(rq_full), .ev_push(rx_ev_push), .ev_data(rx_ev_data));

    rdma_engine_tx #(.PF_DEPTH(PF_DEPTH)) u_tx (
        .clk(clk), .rst(rst), .card_id(card_id), .c_valid(pend), .c_take(c_take), .c_get(c_get), .c_dst(c_dst),
        .c_op(op_id), .c_local(c_local), .c_remote(c_remote), .c_len(c_len), .c_block(c_block),
        .c_lstride(c_lstride), .c_rstride(c_rstride), .rp_empty(rp_empty), .rp_data(rp_dout), .rp_pop(rp_pop),
        .rq_empty(rq_empty), .rq_data(rq_dout), .rq_pop(rq_pop), .ev_push(tx_ev_push), .ev_data(tx_ev_data),
        .mem_rd_address(mem_rd_address), .mem_rd_read(mem_rd_read),
        .mem_rd_waitrequest(mem_rd_waitrequest), .mem_rd_readdata(mem_rd_readdata),
        .mem_rd_readdatavalid(mem_rd_readdatavalid), .inj_valid(inj_valid), .inj_ready(inj_ready),
        .inj_data(inj_data), .inj_last(inj_last));
endmodule
`default_nettype wire
