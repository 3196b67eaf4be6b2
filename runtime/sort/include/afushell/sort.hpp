// afushell distributed counting sort (docs/sort.md): uint32 or uint64 keys, optionally with
// uint32 payloads, sorted across the cards of a cluster (afushell/rdma.h) the way
// spgen.sort does it from Python: range and count exchanges, prefix sums, a scatter of every
// key to its destination card by RDMA puts, stable LSD counting passes at the destination.
// The counting and grouping passes run on the host over the cards' memories here; the
// exchanges are RDMA puts between the simulated cards, timed on the cluster clock.
// Header-only; link against libafushell.
#ifndef AFUSHELL_SORT_HPP
#define AFUSHELL_SORT_HPP

#include <afushell/rdma.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
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
};

struct SortResult {
    int code = AFU_RDMA_OK;          // an afu_rdma_error; AFU_RDMA_BAD_ARG with `error` for bad input
    std::string error;
    std::vector<uint64_t> counts;    // keys per card afterwards
    std::vector<SortPhase> phases;
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

class Clock {
  public:
    explicit Clock(afu_rdma_cluster cl, SortResult &r) : cl_(cl), r_(r) {}
    template <class F>
    void host(const char *name, F &&fn) {
        auto t0 = std::chrono::steady_clock::now();
        fn();
        r_.phases.push_back({name, "host",
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0});
    }
    // Issues every put at once, waits for all; the first failure is the result.
    int network(const char *name, const std::vector<Put> &puts) {
        uint64_t c0 = afuShellRDMACycles(cl_);
        std::vector<afu_rdma_handle> hs;
        int rc = AFU_RDMA_OK;
        for (const Put &p : puts) {
            if (!p.bytes) continue;
            afu_rdma_handle h;
            int e = afuShellRDMAPutAsync(cl_, p.card, p.dst, p.local, p.remote, p.bytes, &h);
            if (e) { rc = rc ? rc : e; continue; }
            hs.push_back(h);
        }
        for (afu_rdma_handle h : hs) {
            int e = afuShellRDMAWait(cl_, h, 0);
            rc = rc ? rc : e;
        }
        uint64_t cycles = afuShellRDMACycles(cl_) - c0;
        r_.phases.push_back({name, "network", cycles / afuShellRDMAClockMHz(cl_) * 1e-6, cycles});
        return rc;
    }

