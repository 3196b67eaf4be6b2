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
// Cores of a cascade (instances core0, core1, ... of one afu_cores, spgen's generated
// chain: core k's input stream is core k-1's output stream) hand their records to each
// other here, not through the Verilog: by the handshake, the n-th element core k
// accepts (since reset) is the n-th element core k-1 pushed into its output buffer, so
// core k reads it from core k-1's hand-off ring. The wrappers then move no data
// through their 32-bit-word ports except at the cascade's two ends (links, below).
//
// spg_fast_layout.h (generated per build) gives the kernel's table layout: every
// read and store with its buffer, shift offset and phase, the phase lags and rings.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "Vafu_top__Dpi.h"
#include "spg_fast_layout.h"
#include "verilated.h"

extern "C" void SPG_FAST_SYMBOL(void* bases, void* offs, void* mods, void* lags, void* rng,
                                int64_t stages, int64_t t0, int64_t t1, int64_t n,
                                int64_t flags, void* regs, void* cls);

namespace {

constexpr int kIn = sizeof(spg_fast_in_word) / sizeof(spg_fast_in_word[0]);
constexpr int kOut = sizeof(spg_fast_out_word) / sizeof(spg_fast_out_word[0]);
constexpr int kKeys = sizeof(spg_fast_keys) / sizeof(spg_fast_keys[0]);
constexpr int kPhases = sizeof(spg_fast_lags) / sizeof(spg_fast_lags[0]);
constexpr int kInW = SPG_FAST_IN_WORDS, kOutW = SPG_FAST_OUT_WORDS;

struct Aligned {  // 64-byte aligned words (zeroed) that survive resizing by copy
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
constexpr int64_t kStage = 512;       // elements staged at most between kernel calls
constexpr int64_t kRing = 8;          // hand-off ring: a core's output buffer holds 2
                                       // elements, and one more may be pushed as the
                                       // next core takes the oldest

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class FastCore;
std::mutex registry_lock;
// The fast cores of each model (its symbol table) by afu_cores instance: parent scope
// name and index k of "core<k>".
std::map<std::pair<const void*, std::string>, std::map<int, FastCore*>> registry;

class FastCore {
public:
    explicit FastCore(svScope scope) {
        rings_.resize(SPG_FAST_RING_WORDS, 0);
        for (auto& v : in_) v.resize(4096, 0);
        reset();
        const std::string name = scope ? svGetNameFromScope(scope) : "";
        const size_t dot = name.rfind('.');
        const std::string leaf = dot == std::string::npos ? name : name.substr(dot + 1);
        if (dot != std::string::npos && leaf.size() > 4 && leaf.compare(0, 4, "core") == 0 &&
            leaf.find_first_not_of("0123456789", 4) == std::string::npos) {
            key_ = {static_cast<const VerilatedScope*>(scope)->symsp(), name.substr(0, dot)};
            index_ = std::stoi(leaf.substr(4));
            std::lock_guard<std::mutex> g(registry_lock);
            registry[key_][index_] = this;
        }
    }

    ~FastCore() {
        if (index_ < 0) return;
        std::lock_guard<std::mutex> g(registry_lock);
        auto it = registry.find(key_);
        if (it == registry.end()) return;
        it->second.erase(index_);
        if (it->second.empty()) registry.erase(it);
    }

    // Reset (rst): the stream, the hand-off counters, and the links to the neighbouring
    // fast cores of the cascade, returned to the wrapper: bit 0, the input comes from
    // core k-1 here; bit 1, the output goes to core k+1 here.
    int hard_reset() {
        reset();
        taken_ = handed_ = 0;
        up_ = nullptr;
        down_ = false;
        if (index_ >= 0 && kInW == kOutW) {  // (a cascade's records are alike)
            std::lock_guard<std::mutex> g(registry_lock);
            const auto& chain = registry[key_];
            auto up = chain.find(index_ - 1);
            up_ = up == chain.end() ? nullptr : up->second;
            down_ = chain.count(index_ + 1) != 0;
        }
        return (up_ ? 1 : 0) | (down_ ? 2 : 0);
    }

    // The data of the element entering this tick, from the wrapper's s_data.
    void feed(const uint32_t* data) {
        if (staged_ == kStage) stage_in();
        std::memcpy(stage_ + staged_ * kInW, data, 4 * kInW);
    }

