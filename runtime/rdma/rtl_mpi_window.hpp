// The look-ahead window of an RTL card cluster split over MPI ranks (rdma-mpi-rtl,
// lbm-slabs-mpi): each rank simulates a block of cards; words on links between ranks travel
// through MPI once per window of L cycles, L = the shortest link latency, so a word sent in
// a window arrives in a later one and every rank count computes the same cycles. Also the
// start these tools share: MPI and the arguments (start_ranks), the cluster split over the
// ranks (open_ranked_cluster).
#pragma once
#include <mpi.h>

#include <climits>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster.hpp"
#include "cluster_file.hpp"

namespace spgsim {

// MPI_Init, then this process's `rank` and the number of `ranks`. A tool called with fewer
// than `min_args` or more than `max_args` arguments prints "usage: mpirun -np K <tool>
// <synopsis>" (rank 0) and every rank aborts with status 2 (INT_MAX: no upper bound).
inline void start_ranks(int& argc, char**& argv, int min_args, int max_args, const char* synopsis,
                        int& rank, int& ranks) {
  MPI_Init(&argc, &argv);
  rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (argc - 1 < min_args || argc - 1 > max_args) {
    if (!rank) std::fprintf(stderr, "usage: mpirun -np K %s %s\n", argv[0], synopsis);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

// The cluster described in the file `path` (its "file" entries relative to the file's
// folder), its cards split over the ranks in blocks: `owner` gets each card's rank, and this
// `rank` simulates its own cards only. Throws std::runtime_error on a bad file.
inline std::unique_ptr<RtlCluster> open_ranked_cluster(const std::string& path, int rank, int ranks,
                                                       std::vector<int>& owner) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the cluster file");
  std::stringstream text;
  text << in.rdbuf();
  const size_t slash = path.rfind('/');
  auto d = ClusterDesc::parse(
      rdma::resolve_cluster_file(text.str(), slash == std::string::npos ? "." : path.substr(0, slash)));
  if (d.cards < ranks) throw std::runtime_error("more ranks than cards");
  std::vector<char> local(size_t(d.cards), 0);
  for (int c = 0; c < d.cards; ++c) {
    owner.push_back(int(int64_t(c) * ranks / d.cards));
    local[size_t(c)] = owner.back() == rank;
  }
  return std::make_unique<RtlCluster>(d, Params{}, local);
}

// One window: L cycles here, then the words for other ranks' cards exchanged. `each_cycle`
// (a host that polls its own cards every cycle) runs after every cycle of the window.
inline void window(spgsim::RtlCluster& cl, uint64_t L, const std::vector<int>& owner, int ranks,
                   const std::function<void()>& each_cycle = {}) {
  if (each_cycle)
    for (uint64_t i = 0; i < L; ++i) cl.step(), each_cycle();
  else
    cl.run(L);
  std::vector<spgsim::RtlCluster::Word> out;
  cl.take_outgoing(out);
  const int units = cl.units(), rec = 4 + units;
  std::vector<std::vector<uint32_t>> by(static_cast<size_t>(ranks));
  for (const auto& w : out) {
    auto& v = by[size_t(owner[size_t(cl.channel_to(int(w.ch)))])];
    v.insert(v.end(), {w.ch, uint32_t(w.at), uint32_t(w.at >> 32), w.w[SPG_LINK_WORDS]});
    v.insert(v.end(), w.w.begin(), w.w.begin() + units);
  }
  const size_t nr = static_cast<size_t>(ranks);
  std::vector<int> sc(nr), rc(nr), sd(nr), rd(nr);
  std::vector<uint32_t> send;
  for (int r = 0; r < ranks; ++r) {
    sc[size_t(r)] = int(by[size_t(r)].size()), sd[size_t(r)] = int(send.size());
    send.insert(send.end(), by[size_t(r)].begin(), by[size_t(r)].end());
  }
  MPI_Alltoall(sc.data(), 1, MPI_INT, rc.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < ranks; ++r) rd[size_t(r)] = total, total += rc[size_t(r)];
  std::vector<uint32_t> recv(static_cast<size_t>(total));
  MPI_Alltoallv(send.data(), sc.data(), sd.data(), MPI_UINT32_T, recv.data(), rc.data(), rd.data(), MPI_UINT32_T,
                MPI_COMM_WORLD);
  // arrival order per channel is sending order, and one rank sends each channel
  for (size_t i = 0; i + size_t(rec) <= recv.size(); i += size_t(rec)) {
    spgsim::RtlCluster::Word w{recv[i], uint64_t(recv[i + 1]) | uint64_t(recv[i + 2]) << 32, {}};
    w.w[SPG_LINK_WORDS] = recv[i + 3];
    for (int u = 0; u < units; ++u) w.w[size_t(u)] = recv[i + 4 + size_t(u)];
    cl.put_incoming(w);
  }
}

inline bool all(bool mine) {
  int v = mine ? 1 : 0, r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return r != 0;
}
}  // namespace spgsim
