// Streams over links: rdma_node with STREAM = 1 on a 2 x 2 torus, cables with bit flips
// and drops. Card c streams W words (records of random length, `last` on each record's
// final word, random gaps) to card 3 - c (card 0 -> 3 and 3 -> 0 cross two links); each
// consumer takes words with random readiness, and card 3's consumer stops altogether for
// STALL cycles while RDMA puts run between all cards, into card 3 too: they must complete
// meanwhile (a stalled stream holds no router buffer), and every stream word must arrive
// once, in order, with its last flag.
//   tb W P_IN P_OUT STALL P_FLIP P_DROP SEED MAX_CYCLES
// Built with -DLANES=16 or 32 the nodes are wide: the streams (rdma_stream_wide) share the
// local port with the wide engine at beat level, the producer gives 1..LANES words a cycle
// (cut at segment ends), the consumer asks for 1..LANES at a time; the engine's memory ports
// move 64-byte lines and its puts use 1 KiB packets.
//   tb rate GBPS HOPS RECORD_WORDS RECORDS_PER_CYCLE RECORDS P_OUT PER SEED
// measures one stream over HOPS hops (a ring of 2 x HOPS cards) with ports held to a line of
// GBPS at 200 MHz (tb_stream_rate.hpp).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vrdma_node.h"
#include "verilated.h"
#include "rtl_links.hpp"
#include "tb_lanes.hpp"
#include "tb_stream_rate.hpp"

static const uint64_t MEM = 1 << 20;  // MEM_BYTES of the build
static uint32_t mix(uint64_t x) {
  x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33;
  return uint32_t(x ^ (x >> 29));
}
static bool is_last(int src, uint64_t i) { return mix(uint64_t(src) << 40 | i | 1ull << 60) % 23 == 0; }

