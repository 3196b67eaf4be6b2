// The datapath of a fast core model (spgen build --core-model fast): the DPI-C side of
// the generated Verilog wrapper, which keeps the core's exact handshake, drain and
// output buffer and asks this file for the data of each element it pushes.
//
// The data come from the emulator's native kernel (spg_run, an object compiled by
// llvmlite and linked into the card library), run on slices of the stream the
// wrapper has fed in so far. Output element k is pushed LATENCY ticks after element
// k entered, by when every input element it depends on (k + LOOKAHEAD at most) has
// arrived; a slice ends where the next unknown input would matter, so each kernel
// call computes a batch of up to LATENCY + 1 - LOOKAHEAD outputs.
//
// spg_fast_layout.h (generated per build) gives the kernel's table layout: every
// read and store with its buffer, shift offset and phase, the phase lags and rings.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "Vafu_top__Dpi.h"
#include "spg_fast_layout.h"

extern "C" void SPG_FAST_SYMBOL(void* bases, void* offs, void* mods, void* lags, void* rng,
                                int64_t stages, int64_t t0, int64_t t1, int64_t n,
                                int64_t flags, void* regs, void* cls);

namespace {

constexpr int kIn = sizeof(spg_fast_in_word) / sizeof(spg_fast_in_word[0]);
constexpr int kOut = sizeof(spg_fast_out_word) / sizeof(spg_fast_out_word[0]);
constexpr int kKeys = sizeof(spg_fast_keys) / sizeof(spg_fast_keys[0]);
constexpr int kPhases = sizeof(spg_fast_lags) / sizeof(spg_fast_lags[0]);

struct Aligned {  // 64-byte aligned words that survive resizing by copy
    std::unique_ptr<uint32_t[]> raw;
    uint32_t* at = nullptr;
    size_t words = 0;
    void resize(size_t n, size_t keep) {
        auto fresh = std::make_unique<uint32_t[]>(n + 16);
        auto* p = reinterpret_cast<uint32_t*>((reinterpret_cast<uintptr_t>(fresh.get()) + 63) & ~uintptr_t(63));
        if (keep) std::memcpy(p, at, keep * 4);
        raw = std::move(fresh);
        at = p;
        words = n;
    }
};

constexpr int64_t kCompactMin = 256;  // elements dropped at least per compaction (the
                                       // tests' streams of 700 elements compact too)

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class FastCore {
public:
    FastCore() {
        rings_.resize(SPG_FAST_RING_WORDS, 0);
        for (auto& v : in_) v.resize(4096, 0);
        reset();
    }

    void reset() {
        first_ = received_ = pushed_ = out_lo_ = out_hi_ = 0;
        ended_ = false;
    }

    void feed(const uint32_t* data, bool last) {
        size_t at = size_t(received_ - first_);
        if (at == in_[0].words) {
            for (auto& v : in_) v.resize(2 * v.words, at);
        }
        for (int s = 0; s < kIn; ++s) in_[s].at[at] = data[spg_fast_in_word[s]];
        ++received_;
        if (last) ended_ = true;
    }

    void next(const uint32_t* regs, uint32_t* y) {
        int64_t k = pushed_++;
        if (k >= out_hi_) compute(k, regs);
        for (int r = 0; r < kOut; ++r) y[spg_fast_out_word[r]] = out_.at[r * out_cap_ + (k - out_lo_)];
    }

private:
    // Outputs [a, b) of the stream fed so far: the stream is "received_ long" unless it
    // has ended, which changes nothing below b (they read at most LOOKAHEAD ahead).
    void compute(int64_t a, const uint32_t* regs) {
        int64_t n = received_;
        int64_t b = ended_ ? n : n - SPG_FAST_LOOKAHEAD;
        if (b <= a) {
            std::fprintf(stderr, "spgen fast core %s: output %lld needed before its inputs "
                         "(%lld received); the fast model does not fit this core\n",
                         SPG_FAST_CORE, (long long)a, (long long)n);
            std::abort();
        }
        int64_t lo = a, hi = b;
        if (kPhases > 1) {  // earlier phases compute the halo later ones read
            lo = std::max<int64_t>(0, a - SPG_FAST_REACH_PAST);
            hi = std::min<int64_t>(n, b + SPG_FAST_REACH_FUTURE);
        }
        size_t need = size_t(b - a);
        if (need > size_t(out_cap_)) {
            out_cap_ = int64_t(std::max<size_t>(need, 2 * size_t(out_cap_)));
            out_.resize(size_t(out_cap_) * kOut, 0);
        }
        int64_t t0 = lo + spg_fast_lags[0], t1 = hi + spg_fast_lags[0];
        for (int p = 1; p < kPhases; ++p) {
            t0 = std::min(t0, lo + spg_fast_lags[p]);
            t1 = std::max(t1, hi + spg_fast_lags[p]);
        }
        t0 = floor_div(t0, SPG_FAST_CHUNK) * SPG_FAST_CHUNK;
        // The kernel's loop starts at the chunk boundary t0: no read reaches below this.
        int64_t keep = lo;
        for (int i = 0; i < kKeys; ++i)
            if (spg_fast_keys[i].kind == SPG_FAST_IN)
                keep = std::min(keep, t0 - spg_fast_lags[spg_fast_keys[i].phase] - spg_fast_keys[i].d);
        compact(keep);
        for (int i = 0; i < kKeys; ++i) {
            const SpgFastKey& key = spg_fast_keys[i];
            int64_t pos = t0 - spg_fast_lags[key.phase] - key.d;
            uintptr_t base;
            if (key.kind == SPG_FAST_RING) {
                base = reinterpret_cast<uintptr_t>(rings_.at + key.index);
                pos %= key.mod;
                if (pos < 0) pos += key.mod;
            } else if (key.kind == SPG_FAST_IN) {
                base = reinterpret_cast<uintptr_t>(in_[key.index].at) - uintptr_t(4 * first_);
            } else {
                base = reinterpret_cast<uintptr_t>(out_.at + key.index * out_cap_) - uintptr_t(4 * a);
            }
            bases_[i] = int64_t(base);
            offs_[i] = pos;
            mods_[i] = key.mod;
        }
        int64_t rng[4] = {lo, hi, a, b};
        int64_t lags[kPhases];
        std::copy(spg_fast_lags, spg_fast_lags + kPhases, lags);
        uint32_t regv[SPG_FAST_REGS + 1];
        std::memcpy(regv, regs, sizeof(uint32_t) * SPG_FAST_REGS);
        uint64_t cls[8] = {};  // unused: plain loops (flags 0), no block classes
        SPG_FAST_SYMBOL(bases_, offs_, mods_, lags, rng, 1, t0, t1, n, 0, regv, cls);
        out_lo_ = a;
        out_hi_ = b;
    }

    // Forget inputs before position `keep` (no read reaches them any more) once they
    // outnumber those kept: the buffers stay a few window lengths long and in the
    // cache (a stream-long buffer per port and core thrashed it in deep cascades),
    // and each element is moved at most about once.
    void compact(int64_t keep) {
        int64_t drop = keep - first_;
        if (drop < kCompactMin || drop < received_ - keep) return;
        size_t left = size_t(received_ - keep);
        for (auto& v : in_) std::memmove(v.at, v.at + drop, left * 4);
        first_ = keep;
    }

    Aligned in_[kIn];
    Aligned out_;
    Aligned rings_;
    int64_t out_cap_ = 0;
    int64_t first_ = 0, received_ = 0, pushed_ = 0, out_lo_ = 0, out_hi_ = 0;
    bool ended_ = false;
    int64_t bases_[kKeys], offs_[kKeys], mods_[kKeys];
};

}  // namespace

extern "C" {

void* spg_fast_open() { return new FastCore; }

void spg_fast_close(void* h) { delete static_cast<FastCore*>(h); }

void spg_fast_reset(void* h) { static_cast<FastCore*>(h)->reset(); }

void spg_fast_step(void* h, svBit fire, const svBitVecVal* s_data, svBit last, svBit push,
                   svBit end, const svBitVecVal* regs, svBitVecVal* y) {
    auto* core = static_cast<FastCore*>(h);
    if (fire) core->feed(s_data, last);
    if (push) core->next(regs, y);
    if (end) core->reset();
}

}  // extern "C"
