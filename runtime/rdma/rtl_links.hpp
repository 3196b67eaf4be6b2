// Links between Verilated RDMA nodes, shared by RTLCluster (rtl_cluster.cpp) and the RTL
// testbenches (tests/rdma/tb_rdma_*.cpp): cables that deliver a sender's beats (L 32-bit
// words: the ports' LANES) after a latency, and the dimension-order routing tables of an
// X x Y torus.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "ring_route.hpp"

namespace rdma_links {

using Port = std::pair<int, int>;  // (card, link port)

// One direction of a link, keyed by its sending (card, port): (arrival cycle, (beat, last))
// in flight, and the fault decisions the sender made for the packet it is sending (a bit
// of 32 * L flipped in beat flip_word).
template <int L>
struct CableT {
  using Beat = std::array<uint32_t, L>;
  std::deque<std::pair<uint64_t, std::pair<Beat, bool>>> q;
  bool in_pkt = false, drop = false;
  int flip_word = -1, flip_bit = 0, widx = 0;
};
using Cable = CableT<1>;

// The links of an X x Y torus: peer[(card, out port)] = the (card, in port) it reaches
// (ports 2d / 2d+1 point + / - along dimension d; a dimension of size 1 has no links), and
// per card the dateline bits of its wrap-around ports (with `datelines`), where packets
// change virtual channel so that the rings cannot deadlock.
struct Torus {
  std::map<Port, Port> peer;
  std::vector<uint32_t> dateline;
};

inline Torus torus(int X, int Y, bool datelines = true) {
  const int n = X * Y, dims[2] = {X, Y};
  Torus t{{}, std::vector<uint32_t>(size_t(n), 0)};
  for (int c = 0; c < n; ++c) {
    int xs[2] = {c % X, c / X};
    for (int d = 0; d < 2; ++d) {
      if (dims[d] == 1) continue;
      int plus[2] = {xs[0], xs[1]}, minus[2] = {xs[0], xs[1]};
      plus[d] = (xs[d] + 1) % dims[d];
      minus[d] = (xs[d] + dims[d] - 1) % dims[d];
      t.peer[{c, 2 * d}] = {plus[0] + X * plus[1], 2 * d + 1};
      t.peer[{c, 2 * d + 1}] = {minus[0] + X * minus[1], 2 * d};
      if (datelines && xs[d] == dims[d] - 1) t.dateline[size_t(c)] |= 1u << (2 * d);
      if (datelines && xs[d] == 0) t.dateline[size_t(c)] |= 1u << (2 * d + 1);
    }
  }
  return t;
}

// Drives node m's (card c's) link inputs for cycle `cyc`: port p takes the beat due on the
// cable of the (card, port) that `from` says sends to (c, p).
template <class Node, int L>
void receive(Node* m, int c, const std::map<Port, Port>& from, std::map<Port, CableT<L>>& cable,
             uint64_t cyc) {
  uint32_t v = 0, l = 0;
  for (int p = 0; p < 4; ++p) {
    for (int i = 0; i < L; ++i) m->link_in_data[p * L + i] = 0;
    auto it = from.find({c, p});
    if (it == from.end()) continue;
    CableT<L>& cb = cable[it->second];
    if (!cb.q.empty() && cb.q.front().first <= cyc) {
      v |= 1u << p;
      for (int i = 0; i < L; ++i) m->link_in_data[p * L + i] = cb.q.front().second.first[size_t(i)];
      if (cb.q.front().second.second) l |= 1u << p;
      cb.q.pop_front();
    }
  }
  m->link_in_valid = v, m->link_in_last = l;
}

// A packet's fate, drawn at its first beat in the testbenches' order: dropped with
// probability p_drop; with probability p_flip one bit (of `bits` per beat) flipped in one of
// its first `beats` beats (flip_word, flip_bit).
template <int L, class Rng>
void draw_faults(CableT<L>& cb, Rng& rng, double p_drop, double p_flip, uint64_t beats,
                 uint64_t bits = 32 * L) {
  std::uniform_real_distribution<double> u(0, 1);
  cb.drop = u(rng) < p_drop;
  cb.flip_word = u(rng) < p_flip ? int(rng() % beats) : -1;
  cb.flip_bit = int(rng() % bits);
}

// Puts beat w (`last`: its packet's final one) on cable cb, arriving `lat` cycles after `cyc`.
// At a packet's first beat `start(cb)` decides its fate (cb.drop, and cb.flip_word / flip_bit:
// a bit flipped in that beat); dropped packets never arrive, nor beats on a cut cable
// (`cut`).
template <int L, class StartPacket>
void send_beat(CableT<L>& cb, typename CableT<L>::Beat w, bool last, uint64_t cyc, uint64_t lat,
               StartPacket start, bool cut = false) {
  if (!cb.in_pkt) {
    cb.in_pkt = true, cb.widx = 0;
    start(cb);
  }
  if (cb.widx++ == cb.flip_word) w[size_t(cb.flip_bit / 32)] ^= 1u << (cb.flip_bit % 32);
  if (!cb.drop && !cut) cb.q.push_back({cyc + lat, {w, last}});
  if (last) cb.in_pkt = false;
}

// Puts the beats node m (card c) sends this cycle on the cables of its ports (send_beat);
// `start(cable, port)` decides each packet's fate.
template <class Node, int L, class StartPacket>
void send(Node* m, int c, std::map<Port, CableT<L>>& cable, uint64_t cyc, uint64_t lat,
          StartPacket start) {
  for (int p = 0; p < 4; ++p) {
    if (!((m->link_out_valid >> p) & 1)) continue;
    std::array<uint32_t, L> w;
    for (int i = 0; i < L; ++i) w[size_t(i)] = m->link_out_data[p * L + i];
    send_beat(cable[{c, p}], w, (m->link_out_last >> p) & 1, cyc, lat,
              [&](CableT<L>& cb) { start(cb, p); });
  }
}

// The memory behind node m's word read master: the oldest read of `rdq` ((due cycle,
// address), in issue order) answered once it is due, from `mem`; a read past its end reads
// 0 and is reported to `past_end(address)`.
template <class Node, class PastEnd>
void answer_read(Node* m, std::deque<std::pair<uint64_t, uint64_t>>& rdq, const std::vector<uint8_t>& mem,
                 uint64_t cyc, PastEnd past_end) {
  m->mem_rd_readdatavalid = 0;
  if (rdq.empty() || rdq.front().first > cyc) return;
  const uint64_t a = rdq.front().second;
  uint32_t w = 0;
  if (a + 4 <= mem.size()) std::memcpy(&w, &mem[a], 4);
  else past_end(a);
  m->mem_rd_readdatavalid = 1, m->mem_rd_readdata = w;
  rdq.pop_front();
}

// Writes the first `entries` routes of card c's table (node m, out of reset): dimension
// order, the shorter way round the torus (ring_route.hpp; ports 2d / 2d+1 for +/- along dimension d),
// 4 for the card itself, 15 (no route) for ids of no card (>= n).
template <class Node>
void program_routes(Node* m, int c, int n, int X, const int dims[2], int entries) {
  for (int t = 0; t < entries; ++t) {
    int port = 15;
    if (t < n) {
      int xs[2] = {c % X, c / X}, ts[2] = {t % X, t / X};
      port = 4;
      for (int d = 0; d < 2 && port == 4 && t != c; ++d)
        if (xs[d] != ts[d]) port = rdma_route::ring_up(xs[d], ts[d], dims[d]) ? 2 * d : 2 * d + 1;
    }
    m->cfg_we = 1, m->cfg_addr = t, m->cfg_port = port;
    m->clk = 0; m->eval(); m->clk = 1; m->eval();
  }
  m->cfg_we = 0;
}

}  // namespace rdma_links
