// afushell-bench URI MAX_BYTES [REPS] [MIN_BYTES]: the `spgen bench dma` sweep without Python, for
// machines that have only the built libraries. Each repetition runs H2F (host -> A),
// F2F (A -> B), F2H (B -> host) and H2H on fresh data and checks what comes back.
// Prints the result document of `spgen bench dma --json` (records only) on stdout.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <afushell/afushell.hpp>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: afushell-bench URI MAX_BYTES [REPS] [MIN_BYTES]\n");
        return 2;
    }
    const std::string uri = argv[1];
    const uint64_t top = std::strtoull(argv[2], nullptr, 0);
    const int reps = argc > 3 ? std::atoi(argv[3]) : 10;
    const uint64_t bottom = argc > 4 ? std::strtoull(argv[4], nullptr, 0) : 4;
    const char* types[4] = {"F2F", "H2F", "F2H", "H2H"};
    const double peak[4] = {12.8, 7.877, 7.877, 7.877};
    try {
        auto card = afushell::Card::open(uri);
        card->require_plain_copy("afushell-bench");
        auto src = card->alloc(top), back = card->alloc(top), hh = card->alloc(top);
        std::vector<uint32_t> base(top / 4);
        std::mt19937 rng(1);
        for (auto& w : base) w = rng();
        void* a = reinterpret_cast<void*>(uintptr_t(0x40));
        void* b = reinterpret_cast<void*>(uintptr_t(0x100001000ull));
        auto s0 = card->sim_stats();
        std::printf("{\"benchmark\": \"dma\", \"key\": [\"type\", \"bytes\"], \"target\": \"%s\", \"reps\": %d,\n"
                    " \"records\": [\n", uri.c_str(), reps);
        bool first = true;
        int errors = 0;
        for (uint64_t size = bottom; size <= top; size *= 2) {
            std::vector<double> t[4];
            int bad[4] = {0, 0, 0, 0};
            for (int rep = 0; rep < reps; ++rep) {
                auto* s = src->as<uint32_t>();
                const uint32_t k = 0x9E3779B9u * uint32_t(rep + 1);
                for (uint64_t i = 0; i < size / 4; ++i) s[i] = base[i] ^ k;
                std::memset(back->data(), 0, size);
                std::memset(hh->data(), 0, size);
                t[1].push_back(double(card->dma(a, src->data(), size, H2F)));
                t[0].push_back(double(card->dma(b, a, size, F2F)));
                t[2].push_back(double(card->dma(back->data(), b, size, F2H)));
                t[3].push_back(double(card->dma(hh->data(), src->data(), size, H2H)));
                bool ok = std::memcmp(back->data(), src->data(), size) == 0;
                bool ok_h = std::memcmp(hh->data(), src->data(), size) == 0;
                for (int k2 = 0; k2 < 3; ++k2) bad[k2] += ok ? 0 : 1;
                bad[3] += ok_h ? 0 : 1;
            }
            for (int k2 = 0; k2 < 4; ++k2) {
                double sum = 0, mn = 1e300, mx = 0;
                for (double v : t[k2]) { sum += v; mn = v < mn ? v : mn; mx = v > mx ? v : mx; }
                double mean = sum / double(t[k2].size()), gbps = double(size) / mean;
                errors += bad[k2];
                std::printf("%s  {\"type\": \"%s\", \"bytes\": %" PRIu64 ", \"reps\": %d, \"mean_ns\": %.1f, "
                            "\"min_ns\": %.1f, \"max_ns\": %.1f, \"gbps\": %.6f, \"efficiency\": %.6f, "
                            "\"integrity_errors\": %d}", first ? "" : ",\n", types[k2], size, reps, mean, mn, mx,
                            gbps, gbps / peak[k2], bad[k2]);
                first = false;
            }
            std::fflush(stdout);
            auto s = card->sim_stats();
            std::fprintf(stderr, "%" PRIu64 " bytes done, %.2f M cycles/s\n", size,
                         double(s.cycles - s0.cycles) / (s.wall_s - s0.wall_s) / 1e6);
        }
        auto s1 = card->sim_stats();
        double wall = s1.wall_s - s0.wall_s;
        std::printf("\n ],\n \"sim_cycles\": %" PRIu64 ", \"sim_wall_s\": %.3f, \"cycles_per_s\": %.1f}\n",
                    s1.cycles - s0.cycles, wall, double(s1.cycles - s0.cycles) / wall);
        return errors ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "afushell-bench: %s\n", e.what());
        return 1;
    }
}
