// Runs the plan's firmware on plan_cpu.v (Verilator) over one counts table and checks every
// card's plan against the same code run on the host, which it also times.
//   tb FIRMWARE.bin TABLE.bin N B EXACT   ->  one JSON object on stdout
// TABLE.bin: uint32 counts [N][B]. Exit 1 on a mismatch or a trap, 2 on bad arguments.
#include "Vplan_cpu.h"
#include "Vplan_cpu___024root.h"
#include "verilated.h"

#include <afushell/sort_plan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

static std::vector<char> slurp(const char *path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

int main(int argc, char **argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: tb FIRMWARE.bin TABLE.bin N B EXACT\n");
        return 2;
    }
    const std::vector<char> fw = slurp(argv[1]), tb = slurp(argv[2]);
    const int N = std::atoi(argv[3]);
    const uint64_t B = std::strtoull(argv[4], nullptr, 10);
    const bool exact = std::atoi(argv[5]) != 0;
    // the RAM's regions (fw.cpp): the table below 32 KiB, the scratch below 64 KiB, the
    // results (at most B + N pieces a card) below 120 KiB, above them the stack
    if (N < 1 || !B || tb.size() != 4 * uint64_t(N) * B || 4 * uint64_t(N) * B > 0x8000 ||
        8 * afushell::sort_plan::scratch_words(N, B) > 0x10000 || 16 + N * (48 + 32 * (B + N)) > 0x1E000 ||
        fw.empty() || fw.size() > 0x4000) {
        std::fprintf(stderr, "tb: a firmware of at most 16 KiB and a table of N x B uint32 whose plan fits the RAM\n");
        return 2;
    }
    std::vector<uint32_t> table(uint64_t(N) * B);
    std::copy(tb.begin(), tb.end(), reinterpret_cast<char *>(table.data()));

    Verilated::commandArgs(argc, argv);
    Vplan_cpu top;
    auto &ram = top.rootp->plan_cpu__DOT__ram;
    auto put = [&](uint32_t addr, const void *p, size_t bytes) {
        for (size_t i = 0; i < bytes; i += 4) {
            uint32_t w = 0;
            std::copy_n(static_cast<const char *>(p) + i, std::min<size_t>(4, bytes - i), reinterpret_cast<char *>(&w));
            ram[(addr + i) / 4] = w;
        }
    };
    auto word64 = [&](uint32_t addr) { return uint64_t(ram[addr / 4]) | uint64_t(ram[addr / 4 + 1]) << 32; };
    put(0, fw.data(), fw.size());
    const uint32_t job[3] = {uint32_t(N), uint32_t(B), uint32_t(exact)};
    put(0x4000, job, sizeof job);
    put(0x8000, table.data(), 4 * table.size());

    top.clk = 0, top.resetn = 0;
    uint64_t cycle = 0;
    auto tick = [&] {
        top.clk = 1, top.eval();
        top.clk = 0, top.eval();
        ++cycle;
    };
    for (int i = 0; i < 8; ++i) tick();
    top.resetn = 1;
    while (!top.done && !top.trap && cycle < 2000000000ull) tick();
    if (!top.done) {
        std::fprintf(stderr, "tb: the processor %s after %llu cycles\n", top.trap ? "trapped" : "did not finish",
                     (unsigned long long)cycle);
        return 1;
    }

    // every card's plan, from the processor's memory and from the same code on the host
    std::vector<uint64_t> scratch(afushell::sort_plan::scratch_words(N, B));
    afushell::sort_plan::plan_shared(table.data(), N, B, exact, scratch.data());
    const uint64_t shared_cycles = word64(0x20000), shared_ins = word64(0x20008);
    uint32_t at = 0x20010;
    uint64_t worst = 0, worst_ins = 0, pieces_all = 0;
    for (int c = 0; c < N; ++c) {
        std::vector<uint64_t> want;
        uint64_t first = 0, last = 0;
        const uint64_t received = afushell::sort_plan::plan_card(
            table.data(), N, B, c, exact, scratch.data(),
            [&](int d, uint64_t local, uint64_t remote, uint64_t keys) { want.insert(want.end(), {uint64_t(d), local, remote, keys}); },
            &first, &last);
        const uint64_t n = word64(at + 40);
        bool same = word64(at + 16) == received && (exact || (word64(at + 24) == first && word64(at + 32) == last)) &&
                    4 * n == want.size();
        for (uint64_t i = 0; same && i < want.size(); ++i) same = word64(at + 48 + 8 * uint32_t(i)) == want[i];
        if (!same) {
            std::fprintf(stderr, "tb: card %d's plan on the processor differs from the host's\n", c);
            return 1;
        }
        if (word64(at) > worst) worst = word64(at), worst_ins = word64(at + 8);
        pieces_all += n;
        at += 48 + 32 * uint32_t(n);
    }
    // the host, the median of 201 runs: every card's plan (as sort_on_cards computes them),
    // and one card's (the shared part and the last card's, as that card would)
    auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    std::vector<double> all_ns, one_ns;
    volatile uint64_t sink = 0;
    auto plan = [&](int c) {
        sink = sink + afushell::sort_plan::plan_card(table.data(), N, B, c, exact, scratch.data(),
                                                     [&](int, uint64_t, uint64_t, uint64_t keys) { sink = sink + keys; });
    };
    for (int rep = 0; rep < 201; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        afushell::sort_plan::plan_shared(table.data(), N, B, exact, scratch.data());
        for (int c = 0; c < N; ++c) plan(c);
        auto t1 = std::chrono::steady_clock::now();
        afushell::sort_plan::plan_shared(table.data(), N, B, exact, scratch.data());
        plan(N - 1);
        auto t2 = std::chrono::steady_clock::now();
        all_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
        one_ns.push_back(std::chrono::duration<double, std::nano>(t2 - t1).count());
    }
    std::printf("{\"cards\": %d, \"bins\": %llu, \"exact\": %s, \"pieces\": %llu, \"cpu_shared_cycles\": %llu, "
                "\"cpu_shared_instructions\": %llu, \"cpu_card_cycles\": %llu, \"cpu_card_instructions\": %llu, "
                "\"run_cycles\": %llu, \"host_ns_all_cards\": %.1f, \"host_ns_one_card\": %.1f}\n",
                N, (unsigned long long)B, exact ? "true" : "false", (unsigned long long)pieces_all,
                (unsigned long long)shared_cycles, (unsigned long long)shared_ins, (unsigned long long)worst,
                (unsigned long long)worst_ins, (unsigned long long)cycle, median(all_ns), median(one_ns));
    return 0;
}
