// Two rdma_link_port instances joined by a model channel (latency, drops, bit flips,
// link-down interval); random packets both ways under random back-pressure. Checks
// every packet arrives once, in order, unchanged, and no input buffer overflows.
// Built with -DLANES=L -DMAX_WORDS=M to match the ports' parameters (beats of L words,
// bulk packets up to M words); SIZE (optional) fixes the payload words of every packet,
// and the run reports the payload words delivered, for the port's throughput. LINE_GBPS
// (optional, 0: none) puts a PHY behind each sender that serialises the bytes of every beat
// (4 per word of the packet, CRC included; not the idle lanes) at that line rate for a 200
// MHz card clock and holds the sender back (link_out_ready) while it is busy. ONE_WAY: only
// the first port sends packets (the other its ACK / credit packets), as for a put.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

#include "Vrdma_link_port.h"
#include "tb_lanes.hpp"
#include "verilated.h"

using Beat = std::vector<uint32_t>;  // LANES words
struct Word { Beat data; bool last; };

static Beat get_beat(const decltype(Vrdma_link_port::link_out_data)& p) {
  Beat b;
  append_beat(p, b);
  return b;
}

struct Chan {  // one direction of the cable
  std::deque<std::pair<uint64_t, Word>> q;
  bool in_pkt = false, drop = false;
  int corrupt_word = -1, corrupt_bit = 0, widx = 0;
  uint64_t dropped = 0, corrupted = 0;
  double debt = 0;     // bytes the PHY has still to serialise
  uint32_t left = 0;   // words of the packet still to send (header, payload, CRC)
};

struct Gen {  // packets offered to a port's sender; order holds per virtual channel
  std::deque<std::vector<uint32_t>> todo, expect[2];
  size_t pos = 0;
};

