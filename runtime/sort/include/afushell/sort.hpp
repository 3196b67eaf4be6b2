// afushell distributed counting sort (docs/sort.md): uint32 or uint64 keys, optionally with
// uint32 payloads, sorted across the cards of a cluster (afushell/rdma.h) the way
// spgen.sort does it from Python: range and count exchanges, prefix sums, a scatter of every
// key to its destination card by RDMA puts, stable LSD counting passes at the destination.
// The exchanges are RDMA puts between the simulated cards, timed on the cluster clock; the
// counting passes run on the cards' cascades (RTL cards built from cores/sort/sort_rank.spd,
// uint32 keys, count_on_cards) or on the host; grouping and moves run on the host.
// distributed_sort_on_cards (sort_writer.hpp) moves every key on the cards instead (RTL
// cards built with --sort-scatter, uint32 keys): their scatter writers find the range, count
// and write every key to its place; the host computes the prefix sums and issues passes and
// puts.
// Header-only; link against libafushell.
#ifndef AFUSHELL_SORT_HPP
#define AFUSHELL_SORT_HPP

#include <afushell/afushell.h>
#include <afushell/rdma.h>
#include <afushell/sort_plan.h>
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
    std::string where;  // "network" (the cards' or the cluster's clock), "card" or "host" (the host's clock)
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
    // A network phase whose puts the cards issued themselves, the slowest card taking ns.
    void network_on_cards(const char *name, uint64_t ns, const std::vector<Put> &puts) {
        uint64_t bytes = 0, ops = 0;
        for (const Put &p : puts) bytes += p.bytes, ops += p.bytes != 0;
        ended({name, "network", ns * 1e-9, uint64_t(ns * afuShellRDMAClockMHz(cl_) / 1e3), bytes, ops});
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

// Where the keys of every card go, from every card's counts h[source * B + bin] of n keys in
// all (sort_plan.h, the code a card's processor would run): per card its pieces (offset in
// its send buffer, which holds its keys in bin order; destination; offset in that card's
// receive buffer; keys) and the keys it receives. Consecutive bins go to a card, about n/N
// keys each; with `exact` (shift 0: a bin is one key value) every key's global place follows
// from the counts, bins are split at the cards' boundaries. `spans`, where given and without
// `exact`: per card the first and last bin it owns (first > last: none).
inline std::vector<uint64_t> plan_all(const std::vector<uint32_t> &h, int N, bool exact,
                                      std::vector<std::vector<Put>> &pieces,
                                      std::vector<std::pair<uint64_t, uint64_t>> *spans = nullptr) {
    const uint64_t B = h.size() / N;
    std::vector<uint64_t> scratch(sort_plan::scratch_words(N, B)), received(N);
    sort_plan::plan_shared(h.data(), N, B, exact, scratch.data());
    pieces.assign(N, {});
    for (int c = 0; c < N; ++c) {
        uint64_t first = B, last = 0;
        received[c] = sort_plan::plan_card(
            h.data(), N, B, c, exact, scratch.data(),
            [&](int d, uint64_t local, uint64_t remote, uint64_t keys) { pieces[c].push_back({c, d, local, remote, keys}); },
            &first, &last);
        if (spans && !exact) (*spans)[c] = {first, last};
    }
    return received;
}

// plan_all's share of card c alone (for tests): its pieces (appended) and the keys it
// receives; `span`, where given and without `exact`, its first and last bin.
inline uint64_t plan(const std::vector<uint32_t> &h, int N, int c, bool exact, std::vector<Put> &pieces,
                     std::pair<uint64_t, uint64_t> *span = nullptr) {
    std::vector<std::vector<Put>> all;
    std::vector<std::pair<uint64_t, uint64_t>> spans(N);
    const uint64_t received = plan_all(h, N, exact, all, &spans)[c];
    pieces.insert(pieces.end(), all[c].begin(), all[c].end());
    if (span && !exact) *span = spans[c];
    return received;
}

// plan's pieces of card c (offsets in a send buffer of its keys in bin order, no gaps) in a
// send buffer of one region of `capacity` keys per bin, own[b] being c's keys of bin b: the
// exact plan's pieces each lie in one bin.
inline void in_bins(std::vector<Put> &pieces, const uint32_t *own, uint64_t capacity) {
    uint64_t b = 0, start = 0;  // bin b's keys begin at `start` in the buffer without gaps
    for (Put &p : pieces) {
        while (p.local >= start + own[b]) start += own[b++];
        p.local = b * capacity + (p.local - start);
    }
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
// (0: a writer of a key a cycle, 8 bits) over sort_bits bits of `elements` elements of
// element_bytes bytes (4, 8 or 16: a key, a key-payload pair or a uint64 key, a uint64 key
// with its payload) per card (docs/sort.md, "The digit width"): fewer, wider passes cost a
// flush of the bins' last lines each (2^d lines, 16 bins a cycle before that), so the widest
// digit wins only where the keys outnumber the bins; a pass costs its beats, those lines and
// about 800 cycles of start (the registers, the DMA and the polls). An odd number of passes
// puts the send buffer in the bank the grouping reads, which runs that pass at about 1 / 2.6
// of its speed: 1.6 passes' beats more (odd_penalty; none where the first digit's count
// copies the keys to the other bank). The fewest cycles win, the widest of equals.
inline int choose_digit_bits(int max_bits, int element_bytes, int sort_bits, uint64_t elements, bool odd_penalty) {
    if (max_bits <= 0 || sort_bits <= 0) return 8;
    const double beats = double(elements) * element_bytes / 64;
    int best = 0;
    double best_cost = 0;
    for (int q = (sort_bits + max_bits - 1) / max_bits; q <= sort_bits; ++q) {
        const int d = (sort_bits + q - 1) / q, p = (sort_bits + d - 1) / d;
        const double cost = p * (beats + double(uint64_t(1) << d) * 17 / 16 + 800) + (p % 2 && odd_penalty ? 1.6 * beats : 0);
        if (!best || cost < best_cost) best = d, best_cost = cost;
    }
    return best;
}

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

}  // namespace afushell

#include <afushell/sort_spread.hpp>  // sort_spread and distributed_sort
#include <afushell/sort_writer.hpp>  // sort_on_cards and distributed_sort_on_cards

#endif  // AFUSHELL_SORT_HPP
