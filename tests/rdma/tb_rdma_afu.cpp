// Cards with the RDMA block attached to the AFU (afu_rdma_top: afu_top + rdma_csr +
// rdma_node + shared memory masters) in a ring, joined by cable models (optional bit
// flips and drops), each with a DDR model behind the shell's three 512-bit masters
// (random waitrequest, latency, bursts). A host program drives everything through MMIO
// only, with the offsets of the generated afushell_csr.h: routing tables, card ids and
// port topology, puts, gets and block-stride puts, status polling, target events,
// interrupts, errors -- and a local F2F DMA on the target card while a put writes there.
//   tb CARDS P_FLIP P_DROP SEED
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vafu_rdma_top.h"
#include "afushell_csr.h"
#include "rtl_links.hpp"
#include "verilated.h"

static const uint64_t MEMSZ = 2 << 20;  // bytes of memory A the test uses
static uint64_t g_errors = 0;
#define FAIL(...) do { if (g_errors++ < 8) std::fprintf(stderr, __VA_ARGS__); } while (0)

struct ReadPort {  // one Avalon-MM 512-bit read master
  std::deque<std::pair<uint64_t, uint64_t>> beats;  // (ready cycle, address)
};

struct Card {
  Vafu_rdma_top* m = nullptr;
  std::vector<uint8_t> mem;
  ReadPort tx, dsc;
  bool in_burst = false;
  uint64_t wbase = 0;
  int wcount = 0, wk = 0;
};

using Cable = rdma_links::Cable;

