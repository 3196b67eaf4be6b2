// A 2-D torus of rdma_card_net instances (router + 4 link ports each) joined by cable
// models; all-to-all packet traffic. Checks that every packet arrives once, in order per
// (source, destination), unchanged, and that the traffic completes (no deadlock).
//   tb X Y PACKETS_PER_PAIR P_FLIP P_DROP SEED VCS(1/0) MAX_CYCLES [SIZE [DST]]
// Built with -DLANES=L -DMAX_WORDS=M to match rdma_card_net's parameters (beats of L words,
// bulk packets up to M words). SIZE fixes the payload words of every packet and makes the
// ejection always ready: the run then reports payload words per cycle through the routers.
// DST: only card 0 sends, to card DST (latency: K = 1 and the cycles of the run).
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "Vrdma_card_net.h"
#include "verilated.h"
#include "rtl_links.hpp"
#include "tb_lanes.hpp"

static uint32_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33;
  return uint32_t(x ^ (x >> 29));
}

static int fixed_size = -1;

static std::vector<uint32_t> packet(int s, int d, int k) {
  // 2..16 payload words, and bulk packets of whole units up to MAX_WORDS
  const int sizes = 15 + (MAX_WORDS - 16) / rdma_packet::kBulkUnit;
  int n = 2 + int(mix(uint64_t(s) * 4096 + uint64_t(d) * 64 + uint64_t(k)) % uint64_t(sizes));
  if (n > 16) n = (n - 16 + 1) * rdma_packet::kBulkUnit;
  if (fixed_size >= 2) n = fixed_size;
  std::vector<uint32_t> p{uint32_t(d) | uint32_t(s) << 6 | 3u << 12 | rdma_packet::words_code(uint32_t(n)) << 17,
                          uint32_t(s) << 16 | uint32_t(d), uint32_t(k)};
  for (int i = 2; i < n; ++i) p.push_back(mix(uint64_t(s) << 40 | uint64_t(d) << 32 | uint64_t(k) << 8 | uint64_t(i)));
  return p;
}

using Cable = rdma_links::CableT<LANES>;

int main(int argc, char** argv) {
  if (argc < 9) return 2;
  const int X = std::atoi(argv[1]), Y = std::atoi(argv[2]), K = std::atoi(argv[3]);
  const double pflip = std::atof(argv[4]), pdrop = std::atof(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  const bool vcs = std::atoi(argv[7]) != 0;
  const uint64_t max_cyc = std::strtoull(argv[8], nullptr, 10), lat = 12;
  if (argc > 9) fixed_size = std::atoi(argv[9]);
  const int only_dst = argc > 10 ? std::atoi(argv[10]) : -1;
  uint64_t payload_words = 0;
  std::uniform_real_distribution<double> u(0, 1);
  const int n = X * Y, dims[2] = {X, Y};
  VerilatedContext ctx;
  std::vector<Vrdma_card_net*> card;
  for (int c = 0; c < n; ++c) card.push_back(new Vrdma_card_net(&ctx, ("c" + std::to_string(c)).c_str()));
  // links: out (card, port) -> in (card, port); datelines on the wrap-around links
  const rdma_links::Torus links = rdma_links::torus(X, Y, vcs);
  const auto& peer = links.peer;
  const auto& dateline = links.dateline;
  std::map<std::pair<int, int>, Cable> cable;  // keyed by the sending (card, port)
  // reset, then the routing tables: dimension order, the shorter way round
  for (int c = 0; c < n; ++c) {
    Vrdma_card_net* m = card[c];
    m->rst = 1;
    m->port_dim = 0b01010000;
    m->link_out_ready = 0xF;  // cables without a PHY: a beat leaves every cycle
    m->port_dateline = dateline[c];
    m->clk = 0; m->eval(); m->clk = 1; m->eval();
    m->rst = 0;
    rdma_links::program_routes(m, c, n, X, dims, n);
  }
  // traffic: every card sends K packets to every other card, interleaved at random
  std::vector<std::deque<std::vector<uint32_t>>> todo(n);
  std::vector<size_t> pos(n, 0);
  for (int s = 0; s < n; ++s) {
    std::vector<std::vector<uint32_t>> all;
    std::vector<int> next(n, 0);
    std::vector<int> order;
    for (int d = 0; d < n && (only_dst < 0 || s == 0); ++d)
      if (only_dst < 0 || d == only_dst)
        for (int k = 0; k < K && d != s; ++k) order.push_back(d);
    std::shuffle(order.begin(), order.end(), rng);
    for (int d : order) todo[s].push_back(packet(s, d, next[d]++));
  }
  std::vector<std::vector<int>> got_k(n, std::vector<int>(n, 0));
  std::vector<std::vector<uint32_t>> cur(n);
  long expected = only_dst >= 0 ? K : long(n) * (n - 1) * K, delivered = 0, errors = 0;
  uint64_t cyc = 0;
  for (; cyc < max_cyc && delivered < expected; ++cyc) {
    for (int c = 0; c < n; ++c) {
      Vrdma_card_net* m = card[c];
      m->inj_valid = !todo[c].empty();
      if (!todo[c].empty()) {
        set_beat(m->inj_data, beat_of(todo[c].front(), pos[c]).data());
        m->inj_last = (pos[c] + 1) * LANES >= todo[c].front().size();
      }
      m->ej_ready = fixed_size >= 2 || u(rng) < 0.8;
      // what arrives at (c, p) was sent by its peer's opposite port (links are symmetric)
      rdma_links::receive(m, c, peer, cable, cyc);
      m->clk = 0;
      m->eval();
    }
    for (int c = 0; c < n; ++c) {
      Vrdma_card_net* m = card[c];
      if (m->inj_valid && m->inj_ready && ++pos[c] * LANES >= todo[c].front().size()) {
        todo[c].pop_front();
        pos[c] = 0;
      }
      if (m->ej_valid && m->ej_ready) {
        append_beat(m->ej_data, cur[c]);
        if (m->ej_last) {
          std::vector<uint32_t> p = cur[c];
          cur[c].clear();
          if (!trim_packet(p)) ++errors;  // the rest of the last beat is not part of the packet
          payload_words += p.size() - 1;
          p[0] &= 0x003EFFFFu;  // VC and link sequence number are per hop
          int s = (p[0] >> 6) & 63, d = p[0] & 63;
          if (d != c || s >= n || p.size() < 3 || p != packet(s, d, got_k[s][d])) {
            if (errors++ < 3) std::fprintf(stderr, "card %d: unexpected packet (from %d, %zu words)\n", c, s, p.size());
          } else {
            ++got_k[s][d];
            ++delivered;
          }
        }
      }
      rdma_links::send(m, c, cable, cyc, lat, [&](Cable& cb, int) {
        rdma_links::draw_faults(cb, rng, pdrop, pflip, (MAX_WORDS + 2) / LANES + 1);
      });
      m->clk = 1;
      m->eval();
    }
  }
  unsigned replays = 0, overflow = 0;
  for (auto* m : card) {
    overflow |= m->overflow;
    for (int p = 0; p < 4; ++p) replays += unsigned((uint64_t(m->replays) >> (16 * p)) & 0xFFFF);
  }
  std::printf("cycles %llu delivered %ld expected %ld replays %u overflow %u payload_words %llu errors %ld\n",
              (unsigned long long)cyc, delivered, expected, replays, overflow, (unsigned long long)payload_words,
              errors);
  for (auto* m : card) { m->final(); delete m; }
  return errors || overflow ? 1 : delivered == expected ? 0 : 3;
}
