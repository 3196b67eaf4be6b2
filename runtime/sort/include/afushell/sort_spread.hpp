// afushell distributed counting sort, the sequence of phases of the host's counting passes
// or the counting core's (docs/sort.md): sort_spread sorts an array spread over the cards,
// distributed_sort spreads, sorts and gathers. spgen.sort runs this same sort_spread over a
// Python cluster. Included by afushell/sort.hpp, which holds the planning it uses.
#ifndef AFUSHELL_SORT_SPREAD_HPP
#define AFUSHELL_SORT_SPREAD_HPP

#include <afushell/sort.hpp>

namespace afushell {

// An array spread over cards, as spgen.sort.spread leaves it: counts[i] keys at address 0
// of card cards[i] (with payloads as many uint32 payloads at kSortRegion). The cards of a
// spread are the cluster's present ones, absent cards left out.
struct SortSpread {
    std::vector<int> cards;
    std::vector<uint64_t> counts;
    bool payloads = false;
};

struct SortOptions {
    int partition_bits = kSortPartitionBits;  // the partition's 2^bits bins, 1..16
    int digit_bits = kSortDigitBits;          // the local passes' digit, 1..16
    bool count_on_cards = false;              // the counting core counts (partition and digits of 8 bits)
    std::function<void(const std::string &)> progress;  // called with each phase's name as it ends
};

namespace sort_detail {
// A spread's cards: the cluster's present ones (a description's absent cards hold nothing).
inline std::vector<int> present_cards(afu_rdma_cluster cl) {
    std::vector<int> cards;
    for (int c = 0; c < afuShellRDMAClusterCards(cl); ++c)
        if (afuShellRDMAClusterCardPresent(cl, c)) cards.push_back(c);
    return cards;
}

// After a sort of s: take(card, its count) card by card unless the sort failed, and r.counts
// per card of the cluster (0 on absent cards).
template <class F>
void gathered(afu_rdma_cluster cl, const SortSpread &s, SortResult &r, F &&take) {
    std::vector<uint64_t> counts(afuShellRDMAClusterCards(cl), 0);
    for (size_t i = 0; i < s.cards.size() && !r.code; ++i) take(s.cards[i], counts[s.cards[i]] = r.counts[i]);
    r.counts = counts;
}

// "" or why sort_spread cannot sort Key keys on cluster cl with options o.
template <class Key>
std::string refusal(afu_rdma_cluster cl, const SortOptions &o) {
    if (o.partition_bits < 1 || o.partition_bits > 16)
        return "partition_bits must be 1..16, got " + std::to_string(o.partition_bits);
    if (o.digit_bits < 1 || o.digit_bits > 16) return "digit_bits must be 1..16, got " + std::to_string(o.digit_bits);
    if (!o.count_on_cards) return "";
    if (!afuShellRDMAClusterIsRTL(cl)) return "the network model has no cards to run cores on";
    if (!std::is_same<Key, uint32_t>::value) return "the counting core takes uint32 keys";
    if (o.partition_bits > 8 || o.digit_bits != 8)
        return "the counting core counts 256 bins: partition_bits <= 8 and digit_bits = 8";
    return "";
}
}  // namespace sort_detail

// Sorts an array spread over the cards (SortSpread) in place, the sequence of phases that
// spgen.sort runs from Python too: each card's range, exchanged; the histogram by
// partition bin (on the host, or on the counting core's cascade with count_on_cards: RTL
// cards built from cores/sort/sort_rank.spd, uint32 keys), exchanged; prefix sums; the
// grouping by destination; the scatter (RDMA puts); the stable local counting passes (on
// the host, or counted by the core and moved by the host). Afterwards card s.cards[i] holds
// result.counts[i] keys at address 0 (payloads at kSortRegion), in order across the cards.
// Bad options come back as AFU_ERR_BAD_ARG before anything is written; a failed transfer
// as its afu_result (AFU_ERR_RDMA_*; afuShellRDMALastDump after a timeout).
template <class Key>
SortResult sort_spread(afu_rdma_cluster cl, const SortSpread &s, const SortOptions &o = SortOptions()) {
    static_assert(std::is_same<Key, uint32_t>::value || std::is_same<Key, uint64_t>::value,
                  "afushell::sort_spread takes uint32_t or uint64_t keys");
    using namespace sort_detail;
    SortResult r;
    const std::vector<int> &cards = s.cards;
    const int N = int(cards.size());
    const uint64_t ks = sizeof(Key), R = kSortRegion, B = uint64_t(1) << o.partition_bits;
    const uint64_t counts_at = 2 * R, hist_at = counts_at + 16ull * N;
    auto fail = [&](afu_result code, std::string why) {
        r.code = code;
        r.error = std::move(why);
        return r;
    };
    if (N < 1 || s.counts.size() != cards.size()) return fail(AFU_ERR_BAD_ARG, "a spread over cards, a count per card");
    if (std::string why = refusal<Key>(cl, o); !why.empty()) return fail(AFU_ERR_BAD_ARG, why);
    CardCounter counter(cl, afuShellRDMAClusterCards(cl));
    if (o.count_on_cards && !(r.error = counter.open(cards)).empty()) return fail(AFU_ERR_BAD_ARG, r.error);
    std::vector<std::vector<uint32_t>> ranks(N);  // the counting core's, per card of the spread
    Clock clock(cl, r, o.progress);
    auto all_to_all = [&](uint64_t base, uint64_t bytes) {  // card i's slot at base + i * bytes to every other card
        std::vector<Put> puts;
        for (int i = 0; i < N; ++i)
            for (int d : cards)
                if (d != cards[i]) puts.push_back({cards[i], d, base + i * bytes, base + i * bytes, bytes});
        return puts;
    };
    // 1. range: local min/max, exchanged so that every card knows the keys' global range
    clock.host("range (local)", [&] {
        for (int i = 0; i < N; ++i) {
            uint64_t mm[2] = {~0ull, 0};
            for (Key x : read<Key>(cl, cards[i], 0, s.counts[i])) {
                mm[0] = std::min<uint64_t>(mm[0], x);
                mm[1] = std::max<uint64_t>(mm[1], x);
            }
            afuShellRDMAWriteMem(cl, cards[i], counts_at + 16ull * i, mm, 16);
        }
    });
    if ((r.code = clock.network("range exchange", all_to_all(counts_at, 16)))) return r;
    const auto range = exchanged_range(cl, N, counts_at, cards[0]);
    const uint64_t lo = range.first, hi = range.second;
    r.counts = s.counts;
    if (lo > hi) return r;  // no keys
    const int span = bit_length(hi - lo), shift = std::max(0, span - o.partition_bits);
    for (int i = 1; i < N; ++i)  // every card computed the same range from its own copy
        if (const auto other = exchanged_range(cl, N, counts_at, cards[i]); other != range)
            return fail(AFU_ERR_BAD_ARG, "card " + std::to_string(cards[i]) + " holds another key range (" +
                                             std::to_string(other.first) + ", " + std::to_string(other.second) +
                                             ") than card " + std::to_string(cards[0]) + " (" + std::to_string(lo) +
                                             ", " + std::to_string(hi) + ") after the exchange");
    // 2. histogram of the partition digit, (key - lo) >> shift
    if (o.count_on_cards) {
        std::vector<uint64_t> ns(N, 0);
        for (int i = 0; i < N; ++i) {
            std::vector<uint64_t> h64;
            r.error = counter.count(cards[i], 0, s.counts[i], uint32_t(lo), shift, ranks[i], h64, ns[i]);
            if (!r.error.empty()) return fail(AFU_ERR_BAD_ARG, r.error);
            std::vector<uint32_t> h(B, 0);
            for (size_t b = 0; b < h64.size() && b < B; ++b) h[b] = uint32_t(h64[b]);
            write(cl, cards[i], hist_at + 4 * B * i, h);
        }
        clock.card("histogram", ns);
    } else {
        clock.host("histogram", [&] {
            for (int i = 0; i < N; ++i) {
                std::vector<uint32_t> h(B, 0);
                for (Key k : read<Key>(cl, cards[i], 0, s.counts[i])) h[uint64_t(Key(k - Key(lo)) >> shift)]++;
                write(cl, cards[i], hist_at + 4 * B * i, h);
            }
        });
    }
    // 3. the counts, all to all
    if ((r.code = clock.network("count exchange", all_to_all(hist_at, 4 * B)))) return r;
    // 4. prefix sums, on every card from its own copy of the counts: bin -> card, and where
    //    this card's keys for each destination start in that destination's receive buffer.
    //    With shift 0 every bin holds one key value (all keys equal, or OPTWEB's few key
    //    values): every key's global place follows from the counts alone, bins may be split
    //    between cards, each card receives exactly its n/N keys, already in order.
    const bool exact = shift == 0;
    std::vector<std::vector<Put>> pieces(N);
    std::vector<uint64_t> received(N);
    clock.host("prefix sums", [&] {  // the exchange left every card the same table: read it once
        const auto h = read<uint32_t>(cl, cards[0], hist_at, B * N);
        received = plan_all(h, N, exact, pieces);
    });
    // 5. grouping by destination (bin order, which is destination order too: a card takes
    //    consecutive bins), stably; with the counting core by the card's ranks
    clock.host("group by card", [&] {
        for (int i = 0; i < N; ++i) {
            auto k = read<Key>(cl, cards[i], 0, s.counts[i]);
            auto p = s.payloads ? read<uint32_t>(cl, cards[i], R, s.counts[i]) : std::vector<uint32_t>();
            if (o.count_on_cards) {
                const auto h32 = read<uint32_t>(cl, cards[i], hist_at + 4 * B * i, B);
                const std::vector<uint64_t> h(h32.begin(), h32.end());
                by_bins<Key>(k, s.payloads ? &p : nullptr, lo, shift, o.partition_bits, &h, &ranks[i]);
            } else {
                by_bins<Key>(k, s.payloads ? &p : nullptr, lo, shift, o.partition_bits);
            }
            write(cl, cards[i], 3 * R, k);
            write(cl, cards[i], 4 * R, p);
        }
    });
    // 6. scatter: every key (and payload) straight to its place in the destination's buffer
    std::vector<Put> puts;
    for (int i = 0; i < N; ++i) {
        for (const Put &p : pieces[i]) {  // here: local/remote are key offsets, bytes a key count
            puts.push_back({cards[i], cards[p.dst], 3 * R + p.local * ks, 5 * R + p.remote * ks, p.bytes * ks});
            if (s.payloads) puts.push_back({cards[i], cards[p.dst], 4 * R + p.local * 4, 6 * R + p.remote * 4, p.bytes * 4});
        }
    }
    if ((r.code = clock.network("scatter", puts))) return r;
    // 7. local counting passes at every destination, written back to the key region
    const int sort_bits = exact ? 0 : span, digit = o.digit_bits;  // bits the local passes sort by
    r.counts = received, r.shift = shift, r.local_passes = (sort_bits + digit - 1) / digit;
    auto moved = [&](int c, uint64_t k, uint64_t from, uint64_t to, int sh, const std::vector<uint64_t> &h,
                     const std::vector<uint32_t> &rk) {  // keys and payloads by the core's counts
        auto keys = read<Key>(cl, c, from, k);
        auto p = s.payloads ? read<uint32_t>(cl, c, from + R, k) : std::vector<uint32_t>();
        by_bins<Key>(keys, s.payloads ? &p : nullptr, lo, sh, h.size() > 1 ? 8 : 0, &h, &rk);  // 8: 256 bins
        write(cl, c, to, keys);
        write(cl, c, to + R, p);
    };
    if (o.count_on_cards) {  // per digit: the card counts (ranks and histogram), the host moves the keys
        std::vector<uint64_t> ns(N, 0);
        double move_s = 0;
        for (int i = 0; i < N; ++i) {
            const uint64_t k = received[i];
            const uint64_t bufs[2] = {5 * R, 3 * R};  // keys there, payloads a region above
            for (int sh = 0, j = 0; sh < sort_bits && k; sh += digit, ++j) {
                std::vector<uint32_t> rk;
                std::vector<uint64_t> h;
                r.error = counter.count(cards[i], bufs[j % 2], k, uint32_t(lo), sh, rk, h, ns[i]);
                if (!r.error.empty()) return fail(AFU_ERR_BAD_ARG, r.error);
                const auto t0 = std::chrono::steady_clock::now();
                moved(cards[i], k, bufs[j % 2], sh + digit < sort_bits ? bufs[(j + 1) % 2] : 0, sh, h, rk);
                move_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
            if (k && !sort_bits) {  // every key equal: the received order is the result
                std::vector<uint32_t> rk(k);
                for (uint64_t x = 0; x < k; ++x) rk[x] = uint32_t(x);
                const auto t0 = std::chrono::steady_clock::now();
                moved(cards[i], k, bufs[0], 0, 0, {k}, rk);
                move_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
        }
        clock.card("local counting", ns);
        r.phases.push_back({"local sort", "host", move_s});  // the moves between the counts
        return r;
    }
    clock.host("local sort", [&] {
        for (int i = 0; i < N; ++i) {
            auto k = read<Key>(cl, cards[i], 5 * R, received[i]);
            auto p = s.payloads ? read<uint32_t>(cl, cards[i], 6 * R, received[i]) : std::vector<uint32_t>();
            local_passes<Key>(k, s.payloads ? &p : nullptr, lo, sort_bits, digit);
            write(cl, cards[i], 0, k);
            write(cl, cards[i], R, p);
        }
    });
    return r;
}

// Sorts keys[0..n) (and payloads, which may be null) over every present card of the
// cluster (sort_spread after spreading them in equal parts); the sorted keys (and payloads)
// come back in out_keys / out_payloads (out_payloads may be null). The cards hold the result
// afterwards too: result.counts[c] keys at address 0 of card c (0 on absent cards).
// count_on_cards: the counting passes on the cards' cascades (RTL cards built from
// cores/sort/sort_rank.spd, uint32 keys); otherwise on the host.
template <class Key>
SortResult distributed_sort(afu_rdma_cluster cl, const Key *keys, const uint32_t *payloads, uint64_t n,
                            std::vector<Key> &out_keys, std::vector<uint32_t> *out_payloads,
                            bool count_on_cards = false) {
    static_assert(std::is_same<Key, uint32_t>::value || std::is_same<Key, uint64_t>::value,
                  "afushell::distributed_sort takes uint32_t or uint64_t keys");
    using namespace sort_detail;
    SortResult r;
    const int N = afuShellRDMAClusterCards(cl);
    const uint64_t R = kSortRegion;
    SortOptions o;
    o.count_on_cards = count_on_cards;
    r.code = AFU_ERR_BAD_ARG;
    if (N < 1 || (n && !keys)) {
        r.error = N < 1 ? "no cluster" : "keys is NULL";
        return r;
    }
    if (n > R / sizeof(Key) - 256) {
        r.error = "too many keys: " + std::to_string(n) + " (at most " + std::to_string(R / sizeof(Key) - 256) +
                  ": one card may receive every key)";
        return r;
    }
    if (!(r.error = refusal<Key>(cl, o)).empty()) return r;  // before anything is written
    SortSpread s{present_cards(cl), {}, payloads != nullptr};
    s.counts = spread(cl, s.cards, keys, payloads, n);
    r = sort_spread<Key>(cl, s, o);
    out_keys.clear();
    if (out_payloads) out_payloads->clear();
    gathered(cl, s, r, [&](int c, uint64_t count) {
        const auto k = read<Key>(cl, c, 0, count);
        out_keys.insert(out_keys.end(), k.begin(), k.end());
        if (!payloads || !out_payloads) return;
        const auto p = read<uint32_t>(cl, c, R, count);
        out_payloads->insert(out_payloads->end(), p.begin(), p.end());
    });
    return r;
}

}  // namespace afushell

#endif  // AFUSHELL_SORT_SPREAD_HPP
