// Every register of the generated name table read by name through the C++ API (afushell.hpp)
// on the loop-back card: prints "NAME OFFSET" per register (array elements as NAME<i>).
#include <cstdio>
#include <string>

#include "afushell/afushell.hpp"
#include "afushell_csr_names.h"

int main() {
    auto card = afushell::Card::open("sim:loopback");
    for (const auto& g : afushell_csr_regs)
        for (unsigned i = 0; i < g.count; ++i) {
            const std::string name = g.count > 1 ? g.name + std::to_string(i) : std::string(g.name);
            card->read_reg(name);  // throws afushell::Failure for a name it does not know
            uint64_t off = 0;
            if (afuShellRegOffset(card->handle(), name.c_str(), &off) != FPGA_OK) return 1;
            std::printf("%s 0x%llx\n", name.c_str(), static_cast<unsigned long long>(off));
        }
    return 0;
}
