// rdma-mpi-rtl: a cluster of RTL cards (spgen build --links N) split over MPI ranks. Each
// rank simulates a contiguous block of cards; words on links between ranks travel through
// MPI once per window of L cycles, L = the shortest link latency (the look-ahead: a word
// sent in a window arrives in a later one). Fault decisions belong to the sending side of
// each cable. So every rank count computes the same cycles: the workload's completions,
// memory checksums and link counters printed on stdout are identical for 1 and K ranks.
// With REDUCE_WORDS, a u32 reduction and an f32 allreduce of that many words along all
// cards follow (in seeded chain orders), each rank the host of its own cards of the chain.
//   mpirun -np K rdma-mpi-rtl CLUSTER.json [OPS_PER_CARD SEED [REDUCE_WORDS]]
// stdout: the results (compare them); stderr: wall time and card-cycles per second.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "afushell_csr.h"
#include "cluster.hpp"
#include "cluster_file.hpp"
#include "cluster_reduce.hpp"
#include "rtl_mpi_window.hpp"

namespace {
using spgsim::all;
using spgsim::window;

uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xFF51AFD7ED558CCDull, x ^= x >> 33, x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

// A reduction driven by the hosts of a split cluster: each rank programs the chain's cards it
// simulates and waits for their completion records (REDUCE_* CSRs, REDUCE_CPL, as
// start_reduce / poll_reduce do in one process); every step is taken at a window boundary
// once all ranks agree, so 1 and K ranks take the same cycles. *status: the chain's
// REDUCE_STATUS as the records say, on its own cards. Returns the RTL_* code, the same on
// every rank.
int split_reduce(spgsim::RtlCluster& cl, const spgsim::ReduceSpec& s, uint64_t sid, uint64_t L,
                 const std::vector<int>& owner, int ranks, std::vector<uint64_t>* status) {
  std::string why;
  if (const int code = spgsim::check_reduce(cl, s, &why)) return code;
  const size_t n = s.chain.size();
  std::vector<uint64_t>& st = *status;
  st.assign(n, 0);
  auto card = [&](size_t k) { return cl.card(s.chain[k]); };  // null: another rank's
  // the in-process cluster's start (posted writes only, no confirming read): every card but
  // the first, then the first once its writes reach it no earlier than all the others' did
  uint64_t bound = spgsim::bind_rest(cl, s, sid), all_bound = bound;
  MPI_Allreduce(&bound, &all_bound, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  while (!all(!card(0) || spgsim::first_may_start(cl, *card(0), all_bound))) window(cl, L, owner, ranks);
  if (card(0)) spgsim::program_reduce(cl, s, 0, sid);
  const uint64_t deadline = spgsim::reduce_deadline(cl, s);
  std::vector<char> fin(n, 0);
  auto finished = [&] {  // every own card's completion record seen, looked at once a window
    bool mine = true;
    uint64_t stalls = 0;
    for (size_t k = 0; k < n; ++k) {
      if (!card(k) || fin[k]) continue;
      fin[k] = spgsim::reduce_record_seen(cl, s.chain[k], sid, &st[k], &stalls);
      mine = mine && fin[k];
    }
    return mine;
  };
  int code = spgsim::RTL_OK;
  while (!all(finished())) {
    if (cl.now() > deadline) {  // the same window on every rank
      for (size_t k = 0; k < n; ++k)
        if (card(k)) card(k)->mmio_write(AFUSHELL_REDUCE_CTRL, AFUSHELL_REDUCE_CTRL_ABORT_MASK);
      code = spgsim::RTL_TIMEOUT;
      break;
    }
    window(cl, L, owner, ranks);
  }
  for (size_t k = 0; k < n; ++k)
    if (card(k))
      code = std::max(code, int((st[k] & AFUSHELL_REDUCE_STATUS_CODE_MASK) >> AFUSHELL_REDUCE_STATUS_CODE_SHIFT));
  int agreed = code;
  MPI_Allreduce(&code, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return agreed;
}

// Card c's vector of a reduction: u32 words or finite f32 values over 20 binary decades.
uint32_t element(uint64_t seed, int c, uint64_t i, bool f32) {
  const uint64_t x = mix(seed * 7777 + uint64_t(c) * 1000003 + i);
  if (!f32) return uint32_t(x);
  const float v = std::ldexp(float(int32_t(uint32_t(x))), int((x >> 40) % 20) - 40);
  uint32_t w;
  std::memcpy(&w, &v, 4);
  return w;
}

// The chain-order sum of element i along `chain`, as numpy adds it.
uint32_t chain_sum(uint64_t seed, const std::vector<int>& chain, uint64_t i, bool f32) {
  uint32_t acc = element(seed, chain[0], i, f32);
  for (size_t k = 1; k < chain.size(); ++k) {
    const uint32_t w = element(seed, chain[k], i, f32);
    if (!f32) {
      acc += w;
      continue;
    }
    float a, b;
    std::memcpy(&a, &acc, 4), std::memcpy(&b, &w, 4);
    volatile float r = a + b;  // one rounding per addition, in chain order
    const float rr = r;
    std::memcpy(&acc, &rr, 4);
  }
  return acc;
}

}  // namespace

int main(int argc, char** argv) {
  int rank, ranks;
  spgsim::start_ranks(argc, argv, 1, INT_MAX, "CLUSTER.json [OPS_PER_CARD SEED [REDUCE_WORDS]]", rank, ranks);
  const int per_card = argc > 2 ? std::atoi(argv[2]) : 4;
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  const uint64_t red_words = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 0;
  std::unique_ptr<spgsim::RtlCluster> cl;
  std::vector<int> owner;
  try {
    cl = spgsim::open_ranked_cluster(argv[1], rank, ranks, owner);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int n = cl->size();
  const uint64_t L = cl->min_latency();
  auto t0 = std::chrono::steady_clock::now();
  while (!all(cl->ready())) window(*cl, L, owner, ranks);

  // the workload: every card runs per_card operations to pseudo-random peers, all at once
  const uint64_t SRC = 0x10000, WIN = 0x4000, DST = 0x100000;
  std::vector<uint64_t> hs(size_t(n * per_card), ~0ull);
  for (int c = 0; c < n; ++c) {
    if (cl->present(c)) {
      std::vector<uint8_t> src(SRC);
      for (uint64_t i = 0; i < SRC; ++i) src[i] = uint8_t(mix(seed * 1000003 + uint64_t(c) * SRC + i));
      cl->mem(c, 0, src.data(), SRC, true);
    }
    for (int k = 0; k < per_card; ++k) {
      uint64_t r = mix(seed ^ mix(uint64_t(c) * 7919 + uint64_t(k)));
      spgsim::RtlCluster::Op op;
      op.card = c, op.peer = int((uint64_t(c) + 1 + r % uint64_t(n - 1)) % uint64_t(n));
      op.get = int((r >> 8) % 3 == 1);
      op.len = 4 * (1 + (r >> 16) % 2048);
      const uint64_t lane = DST + (uint64_t(c) * uint64_t(per_card) + uint64_t(k)) * WIN;  // own lane per op
      op.local = op.get ? lane : 4 * ((r >> 32) % ((SRC - op.len) / 4 + 1));
      op.remote = op.get ? 4 * ((r >> 32) % ((SRC - op.len) / 4 + 1)) : lane;
      if ((r >> 8) % 3 == 2) {  // block-stride put
        op.block = 4 * (1 + (r >> 40) % 16), op.count = 1 + (r >> 48) % 32;
        op.lstride = op.block + 8, op.rstride = op.block + 12, op.len = op.block * op.count;
        op.local = 0;
      }
      if (cl->present(c)) hs[size_t(c * per_card + k)] = cl->issue(op);
    }
  }
  auto done = [&] {
    for (uint64_t h : hs)
      if (h != ~0ull && cl->op(h).code == spgsim::RTL_PENDING) return false;
    return true;
  };
  while (!all(done())) window(*cl, L, owner, ranks);

  // the reductions: a u32 sum, then an f32 allreduce, each along all cards in a seeded order
  const uint64_t RSRC = 0x400000, RDST = 0x800000;
  std::vector<std::string> red_rows;
  uint64_t red_bad = 0;
  if (red_words) {
    std::vector<int> members;
    for (int c = 0; c < n; ++c)
      if (cl->member(c)) members.push_back(c);
    for (int r = 0; r < 2; ++r) {
      const bool f32 = r == 1;
      spgsim::ReduceSpec s;
      s.chain = members;
      for (size_t i = s.chain.size(); i-- > 1;) std::swap(s.chain[i], s.chain[mix(seed * 31 + uint64_t(r) * 977 + i) % (i + 1)]);
      s.src = RSRC, s.dst = RDST + uint64_t(r) * 4 * red_words, s.len = 4 * red_words, s.f32 = f32, s.all = r == 1;
      for (int c : s.chain) {
        if (!cl->present(c)) continue;
        std::vector<uint32_t> v(red_words);
        for (uint64_t i = 0; i < red_words; ++i) v[i] = element(seed, c, i, f32);
        cl->mem(c, s.src, v.data(), s.len, true);
      }
      const uint64_t issued = cl->now();
      std::vector<uint64_t> st;
      const int code = split_reduce(*cl, s, uint64_t(r) + 1, L, owner, ranks, &st);
      std::ostringstream row;
      row << (s.all ? "allreduce f32" : "reduce u32") << " chain";
      for (int c : s.chain) row << " " << c;
      row << ": code " << code << " issued " << issued << " done " << cl->now();
      red_rows.push_back(row.str());
      // the result, on the chain's last card (an allreduce: on every card), checked here
      std::vector<uint32_t> got(red_words);
      for (size_t k = 0; k < s.chain.size(); ++k) {
        const int c = s.chain[k];
        if (!cl->present(c) || (!s.all && k + 1 < s.chain.size())) continue;
        cl->mem(c, s.dst, got.data(), s.len, false);
        for (uint64_t i = 0; i < red_words; ++i) red_bad += got[i] != chain_sum(seed, s.chain, i, f32);
      }
      uint64_t words = 0;  // every card's REDUCE_STATUS.WORDS, summed over the ranks below
      for (size_t k = 0; k < s.chain.size(); ++k)
        if (cl->present(s.chain[k]))
          words += (st[k] & AFUSHELL_REDUCE_STATUS_WORDS_MASK) >> AFUSHELL_REDUCE_STATUS_WORDS_SHIFT;
      uint64_t total = 0;
      MPI_Allreduce(&words, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      red_rows.back() += ", words " + std::to_string(total);
    }
  }
  const uint64_t end = cl->now();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // results: one row per operation, a checksum per card's memory, counters per cable
  std::vector<uint64_t> res(size_t(n * per_card * 4) + size_t(n) + cl->channels().size() * 3, 0), sum(res.size());
  for (int c = 0; c < n; ++c) {
    if (!cl->present(c)) continue;
    for (int k = 0; k < per_card; ++k) {
      const auto& o = cl->op(hs[size_t(c * per_card + k)]);
      uint64_t* row = &res[size_t(c * per_card + k) * 4];
      row[0] = uint64_t(o.code), row[1] = o.issued, row[2] = o.started, row[3] = o.done;
    }
    std::vector<uint8_t> m(DST + uint64_t(n * per_card) * WIN);
    cl->mem(c, 0, m.data(), m.size(), false);
    uint64_t h = 1469598103934665603ull;
    for (uint8_t b : m) h = (h ^ b) * 1099511628211ull;
    res[size_t(n * per_card * 4 + c)] = h;
  }
  for (size_t i = 0; i < cl->channels().size(); ++i) {
    const auto& ch = cl->channels()[i];
    uint64_t* row = &res[size_t(n * per_card * 4 + n) + 3 * i];
    row[0] = ch.packets, row[1] = ch.dropped, row[2] = ch.corrupted;  // zero where another rank sends
  }
  MPI_Reduce(res.data(), sum.data(), int(res.size()), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  uint64_t cycles_local = 0;
  for (int c = 0; c < n; ++c) cycles_local += cl->present(c) ? end : 0;
  uint64_t card_cycles = 0;
  MPI_Reduce(&cycles_local, &card_cycles, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  uint64_t bad = 0;
  MPI_Reduce(&red_bad, &bad, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    int failed = 0;
    for (int i = 0; i < n * per_card; ++i) {
      const uint64_t* row = &sum[size_t(i) * 4];
      failed += row[0] != 0;
      std::printf("op %d card %d code %llu issued %llu started %llu done %llu\n", i, i / per_card,
                  (unsigned long long)row[0], (unsigned long long)row[1], (unsigned long long)row[2],
                  (unsigned long long)row[3]);
    }
    for (int c = 0; c < n; ++c)
      std::printf("card %d memory %016llx\n", c, (unsigned long long)sum[size_t(n * per_card * 4 + c)]);
    for (size_t i = 0; i < cl->channels().size(); ++i) {
      const uint64_t* row = &sum[size_t(n * per_card * 4 + n) + 3 * i];
      std::printf("channel %zu packets %llu dropped %llu corrupted %llu\n", i, (unsigned long long)row[0],
                  (unsigned long long)row[1], (unsigned long long)row[2]);
    }
    for (const auto& row : red_rows) std::printf("%s\n", row.c_str());
    if (red_words) std::printf("reduction results: %llu wrong words\n", (unsigned long long)bad);
    std::printf("end cycle %llu, %d failed\n", (unsigned long long)end, failed);
    std::fprintf(stderr, "%d ranks: %llu card-cycles in %.2f s = %.0f card-cycles/s (window %llu cycles)\n", ranks,
                 (unsigned long long)card_cycles, wall, double(card_cycles) / wall, (unsigned long long)L);
  }
  cl.reset();
  MPI_Finalize();
  return 0;
}
