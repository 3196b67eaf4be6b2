// rdma-mpi: one cluster simulated by several MPI ranks. Each rank steps its own cards;
// packets on links between ranks travel through MPI once per window of L cycles, L the
// shortest cross-rank link latency (the look-ahead: nothing sent in a window can arrive
// before the next one), so every rank count gives the same cycles as one process.
//   mpirun -np 4 rdma-mpi CLUSTER.txt [MAX_WORDS SEED]
// CLUSTER.txt is the resolved description (spgen.runtime.rdma.resolve). The workload:
// one transfer between every ordered pair of cards at once (put or get, random sizes).
// Rank 0 prints every op's outcome and cycles and every destination region's CRC.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>

#include "rdma_sim.hpp"

using rdma::Cluster;
static_assert(std::is_trivially_copyable<rdma::InFlight>::value, "InFlight travels as bytes");

struct Wire {
  int32_t channel;
  rdma::InFlight f;
};

static uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33, x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 2) {
    if (!rank) std::fprintf(stderr, "usage: rdma-mpi CLUSTER.txt [MAX_WORDS SEED]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  const uint64_t max_words = argc > 2 ? std::stoull(argv[2]) : 512;
  const uint64_t seed = argc > 3 ? std::stoull(argv[3]) : 1;
  Cluster* clp = nullptr;
  try {
    clp = new Cluster(ss.str());
  } catch (const std::exception& e) {
    if (!rank) std::fprintf(stderr, "rdma-mpi: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Cluster& cl = *clp;
  const int n = int(cl.cards.size());
  auto owner = [&](int card) { return int(int64_t(card) * nranks / n); };  // contiguous blocks
  cl.local.assign(n, 0);
  for (int c = 0; c < n; ++c) cl.local[c] = owner(c) == rank;
  // The same window for every rank count, so that the end cycle does not depend on it.
  int64_t look = 1024;
  for (auto& ch : cl.channels) look = std::min<int64_t>(look, ch.latency);

  // The workload, identical on every rank; each rank issues its own cards' part in pair order.
  const uint64_t region = max_words * 4, dst_base = 1ull << 24;
  struct Xfer { int s, d; uint64_t size, src, dst; bool get; };
  std::vector<Xfer> xs;
  std::vector<uint64_t> handles;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      uint64_t h = mix(seed * 1000003ull + uint64_t(s) * 64 + uint64_t(d));
      Xfer x{s, d, 4 * (1 + h % max_words), uint64_t(s * n + d) * region, dst_base + uint64_t(s * n + d) * region,
             ((s + d) & 1) != 0};
      xs.push_back(x);
      if (cl.is_local(s)) {
        std::vector<uint8_t> buf(x.size);
        for (uint64_t i = 0; i < x.size; ++i) buf[i] = uint8_t(mix(h + i) >> 24);
        cl.cards[s].mem.write(x.src, buf.data(), x.size);
      }
    }
  for (auto& x : xs) {
    int init = x.get ? x.d : x.s;
    if (!cl.is_local(init)) continue;
    handles.push_back(x.get ? cl.get(x.d, x.s, x.dst, x.src, x.size) : cl.put(x.s, x.d, x.src, x.dst, x.size));
  }

  std::vector<size_t> sent_upto(cl.channels.size(), 0);
  int64_t windows = 0;
  for (;;) {
    for (int64_t i = 0; i < look; ++i) cl.step();
    ++windows;
    // Ship the packets put on cross-rank channels during this window to the receiving rank.
    std::vector<std::vector<Wire>> out(nranks);
    for (size_t k = 0; k < cl.channels.size(); ++k) {
      auto& ch = cl.channels[k];
      if (!cl.is_local(ch.from) || cl.is_local(ch.to)) continue;
      for (auto& f : ch.wire) out[owner(ch.to)].push_back({int32_t(k), f});
      ch.wire.clear();
    }
    std::vector<int> scount(nranks), rcount(nranks), sdisp(nranks), rdisp(nranks);
    std::vector<char> sbuf;
    for (int r = 0; r < nranks; ++r) {
      scount[r] = int(out[r].size() * sizeof(Wire));
      sdisp[r] = int(sbuf.size());
      sbuf.insert(sbuf.end(), reinterpret_cast<char*>(out[r].data()),
                  reinterpret_cast<char*>(out[r].data()) + scount[r]);
    }
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < nranks; ++r) rdisp[r] = total, total += rcount[r];
    std::vector<char> rbuf(std::max(total, 1));
    MPI_Alltoallv(sbuf.data(), scount.data(), sdisp.data(), MPI_CHAR, rbuf.data(), rcount.data(), rdisp.data(),
                  MPI_CHAR, MPI_COMM_WORLD);
    for (int off = 0; off < total; off += int(sizeof(Wire))) {
      Wire w;
      std::memcpy(&w, rbuf.data() + off, sizeof(Wire));
      cl.channels[w.channel].wire.push_back(w.f);  // arrives in a later window, in send order
    }
    int pending = 0;
    for (auto h : handles)
      if (cl.op(h).state == rdma::OP_PENDING || cl.op(h).done > cl.now) ++pending;
    int all = 0;
    MPI_Allreduce(&pending, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!all) break;
  }

  // Results: ops of local initiators, CRCs of local destination regions, link statistics.
  std::ostringstream res;
  for (auto& x : xs) {
    if (cl.is_local(x.d)) {
      std::vector<uint8_t> got(x.size), want(x.size);
      cl.cards[x.d].mem.read(x.dst, got.data(), x.size);
      uint64_t h = mix(seed * 1000003ull + uint64_t(x.s) * 64 + uint64_t(x.d));
      for (uint64_t i = 0; i < x.size; ++i) want[i] = uint8_t(mix(h + i) >> 24);
      res << "region " << x.s << "->" << x.d << " bytes " << x.size << " crc " << rdma::crc32(got.data(), x.size)
          << (got == want ? " ok" : " CORRUPT") << "\n";
    }
  }
  for (int c = 0; c < n; ++c) {
    if (!cl.is_local(c)) continue;
    for (auto& kv : cl.cards[c].ops)
      res << "op card " << c << " id " << kv.first << " state " << kv.second.state << " code " << kv.second.code
          << " issued " << kv.second.issued << " done " << kv.second.done << "\n";
  }
  uint64_t sent = 0, corrupted = 0, dropped = 0, replays = 0;
  for (auto& ch : cl.channels)
    if (cl.is_local(ch.from)) sent += ch.sent, corrupted += ch.corrupted, dropped += ch.dropped;
  for (auto& c : cl.cards)
    if (cl.is_local(c.id))
      for (auto& p : c.ports) replays += p.tx.replays;
  std::string mine = res.str();
  int len = int(mine.size());
  std::vector<int> lens(nranks), disp(nranks);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int tot = 0;
  for (int r = 0; r < nranks; ++r) disp[r] = tot, tot += lens[r];
  std::vector<char> all(std::max(tot, 1));
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), disp.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  uint64_t loc[4] = {sent, corrupted, dropped, replays}, glob[4];
  MPI_Reduce(loc, glob, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (!rank) {
    std::vector<std::string> lines;
    std::istringstream ls(std::string(all.data(), size_t(tot)));
    std::string l;
    while (std::getline(ls, l)) lines.push_back(l);
    std::sort(lines.begin(), lines.end());
    for (auto& x : lines) std::printf("%s\n", x.c_str());
    std::printf("links sent %llu corrupted %llu dropped %llu replays %llu\n", (unsigned long long)glob[0],
                (unsigned long long)glob[1], (unsigned long long)glob[2], (unsigned long long)glob[3]);
    std::printf("lookahead %lld cycles windows %lld end cycle %lld\n", (long long)look, (long long)windows,
                (long long)cl.now);
    std::printf("ranks %d\n", nranks);
  }
  delete clp;
  MPI_Finalize();
  return 0;
}