using Cable = rdma_links::CableT<LANES>;

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "rate") return stream_rate<Vrdma_node>(argc - 1, argv + 1);
  if (argc < 9) return 2;
  const uint64_t W = std::strtoull(argv[1], nullptr, 10);
  const double p_in = std::atof(argv[2]), p_out = std::atof(argv[3]);
  const uint64_t stall = std::strtoull(argv[4], nullptr, 10);
  const double pflip = std::atof(argv[5]), pdrop = std::atof(argv[6]);
  std::mt19937_64 rng(std::strtoull(argv[7], nullptr, 10));
  const uint64_t max_cyc = std::strtoull(argv[8], nullptr, 10), lat = 12;
  std::uniform_real_distribution<double> u(0, 1);
  const int X = 2, Y = 2, n = 4, dims[2] = {X, Y};
  VerilatedContext ctx;
  std::vector<Vrdma_node*> card(n);
  std::vector<std::vector<uint8_t>> mem(n, std::vector<uint8_t>(MEM));
  std::vector<std::deque<std::pair<uint64_t, uint64_t>>> rdq(n);
  const rdma_links::Torus links = rdma_links::torus(X, Y);
  const auto& peer = links.peer;
  const auto& dateline = links.dateline;
  for (int c = 0; c < n; ++c) {
    card[c] = new Vrdma_node(&ctx, ("c" + std::to_string(c)).c_str());
    for (auto& b : mem[c]) b = uint8_t(rng());
  }
  std::map<std::pair<int, int>, Cable> cable;
  for (int c = 0; c < n; ++c) {
    Vrdma_node* m = card[c];
    m->rst = 1, m->card_id = c, m->port_dim = 0b01010000, m->port_dateline = dateline[c];
    m->link_out_ready = 0xF;  // cables without a PHY
    m->st_tx_dst = 3 - c, m->st_tx_sid = 10 + (3 - c), m->st_rx_peer = 3 - c, m->st_rx_sid = 10 + c;
    m->clk = 0; m->eval(); m->clk = 1; m->eval();
    m->rst = 0;
    rdma_links::program_routes(m, c, n, X, dims, 64);
  }
  std::vector<uint64_t> sent(n, 0), got(n, 0), first_word(n, 0), last_word(n, 0), push_n(n, 0);
  uint64_t errors = 0, flips = 0, drops = 0;
  // RDMA puts, one at a time per card, during the stall: card c -> card (c + 1 + k) % n
  std::vector<int> put_k(n, 0);
  std::vector<bool> waiting(n, false);
  std::vector<uint64_t> put_len(n), put_src(n), put_dst(n);
  std::vector<int> put_to(n);
  long puts_ok = 0, puts_in_stall = 0;
  const uint64_t stall_from = 2000, stall_to = 2000 + stall;
  uint64_t cyc = 0;
  auto done_all = [&]() {
    for (int c = 0; c < n; ++c)
      if (got[c] < W || waiting[c]) return false;
    return true;
  };
  for (; cyc < max_cyc && !done_all(); ++cyc) {
    const bool stalled = cyc >= stall_from && cyc < stall_to;
    for (int c = 0; c < n; ++c) {
      Vrdma_node* m = card[c];
      // the producer: word i of card c's stream
      // words sent[c].. (up to LANES, up to the end of their segment), and how many the
      // consumer asks for
      m->st_s_valid = sent[c] < W && u(rng) < p_in;
      uint32_t words[LANES] = {};
      uint64_t k = 0, want = 1 + rng() % LANES;
      for (bool end = false; k < want && !end; ++k) {
        words[k] = mix(uint64_t(c) << 40 | (sent[c] + k));
        end = is_last(c, sent[c] + k) || sent[c] + k + 1 == W;
        m->st_s_last = end;
      }
      set_beat(m->st_s_data, words);
      m->st_s_words = uint32_t(k);
      push_n[c] = k;
      m->st_m_want = uint32_t(1 + rng() % LANES);
      m->st_m_ready = !(c == 3 && stalled) && u(rng) < p_out;
      // RDMA puts while the stall lasts (and a little longer)
      m->cmd_valid = 0;
      if (!waiting[c] && cyc >= stall_from && cyc < stall_to && put_k[c] < 1000) {
        int d = (c + 1 + put_k[c] % (n - 1)) % n;
        put_to[c] = d;
        put_len[c] = 4 * (1 + rng() % 512);
        put_src[c] = 4 * (rng() % 0x20000);
        put_dst[c] = 0x80000 + uint64_t(c) * 0x10000 + 4 * (rng() % 0x3000);
        m->cmd_valid = 1, m->cmd_get = 0, m->cmd_dst = d, m->cmd_local = put_src[c], m->cmd_remote = put_dst[c];
        m->cmd_len = put_len[c], m->cmd_block = 0;
      }
      m->mem_rd_waitrequest = 0, m->mem_wr_waitrequest = 0, m->mem_rd_readdatavalid = 0;
      if (!rdq[c].empty() && rdq[c].front().first <= cyc) {
#if LANES > 1
        for (int i = 0; i < 16; ++i) std::memcpy(&m->mem_rd_readdata[i], &mem[c][rdq[c].front().second + 4 * i], 4);
        m->mem_rd_readdatavalid = 1;
#else
        uint32_t w;
        std::memcpy(&w, &mem[c][rdq[c].front().second], 4);
        m->mem_rd_readdatavalid = 1, m->mem_rd_readdata = w;
#endif
        rdq[c].pop_front();
      }
      m->evt_ready = 1;
      rdma_links::receive(m, c, peer, cable, cyc);
      m->clk = 0;
      m->eval();
    }
    for (int c = 0; c < n; ++c) {
      Vrdma_node* m = card[c];
      if (m->st_s_valid && m->st_s_ready) {
        if (sent[c] == 0) first_word[c] = cyc;
        sent[c] += push_n[c];
      }
      if (m->st_m_valid && m->st_m_ready) {
        // m_words words, the final one with its segment's last flag, the record short only there
        int src = 3 - c;
        std::vector<uint32_t> w;
        append_beat(m->st_m_data, w);
        const uint64_t n_got = LANES > 1 ? m->st_m_words : 1;
        bool ok = n_got >= 1 && n_got <= (LANES > 1 ? m->st_m_want : 1u) && (m->st_m_last || n_got == (LANES > 1 ? m->st_m_want : 1u));
        for (uint64_t j = 0; j < n_got; ++j) {
          const uint64_t i = got[c] + j;
          const bool want_last = is_last(src, i) || i + 1 == W;
          ok = ok && i < W && w[j] == mix(uint64_t(src) << 40 | i) && want_last == (j + 1 == n_got && m->st_m_last);
        }
        if (!ok && errors++ < 5) std::fprintf(stderr, "card %d: stream words from %llu wrong\n", c, (unsigned long long)got[c]);
        got[c] += n_got;
        last_word[c] = cyc;
      }
      if (c == 3 && stalled && m->st_m_valid && m->st_m_ready) ++errors;  // nothing taken while stalled
      if (m->cmd_valid && m->cmd_ready) waiting[c] = true, ++put_k[c];
      if (m->done) {
        waiting[c] = false;
        if (m->done_code != 0 || std::memcmp(&mem[put_to[c]][put_dst[c]], &mem[c][put_src[c]], put_len[c]) != 0) {
          if (errors++ < 5) std::fprintf(stderr, "card %d: put to %d failed (code %d)\n", c, put_to[c], int(m->done_code));
        } else {
          ++puts_ok;
          if (cyc < stall_to) ++puts_in_stall;
        }
      }
      if (m->mem_rd_read) rdq[c].push_back({cyc + 8, m->mem_rd_address});
      if (m->mem_wr_write) {
#if LANES > 1
        const uint64_t be = m->mem_wr_byteenable;
        for (int b = 0; b < 64; ++b)
          if ((be >> b) & 1) mem[c][m->mem_wr_address + b] = uint8_t(m->mem_wr_writedata[b / 4] >> (8 * (b % 4)));
#else
        uint32_t w = m->mem_wr_writedata;
        std::memcpy(&mem[c][m->mem_wr_address], &w, 4);
#endif
      }
      rdma_links::send(m, c, cable, cyc, lat, [&](Cable& cb, int) {
        rdma_links::draw_faults(cb, rng, pdrop, pflip, (LANES > 1 ? 258 : 18) / LANES + 1);
        drops += cb.drop, flips += cb.flip_word >= 0;
      });
      m->clk = 1;
      m->eval();
    }
  }
  unsigned st_err = 0, overflow = 0;
  uint64_t delivered = 0;
  for (int c = 0; c < n; ++c) {
    st_err |= card[c]->st_errors;
    overflow |= card[c]->overflow;
    delivered += got[c];
  }
  if (st_err || overflow) ++errors;
  // throughput of the stream 0 -> 3 (two hops): words per cycle from its first to its last word
  double wpc = last_word[3] > first_word[0] ? double(got[3]) / double(last_word[3] - first_word[0]) : 0;
  std::printf("cycles %llu words %llu delivered %llu puts_in_stall %ld puts %ld flips %llu drops %llu "
              "stream_errors %u wpc_x1000 %d errors %llu\n",
              (unsigned long long)cyc, (unsigned long long)(W * n), (unsigned long long)delivered, puts_in_stall,
              puts_ok, (unsigned long long)flips, (unsigned long long)drops, st_err, int(wpc * 1000),
              (unsigned long long)errors);
  for (auto* m : card) { m->final(); delete m; }
  return errors ? 1 : delivered == W * n ? 0 : 3;
}
