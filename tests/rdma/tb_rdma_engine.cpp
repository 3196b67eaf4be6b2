// RDMA engine RTL (rdma_node = rdma_engine + rdma_card_net) on an X x Y torus of cards
// joined by cable models with bit flips, drops and link-down intervals, each card with a
// memory model behind the engine's read and write ports (random waitrequest and read
// latency). Modes:
//   random: every card runs OPS random puts, gets and block-stride puts to random cards
//           at once; every byte is checked at each completion against a reference image,
//           every card's whole memory at the end, and every target event.
//   errors: absent card, remote range (put, get, block-stride), local range, alignment,
//           a dead card (TIMEOUT); then a good put still works.
//   bench:  put / get latency and throughput card 0 -> card 1 on a clean network.
//   lat:    one 16-byte put from card 0 to card DST (argument 9): command to DONE, cycles.
//   rate:   OPS puts (or gets: KIND 1) of BYTES each, K in flight, card 0 with card 1 over
//           one link whose sender is paced by a PHY at LINE_GBPS (4 bytes a word of the
//           packet, header and CRC included, idle lanes not; 200 MHz), P_FLIP: the packet
//           error rate (a bit flipped in a random beat); 40-cycle cables, a memory that
//           serves a line per cycle after MEM_LAT cycles. Prints the payload rate.
//   tb MODE X Y OPS P_FLIP P_DROP SEED MAX_CYCLES [DOWN_FROM DOWN_TO [K]]
//   tb rate 2 1 OPS PER 0 SEED MAX_CYCLES LINE_GBPS PKT_WORDS KIND BYTES K MEM_LAT [OFF_LOCAL OFF_REMOTE]
// K (random mode): operations each card keeps in flight at once (<= the engine's MAX_OPS);
// each in-flight operation of a card has its own lane of the destination windows.
// Built with -DLANES=16 or 32 the nodes are wide: the engine's memory ports move 64-byte
// lines (reads returned in order after a random latency, writes with byte enables) and
// each operation picks its DATA packet size (cmd_pkt_words: 64 B, 1 KiB or random).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#ifdef ADAPTER  // the wide node behind its AFU memory adapter (tb_rdma_wide_card.v): Avalon-MM masters
#include "Vtb_rdma_wide_card.h"
using Node = Vtb_rdma_wide_card;
#define MRD(x) avm_rd_##x
#define MWR(x) avm_wr_##x
#else
#include "Vrdma_node.h"
using Node = Vrdma_node;
#define MRD(x) mem_rd_##x
#define MWR(x) mem_wr_##x
#endif
#include "verilated.h"
#include "rtl_links.hpp"
#include "tb_lanes.hpp"

static const uint64_t MEM = 1 << 20;
static const bool WIDE = LANES > 1;  // MEM_BYTES of the build (test_rdma_rtl_engine.py)
static const uint64_t SRC = 0, SRC_END = 0x40000, PUTWIN = 0x40000, GETWIN = 0xC0000;
static uint64_t WIN = 0x10000;  // put window per source card: 64 KiB, less beyond 8 cards

using Cable = rdma_links::CableT<LANES>;  // the network's beats (-DLANES: rdma_node's LANES)

struct Op {
  int kind = 0;  // 0 put, 1 get, 2 block-stride put, 3 block-stride get
  bool is_get() const { return kind == 1 || kind == 3; }
  bool strided() const { return kind >= 2; }
  // bytes spanned at the written side (from the first byte written to the last)
  uint64_t written_span() const {
    if (!strided()) return len;
    return uint64_t(count - 1) * (kind == 3 ? lstride : rstride) + block;
  }
  int dst = 0;
  uint64_t local = 0, remote = 0, len = 0;
  uint32_t block = 0, count = 0, lstride = 0, rstride = 0;
  uint32_t pkt = 0;  // DATA payload words (wide engine)
  int expect = 0;  // expected code
  uint64_t issued = 0;
  int lane = 0;
};

