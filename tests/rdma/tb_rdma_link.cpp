// Two rdma_link_port instances joined by a model channel (latency, drops, bit flips,
// link-down interval); random packets both ways under random back-pressure. Checks
// every packet arrives once, in order, unchanged, and no input buffer overflows.
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

#include "Vrdma_link_port.h"
#include "verilated.h"

struct Word { uint32_t data; bool last; };

struct Chan {  // one direction of the cable
  std::deque<std::pair<uint64_t, Word>> q;
  bool in_pkt = false, drop = false;
  int corrupt_word = -1, corrupt_bit = 0, widx = 0;
  uint64_t dropped = 0, corrupted = 0;
};

struct Gen {  // packets offered to a port's sender; order holds per virtual channel
  std::deque<std::vector<uint32_t>> todo, expect[2];
  size_t pos = 0;
};

int main(int argc, char** argv) {
  if (argc < 9) {
    std::fprintf(stderr, "usage: tb PACKETS P_DROP P_CORRUPT SEED LATENCY DOWN_FROM DOWN_TO P_READY\n");
    return 2;
  }
  const int npk = std::atoi(argv[1]);
  const double pdrop = std::atof(argv[2]), pcorr = std::atof(argv[3]);
  std::mt19937_64 rng(std::strtoull(argv[4], nullptr, 10));
  const uint64_t lat = std::strtoull(argv[5], nullptr, 10), down0 = std::strtoull(argv[6], nullptr, 10),
                 down1 = std::strtoull(argv[7], nullptr, 10);
  const double pready = std::atof(argv[8]);
  std::uniform_real_distribution<double> u(0, 1);
  VerilatedContext ctx;
  Vrdma_link_port* port[2] = {new Vrdma_link_port(&ctx, "a"), new Vrdma_link_port(&ctx, "b")};
  Chan ch[2];  // ch[i]: from port i to port 1-i
  Gen gen[2];
  for (int p = 0; p < 2; ++p)
    for (int k = 0; k < npk; ++k) {
      uint32_t n = uint32_t(rng() % 17), vc = uint32_t(rng() & 1);
      std::vector<uint32_t> pk{uint32_t(1 - p) | uint32_t(p) << 6 | 3u << 12 | vc << 16 | n << 17};
      for (uint32_t i = 0; i < n; ++i) pk.push_back(uint32_t(rng()));
      gen[p].todo.push_back(pk);
      gen[p].expect[vc].push_back(pk);
    }
  std::vector<uint32_t> got[2];
  int errors = 0;
  uint64_t cyc = 0;
  for (auto* m : port) { m->rst = 1; m->clk = 0; m->eval(); m->clk = 1; m->eval(); }
  for (auto* m : port) m->rst = 0;
  const uint64_t max_cyc = 400000 + uint64_t(npk) * 400;
  for (; cyc < max_cyc; ++cyc) {
    bool done = true;
    for (auto& g : gen) done = done && g.expect[0].empty() && g.expect[1].empty();
    if (done) break;
    for (int p = 0; p < 2; ++p) {
      Vrdma_link_port* m = port[p];
      Gen& g = gen[p];
      m->tx_valid = !g.todo.empty();
      if (!g.todo.empty()) {
        m->tx_data = g.todo.front()[g.pos];
        m->tx_last = g.pos + 1 == g.todo.front().size();
      }
      m->rx_ready = u(rng) < pready;
      // the router's choice of VC: random among those with a packet waiting
      if (m->rx_avail == 3) m->rx_sel_vc = rng() & 1;
      else m->rx_sel_vc = m->rx_avail == 2;
      m->link_out_ready = 1;
      Chan& in = ch[1 - p];
      m->link_in_valid = 0;
      if (!in.q.empty() && in.q.front().first <= cyc) {
        m->link_in_valid = 1;
        m->link_in_data = in.q.front().second.data;
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
        if (++g.pos == g.todo.front().size()) { g.todo.pop_front(); g.pos = 0; }
      }
      if (m->rx_valid && m->rx_ready) {  // port p receives what port 1-p sent
        if (got[p].empty() && m->rx_data != (m->rx_vc ? m->rx_head1 : m->rx_head0)) ++errors;  // head view
        got[p].push_back(m->rx_data);
        if (m->rx_last) {
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
      if (m->link_out_valid) {  // onto the cable, with faults decided per packet
        Chan& c = ch[p];
        if (!c.in_pkt) {
          c.in_pkt = true;
          c.widx = 0;
          c.drop = u(rng) < pdrop || (cyc >= down0 && cyc < down1);
          c.corrupt_word = u(rng) < pcorr ? int(rng() % 19) : -1;
          c.corrupt_bit = int(rng() % 32);
          if (c.drop) ++c.dropped;
        }
        uint32_t d = m->link_out_data;
        if (c.widx == c.corrupt_word) { d ^= 1u << c.corrupt_bit; ++c.corrupted; }
        if (!c.drop) c.q.push_back({cyc + lat, Word{d, bool(m->link_out_last)}});
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
  std::printf("cycles %llu dropped %llu corrupted %llu crc_errors %u replays %u errors %d\n",
              (unsigned long long)cyc, (unsigned long long)(ch[0].dropped + ch[1].dropped),
              (unsigned long long)(ch[0].corrupted + ch[1].corrupted),
              unsigned(port[0]->crc_errors + port[1]->crc_errors), unsigned(port[0]->replays + port[1]->replays),
              errors);
  for (auto* m : port) { m->final(); delete m; }
  return errors ? 1 : 0;
}
