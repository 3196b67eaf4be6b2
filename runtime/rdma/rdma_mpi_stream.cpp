// rdma-mpi-stream: streams through core cascades and RDMA puts between RTL cards (spgen build
// PROG.spd --links N) of a cluster split over MPI ranks, one step after the other. Each rank
// simulates a contiguous block of cards and is the host of those cards: it programs and polls
// their CSRs every cycle; words on links between ranks travel through MPI once per window of
// L cycles (rtl_mpi_window.hpp), and every decision that needs all ranks is taken at a window
// boundary, so 1 and K ranks compute the same cycles and print the same stdout.
//   mpirun -np K rdma-mpi-stream CLUSTER.json STEP...
//   STEP  put:SRC:DST:BYTES       BYTES from card SRC's memory A to card DST's memory B
//         stream:C0-C1-..-Cn:R    R records from C0's memory A through the cascade of every
//                                 card of the chain (C0's, then over a link C1's, ...) into
//                                 Cn's memory B; a chain of one card: memory A -> cores -> B
// stdout: per step its cycles, hops, per-card counters and a checksum of what arrived;
// stderr: per step and in all, wall time, card-cycles per second and peak memory (RSS).
#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "afushell_csr.h"
#include "cluster.hpp"
#include "cluster_file.hpp"
#include "rtl_mpi_window.hpp"

namespace {
using spgsim::all;
using spgsim::window;

constexpr uint64_t kSrc = 0, kDst = AFUSHELL_MEM_B_BASE;  // memory A in, memory B out
constexpr uint64_t kSid = 1;                             // the chain's stream id
constexpr uint64_t kNone = ~0ull;

uint64_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xFF51AFD7ED558CCDull, x ^= x >> 33, x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

// Word i of a step's input, x = mix(step * 2^32 + i): its low half with the f32 exponent
// field set to 126 + (x >> 32) % 4: read as f32 a number of magnitude 0.5 .. 16, which cores
// of a few multiplications keep far from infinities, NaNs and subnormals (whose bits a core
// need not keep as the emulator does); read as u32 still varied. Reproducible in numpy
// (spgen.runtime._mpi_stream.stream_input).
uint32_t input_word(uint64_t step, uint64_t i) {
  const uint64_t x = mix((step << 32) + i);
  return (uint32_t(x) & 0x807FFFFFu) | uint32_t(126 + (x >> 32) % 4) << 23;
}

uint64_t fnv(const std::vector<uint8_t>& m) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : m) h = (h ^ b) * 1099511628211ull;
  return h;
}

