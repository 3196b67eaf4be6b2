// Cycle-by-cycle testbench for spgen cores, driven by a job file (see _sim.py).
// One binary can hold several cores (a wrapper selects one at run time), so a
// test suite pays for one Verilator build. Stall patterns keep AXI-Stream rules:
// s_valid stays high until accepted; m_ready may drop at any cycle.
#include "Vspgtb_top.h"
#include "verilated.h"
#ifdef SPG_TRACE
#include "verilated_fst_c.h"
#endif

#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Rng {
    uint64_t s;
    uint32_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return static_cast<uint32_t>(s >> 32);
    }
};

template <typename W>
void put_words(W& sig, const uint32_t* src, size_t n, size_t cap) {
    for (size_t i = 0; i < cap; ++i) sig[i] = i < n ? src[i] : 0u;
}

template <typename W>
void get_words(const W& sig, uint32_t* dst, size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = sig[i];
}

bool read_all(FILE* f, void* p, size_t bytes) { return std::fread(p, 1, bytes, f) == bytes; }

int fail(const char* msg) {
    std::fprintf(stderr, "spgen-tb: %s\n", msg);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return fail("usage: tb JOB OUT [TRACE.fst]");
    FILE* jf = std::fopen(argv[1], "rb");
    if (!jf) return fail("cannot open job file");
    // Header: sel, n, in_words, brch_in_words, out_words, brch_out_words, nregs,
    // stall (0/1), seed, settle, repeat, watchdog, prelude count P; then P stream
    // lengths: P shorter streams (prefixes of the input) go first, then `repeat`
    // streams of all n elements, back to back.
    uint64_t h[13];
    if (!read_all(jf, h, sizeof h)) return fail("short job header");
    std::vector<uint64_t> lens(h[12]);
    if (!read_all(jf, lens.data(), lens.size() * 8)) return fail("short job header");
    const uint64_t sel = h[0], n = h[1], iw = h[2], biw = h[3], ow = h[4], bow = h[5];
    const uint64_t nregs = h[6], stall = h[7], settle = h[9], repeat = h[10], watchdog = h[11];
    Rng rng{h[8] * 0x9E3779B97F4A7C15ull + 0x1234567ull};
    std::vector<uint32_t> regs(nregs), in(n * iw), bin(n * biw);
    if (!read_all(jf, regs.data(), regs.size() * 4) || !read_all(jf, in.data(), in.size() * 4) ||
        !read_all(jf, bin.data(), bin.size() * 4))
        return fail("short job file");
    std::fclose(jf);

    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(1, argv);
    ctx->randReset(2);  // power-up values random (the model is built with --x-initial unique)
    ctx->randSeed(static_cast<int>(h[8] % 1000003u) + 1);
    auto top = std::make_unique<Vspgtb_top>(ctx.get());
#ifdef SPG_TRACE
    std::unique_ptr<VerilatedFstC> tfp;
    if (argc > 3) {
        ctx->traceEverOn(true);
        tfp = std::make_unique<VerilatedFstC>();
        top->trace(tfp.get(), 99);
        tfp->open(argv[3]);
    }
#endif
    uint64_t time = 0;
    // one clock level: evaluated, and traced as one time step
    auto level = [&](int clk) {
        top->clk = clk;
        top->eval();
#ifdef SPG_TRACE
        if (tfp) tfp->dump(time);
#endif
        ++time;
    };
    auto step = [&]() { level(0); level(1); };
    const size_t in_cap = sizeof(top->s_data) / 4, bin_cap = sizeof(top->s_brch_data) / 4;
    const size_t reg_cap = sizeof(top->regs) / 4;
    top->sel = static_cast<uint8_t>(sel);
    put_words(top->regs, regs.data(), regs.size(), reg_cap);
    top->s_valid = 0;
    top->s_brch_valid = 0;
    top->m_ready = 0;
    top->m_brch_ready = 0;
    top->rst = 1;
    for (int i = 0; i < 4; ++i) step();
    top->rst = 0;
    for (uint64_t i = 0; i < settle + 2; ++i) step();

    for (uint64_t r = 0; r < repeat; ++r) lens.push_back(n);
    uint64_t total = 0;
    for (uint64_t len : lens) {
        if (len == 0 || len > n) return fail("bad stream length");
        total += len;
    }
    std::vector<uint32_t> out(total * ow), bout(total * bow);
    uint64_t cycles = 0, ticks = 0, bad_last = 0, hung = 0;
    auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    uint64_t base = 0;
    for (size_t r = 0; r < lens.size() && !hung; base += lens[r], ++r) {
        const uint64_t len = lens[r];
        uint64_t ii = 0, oi = 0, boi = 0, idle = 0;
        bool hold = false;
        while (oi < len || boi < (bow ? len : 0)) {
            bool sv = hold || (ii < len && (!stall || rng.next() % 4 != 0));
            bool mr = !stall || rng.next() % 3 != 0;
            bool bmr = !stall || rng.next() % 3 != 0;
            top->s_valid = sv;
            top->s_brch_valid = sv;
            top->s_last = sv && ii == len - 1;
            top->s_brch_last = top->s_last;
            if (sv) {
                put_words(top->s_data, &in[ii * iw], iw, in_cap);
                put_words(top->s_brch_data, biw ? &bin[ii * biw] : nullptr, biw, bin_cap);
            }
            top->m_ready = mr;
            top->m_brch_ready = bmr;
            top->clk = 0;
            top->eval();
            const bool fin = sv && top->s_ready && (biw == 0 || top->s_brch_ready);
            const bool fout = top->m_valid && mr;
            const bool bfout = bow && top->m_brch_valid && bmr;
            if (fout) {
                if (oi >= len) { hung = 3; break; }
                get_words(top->m_data, &out[(base + oi) * ow], ow);
                if (static_cast<bool>(top->m_last) != (oi == len - 1)) ++bad_last;
                ++oi;
            }
            if (bfout) {
                if (boi >= len) { hung = 3; break; }
                get_words(top->m_brch_data, &bout[(base + boi) * bow], bow);
                if (static_cast<bool>(top->m_brch_last) != (boi == len - 1)) ++bad_last;
                ++boi;
            }
            ticks += top->tick;
            step();
            ++cycles;
            if (fin) ++ii;
            hold = sv && !fin;
            idle = (fin || fout || bfout) ? 0 : idle + 1;
            if (idle > watchdog) { hung = 1; break; }
        }
        // The core must go quiet: no extra outputs after the N-th.
        for (int i = 0; i < 8 && !hung; ++i) {
            top->s_valid = 0;
            top->s_brch_valid = 0;
            top->m_ready = 1;
            top->m_brch_ready = 1;
            top->clk = 0;
            top->eval();
            if (top->m_valid || (bow && top->m_brch_valid)) hung = 3;
            step();
        }
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // CPU time as well: on a shared machine it, unlike wall time, ignores other load
    double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
#ifdef SPG_TRACE
    if (tfp) tfp->close();
#endif
    top->final();
    FILE* of = std::fopen(argv[2], "wb");
    if (!of) return fail("cannot write output file");
    uint64_t wall_ns = static_cast<uint64_t>(wall * 1e9);
    uint64_t cpu_ns = static_cast<uint64_t>(cpu * 1e9);
    uint64_t res[7] = {hung, bad_last, cycles, ticks, wall_ns, total, cpu_ns};
    std::fwrite(res, sizeof res, 1, of);
    std::fwrite(out.data(), 4, out.size(), of);
    std::fwrite(bout.data(), 4, bout.size(), of);
    std::fclose(of);
    return 0;
}
