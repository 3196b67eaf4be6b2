// rdma-mpi-rtl: a cluster of RTL cards (spgen build --links N) split over MPI ranks. Each
// rank simulates a contiguous block of cards; words on links between ranks travel through
// MPI once per window of L cycles, L = the shortest link latency (the look-ahead: a word
// sent in a window arrives in a later one). Fault decisions belong to the sending side of
// each cable. So every rank count computes the same cycles: the workload's completions,
// memory checksums and link counters printed on stdout are identical for 1 and K ranks.
//   mpirun -np K rdma-mpi-rtl CLUSTER.json [OPS_PER_CARD SEED]
// stdout: the results (compare them); stderr: wall time and card-cycles per second.
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "cluster.hpp"
#include "cluster_file.hpp"
#include "rtl_mpi_window.hpp"

namespace {
using spgsim::all;
using spgsim::window;

uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xFF51AFD7ED558CCDull, x ^= x >> 33, x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc < 2) {
    if (!rank) std::fprintf(stderr, "usage: mpirun -np K %s CLUSTER.json [OPS_PER_CARD SEED]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int per_card = argc > 2 ? std::atoi(argv[2]) : 4;
  const uint64_t seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1;
  std::unique_ptr<spgsim::RtlCluster> cl;
  std::vector<int> owner;
  try {
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    std::string p(argv[1]);
    const size_t slash = p.rfind('/');
    auto d = spgsim::ClusterDesc::parse(
        rdma::resolve_cluster_file(text.str(), slash == std::string::npos ? "." : p.substr(0, slash)));
    std::vector<char> local(size_t(d.cards), 0);
    for (int c = 0; c < d.cards; ++c) {
      owner.push_back(int(int64_t(c) * ranks / d.cards));
      local[size_t(c)] = owner.back() == rank;
    }
    if (d.cards < ranks) throw std::runtime_error("more ranks than cards");
    cl = std::make_unique<spgsim::RtlCluster>(d, spgsim::Params{}, local);
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
    std::printf("end cycle %llu, %d failed\n", (unsigned long long)end, failed);
    std::fprintf(stderr, "%d ranks: %llu card-cycles in %.2f s = %.0f card-cycles/s (window %llu cycles)\n", ranks,
                 (unsigned long long)card_cycles, wall, double(card_cycles) / wall, (unsigned long long)L);
  }
  cl.reset();
  MPI_Finalize();
  return 0;
}