std::vector<uint64_t> sum_over_ranks(std::vector<uint64_t> v) {
  std::vector<uint64_t> r(v.size());
  MPI_Allreduce(v.data(), r.data(), int(v.size()), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return r;
}

struct Host {
  spgsim::RtlCluster& cl;
  uint64_t L;
  const std::vector<int>& owner;
  int ranks;

  void wait(const std::function<bool()>& mine_done, const std::function<void()>& each_cycle = {}) {
    while (!all(mine_done())) window(cl, L, owner, ranks, each_cycle);
  }
  // CSR `addr` of every listed card, read by the ranks that simulate them (0 elsewhere,
  // then summed over the ranks, so every rank has all values).
  std::vector<uint64_t> read(const std::vector<int>& cards, uint32_t addr) {
    std::vector<uint64_t> id(cards.size(), kNone), v(cards.size(), 0);
    for (size_t k = 0; k < cards.size(); ++k)
      if (cl.present(cards[k])) id[k] = cl.card(cards[k])->post_read(addr);
    wait([&] {
      bool mine = true;
      for (size_t k = 0; k < cards.size(); ++k)
        if (id[k] != kNone) {
          if (cl.card(cards[k])->read_result(id[k], &v[k])) id[k] = kNone;
          else mine = false;
        }
      return mine;
    });
    return sum_over_ranks(v);
  }
};

// One DMA engine's single descriptor, polled (one status read in flight: denser polls slow
// the card's DMA) until DONE_COUNT moves past done0; `at` is the cycle the host saw it.
struct Dma {
  spgsim::Card* card = nullptr;
  uint32_t base = 0;
  uint64_t done0 = 0, read_id = kNone, at = 0;
  bool done = false;
  void push(uint64_t src, uint64_t dst, uint64_t len) {
    card->mmio_write(base + AFUSHELL_DMA_DESC_SRC, src);
    card->mmio_write(base + AFUSHELL_DMA_DESC_DST, dst);
    card->mmio_write(base + AFUSHELL_DMA_DESC_LEN, len);
    card->mmio_write(base + AFUSHELL_DMA_DESC_STRIDE, 0);
    card->mmio_write(base + AFUSHELL_DMA_DESC_NEXT, 0);
    card->mmio_write(base + AFUSHELL_DMA_DESC_CTRL, AFUSHELL_DMA_DESC_CTRL_GO_MASK | AFUSHELL_DMA_DESC_CTRL_SOP_MASK |
                                                        AFUSHELL_DMA_DESC_CTRL_EOP_MASK);
  }
  void poll(uint64_t now) {
    if (!card || done) return;
    uint64_t v = 0;
    if (read_id == kNone) {
      read_id = card->post_read(base + AFUSHELL_DMA_STATUS);
    } else if (card->read_result(read_id, &v)) {
      read_id = kNone;
      if ((v & AFUSHELL_DMA_STATUS_DONE_COUNT_MASK) >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT > done0) done = true, at = now;
    }
  }
  bool mine_done() const { return !card || done; }
};

// A stream of `records` through the chain's cascades, memory A of the first card to memory
// B of the last. Returns the output line (the same on every rank).
std::string stream(Host& h, const std::vector<int>& chain, uint64_t records, uint64_t step) {
  auto& cl = h.cl;
  const size_t n = chain.size();
  const auto info = h.read(chain, AFUSHELL_SHELL_INFO);
  auto words = [&](size_t k, uint64_t mask, int shift) { return (info[k] & mask) >> shift; };
  const uint64_t rw = words(0, AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_MASK, AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_SHIFT);
  for (size_t k = 0; k < n; ++k)
    if (words(k, AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_MASK, AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_SHIFT) != rw ||
        words(k, AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_MASK, AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_SHIFT) != rw)
      throw std::runtime_error("card " + std::to_string(chain[k]) + ": its cascade's records are not " +
                               std::to_string(4 * rw) + " B in and out, as the chain's first card's");
  const uint64_t bytes = records * rw * 4;
  if (cl.present(chain.front())) {
    std::vector<uint32_t> v(bytes / 4);
    for (uint64_t i = 0; i < v.size(); ++i) v[i] = input_word(step, i);
    cl.mem(chain.front(), kSrc, v.data(), bytes, true);
  }
  for (size_t k = 0; k < n; ++k) {  // the binding: card k sends to k + 1, receives from k - 1
    if (!cl.present(chain[k])) continue;
    const uint64_t next = uint64_t(k + 1 < n ? chain[k + 1] : chain[k]), prev = uint64_t(k ? chain[k - 1] : chain[k]);
    uint64_t cfg = ((next << AFUSHELL_STREAM_CFG_TX_DST_SHIFT | kSid << AFUSHELL_STREAM_CFG_TX_SID_SHIFT) &
                    (AFUSHELL_STREAM_CFG_TX_DST_MASK | AFUSHELL_STREAM_CFG_TX_SID_MASK)) |
                   ((prev << AFUSHELL_STREAM_CFG_RX_PEER_SHIFT | kSid << AFUSHELL_STREAM_CFG_RX_SID_SHIFT) &
                    (AFUSHELL_STREAM_CFG_RX_PEER_MASK | AFUSHELL_STREAM_CFG_RX_SID_MASK));
    if (k > 0) cfg |= AFUSHELL_STREAM_CFG_IN_LINK_MASK;
    if (k + 1 < n) cfg |= AFUSHELL_STREAM_CFG_OUT_LINK_MASK;
    cl.card(chain[k])->mmio_write(AFUSHELL_STREAM_CFG, cfg);
  }
  const auto tx0 = h.read({chain.front()}, AFUSHELL_TX_BASE + AFUSHELL_DMA_STATUS);
  const auto rx0 = h.read({chain.back()}, AFUSHELL_RX_BASE + AFUSHELL_DMA_STATUS);
  const auto link0 = h.read(chain, AFUSHELL_STREAM_TX_WORDS);
  const uint64_t busy0 = h.read({chain.back()}, AFUSHELL_RX_BASE + AFUSHELL_DMA_BUSY_CYCLES)[0];
  for (size_t k = n; k-- > 0;)  // downstream cards first; the first card armed
    if (cl.present(chain[k])) {
      spgsim::Card& c = *cl.card(chain[k]);
      c.mmio_write(AFUSHELL_CORE_ELEMENTS, records);
      c.mmio_write(AFUSHELL_CORE_CTRL, k ? AFUSHELL_CORE_CTRL_START_MASK : AFUSHELL_CORE_CTRL_ARM_MASK);
    }
  Dma tx, rx;
  const uint64_t t0 = cl.now();
  if (cl.present(chain.front())) {
    tx.card = cl.card(chain.front()), tx.base = AFUSHELL_TX_BASE;
    tx.done0 = (tx0[0] & AFUSHELL_DMA_STATUS_DONE_COUNT_MASK) >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT;
    tx.push(kSrc, 0, bytes);
  }
  if (cl.present(chain.back())) {
    rx.card = cl.card(chain.back()), rx.base = AFUSHELL_RX_BASE;
    rx.done0 = (rx0[0] & AFUSHELL_DMA_STATUS_DONE_COUNT_MASK) >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT;
    rx.push(0, kDst, bytes);
  }
  const uint64_t limit = t0 + 200 * records + 1000000;
  bool late = false;
  h.wait([&] { return (tx.mine_done() && rx.mine_done()) || (late = cl.now() > limit); },
         [&] { tx.poll(cl.now()), rx.poll(cl.now()); });
  int lt = late, any_late = 0;
  MPI_Allreduce(&lt, &any_late, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any_late) throw std::runtime_error("stream: not done after " + std::to_string(limit - t0) + " cycles");
  const uint64_t done = sum_over_ranks({rx.at})[0];
  // the last card's RX engine busy from its descriptor to the last byte written: the stream's
  // time on the card, to the cycle (the host sees the end a status read later)
  const uint64_t busy = h.read({chain.back()}, AFUSHELL_RX_BASE + AFUSHELL_DMA_BUSY_CYCLES)[0] - busy0;
  const auto in_total = h.read(chain, AFUSHELL_CORE_IN_TOTAL_CYCLES), in_moved = h.read(chain, AFUSHELL_CORE_IN_MOVED_CYCLES);
  const auto txw = h.read(chain, AFUSHELL_STREAM_TX_WORDS), st = h.read(chain, AFUSHELL_STREAM_STATUS);
  const uint64_t dma_err = (h.read({chain.front()}, AFUSHELL_TX_ERROR)[0] | h.read({chain.back()}, AFUSHELL_RX_ERROR)[0]) &
                           AFUSHELL_DMA_ERROR_CODE_MASK;
  uint64_t sum = 0;
  if (cl.present(chain.back())) {
    std::vector<uint8_t> out(bytes);
    cl.mem(chain.back(), kDst, out.data(), bytes, false);
    sum = fnv(out);
  }
  sum = sum_over_ranks({sum})[0];
  std::ostringstream o;
  o << "stream";
  for (size_t k = 0; k < n; ++k) o << (k ? "-" : " ") << chain[k];
  o << ": " << records << " records of " << 4 * rw << " B, hops";
  for (size_t k = 0; k + 1 < n; ++k) o << " " << cl.route(chain[k], chain[k + 1]).size();
  o << ", started " << t0 << " done " << done << " cycles " << busy << ", output " << std::hex << sum << std::dec;
  o << ", first-core moved/total";
  for (size_t k = 0; k < n; ++k) o << " " << in_moved[k] << "/" << in_total[k];
  o << ", link words";
  for (size_t k = 0; k + 1 < n; ++k) o << " " << txw[k] - link0[k];
  uint64_t bad = 0;
  for (size_t k = 0; k < n; ++k)
    bad |= st[k] & (AFUSHELL_STREAM_STATUS_RX_OVERFLOW_MASK | AFUSHELL_STREAM_STATUS_RX_MISROUTED_MASK);
  o << ", stream errors " << (bad ? 1 : 0) << ", DMA error " << dma_err;
  return o.str();
}

// A put of `bytes` from src's memory A to dst's memory B; checked on dst's rank.
std::string put(Host& h, int src, int dst, uint64_t bytes, uint64_t step) {
  auto& cl = h.cl;
  std::vector<uint32_t> v((bytes + 3) / 4);
  for (uint64_t i = 0; i < v.size(); ++i) v[i] = input_word(step, i);
  uint64_t hd = kNone;
  if (cl.present(src)) {
    cl.mem(src, kSrc, v.data(), bytes, true);
    spgsim::RtlCluster::Op op;
    op.card = src, op.peer = dst, op.local = kSrc, op.remote = kDst, op.len = bytes;
    hd = cl.issue(op);
  }
  h.wait([&] { return hd == kNone || cl.op(hd).code != spgsim::RTL_PENDING; });
  std::vector<uint64_t> r(5, 0);
  if (hd != kNone) {
    const auto o = cl.op(hd);
    r = {uint64_t(o.code), o.issued, o.started, o.card_done, o.done};
  }
  uint64_t wrong = 0;
  if (cl.present(dst)) {
    std::vector<uint32_t> got(v.size());
    cl.mem(dst, kDst, got.data(), bytes, false);
    for (uint64_t i = 0; i < bytes; ++i)
      wrong += reinterpret_cast<uint8_t*>(got.data())[i] != reinterpret_cast<uint8_t*>(v.data())[i];
  }
  r.push_back(wrong);
  r = sum_over_ranks(r);
  std::ostringstream o;
  o << "put " << src << "->" << dst << ": " << bytes << " B, hops " << cl.route(src, dst).size() << ", code " << r[0]
    << " issued " << r[1] << " started " << r[2] << " card_done " << r[3] << " done " << r[4] << ", wrong bytes " << r[5];
  return o.str();
}

std::vector<std::string> split(const std::string& s, char c) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string part; std::getline(in, part, c);) out.push_back(part);
  return out;
}

