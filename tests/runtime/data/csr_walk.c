/* Every register of the generated name table, resolved and read by name through the C API
 * on the loop-back card: prints "NAME OFFSET" per register (array elements as NAME<i>). */
#include <stdio.h>

#include "afushell/afushell.h"
#include "afushell_csr_names.h"

int main(void) {
    afu_shell_handle h;
    if (afuShellOpen("sim:loopback", &h) != FPGA_OK) return 2;
    int bad = 0;
    for (unsigned r = 0; r < AFUSHELL_CSR_REG_COUNT; ++r) {
        const afushell_csr_reg_t* g = &afushell_csr_regs[r];
        for (unsigned i = 0; i < g->count; ++i) {
            char name[64];
            if (g->count > 1) snprintf(name, sizeof name, "%s%u", g->name, i);
            else snprintf(name, sizeof name, "%s", g->name);
            uint64_t off = 0, value = 0;
            if (afuShellRegOffset(h, name, &off) != FPGA_OK || afuShellReadReg(h, name, &value) != FPGA_OK) {
                fprintf(stderr, "%s: %s\n", name, afuShellLastError());
                ++bad;
                continue;
            }
            printf("%s 0x%llx\n", name, (unsigned long long)off);
        }
    }
    afuShellClose(h);
    return bad != 0;
}
