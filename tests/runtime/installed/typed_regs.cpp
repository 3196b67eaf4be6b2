// Registers by value and by bits on a card with cores (cores/exprmix: Regs gain:f32,
// mask:u32, bias:i32), through the C++ and C APIs of the installed runtime.
//   typed_regs sim:BUILD
#include <afushell/afushell.hpp>

#include <cstdio>
#include <cstring>
#include <type_traits>

static_assert(std::is_same<decltype(afuShellOpen(nullptr, nullptr)), afu_result>::value,
              "runtime calls return afu_result, not OPAE's fpga_result");

static int fail(const char* what) {
    std::printf("FAILED: %s\n", what);
    return 1;
}

int main(int argc, char** argv) {
    if (argc != 2) return fail("usage: typed_regs sim:BUILD");
    try {
        auto card = afushell::Card::open(argv[1]);
        card->write_reg("gain", 1.7);  // by value: the binary32 pattern of 1.7f
        const float f = 1.7f;
        uint32_t want;
        std::memcpy(&want, &f, sizeof want);
        if (card->read_reg("gain") != want) return fail("gain holds the bits of 1.7f");
        card->write_reg("bias", -1);
        if (card->read_reg_value("bias") != -1.0 || card->read_reg("bias") != 0xFFFFFFFFu)
            return fail("bias (i32) holds -1");
        try {
            card->write_reg("mask", -1);  // u32: refused, nothing written
            return fail("mask (u32) refuses -1");
        } catch (const afushell::Failure& e) {
            if (e.code() != AFU_ERR_REG_VALUE) return fail("the refusal's code is AFU_ERR_REG_VALUE");
            std::printf("refused: %s\n", e.what());
        }
        afu_shell_handle h = card->handle();  // the C API on the same card
        afu_result r = afuShellWriteRegValue(h, "bias", 2.5);
        if (r != AFU_ERR_REG_VALUE) return fail("C: bias (i32) refuses 2.5");
        std::printf("refused: %s [%s]\n", afuShellLastError(), afuShellErrStr(r));
        double v = 0;
        if (afuShellReadRegValue(h, "gain", &v) != FPGA_OK || float(v) != f)
            return fail("C: gain reads back as 1.7f");
        if (afuShellWriteReg(h, "gain", 0x3F000000u) != FPGA_OK || card->read_reg_value("gain") != 0.5)
            return fail("raw bits 0x3F000000 are 0.5");
        std::printf("typed registers ok: %s\n", card->reg_type("gain"));
        return 0;
    } catch (const std::exception& e) {
        std::printf("FAILED: %s\n", e.what());
        return 1;
    }
}
