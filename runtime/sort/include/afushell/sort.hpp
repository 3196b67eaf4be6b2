// afushell distributed counting sort (docs/sort.md): uint32 or uint64 keys, optionally with
// uint32 payloads, sorted across the cards of a cluster (afushell/rdma.h) the way
// spgen.sort does it from Python: range and count exchanges, prefix sums, a scatter of every
// key to its destination card by RDMA puts, stable LSD counting passes at the destination.
// The exchanges are RDMA puts between the simulated cards, timed on the cluster clock; the
// counting passes run on the cards' cascades (RTL cards built from cores/sort/sort_rank.spd,
// uint32 keys, count_on_cards) or on the host; grouping and moves run on the host.
// distributed_sort_on_cards moves every key on the cards instead (RTL cards built with
// --sort-scatter, uint32 keys): their scatter writers find the range, count and write
// every key to its place; the host computes the prefix sums and issues passes and puts.
// Header-only; link against libafushell.
#ifndef AFUSHELL_SORT_HPP
#define AFUSHELL_SORT_HPP

#include <afushell/afushell.h>
#include <afushell/rdma.h>
#include <afushell_csr.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace afushell {

// Where the sort keeps its arrays in every card's memory: region k at k * kSortRegion
// (the same layout as spgen.sort.LAYOUT): keys, payloads, counts, send keys, send payloads,
// receive keys, receive payloads.
constexpr uint64_t kSortRegion = 512ull << 20;
constexpr int kSortPartitionBits = 8;
constexpr int kSortDigitBits = 8;

struct SortPhase {
    std::string name;
    std::string where;  // "network" (cluster clock) or "host" (the host's clock)
    double seconds = 0;
    uint64_t cycles = 0;
    uint64_t bytes = 0;       // network phases: bytes put between cards (payloads included)
    uint64_t operations = 0;  // network phases: RDMA puts
};

struct SortResult {
    afu_result code = FPGA_OK;       // AFU_ERR_BAD_ARG with `error` for bad input
    std::string error;
    std::vector<uint64_t> counts;    // keys per card afterwards (sort_spread: per card of the spread)
    std::vector<SortPhase> phases;
    int shift = 0;                   // the partition's bins: (key - smallest key) >> shift
    int local_passes = 0;            // the counting passes at each destination
};