uint64_t peak_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return uint64_t(u.ru_maxrss);
}
}  // namespace

int main(int argc, char** argv) {
  int rank, ranks;
  spgsim::start_ranks(argc, argv, 2, INT_MAX, "CLUSTER.json put:SRC:DST:BYTES|stream:C0-C1-..:RECORDS ...", rank, ranks);
  std::unique_ptr<spgsim::RtlCluster> cl;
  std::vector<int> owner;
  int n = 0;
  try {
    cl = spgsim::open_ranked_cluster(argv[1], rank, ranks, owner);
    n = cl->size();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rdma-mpi-stream: error: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  Host h{*cl, cl->min_latency(), owner, ranks};
  using clk = std::chrono::steady_clock;
  const auto t_all = clk::now();
  auto report = [&](const std::string& what, clk::time_point t, uint64_t cycles) {
    const double wall = std::chrono::duration<double>(clk::now() - t).count();
    const uint64_t rss = peak_rss_kb();
    uint64_t rss_sum = 0, rss_max = 0;
    MPI_Reduce(&rss, &rss_sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&rss, &rss_max, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    if (!rank)
      std::fprintf(stderr, "%s: %d ranks, %d cards: %llu cycles in %.2f s = %.0f card-cycles/s, peak RSS %.1f MiB "
                           "(all ranks), %.1f MiB (largest rank)\n",
                   what.c_str(), ranks, n, (unsigned long long)cycles, wall, double(cycles) * n / wall,
                   double(rss_sum) / 1024, double(rss_max) / 1024);
  };
  int rc = 0;
  try {
    auto t = clk::now();
    h.wait([&] { return cl->ready(); });
    if (!rank) std::printf("ready at cycle %llu (window %llu cycles)\n", (unsigned long long)cl->now(), (unsigned long long)h.L);
    report("set-up", t, cl->now());
    for (int a = 2; a < argc; ++a) {
      const auto f = split(argv[a], ':');
      const uint64_t c0 = cl->now();
      t = clk::now();
      std::string line;
      auto card_id = [&](const std::string& s) {
        const int c = std::stoi(s);
        if (!cl->member(c)) throw std::runtime_error("card " + s + " is not a card of the cluster");
        return c;
      };
      if (f.size() == 4 && f[0] == "put") {
        line = put(h, card_id(f[1]), card_id(f[2]), std::stoull(f[3]), uint64_t(a));
      } else if (f.size() == 3 && f[0] == "stream") {
        std::vector<int> chain;
        for (const auto& c : split(f[1], '-')) chain.push_back(card_id(c));
        line = stream(h, chain, std::stoull(f[2]), uint64_t(a));
      } else {
        throw std::runtime_error(std::string("bad step '") + argv[a] + "' (put:SRC:DST:BYTES or stream:C0-C1-..:RECORDS)");
      }
      if (!rank) std::printf("%s\n", line.c_str()), std::fflush(stdout);
      report(argv[a], t, cl->now() - c0);
    }
    if (!rank) std::printf("end cycle %llu\n", (unsigned long long)cl->now());
    report("all", t_all, cl->now());
  } catch (const std::exception& e) {
    if (!rank) std::fprintf(stderr, "rdma-mpi-stream: error: %s\n", e.what());
    rc = 1;
  }
  cl.reset();
  MPI_Finalize();
  return rc;
}