  private:
    afu_rdma_cluster cl_;
    SortResult &r_;
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

}  // namespace sort_detail

// Sorts keys[0..n) (and payloads, which may be null) over every card of the cluster; the
// sorted keys (and payloads) come back in out_keys / out_payloads (out_payloads may be null).
// The cards hold the result afterwards too: result.counts[i] keys at address 0 of card i.
template <class Key>
SortResult distributed_sort(afu_rdma_cluster cl, const Key *keys, const uint32_t *payloads, uint64_t n,
                            std::vector<Key> &out_keys, std::vector<uint32_t> *out_payloads) {
    static_assert(std::is_same<Key, uint32_t>::value || std::is_same<Key, uint64_t>::value,
                  "afushell::distributed_sort takes uint32_t or uint64_t keys");
    using namespace sort_detail;
    SortResult r;
    const int N = afuShellRDMAClusterCards(cl);
    const uint64_t ks = sizeof(Key), R = kSortRegion, B = uint64_t(1) << kSortPartitionBits;
    if (N < 1 || (n && !keys)) {
        r.code = AFU_RDMA_BAD_ARG;
        r.error = N < 1 ? "no cluster" : "keys is NULL";
        return r;
    }
    if (n > R / ks - 256) {
        r.code = AFU_RDMA_BAD_ARG;
        r.error = "too many keys: " + std::to_string(n) + " (at most " + std::to_string(R / ks - 256) +
                  ": one card may receive every key)";
        return r;
    }
    const bool with_pay = payloads != nullptr;
    const uint64_t counts_at = 2 * R, hist_at = counts_at + 16ull * N;
    Clock clock(cl, r);
    // spread: equal contiguous parts
    std::vector<uint64_t> part(N);
    for (int c = 0; c < N; ++c) {
        uint64_t a = n * c / N, b = n * (c + 1) / N;
        part[c] = b - a;
        if (part[c]) {
            afuShellRDMAWriteMem(cl, c, 0, keys + a, part[c] * ks);
            if (with_pay) afuShellRDMAWriteMem(cl, c, R, payloads + a, part[c] * 4);
        }
    }
    auto all_to_all = [&](uint64_t base, uint64_t bytes) {
        std::vector<Put> puts;
        for (int c = 0; c < N; ++c)
            for (int d = 0; d < N; ++d)
                if (d != c) puts.push_back({c, d, base + c * bytes, base + c * bytes, bytes});
        return puts;
    };
    clock.host("range (local)", [&] {
        for (int c = 0; c < N; ++c) {
            auto k = read<Key>(cl, c, 0, part[c]);
            uint64_t mm[2] = {~0ull, 0};
            for (Key x : k) { mm[0] = std::min<uint64_t>(mm[0], x); mm[1] = std::max<uint64_t>(mm[1], x); }
            afuShellRDMAWriteMem(cl, c, counts_at + 16ull * c, mm, 16);
        }
    });
    if ((r.code = clock.network("range exchange", all_to_all(counts_at, 16)))) return r;
    auto ranges = read<uint64_t>(cl, 0, counts_at, 2ull * N);
    uint64_t lo = ~0ull, hi = 0;
    for (int c = 0; c < N; ++c) { lo = std::min(lo, ranges[2 * c]); hi = std::max(hi, ranges[2 * c + 1]); }
    r.counts.assign(N, 0);
    out_keys.clear();
    if (out_payloads) out_payloads->clear();
    if (lo > hi) return r;  // no keys
    const int span = bit_length(hi - lo), shift = std::max(0, span - kSortPartitionBits);
    auto bin = [&](Key k) { return uint64_t(Key(k - Key(lo)) >> shift); };
    clock.host("histogram", [&] {
        for (int c = 0; c < N; ++c) {
            std::vector<uint32_t> h(B, 0);
            for (Key k : read<Key>(cl, c, 0, part[c])) h[bin(k)]++;
            write(cl, c, hist_at + 4 * B * c, h);
        }
    });
    if ((r.code = clock.network("count exchange", all_to_all(hist_at, 4 * B)))) return r;
    // prefix sums, on every card from its own copy of the counts. With shift 0 every bin is
    // one key value: each key's global position follows from the counts, bins are split at
    // the cards' boundaries and arrive in order (no local pass).
    const bool exact = shift == 0;
    std::vector<uint64_t> bounds(N + 1);
    for (int d = 0; d <= N; ++d) bounds[d] = n * d / N;
    std::vector<std::vector<uint64_t>> owner(N), recv_off(N);
    std::vector<std::vector<Put>> pieces(N);
    std::vector<uint64_t> received(N);
    clock.host("prefix sums", [&] {
        for (int c = 0; c < N; ++c) {
            auto h = read<uint32_t>(cl, c, hist_at, B * N);
            std::vector<uint64_t> tot(B, 0);
            for (int s = 0; s < N; ++s)
                for (uint64_t b = 0; b < B; ++b) tot[b] += h[s * B + b];
            owner[c].assign(B, 0);
            if (exact) {  // (send offset, destination, receive offset, keys) per piece of a bin
                uint64_t g0 = 0, at = 0;
                for (uint64_t b = 0; b < B; ++b) {
                    uint64_t g = g0, m = h[c * B + b];
                    for (int s = 0; s < c; ++s) g += h[s * B + b];
                    while (m) {
                        int d = int(std::upper_bound(bounds.begin(), bounds.end(), g) - bounds.begin()) - 1;
                        uint64_t take = std::min(m, bounds[d + 1] - g);
                        pieces[c].push_back({c, d, at, g - bounds[d], take});
                        at += take, g += take, m -= take;
                    }
                    g0 += tot[b];
                }
                received[c] = bounds[c + 1] - bounds[c];
                continue;
            }
            uint64_t before = 0;
            for (uint64_t b = 0; b < B; ++b) {  // consecutive bins, about n/N keys per card
                owner[c][b] = std::min<uint64_t>((2 * before + tot[b]) * N / std::max<uint64_t>(2 * n, 1), N - 1);
                before += tot[b];
            }
            std::vector<uint64_t> per_dest(N * N, 0);  // [source][destination]
            for (int s = 0; s < N; ++s)
                for (uint64_t b = 0; b < B; ++b) per_dest[s * N + owner[c][b]] += h[s * B + b];
            recv_off[c].assign(N, 0);
            for (int d = 0; d < N; ++d)
                for (int s = 0; s < c; ++s) recv_off[c][d] += per_dest[s * N + d];
            received[c] = 0;
            for (int s = 0; s < N; ++s) received[c] += per_dest[s * N + c];
        }
    });
    std::vector<std::vector<uint64_t>> runs(N, std::vector<uint64_t>(N, 0));
    clock.host("group by card", [&] {
        for (int c = 0; c < N; ++c) {
            auto k = read<Key>(cl, c, 0, part[c]);
            std::vector<uint32_t> p = with_pay ? read<uint32_t>(cl, c, R, part[c]) : std::vector<uint32_t>();
            // bin order, which is destination order too (a card takes consecutive bins)
            std::vector<uint64_t> start(B + 1, 0);
            for (Key x : k) start[bin(x) + 1]++;
            if (!exact)
                for (uint64_t b = 0; b < B; ++b) runs[c][owner[c][b]] += start[b + 1];
            for (uint64_t b = 0; b < B; ++b) start[b + 1] += start[b];
            std::vector<Key> sk(k.size());
            std::vector<uint32_t> sp(p.size());
            for (size_t i = 0; i < k.size(); ++i) {
                uint64_t at = start[bin(k[i])]++;
                sk[at] = k[i];
                if (with_pay) sp[at] = p[i];
            }
            write(cl, c, 3 * R, sk);
            write(cl, c, 4 * R, sp);
        }
    });
    std::vector<Put> puts;
    for (int c = 0; c < N; ++c) {
        if (!exact) {
            uint64_t at = 0;
            for (int d = 0; d < N; ++d) {
                pieces[c].push_back({c, d, at, recv_off[c][d], runs[c][d]});
                at += runs[c][d];
            }
        }
        for (const Put &p : pieces[c]) {  // here: local/remote are key offsets, bytes a key count
            puts.push_back({c, p.dst, 3 * R + p.local * ks, 5 * R + p.remote * ks, p.bytes * ks});
            if (with_pay) puts.push_back({c, p.dst, 4 * R + p.local * 4, 6 * R + p.remote * 4, p.bytes * 4});
        }
    }
    if ((r.code = clock.network("scatter", puts))) return r;
    clock.host("local sort", [&] {
        for (int c = 0; c < N; ++c) {
            auto k = read<Key>(cl, c, 5 * R, received[c]);
            std::vector<uint32_t> p = with_pay ? read<uint32_t>(cl, c, 6 * R, received[c]) : std::vector<uint32_t>();
            for (int sh = 0; sh < (exact ? 0 : span); sh += kSortDigitBits)
                counting_pass<Key>(k, with_pay ? &p : nullptr, Key(lo), sh, kSortDigitBits);
            write(cl, c, 0, k);
            write(cl, c, R, p);
            r.counts[c] = received[c];
            out_keys.insert(out_keys.end(), k.begin(), k.end());
            if (out_payloads) out_payloads->insert(out_payloads->end(), p.begin(), p.end());
        }
    });
    return r;
}

}  // namespace afushell

#endif  // AFUSHELL_SORT_HPP