    void step(bool fire, bool last, bool push, bool end, const uint32_t* regs) {
        if (fire) {
            if (up_) {  // the oldest record in core k-1's output buffer
                if (staged_ == kStage) stage_in();
                std::memcpy(stage_ + staged_ * kInW, up_->ring_ + (taken_ % kRing) * kOutW, 4 * kInW);
                ++taken_;
            }
            ++staged_;
            ++received_;
            if (last) ended_ = true;
        }
        if (push) {
            int64_t k = pushed_++;
            if (k >= out_hi_) compute(k, regs);
            y_ = rows_.at + (k - out_lo_) * kOutW;
            if (down_) std::memcpy(ring_ + (handed_++ % kRing) * kOutW, y_, 4 * kOutW);
        }
        if (end) reset();
    }

    // The data of the element pushed this tick, for the wrapper's output buffer.
    void output(uint32_t* y) const { std::memcpy(y, y_, 4 * kOutW); }

private:
    void reset() {
        first_ = received_ = pushed_ = out_lo_ = out_hi_ = 0;
        staged_ = 0;
        ended_ = false;
    }

    // Outputs [a, b) of the stream fed so far: the stream is "received_ long" unless it
    // has ended, which changes nothing below b (they read at most LOOKAHEAD ahead).
    void compute(int64_t a, const uint32_t* regs) {
        stage_in();
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
            rows_.resize(size_t(out_cap_) * kOutW, 0);  // (words no output row fills stay 0)
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
        for (int r = 0; r < kOut; ++r) {  // the slice as records, one copy per push
            const uint32_t* src = out_.at + r * out_cap_;
            uint32_t* dst = rows_.at + spg_fast_out_word[r];
            for (int64_t e = 0; e < b - a; ++e) dst[e * kOutW] = src[e];
        }
        out_lo_ = a;
        out_hi_ = b;
    }

    // The staged records (the last staged_ received) into the kernel's per-slot
    // arrays: once per kernel call, which cost less than a scatter per element.
    void stage_in() {
        if (!staged_) return;
        size_t at = size_t(received_ - staged_ - first_);
        if (at + size_t(staged_) > in_[0].words) {
            size_t n = in_[0].words;
            while (at + size_t(staged_) > n) n *= 2;
            for (auto& v : in_) v.resize(n, at);
        }
        for (int s = 0; s < kIn; ++s) {
            uint32_t* dst = in_[s].at + at;
            const uint32_t* src = stage_ + spg_fast_in_word[s];
            for (int64_t e = 0; e < staged_; ++e) dst[e] = src[e * kInW];
        }
        staged_ = 0;
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

    alignas(64) uint32_t stage_[kStage * kInW];  // records entered, not yet in in_
    alignas(64) uint32_t ring_[kRing * kOutW];   // records pushed, for core k+1
    Aligned in_[kIn];
    Aligned out_;
    Aligned rows_;  // outputs [out_lo_, out_hi_) as records
    Aligned rings_;
    int64_t out_cap_ = 0;
    int64_t first_ = 0, received_ = 0, pushed_ = 0, out_lo_ = 0, out_hi_ = 0, staged_ = 0;
    bool ended_ = false;
    const uint32_t* y_ = nullptr;
    int64_t bases_[kKeys], offs_[kKeys], mods_[kKeys];
    // cascade links (hard_reset)
    std::pair<const void*, std::string> key_;
    int index_ = -1;
    FastCore* up_ = nullptr;
    bool down_ = false;
    int64_t taken_ = 0, handed_ = 0;  // records taken from up_, handed to core k+1
};

}  // namespace

extern "C" {

void* spg_fast_open() { return new FastCore(svGetScope()); }

void spg_fast_close(void* h) { delete static_cast<FastCore*>(h); }

int spg_fast_reset(void* h) { return static_cast<FastCore*>(h)->hard_reset(); }

void spg_fast_feed(void* h, const svBitVecVal* s_data) { static_cast<FastCore*>(h)->feed(s_data); }

void spg_fast_step(void* h, svBit fire, svBit last, svBit push, svBit end, const svBitVecVal* regs) {
    static_cast<FastCore*>(h)->step(fire, last, push, end, regs);
}

void spg_fast_output(void* h, svBitVecVal* y) { static_cast<FastCore*>(h)->output(y); }

}  // extern "C"
