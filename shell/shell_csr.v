// CSR block on the host MMIO (64-bit accesses, 256 KiB): OPAE header and AFU ID,
// descriptor staging and push for both DMA engines, core control, Reg values,
// counters, interrupts. Register map: shell/csr_map.json (afushell_csr.vh).
`default_nettype none

module shell_csr #(
    parameter integer N_CORES          = 0,     // cores in the cascade (0 = loop-back)
    parameter integer IN_RECORD_WORDS  = 1,     // words per record at the core input
    parameter integer OUT_RECORD_WORDS = 1,     // words per record at the core output
    parameter integer N_REGS           = 0,     // Reg values used, 0..256
    parameter [8191:0] REG_DEFAULTS = 8192'd0,  // 32 bits per Reg (up to 256), Reg 0 lowest
    parameter integer DESC_FIFO_DEPTH  = 16,    // reported in SHELL_INFO
    parameter [63:0] AFU_ID_L          = 64'hac3cf1e8beaefcca,  // AFU ID, low half
    parameter [63:0] AFU_ID_H          = 64'h48ae995a649b4c39   // AFU ID, high half
) (
    `include "mmio_csr_ports.vh"
    // descriptor pushes (fields shared by both engines; the valids select one)
    `include "dma_push_ports.vh"
    // engine control and status
    output wire                  tx_srst,
    output wire                  rx_srst,
    output wire                  tx_err_clear,
    output wire                  rx_err_clear,
    input  wire [63:0]           tx_status,
    input  wire [63:0]           tx_error,
    input  wire [63:0]           tx_bytes,
    input  wire [63:0]           tx_busy_cycles,
    input  wire                  tx_irq_pulse,
    input  wire [63:0]           rx_status,
    input  wire [63:0]           rx_error,
    input  wire [63:0]           rx_bytes,
    input  wire [63:0]           rx_busy_cycles,
    input  wire                  rx_irq_pulse,
    // datapath soft reset (DMA engines, converters, cores, counters)
    output wire                  soft_reset,
    // core control and counters
    output wire                  core_start,
    output wire                  core_stop,
    output wire                  core_arm,
    output reg  [63:0]           core_elements,
    input  wire [7:0]            core_status,
    input  wire [63:0]           in_total,
    input  wire [63:0]           in_moved,
    input  wire [63:0]           in_first,
    input  wire [63:0]           out_total,
    input  wire [63:0]           out_moved,
    input  wire [63:0]           prime_cycles,
    output wire [32*(N_REGS > 0 ? N_REGS : 1)-1:0] core_regs,
    output wire [1:0]            irq
);
    `include "afushell_csr.vh"

    localparam integer REG_SLOTS = N_REGS > 0 ? N_REGS : 1;

    initial begin
        if (N_REGS < 0 || N_REGS > CSR_CORE_REG_COUNT) begin
            $display("shell_csr: N_REGS=%0d must be 0..%0d", N_REGS, CSR_CORE_REG_COUNT);
            $finish;
        end
        // the read mux assumes each page's registers within its 128 bytes
        if (CSR_IRQ_ENABLE_ADDR[17:7] != CSR_DFH_ADDR[17:7]
            || CSR_TX_BUSY_CYCLES_ADDR[17:7] != CSR_TX_DESC_SRC_ADDR[17:7]
            || CSR_RX_BUSY_CYCLES_ADDR != CSR_TX_BUSY_CYCLES_ADDR + 18'h100
            || CSR_RX_STATUS_ADDR != CSR_TX_STATUS_ADDR + 18'h100
            || CSR_RX_DESC_SRC_ADDR[17:7] != CSR_TX_DESC_SRC_ADDR[17:7] + 11'd2
            || CSR_CORE_PRIME_CYCLES_ADDR[17:7] != CSR_CORE_CTRL_ADDR[17:7]
            || CSR_CORE_IN_FIRST_CYCLES_ADDR[17:7] != CSR_CORE_CTRL_ADDR[17:7]
            || CSR_CORE_REG_ADDR != 18'h00800 || CSR_CORE_CTRL_ADDR[17:11] != 7'd0) begin
            $display("shell_csr: csr_map.json does not fit the read mux's pages");
            $finish;
        end
        if (N_CORES < 0 || N_CORES > 255) begin
            $display("shell_csr: N_CORES=%0d must be 0..255", N_CORES);
            $finish;
        end
    end

    wire [17:0] wa = {mmio_wr_addr[17:3], 3'b000};
    wire [17:3] ra = mmio_rd_addr[17:3];
    wire [63:0] wd = mmio_wr_data;
    wire        wr = mmio_wr_valid;

    // staging registers of the two engines
    reg [63:0] src_reg [0:1];
    reg [63:0] dst_reg [0:1];
    reg [31:0] len_reg [0:1];
    reg [63:0] str_reg [0:1];
    reg [63:0] nxt_reg [0:1];
    reg [31:0] ctl_reg [0:1];
    reg [63:0] scratch_reg;
    reg [63:0] cycles_reg;
    reg [1:0]  irq_status_reg, irq_enable_reg;
    reg [31:0] regs_reg [0:255];   // slots >= N_REGS are never written: constants

    wire tx_go = wr && wa == CSR_TX_DESC_CTRL_ADDR && wd[CSR_DMA_DESC_CTRL_GO_LSB];
    wire rx_go = wr && wa == CSR_RX_DESC_CTRL_ADDR && wd[CSR_DMA_DESC_CTRL_GO_LSB];
    wire sel   = rx_go;   // engine whose staging words go with the push

    assign tx_push     = tx_go;
    assign rx_push     = rx_go;
    assign push_src    = src_reg[sel];
    assign push_dst    = dst_reg[sel];
    assign push_len    = len_reg[sel];
    assign push_stride = str_reg[sel][31:0];
    assign push_count  = str_reg[sel][63:32];
    assign push_next   = nxt_reg[sel];
    assign push_ctrl   = wd[3:0];

    assign soft_reset   = wr && wa == CSR_SHELL_CTRL_ADDR && wd[CSR_SHELL_CTRL_SOFT_RESET_LSB];
    assign tx_srst      = soft_reset || (wr && wa == CSR_TX_CONTROL_ADDR && wd[CSR_DMA_CONTROL_RESET_LSB]);
    assign rx_srst      = soft_reset || (wr && wa == CSR_RX_CONTROL_ADDR && wd[CSR_DMA_CONTROL_RESET_LSB]);
    assign tx_err_clear = wr && wa == CSR_TX_ERROR_ADDR;
    assign rx_err_clear = wr && wa == CSR_RX_ERROR_ADDR;
    assign core_start   = wr && wa == CSR_CORE_CTRL_ADDR && wd[CSR_CORE_CTRL_START_LSB];
    assign core_stop    = wr && wa == CSR_CORE_CTRL_ADDR && wd[CSR_CORE_CTRL_STOP_LSB];
    assign core_arm     = wr && wa == CSR_CORE_CTRL_ADDR && wd[CSR_CORE_CTRL_ARM_LSB];
    assign irq          = irq_status_reg & irq_enable_reg;

    // the used Reg slots as a constant mask: a look-up, not a magnitude compare's carry chain
    localparam [255:0] REG_USED = {256{1'b1}} >> (256 - N_REGS);
    wire [7:0] reg_idx_w = wa[10:3];
    wire       reg_hit_w = wa[17:11] == CSR_CORE_REG_ADDR[17:11] && REG_USED[reg_idx_w];

    integer e, k;
    always @(posedge clk) begin
        if (rst) begin
            for (e = 0; e < 2; e = e + 1) begin
                src_reg[e] <= 64'd0;
                dst_reg[e] <= 64'd0;
                len_reg[e] <= 32'd0;
                str_reg[e] <= 64'd0;
                nxt_reg[e] <= 64'd0;
                ctl_reg[e] <= 32'd0;
            end
            scratch_reg    <= 64'd0;
            cycles_reg     <= 64'd0;
            irq_status_reg <= 2'b00;
            irq_enable_reg <= 2'b11;
            core_elements  <= 64'd0;
            for (k = 0; k < 256; k = k + 1)
                regs_reg[k] <= k < N_REGS ? REG_DEFAULTS[(k % REG_SLOTS)*32 +: 32] : 32'd0;
        end else begin
            cycles_reg <= cycles_reg + 64'd1;
            if (wr) begin
                for (e = 0; e < 2; e = e + 1) begin
                    if (wa == CSR_TX_DESC_SRC_ADDR + 18'h100 * e[17:0])    src_reg[e] <= wd;
                    if (wa == CSR_TX_DESC_DST_ADDR + 18'h100 * e[17:0])    dst_reg[e] <= wd;
                    if (wa == CSR_TX_DESC_LEN_ADDR + 18'h100 * e[17:0])    len_reg[e] <= wd[31:0];
                    if (wa == CSR_TX_DESC_STRIDE_ADDR + 18'h100 * e[17:0]) str_reg[e] <= wd;
                    if (wa == CSR_TX_DESC_NEXT_ADDR + 18'h100 * e[17:0])   nxt_reg[e] <= wd;
                    if (wa == CSR_TX_DESC_CTRL_ADDR + 18'h100 * e[17:0])   ctl_reg[e] <= wd[31:0];
                end
                if (wa == CSR_SCRATCH_ADDR)       scratch_reg    <= wd;
                if (wa == CSR_IRQ_ENABLE_ADDR)    irq_enable_reg <= wd[1:0];
                if (wa == CSR_CORE_ELEMENTS_ADDR) core_elements  <= wd;
                if (reg_hit_w)                    regs_reg[reg_idx_w] <= wd[31:0];
            end
            if (soft_reset)
                irq_status_reg <= 2'b00;
            else
                irq_status_reg <= (irq_status_reg
                                   & ~((wr && wa == CSR_IRQ_STATUS_ADDR) ? wd[1:0] : 2'b00))
                                  | {rx_irq_pulse, tx_irq_pulse};
        end
    end

    genvar g;
    generate
        for (g = 0; g < REG_SLOTS; g = g + 1) begin : g_regs
            assign core_regs[g*32 +: 32] = regs_reg[g];
        end
    endgenerate

    wire [63:0] shell_info = {8'd0, DESC_FIFO_DEPTH[7:0], N_REGS[7:0], OUT_RECORD_WORDS[7:0],
                              IN_RECORD_WORDS[7:0], N_CORES[7:0], CSR_VERSION_MAJOR, CSR_VERSION_MINOR};

    // The read mux is split by address: each 128-byte page of 16 registers is a 16-way mux
    // on ra[6:3] (two LUT levels), and ra[11:7] picks the page (three more), with the
    // window check ra[17:12] == 0 beside it; a single case on all address bits maps to six
    // or seven LUT levels, over 5 ns. Pages: 0x000 header, 0x100 TX, 0x200 RX, 0x400 core,
    // 0x800 + 128 g the Reg values 16 g ... 16 g + 15 (slots >= N_REGS read 0).
    wire [3:0]  ri = ra[6:3];
    wire [4:0]  rp = ra[11:7];
    reg  [63:0] rd_hdr, rd_core, rd_page;
    wire [63:0] rd_data = ra[17:12] == 6'd0 ? rd_page : 64'd0;
    wire [32*16-1:0] rd_regs;   // the Reg pages' muxes, 16 x 32 bits
    // a DMA engine's page (RX's addresses are TX's + 0x100)
    function automatic [63:0] eng_read(input [3:0] i, input [63:0] src, input [63:0] dst,
                                       input [31:0] len, input [63:0] str, input [63:0] nxt,
                                       input [31:0] ctl, input [63:0] status, input [63:0] error,
                                       input [63:0] bytes, input [63:0] busy_cycles);
        case (i)
        CSR_TX_DESC_SRC_ADDR[6:3]:    eng_read = src;
        CSR_TX_DESC_DST_ADDR[6:3]:    eng_read = dst;
        CSR_TX_DESC_LEN_ADDR[6:3]:    eng_read = {32'd0, len};
        CSR_TX_DESC_STRIDE_ADDR[6:3]: eng_read = str;
        CSR_TX_DESC_NEXT_ADDR[6:3]:   eng_read = nxt;
        CSR_TX_DESC_CTRL_ADDR[6:3]:   eng_read = {32'd0, ctl};
        CSR_TX_STATUS_ADDR[6:3]:      eng_read = status;
        CSR_TX_ERROR_ADDR[6:3]:       eng_read = error;
        CSR_TX_BYTES_ADDR[6:3]:       eng_read = bytes;
        CSR_TX_BUSY_CYCLES_ADDR[6:3]: eng_read = busy_cycles;
        default:                      eng_read = 64'd0;
        endcase
    endfunction
    wire [63:0] rd_tx = eng_read(ri, src_reg[0], dst_reg[0], len_reg[0], str_reg[0], nxt_reg[0],
                                 ctl_reg[0], tx_status, tx_error, tx_bytes, tx_busy_cycles);
    wire [63:0] rd_rx = eng_read(ri, src_reg[1], dst_reg[1], len_reg[1], str_reg[1], nxt_reg[1],
                                 ctl_reg[1], rx_status, rx_error, rx_bytes, rx_busy_cycles);
    always @* begin
        rd_hdr = 64'd0;
        case (ri)
        CSR_DFH_ADDR[6:3]:        rd_hdr = 64'h1000010000000000;
        CSR_AFU_ID_L_ADDR[6:3]:   rd_hdr = AFU_ID_L;
        CSR_AFU_ID_H_ADDR[6:3]:   rd_hdr = AFU_ID_H;
        CSR_SHELL_INFO_ADDR[6:3]: rd_hdr = shell_info;
        CSR_SCRATCH_ADDR[6:3]:    rd_hdr = scratch_reg;
        CSR_CYCLES_ADDR[6:3]:     rd_hdr = cycles_reg;
        CSR_IRQ_STATUS_ADDR[6:3]: rd_hdr = {62'd0, irq_status_reg};
        CSR_IRQ_ENABLE_ADDR[6:3]: rd_hdr = {62'd0, irq_enable_reg};
        default:                  rd_hdr = 64'd0;
        endcase
        rd_core = 64'd0;
        case (ri)
        CSR_CORE_STATUS_ADDR[6:3]:           rd_core = {56'd0, core_status};
        CSR_CORE_ELEMENTS_ADDR[6:3]:         rd_core = core_elements;
        CSR_CORE_IN_TOTAL_CYCLES_ADDR[6:3]:  rd_core = in_total;
        CSR_CORE_IN_MOVED_CYCLES_ADDR[6:3]:  rd_core = in_moved;
        CSR_CORE_OUT_TOTAL_CYCLES_ADDR[6:3]: rd_core = out_total;
        CSR_CORE_OUT_MOVED_CYCLES_ADDR[6:3]: rd_core = out_moved;
        CSR_CORE_PRIME_CYCLES_ADDR[6:3]:     rd_core = prime_cycles;
        CSR_CORE_IN_FIRST_CYCLES_ADDR[6:3]:  rd_core = in_first;
        default:                             rd_core = 64'd0;
        endcase
        case (rp)
        CSR_DFH_ADDR[11:7]:         rd_page = rd_hdr;
        CSR_TX_DESC_SRC_ADDR[11:7]: rd_page = rd_tx;
        CSR_RX_DESC_SRC_ADDR[11:7]: rd_page = rd_rx;
        CSR_CORE_CTRL_ADDR[11:7]:   rd_page = rd_core;
        default:                    rd_page = rp[4] ? {32'd0, rd_regs[32*rp[3:0] +: 32]} : 64'd0;
        endcase
    end
    genvar p;
    generate
        for (p = 0; p < 16; p = p + 1) begin : g_reg_page
            reg [31:0] v;
            integer j;
            always @* begin
                v = 32'd0;
                for (j = 0; j < 16; j = j + 1)
                    if (ri == j[3:0] && 16 * p + j < N_REGS)
                        v = regs_reg[16 * p + j];
            end
            assign rd_regs[32*p +: 32] = v;
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            mmio_rd_resp_valid <= 1'b0;
            mmio_rd_resp_data  <= 64'd0;
        end else begin
            mmio_rd_resp_valid <= mmio_rd_valid;
            if (mmio_rd_valid)
                mmio_rd_resp_data <= rd_data;
        end
    end

    wire unused_ok = &{1'b0, mmio_wr_addr[2:0], mmio_rd_addr[2:0]};
endmodule

`default_nettype wire
