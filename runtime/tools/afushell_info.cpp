// afushell-info URI: opens a target and prints its build facts, registers and model parameters.
#include <cinttypes>
#include <cstdio>

#include <afushell/afushell.h>
#ifdef __has_include
#if __has_include(<opae/spgen_sim.h>)
#include <opae/spgen_sim.h>
#endif
#endif

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: afushell-info URI   (sim:loopback, sim:BUILD_DIR or an AFU ID)\n");
        return 2;
    }
    afu_shell_handle h = nullptr;
    if (afuShellOpen(argv[1], &h) != FPGA_OK) {
        std::fprintf(stderr, "afushell-info: %s\n", afuShellLastError());
        return 1;
    }
    afu_shell_info i{};
    afuShellInfo(h, &i);
    std::printf("cores %u, record words in %u out %u, regs %u, descriptor FIFO %u, %s\n", i.n_cores,
                i.in_record_words, i.out_record_words, i.n_regs, i.desc_fifo_depth,
                i.simulated ? "simulated" : "hardware");
    const char* regs[] = {"DFH", "AFU_ID_L", "AFU_ID_H", "SHELL_INFO", "CYCLES", "TX_STATUS", "RX_STATUS"};
    for (const char* r : regs) {
        uint64_t v = 0;
        afuShellReadReg(h, r, &v);
        std::printf("%-12s 0x%016" PRIx64 "\n", r, v);
    }
    afuShellClose(h);
    return 0;
}
