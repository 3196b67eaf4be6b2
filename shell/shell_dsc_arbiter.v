// Shares the descriptor-table read master between the TX and RX engines: one
// single-beat read at a time, round robin. Uses the hard reset only, so a read in
// flight is always completed; an engine reset meanwhile simply ignores the answer.
`default_nettype none

module shell_dsc_arbiter (
    input  wire         clk,
    input  wire         rst,
    // requester 0 (TX)
    input  wire         req0_valid,
    output wire         req0_ready,
    input  wire [63:0]  req0_addr,
    output wire         resp0_valid,
    // requester 1 (RX)
    input  wire         req1_valid,
    output wire         req1_ready,
    input  wire [63:0]  req1_addr,
    output wire         resp1_valid,
    // shared response data
    output wire [511:0] resp_data,
    // Avalon-MM read master
    `include "dsc_rd_ports.vh"
);
    localparam [1:0] A_IDLE = 2'd0, A_ISSUE = 2'd1, A_WAIT = 2'd2;
    reg [1:0]  state_reg;
    reg        owner_reg;      // requester being served
    reg        last_reg;       // requester served last (round robin)
    reg [63:0] addr_reg;

    wire pick1 = req1_valid && (!req0_valid || !last_reg);
    wire grant = state_reg == A_IDLE && (req0_valid || req1_valid);

    assign req0_ready = grant && !pick1;
    assign req1_ready = grant && pick1;

    always @(posedge clk) begin
        if (rst) begin
            state_reg <= A_IDLE;
            last_reg  <= 1'b1;
            owner_reg <= 1'b0;
        end else begin
            case (state_reg)
            A_IDLE:
                if (grant) begin
                    owner_reg <= pick1;
                    last_reg  <= pick1;
                    addr_reg  <= pick1 ? req1_addr : req0_addr;
                    state_reg <= A_ISSUE;
                end
            A_ISSUE:
                if (!dsc_rd_waitrequest)
                    state_reg <= A_WAIT;
            A_WAIT:
                if (dsc_rd_readdatavalid)
                    state_reg <= A_IDLE;
            default:
                state_reg <= A_IDLE;
            endcase
        end
    end

    assign dsc_rd_address    = addr_reg;
    assign dsc_rd_read       = state_reg == A_ISSUE;
    assign dsc_rd_burstcount = 8'd1;
    assign resp_data         = dsc_rd_readdata;
    assign resp0_valid       = state_reg == A_WAIT && dsc_rd_readdatavalid && !owner_reg;
    assign resp1_valid       = state_reg == A_WAIT && dsc_rd_readdatavalid && owner_reg;
endmodule

`default_nettype wire