struct Card {
  Node* m = nullptr;
  std::vector<uint8_t> mem, ref;
  std::deque<std::pair<uint64_t, uint64_t>> rdq;  // (ready cycle, address)
  uint32_t wr_beat = 0;  // the next beat of a write burst (adapter)
  bool want = false, accepted = false;
  Op cur;                      // offered on the command port until accepted
  std::map<uint32_t, Op> inflight;  // by operation id
  std::vector<bool> lane_busy;
  int ops_left = 0;
  std::vector<std::tuple<int, int, uint64_t, uint64_t>> events;  // kind, peer, addr, len
};

static uint64_t g_errors = 0;
#define FAIL(...) do { if (g_errors++ < 5) std::fprintf(stderr, __VA_ARGS__); } while (0)

int main(int argc, char** argv) {
  if (argc < 9) return 2;
  const std::string mode = argv[1];
  const int X = std::atoi(argv[2]), Y = std::atoi(argv[3]), OPS = std::atoi(argv[4]);
  const double pflip = std::atof(argv[5]), pdrop = std::atof(argv[6]);
  std::mt19937_64 rng(std::strtoull(argv[7], nullptr, 10));
  const uint64_t max_cyc = std::strtoull(argv[8], nullptr, 10);
  const bool rate = mode == "rate";
  const uint64_t lat = rate ? 40 : 12;
  auto arg = [&](int i, const char* d) { return argc > i ? argv[i] : d; };
  const double line_bpc = rate ? std::atof(arg(9, "40")) / 1.6 : 0;  // PHY bytes per 5 ns cycle
  const uint32_t rate_pkt = uint32_t(std::atoi(arg(10, "256")));
  const int rate_kind = rate ? std::atoi(arg(11, "0")) : 0;
  const uint64_t rate_bytes = rate ? std::strtoull(arg(12, "1048576"), nullptr, 10) : 0;
  const uint64_t mem_lat = rate ? std::strtoull(arg(14, "50"), nullptr, 10) : 0;
  // rate: byte offsets of the local and the remote range (4-byte aligned: off-line transfers)
  const uint64_t off_l = rate ? std::strtoull(arg(15, "0"), nullptr, 10) : 0;
  const uint64_t off_r = rate ? std::strtoull(arg(16, "0"), nullptr, 10) : 0;
  const int lat_dst = mode == "lat" ? std::atoi(arg(9, "1")) : 1;
  const uint64_t down_from = argc > 10 && !rate ? std::strtoull(argv[9], nullptr, 10) : 0;
  const uint64_t down_to = argc > 10 && !rate ? std::strtoull(argv[10], nullptr, 10) : 0;
  const int K = mode == "random" && argc > 11 ? std::atoi(argv[11]) : rate ? std::atoi(arg(13, "2")) : 1;
  std::uniform_real_distribution<double> u(0, 1);
  const int n = X * Y, dims[2] = {X, Y}, absent = n;
  if (n > 8) WIN = (GETWIN - PUTWIN) / uint64_t(n) / 4 * 4;
  const uint64_t PLANE = WIN / uint64_t(K) / 4 * 4, GLANE = (MEM - GETWIN) / uint64_t(K) / 4 * 4;
  const double p_wait = mode == "bench" || mode == "lat" || rate ? 0.0 : 0.2;
  VerilatedContext ctx;
  std::vector<Card> card(n);
  const rdma_links::Torus links = rdma_links::torus(X, Y);
  const auto& peer = links.peer;
  const auto& dateline = links.dateline;
  for (int c = 0; c < n; ++c) {
    card[c].m = new Node(&ctx, ("c" + std::to_string(c)).c_str());
    card[c].mem.assign(MEM, 0);
    for (uint64_t a = SRC; a < SRC_END; ++a) card[c].mem[a] = uint8_t(rng());
    card[c].ref = card[c].mem;
  }
  std::map<std::pair<int, int>, Cable> cable;
  for (int c = 0; c < n; ++c) {
    Node* m = card[c].m;
    m->rst = 1;
    m->card_id = c;
    m->port_dim = 0b01010000;
    m->link_out_ready = 0xF;  // cables without a PHY: a beat leaves every cycle
    m->port_dateline = dateline[c];
    m->clk = 0; m->eval(); m->clk = 1; m->eval();
    m->rst = 0;
    rdma_links::program_routes(m, c, n, X, dims, 64);  // ids >= n: no route (cards outside)
  }

  // ---- workloads ---------------------------------------------------------------------
  auto rnd = [&](uint64_t lo, uint64_t hi) { return lo + rng() % (hi - lo + 1); };  // inclusive
  auto rsize = [&]() -> uint64_t {
    double r = u(rng);
    return std::min<uint64_t>(PLANE, 4 * (r < 0.5 ? rnd(1, 64) : r < 0.85 ? rnd(64, 1024) : rnd(1024, 4096)));
  };
  auto random_op = [&](int s, int lane) {
    Op o;
    o.lane = lane;
    double r = u(rng);
    o.kind = r < 0.4 ? 0 : r < 0.7 ? 1 : r < 0.85 ? 2 : 3;
    o.dst = u(rng) < 0.1 ? s : int(rng() % n);
    double q = u(rng);  // the DATA packet size: 64 B, 1 KiB or any whole number of 64-byte lines
    o.pkt = q < 0.3 ? 16 : q < 0.7 ? 256 : uint32_t(16 * rnd(1, 16));
    if (o.kind == 0) {
      o.len = rsize();
      o.local = SRC + 4 * rnd(0, (SRC_END - SRC - o.len) / 4);
      o.remote = PUTWIN + s * WIN + lane * PLANE + 4 * rnd(0, (PLANE - o.len) / 4);
    } else if (o.kind == 1) {
      o.len = rsize();
      o.remote = SRC + 4 * rnd(0, (SRC_END - SRC - o.len) / 4);
      o.local = GETWIN + lane * GLANE + 4 * rnd(0, (GLANE - o.len) / 4);
    } else {
      o.block = uint32_t(4 * rnd(1, 64));
      o.count = uint32_t(rnd(1, 48));
      o.lstride = o.block + uint32_t(4 * rnd(0, 64));
      o.rstride = o.block + uint32_t(4 * rnd(0, 64));
      o.len = uint64_t(o.block) * o.count;
      uint64_t lspan = uint64_t(o.count - 1) * o.lstride + o.block, rspan = uint64_t(o.count - 1) * o.rstride + o.block;
      uint64_t limit = o.kind == 2 ? PLANE : GLANE;  // the written side's window
      if ((o.kind == 2 ? rspan : lspan) > limit) o.count = 1, o.len = o.block, lspan = rspan = o.block;
      if (o.kind == 2) {
        o.local = SRC + 4 * rnd(0, (SRC_END - SRC - lspan) / 4);
        o.remote = PUTWIN + s * WIN + lane * PLANE + 4 * rnd(0, (PLANE - rspan) / 4);
      } else {  // block-stride get: read from the source area there, written into this lane here
        o.remote = SRC + 4 * rnd(0, (SRC_END - SRC - rspan) / 4);
        o.local = GETWIN + lane * GLANE + 4 * rnd(0, (GLANE - lspan) / 4);
      }
    }
    return o;
  };
  // expected bytes of an op, applied to the reference image of the card written
  auto apply = [&](int s, const Op& o) {
    if (o.kind == 1) {
      std::memcpy(&card[s].ref[o.local], &card[o.dst].ref[o.remote], o.len);
    } else if (o.kind == 0) {
      std::memcpy(&card[o.dst].ref[o.remote], &card[s].ref[o.local], o.len);
    } else if (o.kind == 2) {
      for (uint32_t b = 0; b < o.count; ++b)
        std::memcpy(&card[o.dst].ref[o.remote + uint64_t(b) * o.rstride], &card[s].ref[o.local + uint64_t(b) * o.lstride],
                    o.block);
    } else {
      for (uint32_t b = 0; b < o.count; ++b)
        std::memcpy(&card[s].ref[o.local + uint64_t(b) * o.lstride], &card[o.dst].ref[o.remote + uint64_t(b) * o.rstride],
                    o.block);
    }
  };
  auto check_range = [&](int c, uint64_t a, uint64_t len, const char* what) {
    if (std::memcmp(&card[c].mem[a], &card[c].ref[a], len) != 0) {
      uint64_t i = 0;
      while (card[c].mem[a + i] == card[c].ref[a + i]) ++i;
      FAIL("%s: card %d byte 0x%llx differs (%02x, expected %02x)\n", what, c, (unsigned long long)(a + i),
           card[c].mem[a + i], card[c].ref[a + i]);
    }
  };
  std::vector<std::tuple<int, int, int, uint64_t, uint64_t>> expected_events;  // at, kind, peer, addr, len
  // error scenario: a script of (op, expected code) run by card 0, then card n-1 is cut off
  std::deque<Op> script;
  int dead = -1;
  if (mode == "errors") {
    auto mk = [&](int kind, int dst, uint64_t local, uint64_t remote, uint64_t len, int code) {
      Op o; o.kind = kind, o.dst = dst, o.local = local, o.remote = remote, o.len = len, o.expect = code;
      return o;
    };
    script.push_back(mk(0, absent, 0, PUTWIN, 64, 1));                 // absent card: NO_ROUTE
    script.push_back(mk(0, 1, 0, MEM - 64, 256, 2));                   // past the end: REMOTE_RANGE
    script.push_back(mk(1, 1, GETWIN, MEM - 4, 8, 2));                 // get past the end
    script.push_back(mk(0, 1, 0, MEM + 4096, 4, 2));                   // beyond the memory altogether
    Op s = mk(2, 1, 0, MEM - 1024, 0, 2);                               // block-stride past the end
    s.block = 64, s.count = 8, s.lstride = 64, s.rstride = 256, s.len = 512;
    script.push_back(s);
    Op g = mk(3, 1, GETWIN, MEM - 1024, 0, 2);                          // block-stride get past the end
    g.block = 64, g.count = 8, g.lstride = 64, g.rstride = 256, g.len = 512;
    script.push_back(g);
    Op g2 = g;                                                          // ... and one that fits
    g2.remote = 0x400, g2.expect = 0;
    script.push_back(g2);
    script.push_back(mk(0, 1, 2, PUTWIN, 64, 5));                      // misaligned: ALIGN
    script.push_back(mk(0, 1, 0, PUTWIN, 0, 5));                       // empty: ALIGN
    script.push_back(mk(0, 1, MEM - 4, PUTWIN, 64, 4));                // LOCAL_RANGE
    script.push_back(mk(0, 1, 0x100, PUTWIN + 0x40, 1000, 0));         // still works
    script.push_back(mk(1, 1, GETWIN, 0x200, 1000, 0));
    script.push_back(mk(0, n - 1, 0, PUTWIN, 64, 3));                  // dead card: TIMEOUT
    script.push_back(mk(0, 1, 0x300, PUTWIN + 0x800, 512, 0));         // and still works
    dead = n - 1;
    card[0].ops_left = int(script.size());
  } else if (mode == "random") {
    for (int c = 0; c < n; ++c) card[c].ops_left = OPS;
  }
  // bench: (kind, size) pairs, one at a time from card 0 to card 1
  std::vector<std::pair<int, uint64_t>> bench;
  if (mode == "bench") {
    for (int k = 0; k < 2; ++k)
      for (uint64_t sz = 16; sz <= 65536; sz *= 4) bench.push_back({k, sz});
    card[0].ops_left = int(bench.size());
  } else if (mode == "lat") {
    bench.push_back({0, 16});
    card[0].ops_left = 1;
  } else if (rate) {
    for (int i = 0; i < OPS; ++i) bench.push_back({rate_kind, rate_bytes});
    card[0].ops_left = OPS;
    for (int c = 0; c < n; ++c)  // the whole memory is the source
      for (uint64_t a = 0; a < MEM; ++a) card[c].mem[a] = card[c].ref[a] = uint8_t(rng());
  }
  // the PHY behind each sender: bytes still to serialise, and the words left of the packet
  // on the wire (header, payload, CRC)
  std::map<std::pair<int, int>, std::pair<double, uint32_t>> phy;
  uint64_t first_cmd = 0, last_done = 0, payload_bytes = 0;
  size_t bench_i = 0;
  long ops_ok = 0, ops_err = 0;
  uint64_t cyc = 0, bench_put_visible = 0;
  uint64_t flips = 0, drops = 0, bursts = 0;  // bursts: multi-beat write bursts (adapter)

  int drain = 0;
  for (; cyc < max_cyc; ++cyc) {
    bool all_done = true;
    for (int c = 0; c < n; ++c) {
      Card& C = card[c];
      if (C.ops_left > 0 || C.want || !C.inflight.empty()) all_done = false;
      if (dead == c) continue;
      Node* m = C.m;
      // a new command, when one of the card's K lanes is free
      m->cmd_valid = 0;
      if (C.lane_busy.empty()) C.lane_busy.assign(size_t(K), false);
      int lane = -1;
      for (int j = K - 1; j >= 0; --j)
        if (!C.lane_busy[size_t(j)]) lane = j;
      if (!C.want && C.ops_left > 0 && lane >= 0) {
        C.want = true;
        C.lane_busy[size_t(lane)] = true;
        if (mode == "random") C.cur = random_op(c, lane);
        else if (mode == "errors") { C.cur = script.front(); script.pop_front(); }
        else {
          C.cur = Op();
          C.cur.kind = bench[bench_i].first, C.cur.dst = lat_dst, C.cur.len = bench[bench_i].second;
          C.cur.local = C.cur.kind == 1 ? GETWIN : 0, C.cur.remote = C.cur.kind == 1 ? 0 : PUTWIN;
          if (rate) {
            C.cur.local = off_l, C.cur.remote = off_r, C.cur.pkt = rate_pkt;
            if (off_l || off_r) C.cur.len -= 128;  // room for the offsets
          }
          if (rate && !first_cmd) first_cmd = cyc;
          ++bench_i;
        }
        C.cur.lane = lane;
        C.cur.issued = cyc;
      }
      if (C.want) {
        m->cmd_valid = 1;
        m->cmd_get = C.cur.is_get();
        m->cmd_dst = C.cur.dst & 63;
        m->cmd_local = C.cur.local, m->cmd_remote = C.cur.remote, m->cmd_len = C.cur.len;
        m->cmd_block = C.cur.strided() ? C.cur.block : 0, m->cmd_count = C.cur.count;
        m->cmd_local_stride = C.cur.lstride, m->cmd_remote_stride = C.cur.rstride;
        m->cmd_pkt_words = C.cur.pkt;
      }
      // memory: waitrequest at random, reads back after a random latency, in order
      m->MRD(waitrequest) = u(rng) < p_wait;
      m->MWR(waitrequest) = u(rng) < p_wait;
      m->MRD(readdatavalid) = 0;
      if (!C.rdq.empty() && C.rdq.front().first <= cyc) {
        uint64_t a = C.rdq.front().second;
        uint32_t w[16] = {};
        if (a + 4 * (WIDE ? 16 : 1) <= MEM && a % (WIDE ? 64 : 4) == 0) std::memcpy(w, &C.mem[a], WIDE ? 64 : 4);
        else FAIL("card %d: read outside the memory or misaligned at 0x%llx\n", c, (unsigned long long)a);
        m->MRD(readdatavalid) = 1;
#if LANES > 1
        for (int i = 0; i < 16; ++i) m->MRD(readdata)[i] = w[i];
#else
        m->MRD(readdata) = w[0];
#endif
        C.rdq.pop_front();
      }
      if (rate) {  // the PHY has serialised another cycle's bytes; it takes a beat while it has room
        uint32_t stall = 0;
        for (int p = 0; p < 4; ++p) {
          auto& ph = phy[{c, p}];
          ph.first = std::max(0.0, ph.first - line_bpc);
          if (ph.first >= 4.0 * LANES) stall |= 1u << p;
        }
        m->link_out_ready = ~stall & 0xFu;
      }
      m->evt_ready = 1;
      rdma_links::receive(m, c, peer, cable, cyc);
      m->clk = 0;
      m->eval();
    }
    if (all_done && ++drain > 300) break;  // target events may follow the last completion
    for (int c = 0; c < n; ++c) {
      Card& C = card[c];
      if (dead == c) continue;
      Node* m = C.m;
      if (m->cmd_valid && m->cmd_ready) C.want = false, C.accepted = true, --C.ops_left;
      auto done_it = m->done ? C.inflight.find(m->done_op) : C.inflight.end();
      if (m->done && done_it == C.inflight.end())
        FAIL("card %d: completion of an unknown operation %u\n", c, unsigned(m->done_op));
      if (done_it != C.inflight.end()) {
        auto it = done_it;
        const Op o = it->second;
        C.inflight.erase(it);
        C.lane_busy[size_t(o.lane)] = false;
        int code = m->done_code;
        if (mode == "errors" && code != o.expect)
          FAIL("card %d: op kind %d to %d len %llu: code %d, expected %d\n", c, o.kind, o.dst, (unsigned long long)o.len,
               code, o.expect);
        if (mode == "random" && code != 0)
          FAIL("card %d: op kind %d to %d len %llu failed with code %d\n", c, o.kind, o.dst, (unsigned long long)o.len, code);
        if (code == 0) {
          ++ops_ok;
          apply(c, o);
          int w = o.is_get() ? c : o.dst;
          uint64_t a = o.is_get() ? o.local : o.remote;
          check_range(w, a, o.written_span(), "at completion");
          expected_events.push_back({o.dst, o.is_get() ? 4 : 1, c, o.remote, o.len});
          if (mode == "bench" || mode == "lat")
            std::printf("bench %s %llu cycles %llu\n", o.kind == 1 ? "get" : "put", (unsigned long long)o.len,
                        (unsigned long long)(cyc - o.issued));
          if (rate) last_done = cyc, payload_bytes += o.len;
        } else {
          ++ops_err;
        }
      }
      if (m->evt_valid) {
        const uint32_t* e = m->evt_data.data();  // {kind 4, peer 6, addr 64, len 64}, 138 bits
        uint64_t len = uint64_t(e[0]) | uint64_t(e[1]) << 32;
        uint64_t addr = uint64_t(e[2]) | uint64_t(e[3]) << 32;
        int peer_id = int(e[4] & 63), kind = int((e[4] >> 6) & 15);
        C.events.push_back({kind, peer_id, addr, len});
        if (mode == "bench" && kind == 1 && c == 1)
          std::printf("bench put_visible %llu cycles %llu\n", (unsigned long long)len,
                      (unsigned long long)(cyc - card[0].cur.issued));
        (void)bench_put_visible;
      }
      if (m->MRD(read) && !m->MRD(waitrequest))
        C.rdq.push_back({cyc + (rate ? mem_lat : 2 + (p_wait > 0 ? rng() % (WIDE ? 60 : 20) : 8)), m->MRD(address)});
      if (m->MWR(write) && !m->MWR(waitrequest)) {
        uint64_t a = m->MWR(address);
#ifdef ADAPTER  // a burst: its beats go to consecutive lines from the address given with the first
        const uint32_t nb = m->MWR(burstcount);
        if (C.wr_beat == 0 && nb > 1) ++bursts;
        if (nb < 1 || nb > 64) FAIL("card %d: write burst of %u beats\n", c, nb);
        a += 64 * uint64_t(C.wr_beat);
        C.wr_beat = C.wr_beat + 1 >= nb ? 0 : C.wr_beat + 1;
#endif
#if LANES > 1
        {
          const uint64_t be = m->MWR(byteenable);
          if (a + 64 <= MEM && a % 64 == 0 && be != 0) {
            for (int b = 0; b < 64; ++b)
              if ((be >> b) & 1) C.mem[a + b] = uint8_t(m->MWR(writedata)[b / 4] >> (8 * (b % 4)));
          } else {
            FAIL("card %d: line write outside the memory, misaligned or empty at 0x%llx\n", c, (unsigned long long)a);
          }
        }
#else
        uint32_t w = m->MWR(writedata);
        if (a + 4 <= MEM && a % 4 == 0) std::memcpy(&C.mem[a], &w, 4);
        else FAIL("card %d: write outside the memory at 0x%llx\n", c, (unsigned long long)a);
#endif
      }
      if (rate) {  // onto the cable through the PHY: a beat costs 4 bytes per word of the packet
        for (int p = 0; p < 4; ++p) {
          if (!((m->link_out_valid >> p) & 1) || !((m->link_out_ready >> p) & 1)) continue;
          Cable& cb = cable[{c, p}];
          auto& ph = phy[{c, p}];
          std::array<uint32_t, LANES> w;
          for (int i = 0; i < LANES; ++i) w[size_t(i)] = m->link_out_data[p * LANES + i];
          if (!cb.in_pkt) {
            cb.in_pkt = true, cb.widx = 0;
            ph.second = 2 + rdma_packet::payload_words(rdma_packet::extract(w[0], rdma_packet::kHdrWords));
            cb.flip_word = u(rng) < pflip ? int(rng() % ((ph.second + LANES - 1) / LANES)) : -1;
            cb.flip_bit = int(rng() % (32 * LANES));
            flips += cb.flip_word >= 0;
          }
          const uint32_t words = std::min<uint32_t>(LANES, ph.second);
          ph.second -= words;
          ph.first += 4.0 * words;
          const bool last = (m->link_out_last >> p) & 1;
          if (cb.widx++ == cb.flip_word) w[size_t(cb.flip_bit / 32)] ^= 1u << (cb.flip_bit % 32);
          cb.q.push_back({cyc + lat + uint64_t(std::ceil(ph.first / line_bpc)), {w, last}});
          if (last) cb.in_pkt = false;
        }
      } else rdma_links::send(m, c, cable, cyc, lat, [&](Cable& cb, int p) {
        auto it = peer.find({c, p});
        bool to_dead = it != peer.end() && it->second.first == dead;
        rdma_links::draw_faults(cb, rng, pdrop, pflip, (WIDE ? 258 : 18) / LANES + 1);
        cb.drop = cb.drop || to_dead || (cyc >= down_from && cyc < down_to);
        drops += cb.drop, flips += cb.flip_word >= 0;
      });
      m->clk = 1;
      m->eval();
      if (C.accepted) C.inflight[m->op_id] = C.cur, C.accepted = false;  // op_id: the id it was given
    }
  }
  // nothing written anywhere but where the operations said, and every target event once
  for (int c = 0; c < n; ++c) check_range(c, 0, MEM, "at the end");
  auto evs = expected_events;
  long ev_missing = 0, ev_extra = 0, lost = 0;
  for (int c = 0; c < n; ++c) {
    lost += card[c].m->evt_lost;
    for (auto& e : card[c].events) {
      bool found = false;
      for (size_t i = 0; i < evs.size(); ++i) {
        if (std::get<0>(evs[i]) == c &&
            std::make_tuple(std::get<1>(evs[i]), std::get<2>(evs[i]), std::get<3>(evs[i]), std::get<4>(evs[i])) == e) {
          evs.erase(evs.begin() + long(i));
          found = true;
          break;
        }
      }
      if (!found) ++ev_extra;
    }
  }
  ev_missing = long(evs.size());
  for (size_t i = 0; i < evs.size() && i < 3; ++i)
    std::fprintf(stderr, "missing event at card %d: kind %d peer %d addr 0x%llx len %llu\n", std::get<0>(evs[i]),
                 std::get<1>(evs[i]), std::get<2>(evs[i]), (unsigned long long)std::get<3>(evs[i]),
                 (unsigned long long)std::get<4>(evs[i]));
  if (ev_missing || ev_extra || lost) FAIL("events: %ld missing, %ld unexpected, %ld lost\n", ev_missing, ev_extra, lost);
  unsigned replays = 0, overflow = 0;
  bool pending = false;
  for (int c = 0; c < n; ++c) {
    overflow |= card[c].m->overflow;
    for (int p = 0; p < 4; ++p) replays += unsigned((uint64_t(card[c].m->replays) >> (16 * p)) & 0xFFFF);
    pending |= card[c].ops_left > 0 || card[c].want || !card[c].inflight.empty();
  }
  if (overflow) FAIL("a link input buffer overflowed\n");
  if (rate)
    std::printf("rate bytes %llu cycles %llu milli_gbps %llu\n", (unsigned long long)payload_bytes,
                (unsigned long long)(last_done - first_cmd),
                (unsigned long long)(payload_bytes * 8 * 200 * 1000 / 1000 / std::max<uint64_t>(1, last_done - first_cmd)));
  std::printf("cycles %llu ok %ld failed %ld events %ld replays %u flips %llu drops %llu overflow %u bursts %llu "
              "errors %llu\n", (unsigned long long)cyc, ops_ok, ops_err, long(expected_events.size()), replays,
              (unsigned long long)flips, (unsigned long long)drops, overflow, (unsigned long long)bursts,
              (unsigned long long)g_errors);
  for (auto& C : card) { C.m->final(); delete C.m; }
  return g_errors ? 1 : pending ? 3 : 0;
}
