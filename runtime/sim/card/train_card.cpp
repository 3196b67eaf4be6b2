// Training run for the profile-guided build of a fast card (spgen.runtime._build): loads a
// card library compiled with -fprofile-generate and streams records through its cores the
// way a host does (a started run: TX from host memory through the cores to RX), so that
// the compiler learns which branches of the per-cycle code a streaming card takes. The
// data are arbitrary floats; only the branch and call profile matters. Memory answers
// reads after 20 cycles and asserts waitrequest on some cycles, as in card_pair.cpp.
//
//   train_card LIB RECORDS IN_WORDS OUT_WORDS N_REGS      (exit status 0: trained)
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

#include "afu_pins.h"
#include "afushell_csr.h"

namespace {
struct Read { uint64_t at, addr; int left; };

struct Card {
    spg_afu_eval_fn eval = nullptr;
    void* afu = nullptr;
    spg_afu_pins p{};
    std::deque<Read> reads;
    std::vector<uint8_t> mem;
    uint64_t cyc = 0, wa = 0;
    int wl = 0;
    static constexpr uint64_t kOut = 32u << 20;  // where RX writes

    void step() {
        p.tx_rd.readdatavalid = 0;
        if (!reads.empty() && reads.front().at <= cyc) {
            Read& r = reads.front();
            p.tx_rd.readdatavalid = 1;
            std::memcpy(p.tx_rd.readdata, &mem[r.addr], 64);
            r.addr += 64;
            if (--r.left == 0) reads.pop_front();
        }
        eval(afu, &p, 0);
        uint8_t wt = (cyc % 5) == 0, wrq = (cyc % 7) == 0;
        if (wt != p.tx_rd.waitrequest || wrq != p.rx_wr.waitrequest) {
            p.tx_rd.waitrequest = wt;
            p.rx_wr.waitrequest = wrq;
            eval(afu, &p, 0);
        }
        if (p.tx_rd.read && !p.tx_rd.waitrequest)
            reads.push_back({cyc + 20, p.tx_rd.address, p.tx_rd.burstcount ? p.tx_rd.burstcount : 1});
        if (p.rx_wr.write && !p.rx_wr.waitrequest) {
            if (!wl) {
                wa = p.rx_wr.address;
                wl = p.rx_wr.burstcount ? p.rx_wr.burstcount : 1;
            }
            if (wa + 64 <= mem.size())
                for (int b = 0; b < 64; ++b)
                    if ((p.rx_wr.byteenable >> b) & 1) mem[wa + b] = reinterpret_cast<uint8_t*>(p.rx_wr.writedata)[b];
            wa += 64;
            --wl;
        }
        eval(afu, &p, 1);
        p.mmio_wr_valid = p.mmio_rd_valid = 0;
        ++cyc;
    }
    void wr(uint32_t a, uint64_t v) {
        p.mmio_wr_valid = 1;
        p.mmio_wr_addr = a;
        p.mmio_wr_data = v;
        step();
    }
    uint64_t rd(uint32_t a) {
        p.mmio_rd_valid = 1;
        p.mmio_rd_addr = a;
        for (int i = 0; i < 64; ++i) {
            step();
            if (p.mmio_rd_resp_valid) return p.mmio_rd_resp_data;
        }
        return ~0ull;
    }
};
}  // namespace

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: train_card LIB RECORDS IN_WORDS OUT_WORDS N_REGS\n");
        return 2;
    }
    const uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const int inw = std::atoi(argv[3]), outw = std::atoi(argv[4]), nregs = std::atoi(argv[5]);
    void* dl = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        std::fprintf(stderr, "train_card: %s\n", dlerror());
        return 1;
    }
    Card c;
    c.eval = reinterpret_cast<spg_afu_eval_fn>(dlsym(dl, "spg_afu_eval"));
    auto make = reinterpret_cast<spg_afu_new_fn>(dlsym(dl, "spg_afu_new"));
    auto done = reinterpret_cast<void (*)(void*)>(dlsym(dl, "spg_afu_free"));
    if (!c.eval || !make || !done) {
        std::fprintf(stderr, "train_card: not a card library\n");
        return 1;
    }
    c.afu = make();
    c.mem.assign(Card::kOut + n * outw * 4 + 4096, 0);
    uint32_t s = 1;
    for (uint64_t i = 0; i < n * inw; ++i) {
        s = s * 1664525u + 1013904223u;
        float f = 0.01f + float(s >> 8) * 1e-9f;
        std::memcpy(&c.mem[4 * i], &f, 4);
    }
    c.p.rst = 1;
    for (int i = 0; i < 8; ++i) c.step();
    c.p.rst = 0;
    for (int i = 0; i < nregs && i < AFUSHELL_CORE_REG_COUNT; ++i) {
        float f = 0.5f + 0.1f * float(i);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        c.wr(AFUSHELL_CORE_REG(i), u);
    }
    for (int i = 0; i < 200; ++i) c.step();
    const uint64_t go = AFUSHELL_DMA_DESC_CTRL_GO_MASK | 2;
    for (int run = 0; run < 2; ++run) {
        const uint64_t rx0 = c.rd(AFUSHELL_RX_STATUS) >> 32;
        c.wr(AFUSHELL_CORE_ELEMENTS, n);
        c.wr(AFUSHELL_CORE_CTRL, AFUSHELL_CORE_CTRL_START_MASK);
        c.wr(AFUSHELL_TX_DESC_SRC, 0);
        c.wr(AFUSHELL_TX_DESC_LEN, n * inw * 4);
        c.wr(AFUSHELL_TX_DESC_STRIDE, 0);
        c.wr(AFUSHELL_TX_DESC_CTRL, go);
        c.wr(AFUSHELL_RX_DESC_DST, Card::kOut);
        c.wr(AFUSHELL_RX_DESC_LEN, n * outw * 4);
        c.wr(AFUSHELL_RX_DESC_STRIDE, 0);
        c.wr(AFUSHELL_RX_DESC_CTRL, go);
        const uint64_t limit = c.cyc + 100 * n + 100000;
        while (!((c.rd(AFUSHELL_CORE_STATUS) & 2) && (c.rd(AFUSHELL_RX_STATUS) >> 32) > rx0)) {
            if (c.cyc > limit) {
                std::fprintf(stderr, "train_card: the run did not finish\n");
                return 1;
            }
            for (int i = 0; i < 50; ++i) c.step();
        }
    }
    done(c.afu);  // (the profile is written at exit)
    return 0;
}
