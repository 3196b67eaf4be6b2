// Parameters of the AFU (afu_top, afu_shell): the core cascade, the Reg values, the DMA
// engines and the AFU ID. Included as a module's whole parameter list; spgen build sets
// them (-G for Verilator, the Platform Designer component for Quartus).
    parameter integer N_CORES          = 0,      // cores in the cascade, 0 = loop-back
    parameter integer RECORD_WORDS     = 1,      // 32-bit words per record at the core input
    parameter integer OUT_RECORD_WORDS = RECORD_WORDS,  // ... at the core output
    parameter integer N_REGS           = 0,      // Reg values of the core, 0..256
    parameter [8191:0] REG_DEFAULTS = 8192'd0,  // 32 bits per Reg (up to 256), Reg 0 lowest
    parameter integer DESC_FIFO_DEPTH  = 16,     // descriptor FIFO entries per engine
    parameter integer MAX_BURST        = 16,     // beats per memory burst
    parameter integer MAX_READS        = 256,    // TX read beats in flight or buffered
    parameter integer SORT_SCATTER     = 0,      // 1: the sort's scatter writer on the RX master
    parameter [63:0]  AFU_ID_L         = 64'hac3cf1e8beaefcca,  // AFU ID, low half
    parameter [63:0]  AFU_ID_H         = 64'h48ae995a649b4c39   // AFU ID, high half
