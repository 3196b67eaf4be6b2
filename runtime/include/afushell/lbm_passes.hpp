// The pass schedule of N LBM steps through cards with a cascade of D cores (C++17,
// header-only, no runtime): which FPGA memory each pass reads and writes, which step
// counts a cascade can run, and, for slabs on a line of cards (docs/lbm.md "Across
// cards"), which rows a card puts into a neighbour's halo after a pass and when it may
// start the next. One schedule for its drivers: run_card and run_slabs (lbm_card.hpp,
// the C API; run_slabs a thread per card) and lbm-slabs-mpi (rdma/lbm_slabs_mpi.cpp,
// MPI ranks acting on CSRs at look-ahead windows). The drivers differ only in how they
// wait and act; a change here changes all of them alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lbm.hpp"

namespace afushell {
namespace lbm {

// FPGA addresses of the two ping-pong buffers: the start of memories A and B.
inline constexpr std::uint64_t MEM_A = 0x0;
inline constexpr std::uint64_t MEM_B = std::uint64_t(1) << 32;

// Every transfer streams through the cascade (the shell has no bypass): with D cores,
// N steps are N / D passes: pass 0 the upload (H2F), passes 1 .. N/D - 2 F2F runs, the
// last the download (F2H). Empty when the cascade can run `steps`, else why not.
inline std::string steps_error(std::uint64_t steps, unsigned depth) {
    if (depth > 0 && steps >= 2ull * depth && steps % depth == 0) return "";
    return "a card with " + std::to_string(depth) + " core(s) advances the grid " + std::to_string(depth) +
           " steps per transfer (the upload and the download stream through the cores too): steps must "
           "be a multiple of " +
           std::to_string(depth) + ", at least " + std::to_string(2ull * depth) + ", got " + std::to_string(steps);
}

// The memory pass `p` writes (and pass p + 1 reads): A, B, A, ... The download reads
// pass_memory(passes - 2).
inline std::uint64_t pass_memory(std::uint64_t p) { return p % 2 ? MEM_B : MEM_A; }

// ---- slabs: a line of cards, card k linked to k - 1 and k + 1 ----------------------------

// One halo put: `count` rows of `block` bytes, consecutive on both sides.
struct HaloPut {
    std::uint64_t local = 0;   // FPGA address of the first row on the sending card
    std::uint64_t remote = 0;  // and where it lands on the neighbour
    std::uint64_t block = 0;   // bytes of a row
    std::uint64_t count = 0;   // rows: the cascade depth (the halo a pass consumes)
};

// What card k puts into neighbour j (k - 1 or k + 1) after pass `after`: its `depth` own
// rows next to j into j's halo rows, in the memory that pass wrote on both cards.
// `row_bytes`: a grid row's records. Puts follow passes 0 .. passes - 2 (see may_put).
inline HaloPut halo_put(const std::vector<Slab>& slabs, int k, int j, int depth, std::uint64_t row_bytes,
                        std::uint64_t after) {
    const Slab& s = slabs[std::size_t(k)];
    const Slab& t = slabs[std::size_t(j)];
    const int src = j > k ? s.hi - depth - s.first : s.lo - s.first;
    const int dst = j > k ? 0 : t.rows() - depth;
    const std::uint64_t mem = pass_memory(after);
    return {mem + std::uint64_t(src) * row_bytes, mem + std::uint64_t(dst) * row_bytes, row_bytes,
            std::uint64_t(depth)};
}

// Whether the put after pass `after` from a card to a neighbour may go: both have ended
// that pass (the neighbour no longer reads the rows it overwrites), and it is not the last.
inline bool may_put(std::uint64_t after, std::uint64_t passes, std::uint64_t mine_done, std::uint64_t theirs_done) {
    return after + 1 < passes && after < mine_done && after < theirs_done;
}

// Whether card k of `cards` may start pass p: its pass p - 1 has ended and the puts of
// its neighbours after that pass have landed in it (`landed_below`: the puts from card
// k - 1 done so far, `landed_above` from k + 1). Pass 0 (the upload) waits for nothing.
inline bool may_start(std::uint64_t p, int k, int cards, std::uint64_t done, std::uint64_t landed_below,
                      std::uint64_t landed_above) {
    if (p == 0) return true;
    return done >= p && (k == 0 || landed_below >= p) && (k + 1 == cards || landed_above >= p);
}

}  // namespace lbm
}  // namespace afushell
