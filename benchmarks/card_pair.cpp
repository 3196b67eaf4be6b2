// Paired speed of two simulated-card libraries (the spg_afu_* ABI of runtime/sim/afu_pins.h)
// on a shared, loaded machine: both cards run in one thread, alternating runs of N records
// of the 10-word LBM record through the cores (a started run, memory with a fixed read
// latency of 20 cycles and waitrequest on every 5th/7th cycle, the model evaluated as
// runtime/sim/card.cpp does: clk 0, again if waitrequest changed, clk 1), and the medians of
// card cycles per thread CPU-second and of the per-pair speed ratio are printed, with a hash
// of each card's output bytes (equal for cycle-identical cards). No idle cycles are counted
// and no runtime is involved: the card library's own cost per cycle.
//
//   g++ -O2 -std=c++17 -Iruntime/sim benchmarks/card_pair.cpp -o card_pair -ldl
//   taskset -c 0 ./card_pair OLD/sim/libafucard.so NEW/sim/libafucard.so 6560 60
// (two copies of one library must have different paths: dlopen loads a path once)
#include <dlfcn.h>
#include <time.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>
#include "afu_pins.h"
struct Rd { uint64_t at; uint64_t addr; int left; };
struct Card {
    spg_afu_eval_fn eval; void* afu; spg_afu_pins p{}; std::deque<Rd> reads; uint64_t cyc = 0, wa = 0; int wl = 0;
    std::vector<uint8_t> mem; int n, inw, outw;
    Card(const char* lib, int n_, int inw_, int outw_) : mem(64 << 20), n(n_), inw(inw_), outw(outw_) {
        void* dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        if (!dl) { std::fprintf(stderr, "%s\n", dlerror()); std::exit(1); }
        eval = (spg_afu_eval_fn)dlsym(dl, "spg_afu_eval");
        afu = ((spg_afu_new_fn)dlsym(dl, "spg_afu_new"))();
        uint32_t* w = (uint32_t*)mem.data(); uint32_t s = 1;
        for (int i = 0; i < n * inw; ++i) { s = s * 1664525u + 1013904223u; float f = 0.01f + (s >> 8) * 1e-9f; std::memcpy(&w[i], &f, 4); }
        for (int i = 0; i < n; ++i) w[i * inw + inw - 1] = (i % 7 == 0);
        p.rst = 1; for (int i = 0; i < 8; ++i) step(); p.rst = 0;
        for (int i = 0; i < 3; ++i) { float f = 0.5f + 0.1f * i; uint32_t u; std::memcpy(&u, &f, 4); wr(0x800 + 8 * i, u); }
        for (int i = 0; i < 200; ++i) step();
    }
    void step() {
        p.tx_rd.readdatavalid = 0;
        if (!reads.empty() && reads.front().at <= cyc) {
            Rd& r = reads.front(); p.tx_rd.readdatavalid = 1; std::memcpy(p.tx_rd.readdata, &mem[r.addr], 64);
            r.addr += 64; if (--r.left == 0) reads.pop_front();
        }
        eval(afu, &p, 0);
        uint8_t wt = (cyc % 5) == 0, wrq = (cyc % 7) == 0;
        if (wt != p.tx_rd.waitrequest || wrq != p.rx_wr.waitrequest) { p.tx_rd.waitrequest = wt; p.rx_wr.waitrequest = wrq; eval(afu, &p, 0); }
        if (p.tx_rd.read && !p.tx_rd.waitrequest) reads.push_back({cyc + 20, p.tx_rd.address, p.tx_rd.burstcount ? p.tx_rd.burstcount : 1});
        if (p.rx_wr.write && !p.rx_wr.waitrequest) {
            if (!wl) { wa = p.rx_wr.address; wl = p.rx_wr.burstcount ? p.rx_wr.burstcount : 1; }
            for (int b = 0; b < 64; ++b) if ((p.rx_wr.byteenable >> b) & 1) mem[wa + b] = ((uint8_t*)p.rx_wr.writedata)[b];
            wa += 64; --wl;
        }
        eval(afu, &p, 1);
        p.mmio_wr_valid = p.mmio_rd_valid = 0; ++cyc;
    }
    void wr(uint32_t a, uint64_t v) { p.mmio_wr_valid = 1; p.mmio_wr_addr = a; p.mmio_wr_data = v; step(); }
    uint64_t rd(uint32_t a) { p.mmio_rd_valid = 1; p.mmio_rd_addr = a; for (int i = 0; i < 64; ++i) { step(); if (p.mmio_rd_resp_valid) return p.mmio_rd_resp_data; } return ~0ull; }
    double run(uint64_t* cycles) {
        uint64_t rx0 = rd(0x230) >> 32;
        wr(0x410, n); wr(0x400, 1);
        wr(0x100, 0); wr(0x110, uint64_t(n) * inw * 4); wr(0x118, 0); wr(0x128, (1u << 31) | 2);
        wr(0x208, 32 << 20); wr(0x210, uint64_t(n) * outw * 4); wr(0x218, 0); wr(0x228, (1u << 31) | 2);
        timespec t0, t1; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0); uint64_t c0 = cyc;
        while (!((rd(0x408) & 2) && (rd(0x230) >> 32) > rx0)) for (int i = 0; i < 50; ++i) step();
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        *cycles = cyc - c0;
        return (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    }
    uint64_t hash() { uint64_t h = 1469598103934665603ull; for (size_t i = 0; i < size_t(n) * outw * 4; ++i) h = (h ^ mem[(32 << 20) + i]) * 1099511628211ull; return h; }
};
static double med(std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
int main(int argc, char** argv) {
    int n = atoi(argv[3]), rounds = atoi(argv[4]);
    Card a(argv[1], n, 10, 10), b(argv[2], n, 10, 10);

    std::vector<double> ra, rb, ratio; uint64_t ca = 0, cb = 0;
    for (int r = 0; r < rounds; ++r) {
        double ta, tb;
        if (r & 1) { tb = b.run(&cb); ta = a.run(&ca); } else { ta = a.run(&ca); tb = b.run(&cb); }
        ra.push_back(ca / ta / 1e6); rb.push_back(cb / tb / 1e6); ratio.push_back(ta / tb);
    }
    std::printf("A %.3f M/CPU-s (best %.3f)  B %.3f (best %.3f)  B/A speed: median %.3f  cycles %llu %llu  hash %s\n",
                med(ra), *std::max_element(ra.begin(), ra.end()), med(rb), *std::max_element(rb.begin(), rb.end()),
                med(ratio), (unsigned long long)ca, (unsigned long long)cb, a.hash() == b.hash() ? "same" : "DIFFERENT");
}