namespace sort_detail {

template <class T>
std::vector<T> read(afu_rdma_cluster cl, int card, uint64_t addr, uint64_t n) {
    std::vector<T> v(n);
    if (n) afuShellRDMAReadMem(cl, card, addr, v.data(), n * sizeof(T));
    return v;
}

template <class T>
void write(afu_rdma_cluster cl, int card, uint64_t addr, const std::vector<T> &v) {
    if (!v.empty()) afuShellRDMAWriteMem(cl, card, addr, v.data(), v.size() * sizeof(T));
}

struct Put {
    int card, dst;
    uint64_t local, remote, bytes;
};

// The order in which a network phase's puts are issued (indices into `puts`): each card
// starts with its next peer and ends with itself, its pieces for one peer in the order
// given. A card's engine sends its puts one after the other, in the order issued; in
// destination order every card would send to card 0 first, then to card 1, ... (on 8 RTL
// cards at 100 Gb/s, puts of 128 KiB from every card to every card: 121 us instead of 207).
inline std::vector<size_t> issue_order(const std::vector<Put> &puts) {
    int m = 1;
    for (const Put &p : puts) m = std::max({m, p.card + 1, p.dst + 1});
    std::vector<size_t> order(puts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto peer = [&](size_t i) { return ((puts[i].dst - puts[i].card - 1) % m + m) % m; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return peer(a) < peer(b); });
    return order;
}

class Clock {
  public:
    explicit Clock(afu_rdma_cluster cl, SortResult &r, std::function<void(const std::string &)> progress = {})
        : cl_(cl), r_(r), progress_(std::move(progress)) {}
    template <class F>
    void host(const char *name, F &&fn) {
        auto t0 = std::chrono::steady_clock::now();
        fn();
        ended({name, "host", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
    }
    // A phase on the cards, each taking ns[i]: the slowest card's time (cards run at once in hardware).
    void card(const char *name, const std::vector<uint64_t> &ns) {
        const uint64_t slowest = ns.empty() ? 0 : *std::max_element(ns.begin(), ns.end());
        ended({name, "card", slowest * 1e-9, uint64_t(slowest * afuShellRDMAClockMHz(cl_) / 1e3)});
    }
    // Issues every put at once (in issue_order), waits for all; the first failure is the result.
    int network(const char *name, const std::vector<Put> &puts) {
        uint64_t c0 = afuShellRDMACycles(cl_);
        std::vector<afu_rdma_handle> hs;
        afu_result rc = FPGA_OK;
        uint64_t bytes = 0;
        for (size_t i : issue_order(puts)) {
            const Put &p = puts[i];
            bytes += p.bytes;
            if (!p.bytes) continue;
            afu_rdma_handle h;
            afu_result e = afuShellRDMAPutAsync(cl_, p.card, p.dst, p.local, p.remote, p.bytes, &h);
            if (e) { rc = rc ? rc : e; continue; }
            hs.push_back(h);
        }
        for (afu_rdma_handle h : hs) {
            afu_result e = afuShellRDMAWait(cl_, h, 0);
            rc = rc ? rc : e;
        }
        uint64_t cycles = afuShellRDMACycles(cl_) - c0;
        if (afuShellRDMAClusterIsRTL(cl_) && !hs.empty()) {
            // RTL cards: from the first put's issue to the last one's completion. While cards of
            // the cluster are open its clock runs in a thread of its own, and where it stands when
            // this thread reads it depends on the machine's load (docs/runtime.md "Host time")
            uint64_t first = ~0ull, last = 0, issued = 0, done = 0;
            for (afu_rdma_handle h : hs) {
                afuShellRDMAOpCycles(cl_, h, &issued, &done);
                first = std::min(first, issued), last = std::max(last, done);
            }
            cycles = last - first;
        }
        ended({name, "network", cycles * 1000.0 / afuShellRDMAClockMHz(cl_) * 1e-9, cycles, bytes, hs.size()});
        return rc;
    }

  private:
    void ended(SortPhase p) {
        r_.phases.push_back(std::move(p));
        if (progress_) progress_(r_.phases.back().name);
    }
    afu_rdma_cluster cl_;
    SortResult &r_;
    std::function<void(const std::string &)> progress_;
};

// Stable counting sort of keys (and payloads) by the digit (rel >> shift) & mask.
template <class Key>
void counting_pass(std::vector<Key> &keys, std::vector<uint32_t> *pays, Key lo, int shift, int bits) {
    const size_t bins = size_t(1) << bits;
    std::vector<uint64_t> start(bins + 1, 0);
    auto digit = [&](Key k) { return size_t((Key(k - lo) >> shift) & Key(bins - 1)); };
    for (Key k : keys) start[digit(k) + 1]++;
    for (size_t b = 0; b < bins; ++b) start[b + 1] += start[b];
    std::vector<Key> out(keys.size());
    std::vector<uint32_t> outp(pays ? keys.size() : 0);
    for (size_t i = 0; i < keys.size(); ++i) {
        uint64_t at = start[digit(keys[i])]++;
        out[at] = keys[i];
        if (pays) outp[at] = (*pays)[i];
    }
    keys.swap(out);
    if (pays) pays->swap(outp);
}

inline int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

// The keys' range over all cards, from every card's (min, max) pair as the range exchange
// left them at `at` on card 0; lo > hi when there are no keys.
inline std::pair<uint64_t, uint64_t> exchanged_range(afu_rdma_cluster cl, int N, uint64_t at, int card = 0) {
    auto ranges = read<uint64_t>(cl, card, at, 2ull * N);
    uint64_t lo = ~0ull, hi = 0;
    for (int c = 0; c < N; ++c) { lo = std::min(lo, ranges[2 * c]); hi = std::max(hi, ranges[2 * c + 1]); }
    return {lo, hi};
}

// What a sort does once the range exchange is over: the keys' range (exchanged_range), with
// the result's counts zeroed and the outputs emptied for the passes to fill.
template <class Key>
std::pair<uint64_t, uint64_t> begin_result(afu_rdma_cluster cl, int N, uint64_t at, SortResult &r,
                                           std::vector<Key> &out_keys, std::vector<uint32_t> *out_payloads) {
    r.counts.assign(N, 0);
    out_keys.clear();
    if (out_payloads) out_payloads->clear();
    return exchanged_range(cl, N, at);
}

// Writes keys (and payloads) to the cards in equal contiguous parts; returns the parts' sizes.
template <class Key>
std::vector<uint64_t> spread(afu_rdma_cluster cl, const std::vector<int> &cards, const Key *keys,
                             const uint32_t *payloads, uint64_t n) {
    const uint64_t N = cards.size();
    std::vector<uint64_t> part(N);
    for (uint64_t i = 0; i < N; ++i) {
        uint64_t a = n * i / N, b = n * (i + 1) / N;
        part[i] = b - a;
        if (part[i]) {
            afuShellRDMAWriteMem(cl, cards[i], 0, keys + a, part[i] * sizeof(Key));
            if (payloads) afuShellRDMAWriteMem(cl, cards[i], kSortRegion, payloads + a, part[i] * 4);
        }
    }
    return part;
}

template <class Key>
std::vector<uint64_t> spread(afu_rdma_cluster cl, int N, const Key *keys, const uint32_t *payloads, uint64_t n) {
    std::vector<int> cards(N);
    for (int c = 0; c < N; ++c) cards[c] = c;
    return spread(cl, cards, keys, payloads, n);
}

// Where card c's keys go, from every card's counts h[source * B + bin] of n keys in all:
// pieces (offset in c's send buffer, which holds its keys in bin order; destination; offset
// in that card's receive buffer; keys). Returns the keys c receives. Consecutive bins go to
// a card, about n/N keys each; with `exact` (shift 0: a bin is one key value) every key's
// global place follows from the counts, bins are split at the cards' boundaries.
// `span`, where given: the first and last bin card c owns (first > last: none).
inline uint64_t plan(const std::vector<uint32_t> &h, int N, int c, bool exact, std::vector<Put> &pieces,
                     std::pair<uint64_t, uint64_t> *span = nullptr) {
    const uint64_t B = h.size() / N;
    std::vector<uint64_t> tot(B, 0);
    for (int s = 0; s < N; ++s)
        for (uint64_t b = 0; b < B; ++b) tot[b] += h[s * B + b];
    uint64_t n = 0;
    for (uint64_t t : tot) n += t;
    std::vector<uint64_t> bounds(N + 1);
    for (int d = 0; d <= N; ++d) bounds[d] = n * d / N;
    if (exact) {
        uint64_t g0 = 0, at = 0;
        for (uint64_t b = 0; b < B; ++b) {
            uint64_t g = g0, m = h[c * B + b];
            for (int s = 0; s < c; ++s) g += h[s * B + b];
            while (m) {
                int d = int(std::upper_bound(bounds.begin(), bounds.end(), g) - bounds.begin()) - 1;
                uint64_t take = std::min(m, bounds[d + 1] - g);
                pieces.push_back({c, d, at, g - bounds[d], take});
                at += take, g += take, m -= take;
            }
            g0 += tot[b];
        }
        return bounds[c + 1] - bounds[c];
    }
    std::vector<uint64_t> owner(B, 0);
    uint64_t before = 0;
    for (uint64_t b = 0; b < B; ++b) {
        owner[b] = std::min<uint64_t>((2 * before + tot[b]) * N / std::max<uint64_t>(2 * n, 1), N - 1);
        before += tot[b];
    }
    if (span) {
        *span = {B, 0};
        for (uint64_t b = 0; b < B; ++b)
            if (owner[b] == uint64_t(c)) span->first = std::min(span->first, b), span->second = b;
    }
    std::vector<uint64_t> per_dest(N * N, 0);  // [source][destination]
    for (int s = 0; s < N; ++s)
        for (uint64_t b = 0; b < B; ++b) per_dest[s * N + owner[b]] += h[s * B + b];
    uint64_t at = 0, received = 0;
    for (int d = 0; d < N; ++d) {
        uint64_t off = 0;
        for (int s = 0; s < c; ++s) off += per_dest[s * N + d];
        pieces.push_back({c, d, at, off, per_dest[c * N + d]});
        at += per_dest[c * N + d];
        received += per_dest[d * N + c];
    }
    return received;
}

// The counting passes on the cards' cascades (cores/sort/sort_rank.spd): every key's rank
// within its bin ((k - lo) >> sh) & 255; one key per bin appended after the keys gives the
// histogram as those keys' ranks.
class CardCounter {
  public:
    CardCounter(afu_rdma_cluster cl, int cards) : cl_(cl), h_(cards, nullptr) {}
    ~CardCounter() {
        for (afu_shell_handle h : h_)
            if (h) afuShellClose(h);
    }
    std::string open(const std::vector<int> &cards) {
        for (int c : cards)
            if (afuShellRDMAClusterCardOpen(cl_, c, &h_[c]) != FPGA_OK)
                return std::string("card ") + std::to_string(c) + " does not open: " + afuShellLastError();
        return "";
    }
    // ranks and histogram of the n keys at addr; returns "" or what went wrong
    std::string count(int c, uint64_t addr, uint64_t n, uint32_t lo, int sh, std::vector<uint32_t> &ranks,
                      std::vector<uint64_t> &hist, uint64_t &ns) {
        const uint64_t nb = std::min<uint64_t>(256, uint64_t(1) << (32 - sh));
        std::vector<uint32_t> bin_keys(nb);
        for (uint64_t b = 0; b < nb; ++b) bin_keys[b] = uint32_t(lo + (b << sh));
        write(cl_, c, addr + 4 * n, bin_keys);
        afu_shell_run_result run{};
        if (afuShellWriteRegValue(h_[c], "lo", lo) || afuShellWriteRegValue(h_[c], "sh", sh))
            return "the cards do not carry the counting core (no Regs lo, sh: build them from "
                   "cores/sort/sort_rank.spd)";
        if (afuShellRun(h_[c], addr, 7 * kSortRegion, n + nb, &run))
            return "the counting run failed on card " + std::to_string(c);
        auto out = read<uint32_t>(cl_, c, 7 * kSortRegion, n + nb);
        ranks.assign(out.begin(), out.begin() + n);
        hist.assign(out.begin() + n, out.end());
        ns += run.elapsed_ns;
        return "";
    }

  private:
    afu_rdma_cluster cl_;
    std::vector<afu_shell_handle> h_;
};

// Moves keys (and payloads) to their place: the bin's start plus the key's rank.
template <class Key>
void move_by_rank(std::vector<Key> &keys, std::vector<uint32_t> *pays, const std::vector<uint64_t> &bins,
                  const std::vector<uint64_t> &hist, const std::vector<uint32_t> &ranks) {
    std::vector<uint64_t> start(hist.size() + 1, 0);
    for (size_t b = 0; b < hist.size(); ++b) start[b + 1] = start[b] + hist[b];
    std::vector<Key> out(keys.size());
    std::vector<uint32_t> outp(pays ? keys.size() : 0);
    for (size_t i = 0; i < keys.size(); ++i) {
        uint64_t at = start[bins[i]] + ranks[i];
        out[at] = keys[i];
        if (pays) outp[at] = (*pays)[i];
    }
    keys.swap(out);
    if (pays) pays->swap(outp);
}

// Keys (and payloads) in the order of their bins ((key - lo) >> shift) & (2^bits - 1): stably,
// or, given the counting core's histogram and ranks, each at its bin's start plus its rank.
template <class Key>
void by_bins(std::vector<Key> &keys, std::vector<uint32_t> *pays, uint64_t lo, int shift, int bits,
             const std::vector<uint64_t> *hist = nullptr, const std::vector<uint32_t> *ranks = nullptr) {
    if (!ranks) return counting_pass<Key>(keys, pays, Key(lo), shift, bits);
    const Key mask = bits ? Key((uint64_t(1) << bits) - 1) : Key(0);
    std::vector<uint64_t> bins(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) bins[i] = uint64_t((Key(keys[i] - Key(lo)) >> shift) & mask);
    move_by_rank<Key>(keys, pays, bins, *hist, *ranks);
}

// Stable LSD counting passes over the `bits` bits of key - lo, `digit_bits` at a time.
template <class Key>
void local_passes(std::vector<Key> &keys, std::vector<uint32_t> *pays, uint64_t lo, int bits, int digit_bits) {
    for (int sh = 0; sh < bits; sh += digit_bits) counting_pass<Key>(keys, pays, Key(lo), sh, digit_bits);
}

// The digit width of the local passes on scatter writers whose widest digit is max_bits
// (0: a writer of a key a cycle, 8 bits) over sort_bits bits of `elements` keys (or
// key-payload pairs) per card (docs/sort.md, "The digit width"): fewer, wider passes cost a
// flush of the bins' last lines each (2^d lines, 16 bins a cycle before that), so the widest
// digit wins only where the keys outnumber the bins; a pass costs its beats, those lines and
// about 800 cycles of start (the registers, the DMA and the polls). An odd number of passes
// puts the send buffer in the bank the grouping reads, which runs that pass at about 1 / 2.6
// of its speed: 1.6 passes' beats more (odd_penalty; none where the first digit's count
// copies the keys to the other bank). The fewest cycles win, the widest of equals.
inline int choose_digit_bits(int max_bits, bool pairs, int sort_bits, uint64_t elements, bool odd_penalty) {
    if (max_bits <= 0 || sort_bits <= 0) return 8;
    const double beats = double(elements) * (pairs ? 8 : 4) / 64;
    int best = 0;
    double best_cost = 0;
    for (int q = (sort_bits + max_bits - 1) / max_bits; q <= sort_bits; ++q) {
        const int d = (sort_bits + q - 1) / q, p = (sort_bits + d - 1) / d;
        const double cost = p * (beats + double(uint64_t(1) << d) * 17 / 16 + 800) + (p % 2 && odd_penalty ? 1.6 * beats : 0);
        if (!best || cost < best_cost) best = d, best_cost = cost;
    }
    return best;
}

// The scatter writer on every card (shell/shell_sort_scatter.v, SORT_* registers): one
// pass streams n keys from src through it (a DMA from card memory to card memory whose RX
// side the writer takes over), counting bins ((k - count_lo) >> count_sh) & 255 and, with
// scatter, writing each key to dst + 4 * its place by the bins ((k - lo) >> sh) & 255 that
// the card's previous pass counted; dump: where the range line and the 256 counts go.
class ScatterWriter {
  public:
    struct Scatter {
        bool on = false;
        uint32_t lo = 0;
        int sh = 0;
        uint64_t dst = 0;
    };
    ScatterWriter(afu_rdma_cluster cl, int cards, bool pairs) : cl_(cl), h_(cards, nullptr), pairs_(pairs), passes(cards, 0) {}
    ~ScatterWriter() {
        for (afu_shell_handle h : h_)
            if (h) afuShellClose(h);
    }
    std::string open() {
        for (size_t c = 0; c < h_.size(); ++c) {
            if (afuShellRDMAClusterCardOpen(cl_, int(c), &h_[c]) != FPGA_OK)
                return std::string("card ") + std::to_string(c) + " does not open: " + afuShellLastError();
            uint64_t cfg = 0;
            afuShellRDMACardWriteCSR(cl_, int(c), AFUSHELL_SORT_CFG, 1);
            afuShellRDMACardReadCSR(cl_, int(c), AFUSHELL_SORT_CFG, &cfg);
            afuShellRDMACardWriteCSR(cl_, int(c), AFUSHELL_SORT_CFG, 0);
            if (!(cfg & 1))
                return "the cards carry no scatter writer (build them with spgen build --loopback --links N "
                       "--sort-scatter)";
            uint64_t status = 0;
            afuShellRDMACardReadCSR(cl_, int(c), AFUSHELL_SORT_STATUS, &status);
            const int bits = int(status >> 8) & 0xF;  // 0: a writer of a key a cycle, 256 bins
            max_bits = c == 0 ? bits : std::min(max_bits, bits);
            dest = (c == 0 || dest) && (status >> 12 & 1);  // counts by destination, loads counts
        }
        return "";
    }
    // The local passes' digit over sort_bits bits of `elements` keys per card (choose_digit_bits).
    int digit_bits(int sort_bits, uint64_t elements, bool odd_penalty = true) const {
        return choose_digit_bits(max_bits, pairs_, sort_bits, elements, odd_penalty);
    }
    // "" or what went wrong; adds the pass's ns to ns. A scatter shift of 32: every key in one
    // bin (a copy); count_bits: the counted bins' width where it differs from bits; dests
    // (SORT_DESTS): count by destination; load: the n words at src are counts to add to the
    // card's counters (no pass over the keys)
    std::string run(int c, uint64_t src, uint64_t n, uint32_t count_lo, int count_sh, Scatter sc, uint64_t dump,
                    uint64_t &ns, int bits = 8, int count_bits = 0, const uint64_t *dests = nullptr, bool load = false) {
        auto w = [&](uint32_t off, uint64_t v) { afuShellRDMACardWriteCSR(cl_, c, off, v); };
        const bool pairs = pairs_ && !load;
        w(AFUSHELL_SORT_CFG, 1 | (sc.on ? 2 : 0) | (dump ? 4 : 0) | (pairs ? 8 : 0) | (dests ? 16 : 0) | (load ? 32 : 0));
        w(AFUSHELL_SORT_BINS, uint64_t(sc.lo) | uint64_t(count_lo) << 32);
        w(AFUSHELL_SORT_SHIFT, uint64_t(sc.sh) | uint64_t(count_sh) << 8 | uint64_t(max_bits ? bits : 0) << 16 |
                                   uint64_t(count_bits) << 20);
        if (dests) w(AFUSHELL_SORT_DESTS, *dests);
        w(AFUSHELL_SORT_DST, sc.dst);
        w(AFUSHELL_SORT_HIST, dump);
        w(AFUSHELL_SORT_N, n);
        w(AFUSHELL_SORT_CTRL, 1);
        uint64_t t0 = afuShellRDMACycles(cl_), status = 0, took = 0;
        if (n) {  // the RX destination is not written: the writer takes the stream
            void *a = reinterpret_cast<void *>(uintptr_t(src));
            if (afuShellDMATransferH(h_[c], a, a, (pairs ? 8 : 4) * n, F2F) || afuShellElapsedNs(h_[c], &took)) {
                w(AFUSHELL_SORT_CFG, 0);  // the RX engine writes as usual again
                return "the pass's DMA failed on card " + std::to_string(c) + ": " + afuShellLastError();
            }
        }
        while (afuShellRDMACardReadCSR(cl_, c, AFUSHELL_SORT_STATUS, &status) == 0 && !(status & 2)) {
            if (afuShellRDMACycles(cl_) - t0 > 100000) {
                w(AFUSHELL_SORT_CFG, 0);
                return "card " + std::to_string(c) + "'s scatter writer did not finish a pass";
            }
            afuShellRDMARun(cl_, 64);  // with no keys: the flush and the dump
        }
        w(AFUSHELL_SORT_CFG, 0);
        if ((status & 4) || status >> 32 != n)
            return "card " + std::to_string(c) + "'s scatter writer took " + std::to_string(status >> 32) +
                   " keys of " + std::to_string(n);
        ns += n ? took : uint64_t((afuShellRDMACycles(cl_) - t0) * 1e3 / afuShellRDMAClockMHz(cl_));
        passes[c] += !load;
        return "";
    }

  private:
    afu_rdma_cluster cl_;
    std::vector<afu_shell_handle> h_;
    bool pairs_;  // (key, payload) pairs instead of keys

  public:
    std::vector<int> passes;  // passes over the keys per card
    int max_bits = 0;         // the widest digit of every card's writer (0: a key a cycle, 8 bits)
    bool dest = false;        // every card's writer counts by destination (SORT_STATUS.DEST)
};

// The smallest shift that puts [lo, hi] into 2^bits bins (key >> shift) - (lo >> shift).
inline int aligned_shift(uint64_t lo, uint64_t hi, int bits) {
    int sh = 0;
    while ((hi >> sh) - (lo >> sh) >= (uint64_t(1) << bits)) ++sh;
    return sh;
}

// The first local digit counted by destination (writers with SORT_STATUS.DEST): the grouping
// pass counts bin (destination << first) | (key & (2^first - 1)) in the writer's 2^max_bits
// counters and dumps them; each destination sums its sources' counts of its first digit
// into its counters (a LOAD pass over N * 2^first words) instead of counting its keys in a
// pass of their own. A destination's digits are of key - base, base being its smallest key
// with the low `first` bits cleared, so its first digit is key & (2^first - 1) on every
// source; the others are of `bits` (digit_bits, or as few passes of up to max_bits as
// cover the widest destination's keys). Consecutive bins go to a destination, so byte j of
// `dests` (SORT_DESTS) is destination j's last bin. first = 0 where it is not possible: more
// than 9 cards, a first digit under 4 bits, or card 0 without bins.
struct DestCount {
    int first = 0;                // the first digit's bits
    int bits = 0;                 // the other digits' bits
    int digits = 0;               // local passes
    uint64_t dests = ~0ull;       // SORT_DESTS
    std::vector<uint64_t> base;   // per card
};

inline DestCount dest_count_plan(int max_bits, int digit_bits, const std::vector<std::pair<uint64_t, uint64_t>> &bins,
                                 const std::vector<std::pair<uint64_t, uint64_t>> &keys) {
    DestCount p;
    const int N = int(bins.size());
    if (N < 1 || N > 9 || max_bits < 8 || keys.size() != bins.size()) return p;
    const int first = std::min(digit_bits ? digit_bits : max_bits, max_bits - bit_length(uint64_t(N - 1)));
    if (first < 4 || bins[0].first > bins[0].second) return p;
    uint64_t last = 0;
    for (int j = 0; j + 1 < N; ++j) {   // a destination without bins ends where the one before it does
        if (bins[j].first <= bins[j].second) last = bins[j].second;
        p.dests = (p.dests & ~(uint64_t(0xFF) << 8 * j)) | (last & 0xFF) << 8 * j;
    }
    int widest = 0;
    p.base.assign(N, 0);
    for (int c = 0; c < N; ++c) {
        if (keys[c].first > keys[c].second) continue;
        p.base[c] = keys[c].first >> first << first;
        widest = std::max(widest, bit_length(keys[c].second - p.base[c]));
    }
    const int rest = std::max(0, widest - first), step = digit_bits ? digit_bits : max_bits;
    const int more = (rest + step - 1) / step;
    p.bits = more ? (rest + more - 1) / more : step;
    p.digits = 1 + more;
    p.first = first;
    return p;
}

}  // namespace sort_detail

// Sorts uint32 keys[0..n) (and payloads, which may be null) over every card of a cluster of
// RTL cards built with --sort-scatter, every key moved by the cards, with its payload as a
// (key, payload) pair (docs/sort.md, "The scatter writer"): per
// card a range pass (which counts the top digit too; a histogram pass follows when the keys
// span fewer of its values), a grouping pass by destination, the RDMA puts, a count of the
// first digit (on writers with SORT_STATUS.DEST the grouping counts it by destination and
// the destinations load those counts instead, dest_count_plan) and one scatter per digit (each counting the next digit; digits of 8 bits, or
// up to the writer's MAX_BITS where that takes fewer cycles), the passes alternating DDR
// banks on writers of a beat a cycle. The host computes the prefix sums from the exchanged
// counts and issues the passes and the puts. key_range, where given: every key is known to
// lie in [first, second] (OPTWEB's 64 values: {0, 63}); no range pass and no range exchange,
// and a card holding keys outside it fails the sort (AFU_ERR_BAD_ARG).
inline SortResult distributed_sort_on_cards(afu_rdma_cluster cl, const uint32_t *keys, const uint32_t *payloads,
                                            uint64_t n, std::vector<uint32_t> &out_keys,
                                            std::vector<uint32_t> *out_payloads = nullptr,
                                            const std::pair<uint64_t, uint64_t> *key_range = nullptr) {
    using namespace sort_detail;
    SortResult r;
    const int N = afuShellRDMAClusterCards(cl);
    const uint64_t R = kSortRegion, B = 256, counts_at = 2 * R, hist_at = counts_at + 16ull * N, dump = 7 * R;
    const int top = 32 - 8;
    const uint64_t es = payloads ? 8 : 4;  // bytes per element: a key, or a key and its payload
    auto fail = [&](std::string why) {
        r.code = AFU_ERR_BAD_ARG;
        r.error = std::move(why);
        return r;
    };
    if (N < 1 || (n && !keys)) return fail(N < 1 ? "no cluster" : "keys is NULL");
    if (!afuShellRDMAClusterIsRTL(cl)) return fail("the network model has no cards to move keys on");
    if (key_range && !(key_range->first <= key_range->second && key_range->second <= 0xFFFFFFFFull))
        return fail("key_range must satisfy 0 <= lo <= hi <= 4294967295 for uint32 keys, got (" +
                    std::to_string(key_range->first) + ", " + std::to_string(key_range->second) + ")");
    if (n > R / es - 256) return fail("too many keys: " + std::to_string(n) + " (at most " + std::to_string(R / es - 256) + ")");
    ScatterWriter writer(cl, N, payloads != nullptr);
    if (!(r.error = writer.open()).empty()) return fail(r.error);
    std::vector<uint64_t> pairs(payloads ? n : 0);  // (key, payload) pairs: the key in the low (first) word
    for (uint64_t i = 0; i < pairs.size(); ++i) pairs[i] = keys[i] | uint64_t(payloads[i]) << 32;
    const std::vector<uint64_t> part = payloads ? spread<uint64_t>(cl, N, pairs.data(), nullptr, n)
                                                : spread<uint32_t>(cl, N, keys, nullptr, n);
    Clock clock(cl, r);
    // one pass per card; the phase takes the slowest card's time (cards run at once in hardware)
    auto on_cards = [&](const char *name, auto &&pass) {
        std::vector<uint64_t> ns(N, 0);
        for (int c = 0; c < N; ++c)
            if (std::string e = pass(c, ns[c]); !e.empty()) return e;
        uint64_t slowest = *std::max_element(ns.begin(), ns.end());
        r.phases.push_back({name, "card", slowest * 1e-9, uint64_t(slowest * afuShellRDMAClockMHz(cl) / 1e3)});
        return std::string();
    };
    auto to_all = [&](uint64_t from, uint64_t to, uint64_t bytes) {
        std::vector<Put> puts;
        for (int c = 0; c < N; ++c)
            for (int d = 0; d < N; ++d) puts.push_back({c, d, from, to + c * bytes, bytes});
        return puts;
    };
    const ScatterWriter::Scatter none;
    const uint64_t bank_b = uint64_t(1) << 32;
    // writers that count by destination copy the keys to bank B in the first pass over them
    // (a scatter into one bin), for a grouping pass from bank B before an odd number of digits
    const ScatterWriter::Scatter copy_b = writer.dest ? ScatterWriter::Scatter{true, 0, 32, bank_b} : none;
    std::pair<uint64_t, uint64_t> range;
    if (key_range) {  // the caller knows the range: no range pass, no range exchange
        r.counts.assign(N, 0);
        out_keys.clear();
        if (out_payloads) out_payloads->clear();
        range = *key_range;
    } else {
        if (std::string e = on_cards("range", [&](int c, uint64_t &ns) {
                return writer.run(c, 0, part[c], 0, top, copy_b, dump, ns); }); !e.empty())
            return fail(e);
        if ((r.code = clock.network("range exchange", to_all(dump, counts_at, 16)))) return r;
        range = begin_result(cl, N, counts_at, r, out_keys, out_payloads);
    }
    const uint64_t lo = range.first, hi = range.second;
    if (lo > hi) return r;  // no keys
    const int shift = aligned_shift(lo, hi, 8);
    const uint32_t base = shift == top ? 0 : uint32_t(lo >> shift << shift);  // bins (k - base) >> shift
    if (key_range || shift != top)  // the range pass's counts are the partition's only with the top digit
        if (std::string e = on_cards("histogram", [&](int c, uint64_t &ns) {
                return writer.run(c, 0, part[c], base, shift, key_range && shift ? copy_b : none, dump, ns); });
            !e.empty())
            return fail(e);
    for (int c = 0; key_range && c < N; ++c) {  // the histogram pass found every card's range beside the counts
        const auto mm = read<uint64_t>(cl, c, dump, 2);
        if (part[c] && !(lo <= mm[0] && mm[0] <= mm[1] && mm[1] <= hi))
            return fail("card " + std::to_string(c) + " holds keys " + std::to_string(mm[0]) + ".." +
                        std::to_string(mm[1]) + ", outside key_range " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    if ((r.code = clock.network("count exchange", to_all(dump + 64, hist_at, 4 * B)))) return r;
    const bool exact = shift == 0;
    std::vector<std::vector<Put>> pieces(N);
    std::vector<uint64_t> received(N);
    std::vector<std::pair<uint64_t, uint64_t>> spans(N), bins(N);  // the keys' range each card receives, its bins
    clock.host("prefix sums", [&] {
        for (int c = 0; c < N; ++c) {
            received[c] = plan(read<uint32_t>(cl, c, hist_at, B * N), N, c, exact, pieces[c], &spans[c]);
            const auto [b0, b1] = bins[c] = spans[c];
            spans[c] = b0 > b1 ? std::make_pair(uint64_t(1), uint64_t(0))
                               : std::make_pair(std::max<uint64_t>(lo, base + (b0 << shift)),
                                                std::min<uint64_t>(hi, base + ((b1 + 1) << shift) - 1));
        }
    });
    // Writers of a beat a cycle read one DDR bank and write the other (bank B from 4 GiB):
    // the puts deliver to the bank from which the digit passes, alternating banks, end in
    // the keys' region in bank A, and the grouping writes the send buffer to the other
    // bank (a bank read by a card's engine while its peers' puts write it slows the puts
    // several times): bank B, or bank A before an odd number of digits unless the first
    // digit's count copies the keys to bank B (every card's keys spanning under 2^31
    // values: a scatter into one bin), as in spgen.sort.
    const bool wide = writer.max_bits > 0;
    const int sort_bits = exact ? 0 : bit_length(hi - lo);
    // The grouping pass counts every destination's first digit (dest_count_plan): grouping,
    // the puts of the keys, then of the counts, then per destination a load of its sources'
    // counts and one scatter per digit. Before an odd number of digits the grouping reads the
    // copy in bank B and writes bank A, the puts deliver to bank B; as in spgen.sort.
    auto collect = [&] {  // the result from every card's keys' region
        for (int c = 0; c < N; ++c) {
            r.counts[c] = received[c];
            auto k = read<uint32_t>(cl, c, 0, received[c] * es / 4);
            for (uint64_t i = 0; i < k.size(); i += es / 4) {
                out_keys.push_back(k[i]);
                if (payloads && out_payloads) out_payloads->push_back(k[i + 1]);
            }
        }
        return r;
    };
    const DestCount dc = writer.dest && sort_bits ? dest_count_plan(writer.max_bits, 0, bins, spans) : DestCount();
    if (dc.first) {
        const bool odd = dc.digits % 2;
        const uint64_t from = odd ? bank_b : 0, send = odd ? 3 * R : bank_b, to = odd ? bank_b + R : 5 * R;
        const uint64_t block = uint64_t(4) << dc.first, loads = 6 * R;
        if (std::string e = on_cards("group by card", [&](int c, uint64_t &ns) {
                return writer.run(c, from, part[c], 0, 0, {true, base, shift, send}, dump, ns, 8, dc.first, &dc.dests); });
            !e.empty())
            return fail(e);
        std::vector<Put> puts;
        for (int c = 0; c < N; ++c)
            for (const Put &p : pieces[c]) puts.push_back({c, p.dst, send + es * p.local, to + es * p.remote, es * p.bytes});
        if ((r.code = clock.network("scatter", puts))) return r;
        // every destination's counts of its first digit, after the keys (among their puts
        // these small ones held the keys' puts back by a third)
        puts.clear();
        for (int c = 0; c < N; ++c)
            for (int d = 0; d < N; ++d) puts.push_back({c, d, dump + 64 + d * block, loads + c * block, block});
        if ((r.code = clock.network("digit counts", puts))) return r;
        if (std::string e = on_cards("local counting", [&](int c, uint64_t &ns) {
                const uint64_t k = received[c];
                if (!k) return std::string();
                std::string e = writer.run(c, loads, uint64_t(N) << dc.first, 0, 0, none, 0, ns, dc.first, 0, nullptr, true);
                uint64_t at = to;
                const uint32_t b = uint32_t(dc.base[c]);
                for (int j = 0, sh = 0, w = dc.first; j < dc.digits && e.empty(); ++j, sh += w, w = dc.bits) {
                    const uint64_t dst = j + 1 == dc.digits ? 0 : at >= bank_b ? 5 * R : bank_b;
                    e = writer.run(c, at, k, b, sh + w < 32 ? sh + w : 0, {true, b, sh, dst}, 0, ns, w, dc.bits);
                    at = dst;
                }
                return e; }); !e.empty())
            return fail(e);
        return collect();
    }
    bool copy = wide && !exact;
    for (const auto &[a, b] : spans) copy = copy && (a > b || b - a < (uint64_t(1) << 31));
    const int bits = writer.digit_bits(sort_bits, *std::max_element(received.begin(), received.end()), !copy);
    const int digits = sort_bits ? (sort_bits + bits - 1) / bits : 0;
    copy = copy && digits % 2 == 1;
    const uint64_t recv = wide && digits % 2 && !copy ? bank_b + R : 5 * R;
    const uint64_t target = exact ? 0 : recv;  // one key value per bin: straight to the final place
    const uint64_t send = wide && target < bank_b ? bank_b : 3 * R;
    if (std::string e = on_cards("group by card", [&](int c, uint64_t &ns) {
            return writer.run(c, 0, part[c], uint32_t(lo), 0, {true, base, shift, send}, 0, ns); }); !e.empty())
        return fail(e);
    std::vector<Put> puts;
    for (int c = 0; c < N; ++c)
        for (const Put &p : pieces[c]) puts.push_back({c, p.dst, send + es * p.local, target + es * p.remote, es * p.bytes});
    if ((r.code = clock.network("scatter", puts))) return r;
    if (std::string e = on_cards("local counting", [&](int c, uint64_t &ns) {
            const uint64_t k = received[c];
            if (!sort_bits || !k) return std::string();
            std::string e = copy ? writer.run(c, recv, k, uint32_t(lo), 0, {true, uint32_t(spans[c].first), 31, bank_b},
                                              0, ns, bits)
                                 : writer.run(c, recv, k, uint32_t(lo), 0, none, 0, ns, bits);
            uint64_t src = copy ? bank_b : recv;
            for (int sh = 0, j = 0; sh < sort_bits && e.empty(); sh += bits, ++j) {
                uint64_t dst = 0;  // the last pass: the keys' region
                if (sh + bits < sort_bits) dst = wide ? (src >= bank_b ? 5 * R : bank_b) : (j % 2 ? 5 * R : 3 * R);
                e = writer.run(c, src, k, uint32_t(lo), sh + bits < 32 ? sh + bits : 0,
                               {true, uint32_t(lo), sh, dst}, 0, ns, bits);
                src = dst;
            }
            return e; }); !e.empty())
        return fail(e);
    return collect();
}

}  // namespace afushell

#include <afushell/sort_spread.hpp>  // sort_spread and distributed_sort

#endif  // AFUSHELL_SORT_HPP
