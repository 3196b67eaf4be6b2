// afushell distributed sort: the partition's plan (docs/sort.md, "Where the plan runs"),
// from every card's counts to where one card's keys go. Freestanding C++ (no allocation, no
// library, only <stdint.h>), so that the host (sort.hpp's plan_all) and a processor on the
// card (benchmarks/sort_plan_cpu, a PicoRV32) run the same code.
#ifndef AFUSHELL_SORT_PLAN_H
#define AFUSHELL_SORT_PLAN_H

#include <stdint.h>

namespace afushell {
namespace sort_plan {

// 64-bit words of scratch that plan_shared fills and plan_card reads, for N cards and B bins.
inline uint64_t scratch_words(int N, uint64_t B) { return 2 * B + uint64_t(N) + 1 + uint64_t(N) * uint64_t(N); }

// The part of the plan that every card shares, from every card's counts h[source * B + bin]
// into `scratch` (scratch_words(N, B) words): each bin's keys in all, the cards' shares
// (bounds: n * d / N), and without `exact` each bin's card and the keys every card sends
// every card. Each card's plan_card then reads it.
inline void plan_shared(const uint32_t *h, int N, uint64_t B, bool exact, uint64_t *scratch) {
    uint64_t *tot = scratch, *owner = tot + B, *bounds = owner + B, *per_dest = bounds + N + 1;
    uint64_t n = 0;
    for (uint64_t b = 0; b < B; ++b) tot[b] = 0;
    for (int s = 0; s < N; ++s)
        for (uint64_t b = 0; b < B; ++b) tot[b] += h[s * B + b];
    for (uint64_t b = 0; b < B; ++b) n += tot[b];
    for (int d = 0; d <= N; ++d) bounds[d] = n * uint64_t(d) / uint64_t(N);
    if (exact) return;
    // a bin's owner: the card whose share holds its middle, min((2 * before + tot) * N / 2n,
    // N - 1); as `before` only grows, so does the owner: found by comparison, not division
    const uint64_t two_n = n ? 2 * n : 1;
    uint64_t before = 0, o = 0;
    for (uint64_t b = 0; b < B; ++b) {
        const uint64_t mid = (2 * before + tot[b]) * uint64_t(N);
        while (o + 1 < uint64_t(N) && mid >= (o + 1) * two_n) ++o;
        owner[b] = o;
        before += tot[b];
    }
    for (int i = 0; i < N * N; ++i) per_dest[i] = 0;  // [source][destination]
    for (int s = 0; s < N; ++s)
        for (uint64_t b = 0; b < B; ++b) per_dest[s * N + owner[b]] += h[s * B + b];
}

// Where card c's keys go, from the counts and plan_shared's scratch: for each piece
// emit(destination, offset in c's send buffer (its keys in bin order), offset in the
// destination's receive buffer, keys). Returns the keys c receives. Consecutive bins go to a
// card, about n/N keys each; with `exact` (a bin is one key value) every key's global place
// follows from the counts, and bins are split at the cards' boundaries. Without `exact`,
// *first and *last (where given) become the first and last bin c owns (first > last: none).
template <class Emit>
uint64_t plan_card(const uint32_t *h, int N, uint64_t B, int c, bool exact, const uint64_t *scratch, Emit &&emit,
                   uint64_t *first = nullptr, uint64_t *last = nullptr) {
    const uint64_t *tot = scratch, *owner = tot + B, *bounds = owner + B, *per_dest = bounds + N + 1;
    if (exact) {
        uint64_t g0 = 0, at = 0;  // keys before bin b in all; c's keys placed so far
        int d = 0;                // the card whose share holds global place g (g only grows)
        for (uint64_t b = 0; b < B; ++b) {
            uint64_t g = g0, m = h[c * B + b];
            for (int s = 0; s < c; ++s) g += h[s * B + b];
            while (m) {
                while (bounds[d + 1] <= g) ++d;  // the last d with bounds[d] <= g < n
                const uint64_t take = m < bounds[d + 1] - g ? m : bounds[d + 1] - g;
                emit(d, at, g - bounds[d], take);
                at += take, g += take, m -= take;
            }
            g0 += tot[b];
        }
        return bounds[c + 1] - bounds[c];
    }
    if (first && last) {
        *first = B, *last = 0;
        for (uint64_t b = 0; b < B; ++b)
            if (owner[b] == uint64_t(c)) {
                if (b < *first) *first = b;
                *last = b;
            }
    }
    uint64_t at = 0, received = 0;
    for (int d = 0; d < N; ++d) {
        uint64_t off = 0;
        for (int s = 0; s < c; ++s) off += per_dest[s * N + d];
        emit(d, at, off, per_dest[c * N + d]);
        at += per_dest[c * N + d];
        received += per_dest[d * N + c];
    }
    return received;
}

}  // namespace sort_plan
}  // namespace afushell

#endif  // AFUSHELL_SORT_PLAN_H