int main(int argc, char** argv) {
  if (argc < 5) return 2;
  const int n = std::atoi(argv[1]);
  const double pflip = std::atof(argv[2]), pdrop = std::atof(argv[3]);
  std::mt19937_64 rng(std::strtoull(argv[4], nullptr, 10));
  std::uniform_real_distribution<double> u(0, 1);
  const uint64_t lat = 20;
  VerilatedContext ctx;
  std::vector<Card> card(n);
  std::map<std::pair<int, int>, Cable> cable;  // by sending (card, port); port 0 = +1, port 1 = -1
  uint64_t cyc = 0, drops = 0, flips = 0, dsc_beats = 0, rdma_words = 0;
  uint64_t rdma_wr_beats = 0, rdma_bursts = 0;  // writes to the RDMA areas (>= 0x100000)
  int cut_card = -1, cut_port = -1;  // a cable that carries nothing (a dead link), -1: none
  for (int c = 0; c < n; ++c) {
    card[c].m = new Vafu_rdma_top(&ctx, ("card" + std::to_string(c)).c_str());
    card[c].mem.resize(MEMSZ);
    for (auto& b : card[c].mem) b = uint8_t(rng());
  }
  auto peer_of = [&](int c, int p) { return std::make_pair(p == 0 ? (c + 1) % n : (c + n - 1) % n, 1 - p); };

  auto read_model = [&](Card& C, ReadPort& rp, uint64_t addr, bool rd, int burst, bool wait) {
    if (rd && !wait) {
      for (int k = 0; k < burst; ++k) rp.beats.push_back({cyc + 10 + uint64_t(k), addr + 64ull * uint64_t(k)});
    }
    (void)C;
  };
  auto step = [&]() {
    for (int c = 0; c < n; ++c) {
      Card& C = card[c];
      Vafu_rdma_top* m = C.m;
      m->tx_rd_waitrequest = u(rng) < 0.2;
      m->dsc_rd_waitrequest = u(rng) < 0.2;
      m->rx_wr_waitrequest = u(rng) < 0.2;
      for (auto* pr : {&C.tx, &C.dsc}) {
        bool v = !pr->beats.empty() && pr->beats.front().first <= cyc;
        uint32_t* data = pr == &C.tx ? m->tx_rd_readdata.data() : m->dsc_rd_readdata.data();
        if (v) {
          uint64_t a = pr->beats.front().second;
          if (a + 64 <= MEMSZ) std::memcpy(data, &C.mem[a], 64);
          else FAIL("card %d: read beyond the test memory at 0x%llx\n", c, (unsigned long long)a);
          pr->beats.pop_front();
        }
        if (pr == &C.tx) m->tx_rd_readdatavalid = v;
        else m->dsc_rd_readdatavalid = v, dsc_beats += v;
      }
      uint32_t v = 0, l = 0;
      uint64_t in_data = 0;  // two ports: 64 bits
      for (int p = 0; p < 2; ++p) {
        Cable& cb = cable[peer_of(c, p)];
        if (!cb.q.empty() && cb.q.front().first <= cyc) {
          v |= 1u << p;
          in_data |= uint64_t(cb.q.front().second.first[0]) << (32 * p);
          if (cb.q.front().second.second) l |= 1u << p;
          cb.q.pop_front();
        }
      }
      m->link_in_valid = v, m->link_in_last = l, m->link_in_data = in_data, m->link_out_ready = 3;
      m->clk = 0;
      m->eval();
    }
    for (int c = 0; c < n; ++c) {
      Card& C = card[c];
      Vafu_rdma_top* m = C.m;
      read_model(C, C.tx, m->tx_rd_address, m->tx_rd_read, m->tx_rd_burstcount, m->tx_rd_waitrequest);
      read_model(C, C.dsc, m->dsc_rd_address, m->dsc_rd_read, m->dsc_rd_burstcount, m->dsc_rd_waitrequest);
      if (m->rx_wr_write && !m->rx_wr_waitrequest) {
        if (!C.in_burst) {
          C.wbase = m->rx_wr_address, C.wcount = m->rx_wr_burstcount, C.wk = 0, C.in_burst = true;
          if (C.wbase >= 0x100000 && C.wcount > 1) ++rdma_bursts;
        }
        uint64_t a = C.wbase + 64ull * uint64_t(C.wk);
        if (a >= 0x100000) ++rdma_wr_beats;
        const uint8_t* d = reinterpret_cast<const uint8_t*>(m->rx_wr_writedata.data());
        uint64_t be = m->rx_wr_byteenable;
        if (a + 64 > MEMSZ) FAIL("card %d: write beyond the test memory at 0x%llx\n", c, (unsigned long long)a);
        else for (int b = 0; b < 64; ++b) if ((be >> b) & 1) C.mem[a + uint64_t(b)] = d[b];
        if (++C.wk == C.wcount) C.in_burst = false;
      }
      for (int p = 0; p < 2; ++p) {
        if (!((m->link_out_valid >> p) & 1)) continue;
        rdma_links::send_beat(cable[{c, p}], {uint32_t(m->link_out_data >> (32 * p))}, (m->link_out_last >> p) & 1,
                              cyc, lat, [&](Cable& cb) {
                                rdma_links::draw_faults(cb, rng, pdrop, pflip, 19);
                                drops += cb.drop, flips += cb.flip_word >= 0;
                              }, c == cut_card && p == cut_port);
      }
      m->clk = 1;
      m->eval();
    }
    ++cyc;
  };
  auto wr = [&](int c, uint32_t addr, uint64_t data) {
    Vafu_rdma_top* m = card[c].m;
    m->mmio_wr_valid = 1, m->mmio_wr_addr = addr, m->mmio_wr_data = data;
    step();
    m->mmio_wr_valid = 0;
  };
  auto rd = [&](int c, uint32_t addr) -> uint64_t {
    Vafu_rdma_top* m = card[c].m;
    m->mmio_rd_valid = 1, m->mmio_rd_addr = addr;
    step();
    m->mmio_rd_valid = 0;
    for (int k = 0; k < 100; ++k) {
      m->clk = 0;
      m->eval();
      if (m->mmio_rd_resp_valid) {
        uint64_t d = m->mmio_rd_resp_data;
        step();
        return d;
      }
      step();
    }
    FAIL("card %d: no MMIO read response at 0x%x\n", c, addr);
    return 0;
  };

  // reset, then the cluster set-up through the CSRs
  for (auto& C : card) { C.m->rst = 1; }
  for (int k = 0; k < 4; ++k) step();
  for (auto& C : card) { C.m->rst = 0; }
  for (int c = 0; c < n; ++c) {
    uint64_t info = rd(c, AFUSHELL_RDMA_INFO);
    if ((info & 0xFF) != 2 || ((info >> 8) & 0xFF) != 64) FAIL("card %d: RDMA_INFO 0x%llx\n", c, (unsigned long long)info);
    wr(c, AFUSHELL_RDMA_CARD_ID, uint64_t(c));
    uint64_t dateline = (c == n - 1 ? 1u : 0u) | (c == 0 ? 2u : 0u);  // the wrap-around link of the ring
    wr(c, AFUSHELL_RDMA_PORT_CFG, 0xFFF0ull | dateline << 16);
    for (int t = 0; t < 64; ++t) {
      uint64_t port = 15;
      if (t < n) port = t == c ? 2 : ((t - c + n) % n) <= n / 2 ? 0 : 1;
      wr(c, AFUSHELL_RDMA_ROUTE(t), port);
    }
    if (rd(c, AFUSHELL_RDMA_ROUTE(c)) != 2 || rd(c, AFUSHELL_RDMA_ROUTE(n)) != 15) FAIL("card %d: ROUTE read-back\n", c);
    if (rd(c, AFUSHELL_SCRATCH) != 0) FAIL("card %d: SCRATCH not 0 after reset\n", c);
    wr(c, AFUSHELL_SCRATCH, 0x1234 + uint64_t(c));  // the shell's own CSRs still answer
    if (rd(c, AFUSHELL_SCRATCH) != 0x1234 + uint64_t(c)) FAIL("card %d: SCRATCH\n", c);
  }

  long ops = 0;
  // one operation through the CSRs; returns its status code, checks the target's event
  auto run_op = [&](int c, int dst, bool get, uint64_t local, uint64_t remote, uint64_t len, uint32_t block,
                    uint32_t count, uint32_t ls, uint32_t rs, std::function<void()> meanwhile) -> int {
    std::vector<uint8_t> before;
    wr(c, AFUSHELL_RDMA_LOCAL, local);
    wr(c, AFUSHELL_RDMA_REMOTE, remote);
    wr(c, AFUSHELL_RDMA_LEN, len);
    wr(c, AFUSHELL_RDMA_BLOCK, uint64_t(block) | uint64_t(count) << 32);
    wr(c, AFUSHELL_RDMA_STRIDES, uint64_t(ls) | uint64_t(rs) << 32);
    uint64_t ops0 = rd(c, AFUSHELL_RDMA_STATUS) >> 32;
    wr(c, AFUSHELL_RDMA_CMD, uint64_t(dst) | (get ? 1ull << 8 : 0) | 1ull << 31);
    if (meanwhile) meanwhile();
    uint64_t st = 0;
    for (int k = 0; k < 20000; ++k) {
      st = rd(c, AFUSHELL_RDMA_STATUS);
      if (!(st & 1) && (st >> 32) == ops0 + 1) break;
    }
    if ((st & 1) || (st >> 32) != ops0 + 1) { FAIL("card %d: operation did not complete\n", c); return -1; }
    if (!card[c].m->rdma_irq) FAIL("card %d: no RDMA interrupt after completion\n", c);
    if (!(rd(c, AFUSHELL_RDMA_IRQ_STATUS) & 1)) FAIL("card %d: IRQ_STATUS.DONE not set\n", c);
    wr(c, AFUSHELL_RDMA_IRQ_STATUS, 1);
    int code = int((st >> 8) & 0xFF);
    if (code == 0) rdma_words += (block ? uint64_t(block) * count : len) / 4;  // read at one end
    uint64_t di = rd(c, AFUSHELL_RDMA_DONE_INFO);
    if (!((di >> 40) & 1) || ((di >> 32) & 0xFF) != uint64_t(code) || (di & 0xFFFFFFFFu) != rd(c, AFUSHELL_RDMA_OP_ID))
      FAIL("card %d: DONE_INFO 0x%llx\n", c, (unsigned long long)di);
    wr(c, AFUSHELL_RDMA_DONE_POP, 1);
    ++ops;
    if (code == 0 && dst != c) {
      uint64_t ei = rd(dst, AFUSHELL_RDMA_EVT_INFO);
      uint64_t ea = rd(dst, AFUSHELL_RDMA_EVT_ADDR), el = rd(dst, AFUSHELL_RDMA_EVT_LEN);
      uint64_t want_len = block ? uint64_t(block) * count : len;
      if (!((ei >> 16) & 1) || (ei & 15) != (get ? 4u : 1u) || ((ei >> 4) & 63) != uint64_t(c) || ea != remote ||
          el != want_len)
        FAIL("card %d: event 0x%llx addr 0x%llx len %llu\n", dst, (unsigned long long)ei, (unsigned long long)ea,
             (unsigned long long)el);
      if (!card[dst].m->rdma_irq) FAIL("card %d: no RDMA interrupt for the event\n", dst);
      wr(dst, AFUSHELL_RDMA_EVT_POP, 1);
      wr(dst, AFUSHELL_RDMA_IRQ_STATUS, 2);
      if ((rd(dst, AFUSHELL_RDMA_EVT_INFO) >> 16) & 1) FAIL("card %d: event not removed\n", dst);
    }
    return code;
  };
  auto same = [&](int a, uint64_t pa, int b, uint64_t pb, uint64_t len, const char* what) {
    if (std::memcmp(&card[a].mem[pa], &card[b].mem[pb], len) != 0) FAIL("%s: bytes differ\n", what);
  };

  // puts and gets of random sizes between all pairs
  for (int k = 0; k < 3 * n; ++k) {
    int c = k % n, d = int(rng() % n);
    if (d == c) d = (c + 1) % n;
    uint64_t len = 4 * (1 + rng() % 1024), src = 4 * (rng() % 0x10000), dst = 0x100000 + 4 * (rng() % 0x20000);
    bool get = k % 2;
    std::vector<uint8_t> expect(len);
    std::memcpy(expect.data(), &card[get ? d : c].mem[get ? src : src], len);
    int code = run_op(c, d, get, get ? dst : src, get ? src : dst, len, 0, 0, 0, 0, nullptr);
    if (code != 0) FAIL("op %d: code %d\n", k, code);
    const uint8_t* got = &card[get ? c : d].mem[dst];
    if (std::memcmp(got, expect.data(), len) != 0) FAIL("op %d (%s %d->%d, %llu B): bytes differ\n", k,
                                                       get ? "get" : "put", c, d, (unsigned long long)len);
  }
  // block-stride put: 40 blocks of 36 bytes, strides 100 / 164
  {
    int code = run_op(1, 2 % n, false, 0x3000, 0x180000, 0, 36, 40, 100, 164, nullptr);
    if (code != 0) FAIL("block-stride put: code %d\n", code);
    for (int b = 0; b < 40; ++b) same(1, 0x3000 + 100 * b, 2 % n, 0x180000 + 164 * b, 36, "block-stride put");
  }
  // block-stride get: 30 blocks of 44 bytes, 108 apart on card 2, 120 apart here on card 0
  {
    int code = run_op(0, 2 % n, true, 0x1A0000, 0x5000, 0, 44, 30, 120, 108, nullptr);
    if (code != 0) FAIL("block-stride get: code %d\n", code);
    for (int b = 0; b < 30; ++b) same(0, 0x1A0000 + 120 * b, 2 % n, 0x5000 + 108 * b, 44, "block-stride get");
  }
  // a 16 KiB put into card 1 while card 1 runs a local F2F DMA (TX -> loop-back -> RX):
  // the RX DMA's bursts and the RDMA writes share the write master
  {
    std::vector<uint8_t> dma_src(card[1].mem.begin() + 0x40000, card[1].mem.begin() + 0x40000 + 32768);
    std::vector<uint8_t> put_src(card[0].mem.begin() + 0x8000, card[0].mem.begin() + 0x8000 + 16384);
    auto dma = [&]() {
      wr(1, AFUSHELL_RX_DESC_DST, 0x60000);
      wr(1, AFUSHELL_RX_DESC_LEN, 32768);
      wr(1, AFUSHELL_RX_DESC_STRIDE, 0);
      wr(1, AFUSHELL_RX_DESC_CTRL, (1ull << 31) | 2);
      wr(1, AFUSHELL_TX_DESC_SRC, 0x40000);
      wr(1, AFUSHELL_TX_DESC_LEN, 32768);
      wr(1, AFUSHELL_TX_DESC_STRIDE, 0);
      wr(1, AFUSHELL_TX_DESC_CTRL, (1ull << 31) | 2);
    };
    int code = run_op(0, 1, false, 0x8000, 0x1C0000, 16384, 0, 0, 0, 0, dma);
    if (code != 0) FAIL("put during DMA: code %d\n", code);
    for (int k = 0; k < 20000 && (rd(1, AFUSHELL_RX_STATUS) & 1); ++k) {}
    if (rd(1, AFUSHELL_RX_ERROR) & 0xFF) FAIL("F2F DMA: error\n");
    if (std::memcmp(&card[1].mem[0x60000], dma_src.data(), dma_src.size()) != 0) FAIL("F2F DMA beside RDMA: bytes differ\n");
    if (std::memcmp(&card[1].mem[0x1C0000], put_src.data(), put_src.size()) != 0) FAIL("put beside DMA: bytes differ\n");
  }
  // errors: an absent card, past the end of the remote memory, misaligned
  int e1 = run_op(0, n, false, 0, 0x1000, 64, 0, 0, 0, 0, nullptr);
  int e2 = run_op(0, 1, false, 0, 0x200000000ull - 16, 64, 0, 0, 0, 0, nullptr);
  int e3 = run_op(0, 1, true, 0x1000, 0x200000000ull, 64, 0, 0, 0, 0, nullptr);
  int e4 = run_op(0, 1, false, 2, 0x1000, 64, 0, 0, 0, 0, nullptr);
  if (e1 != 1 || e2 != 2 || e3 != 2 || e4 != 5) FAIL("error codes %d %d %d %d, expected 1 2 2 5\n", e1, e2, e3, e4);
  // several operations in flight: MAX_OPS taken at once, one more waits (PENDING), the next
  // GO is dropped (DROPPED); each completion comes out of DONE_INFO once, ok
  {
    const int max_ops = int((rd(0, AFUSHELL_RDMA_INFO) >> 24) & 0xFF);
    wr(0, AFUSHELL_RDMA_BLOCK, 0), wr(0, AFUSHELL_RDMA_LEN, 4096);
    std::vector<uint64_t> want;
    for (int k = 0; k < max_ops + 2; ++k) {
      wr(0, AFUSHELL_RDMA_LOCAL, 0x1000 * uint64_t(k)), wr(0, AFUSHELL_RDMA_REMOTE, 0x100000 + 0x1000 * uint64_t(k));
      wr(0, AFUSHELL_RDMA_CMD, uint64_t(1 + k % (n - 1)) | 1ull << 31);
      if (k < max_ops + 1) want.push_back(0x1000 * uint64_t(k));
    }
    uint64_t st = rd(0, AFUSHELL_RDMA_STATUS);
    // the debug registers see the operations in flight: ENG_STATE's count equals the live slots
    uint64_t es = rd(0, AFUSHELL_RDMA_ENG_STATE);
    int live = 0;
    for (int s = 0; s < AFUSHELL_RDMA_ENG_SLOT_COUNT; ++s) live += int(rd(0, AFUSHELL_RDMA_ENG_SLOT(s)) >> 63);
    int in_flight = int((es & AFUSHELL_RDMA_ENG_STATE_OPS_IN_FLIGHT_MASK) >> AFUSHELL_RDMA_ENG_STATE_OPS_IN_FLIGHT_SHIFT);
    if (in_flight < 2 || live < in_flight - 1 || live > in_flight)  // one may complete between the reads
      FAIL("ENG_STATE 0x%llx: %d in flight, %d live slots\n", (unsigned long long)es, in_flight, live);
    if (max_ops < 2 || !((st >> 1) & 1) || !(st & 1)) FAIL("MAX_OPS %d, STATUS 0x%llx: no DROPPED\n", max_ops, (unsigned long long)st);
    std::vector<uint32_t> ids;
    for (int k = 0; k < 40000 && int(ids.size()) < max_ops + 1; ++k) {
      uint64_t di = rd(0, AFUSHELL_RDMA_DONE_INFO);
      if (!((di >> 40) & 1)) continue;
      if (((di >> 32) & 0xFF) != 0) FAIL("in flight: code %llu\n", (unsigned long long)((di >> 32) & 0xFF));
      for (uint32_t x : ids) if (x == uint32_t(di)) FAIL("in flight: op %u twice\n", unsigned(x));
      ids.push_back(uint32_t(di));
      wr(0, AFUSHELL_RDMA_DONE_POP, 1);
    }
    if (int(ids.size()) != max_ops + 1 || (rd(0, AFUSHELL_RDMA_STATUS) & 1)) FAIL("in flight: %zu completions\n", ids.size());
    for (int k = 0; k < max_ops + 1; ++k)
      same(0, 0x1000 * uint64_t(k), 1 + k % (n - 1), 0x100000 + 0x1000 * uint64_t(k), 4096, "in flight");
    ops += max_ops + 1;
    rdma_words += uint64_t(max_ops + 1) * 1024;
  }
  // a dead link: the cable out of card 0's port 0 carries nothing; a put 0 -> 1 stays in flight
  // and the debug registers name where: card 0's port 0 holds unacknowledged packets, the
  // operation's slot ages; once the cable carries again the link replays and the put completes
  uint64_t stuck_port = 99, stuck_age = 0;
  {
    std::vector<uint8_t> src(card[0].mem.begin() + 0x20000, card[0].mem.begin() + 0x20000 + 4096);
    cut_card = 0, cut_port = 0;
    wr(0, AFUSHELL_RDMA_LOCAL, 0x20000), wr(0, AFUSHELL_RDMA_REMOTE, 0x1E0000), wr(0, AFUSHELL_RDMA_LEN, 4096);
    wr(0, AFUSHELL_RDMA_CMD, 1ull | 1ull << 31);
    for (int k = 0; k < 3000; ++k) step();
    for (int p = 0; p < 2; ++p) {  // the host's dump: the port whose packets stay unacknowledged
      uint64_t ls = rd(0, AFUSHELL_RDMA_LINK_STATE(p));
      if ((ls & AFUSHELL_RDMA_LINK_STATE_UNACKED_MASK) != 0) stuck_port = uint64_t(p);
    }
    for (int s = 0; s < AFUSHELL_RDMA_ENG_SLOT_COUNT; ++s) {
      uint64_t sl = rd(0, AFUSHELL_RDMA_ENG_SLOT(s));
      if (sl >> 63) stuck_age = (sl & AFUSHELL_RDMA_ENG_SLOT_AGE_MASK) >> AFUSHELL_RDMA_ENG_SLOT_AGE_SHIFT;
    }
    uint64_t es = rd(0, AFUSHELL_RDMA_ENG_STATE);
    if ((es & AFUSHELL_RDMA_ENG_STATE_OPS_IN_FLIGHT_MASK) != 1) FAIL("dead link: ENG_STATE 0x%llx\n", (unsigned long long)es);
    cut_card = cut_port = -1;
    uint64_t st = 0;
    for (int k = 0; k < 20000 && ((st = rd(0, AFUSHELL_RDMA_STATUS)) & 1); ++k) {}
    if ((st & 1) || ((st >> 8) & 0xFF) != 0) FAIL("dead link: the put did not complete after repair\n");
    same(0, 0x20000, 1, 0x1E0000, 4096, "put over a repaired link");
    wr(0, AFUSHELL_RDMA_DONE_POP, 1), wr(1, AFUSHELL_RDMA_EVT_POP, 1);
    ++ops;
  }
  // link counters: once traffic stops, every link's TX count equals RX at its other end;
  // the replays in LINK_ERRS are those of REPLAYS; nothing stays unacknowledged
  for (int k = 0; k < 2000; ++k) step();
  unsigned replays = 0;
  uint64_t packets = 0, crc_errors = 0;
  for (int c = 0; c < n; ++c) {
    uint64_t r = rd(c, AFUSHELL_RDMA_REPLAYS);
    replays += unsigned(r & 0xFFFF) + unsigned((r >> 16) & 0xFFFF);
    if ((rd(c, AFUSHELL_RDMA_STATUS) >> 3) & 1) FAIL("card %d: link overflow\n", c);
    for (int p = 0; p < 2; ++p) {
      auto pe = peer_of(c, p);
      uint64_t tx = rd(c, AFUSHELL_RDMA_LINK_PKTS(p)) & AFUSHELL_RDMA_LINK_PKTS_TX_MASK;
      uint64_t rx = (rd(pe.first, AFUSHELL_RDMA_LINK_PKTS(pe.second)) & AFUSHELL_RDMA_LINK_PKTS_RX_MASK) >>
                    AFUSHELL_RDMA_LINK_PKTS_RX_SHIFT;
      uint64_t le = rd(c, AFUSHELL_RDMA_LINK_ERRS(p));
      if (tx != rx) FAIL("link %d.%d: %llu sent, %llu received\n", c, p, (unsigned long long)tx, (unsigned long long)rx);
      if ((le & AFUSHELL_RDMA_LINK_ERRS_REPLAYS_MASK) != ((r >> (16 * p)) & 0xFFFF)) FAIL("link %d.%d: LINK_ERRS\n", c, p);
      if (rd(c, AFUSHELL_RDMA_LINK_STATE(p)) & AFUSHELL_RDMA_LINK_STATE_UNACKED_MASK) FAIL("link %d.%d: unacked\n", c, p);
      packets += tx;
      crc_errors += (le & AFUSHELL_RDMA_LINK_ERRS_CRC_ERRORS_MASK) >> AFUSHELL_RDMA_LINK_ERRS_CRC_ERRORS_SHIFT;
    }
    if (rd(c, AFUSHELL_RDMA_ENG_STATE) & AFUSHELL_RDMA_ENG_STATE_OPS_IN_FLIGHT_MASK) FAIL("card %d: ops in flight\n", c);
  }
  std::printf("stuck_port %llu stuck_age %llu packets %llu crc_errors %llu ", (unsigned long long)stuck_port,
              (unsigned long long)stuck_age, (unsigned long long)packets, (unsigned long long)crc_errors);
  std::printf("wr_beats %llu wr_bursts %llu ", (unsigned long long)rdma_wr_beats, (unsigned long long)rdma_bursts);
  std::printf("cycles %llu ops %ld replays %u flips %llu drops %llu rd_beats %llu rd_words %llu errors %llu\n",
              (unsigned long long)cyc, ops, replays, (unsigned long long)flips, (unsigned long long)drops,
              (unsigned long long)dsc_beats, (unsigned long long)rdma_words, (unsigned long long)g_errors);
  for (auto& C : card) { C.m->final(); delete C.m; }
  return g_errors ? 1 : 0;
}