int main(int argc, char** argv) {
  if (argc < 9) {
    std::fprintf(stderr, "usage: tb PACKETS P_DROP P_CORRUPT SEED LATENCY DOWN_FROM DOWN_TO P_READY [SIZE [LINE_GBPS [ONE_WAY]]]\n");
    return 2;
  }
  const int npk = std::atoi(argv[1]);
  const double pdrop = std::atof(argv[2]), pcorr = std::atof(argv[3]);
  std::mt19937_64 rng(std::strtoull(argv[4], nullptr, 10));
  const uint64_t lat = std::strtoull(argv[5], nullptr, 10), down0 = std::strtoull(argv[6], nullptr, 10),
                 down1 = std::strtoull(argv[7], nullptr, 10);
  const double pready = std::atof(argv[8]);
  const int size = argc > 9 ? std::atoi(argv[9]) : -1;
  const double line_bpc = argc > 10 ? std::atof(argv[10]) / 1.6 : 0;  // bytes per 5 ns cycle
  const bool one_way = argc > 11 && std::atoi(argv[11]) != 0;  // only port 0 sends data
  // payload sizes: 0..16 words, and whole bulk units up to MAX_WORDS
  std::vector<uint32_t> sizes;
  for (uint32_t n = 0; n <= MAX_WORDS; n += n < 16 ? 1 : rdma_packet::kBulkUnit) sizes.push_back(n);
  std::uniform_real_distribution<double> u(0, 1);
  VerilatedContext ctx;
  Vrdma_link_port* port[2] = {new Vrdma_link_port(&ctx, "a"), new Vrdma_link_port(&ctx, "b")};
  Chan ch[2];  // ch[i]: from port i to port 1-i
  Gen gen[2];
  for (int p = 0; p < (one_way ? 1 : 2); ++p)
    for (int k = 0; k < npk; ++k) {
      uint32_t n = size >= 0 ? uint32_t(size) : sizes[rng() % sizes.size()], vc = uint32_t(rng() & 1);
      std::vector<uint32_t> pk{uint32_t(1 - p) | uint32_t(p) << 6 | 3u << 12 | vc << 16 |
                               rdma_packet::words_code(n) << 17};
      for (uint32_t i = 0; i < n; ++i) pk.push_back(uint32_t(rng()));
      gen[p].todo.push_back(pk);
      gen[p].expect[vc].push_back(pk);
    }
  std::vector<uint32_t> got[2];
  uint64_t payload_words = 0;
  int errors = 0;
  uint64_t cyc = 0;
  for (auto* m : port) { m->rst = 1; m->clk = 0; m->eval(); m->clk = 1; m->eval(); }
  for (auto* m : port) m->rst = 0;
  const uint64_t max_cyc = 400000 + uint64_t(npk) * 400 * (MAX_WORDS / 16);
  for (; cyc < max_cyc; ++cyc) {
    bool done = true;
    for (auto& g : gen) done = done && g.expect[0].empty() && g.expect[1].empty();
    if (done) break;
    for (int p = 0; p < 2; ++p) {
      Vrdma_link_port* m = port[p];
      Gen& g = gen[p];
      m->tx_valid = !g.todo.empty();
      if (!g.todo.empty()) {
        set_beat(m->tx_data, beat_of(g.todo.front(), g.pos).data());
        m->tx_last = (g.pos + 1) * LANES >= g.todo.front().size();
      }
      m->rx_ready = u(rng) < pready;
      // the router's choice of VC: random among those with a packet waiting
      if (m->rx_avail == 3) m->rx_sel_vc = rng() & 1;
      else m->rx_sel_vc = m->rx_avail == 2;
      // the PHY has serialised another cycle's bytes; it takes a beat while it has room for one
      if (line_bpc > 0) ch[p].debt = std::max(0.0, ch[p].debt - line_bpc);
      m->link_out_ready = line_bpc <= 0 || ch[p].debt < 4.0 * LANES;
      Chan& in = ch[1 - p];
      m->link_in_valid = 0;
      if (!in.q.empty() && in.q.front().first <= cyc) {
        m->link_in_valid = 1;
        set_beat(m->link_in_data, in.q.front().second.data.data());
        m->link_in_last = in.q.front().second.last;
        in.q.pop_front();
      }
      m->clk = 0;
      m->eval();
    }
    for (int p = 0; p < 2; ++p) {
      Vrdma_link_port* m = port[p];
      Gen& g = gen[p];
      if (m->tx_valid && m->tx_ready) {
        if (++g.pos * LANES >= g.todo.front().size()) { g.todo.pop_front(); g.pos = 0; }
      }
      if (m->rx_valid && m->rx_ready) {  // port p receives what port 1-p sent
        const bool first = got[p].empty();
        append_beat(m->rx_data, got[p]);
        if (first && got[p][0] != (m->rx_vc ? m->rx_head1 : m->rx_head0)) ++errors;  // head view
        if (m->rx_last) {
          if (!trim_packet(got[p])) ++errors;  // the rest of the last beat is not part of the packet
          payload_words += got[p].size() - 1;
          got[p][0] &= 0x003FFFFFu;  // the link sequence number is not part of the payload
          auto& want = gen[1 - p].expect[(got[p][0] >> 16) & 1];
          if (m->rx_vc != ((got[p][0] >> 16) & 1)) ++errors;
          if (want.empty() || want.front() != got[p]) {
            if (errors++ < 3) {
              std::fprintf(stderr, "port %d cycle %llu: packet of %zu words differs or is extra\n got:", p,
                           (unsigned long long)cyc, got[p].size());
              for (auto w : got[p]) std::fprintf(stderr, " %08x", w);
              std::fprintf(stderr, "\n want:");
              if (!want.empty())
                for (auto w : want.front()) std::fprintf(stderr, " %08x", w);
              std::fprintf(stderr, "\n");
            }
          } else {
            want.pop_front();
          }
          got[p].clear();
        }
      }
      Chan& c = ch[p];
      if (m->link_out_valid && m->link_out_ready) {  // onto the cable, with faults decided per packet
        Beat d = get_beat(m->link_out_data);
        if (!c.in_pkt) {
          c.left = 2 + rdma_packet::payload_words(rdma_packet::extract(d[0], rdma_packet::kHdrWords));
          c.in_pkt = true;
          c.widx = 0;
          c.drop = u(rng) < pdrop || (cyc >= down0 && cyc < down1);
          c.corrupt_word = u(rng) < pcorr ? int(rng() % ((c.left + LANES - 1) / LANES)) : -1;  // a beat of it
          c.corrupt_bit = int(rng() % (32 * LANES));
          if (c.drop) ++c.dropped;
        }
        const uint32_t words = std::min<uint32_t>(LANES, c.left);
        c.left -= words;
        uint64_t due = cyc + lat;
        if (line_bpc > 0) {
          c.debt += 4.0 * words;
          due += uint64_t(std::ceil(c.debt / line_bpc));
        }
        if (c.widx == c.corrupt_word) { d[size_t(c.corrupt_bit / 32)] ^= 1u << (c.corrupt_bit % 32); ++c.corrupted; }
        if (!c.drop) c.q.push_back({due, Word{d, bool(m->link_out_last)}});
        ++c.widx;
        if (m->link_out_last) c.in_pkt = false;
      }
      m->clk = 1;
      m->eval();
    }
  }
  for (int p = 0; p < 2; ++p) {
    if (port[p]->overflow) { std::fprintf(stderr, "port %d: input buffer overflow\n", p); ++errors; }
    if (!gen[p].expect[0].empty() || !gen[p].expect[1].empty()) {
      std::fprintf(stderr, "port %d: %zu packets never arrived\n", p,
                   gen[p].expect[0].size() + gen[p].expect[1].size());
      ++errors;
    }
  }
  std::printf("cycles %llu dropped %llu corrupted %llu crc_errors %u replays %u payload_words %llu errors %d\n",
              (unsigned long long)cyc, (unsigned long long)(ch[0].dropped + ch[1].dropped),
              (unsigned long long)(ch[0].corrupted + ch[1].corrupted),
              unsigned(port[0]->crc_errors + port[1]->crc_errors), unsigned(port[0]->replays + port[1]->replays),
              (unsigned long long)payload_words, errors);
  for (auto* m : port) { m->final(); delete m; }
  return errors ? 1 : 0;
}
