// A cluster of Verilated RDMA nodes (shell/rdma/rdma_node.v: engine + router + link
// ports) on a 1-D ring or 2-D torus, joined by cable models with a latency and optional
// bit flips / drops, each card with a byte memory behind the engine's ports. A C ABI for
// spgen.runtime.rdma.RTLCluster (ctypes); built by Verilator with this file as --exe.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vrdma_node.h"
#include "afushell/rdma_rtl.h"
#include "verilated.h"
#include "rtl_links.hpp"

namespace {

using rdma_links::Cable;

struct Cmd {
  int get = 0, dst = 0;
  uint64_t local = 0, remote = 0, len = 0;
  uint32_t block = 0, count = 0, ls = 0, rs = 0;
};

struct Rec {  // one operation: 0 queued or in flight, 1 done, 2 failed
  int state = 0, code = 0;
  uint64_t issued = 0, accepted = 0, done = 0;
};

struct Card {
  std::unique_ptr<Vrdma_node> m;
  std::vector<uint8_t> mem;
  std::deque<std::pair<uint64_t, uint64_t>> rdq;
  std::deque<std::pair<uint64_t, Cmd>> cmds;  // (record index, command) waiting for the port
  bool took = false;
  uint64_t took_rec = 0;
  std::vector<Rec> recs;
  std::map<uint32_t, uint64_t> by_op;  // engine op id -> record index
  std::vector<std::array<uint64_t, 5>> events;  // kind, peer, addr, len, cycle
};

struct Cluster {
  VerilatedContext ctx;
  int X = 1, Y = 1, n = 1;
  uint64_t mem_bytes = 0, lat = 12, cyc = 0, flips = 0, drops = 0;
  double pflip = 0, pdrop = 0;
  std::mt19937_64 rng;
  std::vector<Card> card;
  std::map<std::pair<int, int>, std::pair<int, int>> peer;
  std::map<std::pair<int, int>, Cable> cable;

  void step() {
    std::uniform_real_distribution<double> u(0, 1);
    for (int c = 0; c < n; ++c) {
      Card& C = card[c];
      Vrdma_node* m = C.m.get();
      m->cmd_valid = !C.cmds.empty();
      if (!C.cmds.empty()) {
        const Cmd& k = C.cmds.front().second;
        m->cmd_get = k.get, m->cmd_dst = k.dst, m->cmd_local = k.local, m->cmd_remote = k.remote, m->cmd_len = k.len;
        m->cmd_block = k.block, m->cmd_count = k.count, m->cmd_local_stride = k.ls, m->cmd_remote_stride = k.rs;
      }
      m->mem_rd_waitrequest = 0, m->mem_wr_waitrequest = 0;
      rdma_links::answer_read(m, C.rdq, C.mem, cyc, [](uint64_t) {});  // past the end: 0
      m->evt_ready = 1;
      rdma_links::receive(m, c, peer, cable, cyc);
      m->clk = 0;
      m->eval();
    }
    for (int c = 0; c < n; ++c) {
      Card& C = card[c];
      Vrdma_node* m = C.m.get();
      if (m->cmd_valid && m->cmd_ready) {
        C.took = true, C.took_rec = C.cmds.front().first;
        C.recs[C.took_rec].accepted = cyc;
        C.cmds.pop_front();
      }
      if (m->done) {
        auto it = C.by_op.find(m->done_op);
        if (it != C.by_op.end()) {
          Rec& r = C.recs[it->second];
          r.state = m->done_code ? 2 : 1, r.code = m->done_code, r.done = cyc;
          C.by_op.erase(it);
        }
      }
      if (m->evt_valid) {
        const uint32_t* e = m->evt_data.data();
        C.events.push_back({(e[4] >> 6) & 15, e[4] & 63, uint64_t(e[2]) | uint64_t(e[3]) << 32,
                            uint64_t(e[0]) | uint64_t(e[1]) << 32, cyc});
      }
      if (m->mem_rd_read) C.rdq.push_back({cyc + 8, m->mem_rd_address});
      if (m->mem_wr_write && m->mem_wr_address + 4 <= C.mem.size()) {
        uint32_t w = m->mem_wr_writedata;
        std::memcpy(&C.mem[m->mem_wr_address], &w, 4);
      }
      rdma_links::send(m, c, cable, cyc, lat, [&](Cable& cb, int) {
        cb.drop = pdrop > 0 && u(rng) < pdrop;
        cb.flip_word = pflip > 0 && u(rng) < pflip ? int(rng() % 19) : -1;
        cb.flip_bit = int(rng() % 32);
        drops += cb.drop, flips += cb.flip_word >= 0;
      });
      m->clk = 1;
      m->eval();
      if (C.took) C.by_op[m->op_id] = C.took_rec, C.took = false;  // the id the command was given
    }
    ++cyc;
  }
};

}  // namespace

extern "C" {

// dims X x Y (Y = 1: a ring of X cards); mem_bytes must not exceed the build's MEM_BYTES
void* rtl_cluster_create(int X, int Y, uint64_t mem_bytes, uint64_t latency, double pflip, double pdrop,
                         uint64_t seed) {
  if (X < 1 || Y < 1 || X * Y > 64 || latency < 1) return nullptr;
  auto* cl = new Cluster;
  cl->X = X, cl->Y = Y, cl->n = X * Y, cl->mem_bytes = mem_bytes, cl->lat = latency;
  cl->pflip = pflip, cl->pdrop = pdrop, cl->rng.seed(seed);
  const int dims[2] = {X, Y}, n = X * Y;
  cl->card.resize(size_t(n));
  for (int c = 0; c < n; ++c) {
    Card& C = cl->card[size_t(c)];
    C.m.reset(new Vrdma_node(&cl->ctx, ("card" + std::to_string(c)).c_str()));
    C.mem.assign(mem_bytes, 0);
  }
  const rdma_links::Torus links = rdma_links::torus(X, Y);
  const auto& dateline = links.dateline;
  // the cable model uses the sending side's key; peer maps the receiving (card, port) to it
  for (auto& kv : links.peer) cl->peer[kv.second] = kv.first;
  for (int c = 0; c < n; ++c) {
    Vrdma_node* m = cl->card[size_t(c)].m.get();
    m->rst = 1, m->card_id = c, m->port_dim = 0b01010000, m->port_dateline = dateline[size_t(c)];
    m->link_out_ready = 0xF;  // cables without a PHY: a beat leaves every cycle
    m->clk = 0; m->eval(); m->clk = 1; m->eval();
    m->rst = 0;
    rdma_links::program_routes(m, c, n, X, dims, 64);
  }
  return cl;
}

void rtl_cluster_destroy(void* h) {
  auto* cl = static_cast<Cluster*>(h);
  for (auto& C : cl->card) C.m->final();
  delete cl;
}

int rtl_cluster_cards(void* h) { return static_cast<Cluster*>(h)->n; }
uint64_t rtl_cluster_now(void* h) { return static_cast<Cluster*>(h)->cyc; }

int rtl_cluster_write(void* h, int card, uint64_t addr, const uint8_t* p, uint64_t n) {
  auto* cl = static_cast<Cluster*>(h);
  if (card < 0 || card >= cl->n || addr > cl->mem_bytes || n > cl->mem_bytes - addr) return -1;
  std::memcpy(&cl->card[size_t(card)].mem[addr], p, n);
  return 0;
}

int rtl_cluster_read(void* h, int card, uint64_t addr, uint8_t* p, uint64_t n) {
  auto* cl = static_cast<Cluster*>(h);
  if (card < 0 || card >= cl->n || addr > cl->mem_bytes || n > cl->mem_bytes - addr) return -1;
  std::memcpy(p, &cl->card[size_t(card)].mem[addr], n);
  return 0;
}

// queue one operation on card `card` (the engine keeps up to MAX_OPS in flight, in
// command order); returns a handle (card << 40 | record), or -1 for a bad card
int64_t rtl_cluster_issue(void* h, int card, int get, int dst, uint64_t local, uint64_t remote, uint64_t len,
                          uint32_t block, uint32_t count, uint32_t ls, uint32_t rs) {
  auto* cl = static_cast<Cluster*>(h);
  if (card < 0 || card >= cl->n) return -1;
  Card& C = cl->card[size_t(card)];
  Cmd k;
  k.get = get, k.dst = dst, k.local = local, k.remote = remote, k.len = len;
  k.block = block, k.count = count, k.ls = ls, k.rs = rs;
  Rec r;
  r.issued = cl->cyc;
  C.recs.push_back(r);
  C.cmds.push_back({C.recs.size() - 1, k});
  return int64_t(uint64_t(card) << 40 | (C.recs.size() - 1));
}

// state of an operation: 0 in flight, 1 done, 2 failed (*code), -1 bad handle;
// *cycles = from its command being taken to its completion
int rtl_cluster_test(void* h, int64_t handle, int* code, uint64_t* cycles) {
  auto* cl = static_cast<Cluster*>(h);
  int card = int(uint64_t(handle) >> 40);
  uint64_t i = uint64_t(handle) & ((1ull << 40) - 1);
  if (handle < 0 || card >= cl->n || i >= cl->card[size_t(card)].recs.size()) return -1;
  const Rec& r = cl->card[size_t(card)].recs[i];
  *code = r.code;
  *cycles = r.state ? r.done - r.accepted : 0;
  return r.state;
}

// simulates until the operation ended or max_cycles passed; returns its state
int rtl_cluster_wait(void* h, int64_t handle, uint64_t max_cycles, int* code, uint64_t* cycles) {
  auto* cl = static_cast<Cluster*>(h);
  int st = rtl_cluster_test(h, handle, code, cycles);
  for (uint64_t t = 0; st == 0 && t < max_cycles; ++t) {
    cl->step();
    st = rtl_cluster_test(h, handle, code, cycles);
  }
  return st;
}

// one operation, blocking: its status code (0 ok, 1 NO_ROUTE, 2 REMOTE_RANGE, 3 TIMEOUT,
// 4 LOCAL_RANGE, 5 ALIGN), -1 when it did not end within max_cycles
int rtl_cluster_op(void* h, int card, int get, int dst, uint64_t local, uint64_t remote, uint64_t len, uint32_t block,
                   uint32_t count, uint32_t ls, uint32_t rs, uint64_t max_cycles, uint64_t* cycles) {
  int64_t hd = rtl_cluster_issue(h, card, get, dst, local, remote, len, block, count, ls, rs);
  if (hd < 0) return -2;
  int code = 0;
  int st = rtl_cluster_wait(h, hd, max_cycles, &code, cycles);
  return st == 0 ? -1 : code;
}

void rtl_cluster_run(void* h, uint64_t cycles) {
  auto* cl = static_cast<Cluster*>(h);
  for (uint64_t i = 0; i < cycles; ++i) cl->step();
}

// target events of a card since the last call: up to max rows of (kind, peer, addr, len, cycle)
int rtl_cluster_events(void* h, int card, uint64_t* out, int max) {
  auto* cl = static_cast<Cluster*>(h);
  if (card < 0 || card >= cl->n) return -1;
  auto& ev = cl->card[size_t(card)].events;
  int k = 0;
  for (; k < max && k < int(ev.size()); ++k)
    for (int j = 0; j < 5; ++j) out[5 * k + j] = ev[size_t(k)][size_t(j)];
  ev.erase(ev.begin(), ev.begin() + k);
  return k;
}

// link statistics: replays (sum over ports and cards), flips, drops, overflow flags
void rtl_cluster_stats(void* h, uint64_t* out4) {
  auto* cl = static_cast<Cluster*>(h);
  uint64_t replays = 0, overflow = 0;
  for (auto& C : cl->card) {
    overflow |= C.m->overflow;
    for (int p = 0; p < 4; ++p) replays += (uint64_t(C.m->replays) >> (16 * p)) & 0xFFFF;
  }
  out4[0] = replays, out4[1] = cl->flips, out4[2] = cl->drops, out4[3] = overflow;
}

// debug words of a card, in CSR order (docs/rdma.md): ENG_SLOT(0..15), ENG_STATE, ROUTER_STATE,
// then per link port LINK_PKTS, LINK_ERRS, LINK_STALLS, LINK_STATE; returns the words written
int rtl_cluster_debug(void* h, int card, uint64_t* out, int max) {
  auto* cl = static_cast<Cluster*>(h);
  if (card < 0 || card >= cl->n) return -1;
  Vrdma_node* m = cl->card[size_t(card)].m.get();
  const int ports = int(sizeof(m->link_dbg) / 32);  // 256 bits per port
  std::vector<uint64_t> w;
  auto wide = [&](const uint32_t* d, int k) { return uint64_t(d[2 * k]) | uint64_t(d[2 * k + 1]) << 32; };
  for (int s = 0; s < 16; ++s) w.push_back(wide(m->eng_slots.data(), s));
  w.push_back(m->eng_dbg);
  w.push_back(m->router_dbg);
  for (int k = 0; k < 4 * ports; ++k) w.push_back(wide(m->link_dbg.data(), k));
  int n = std::min(max, int(w.size()));
  for (int k = 0; k < n; ++k) out[k] = w[size_t(k)];
  return n;
}

}  // extern "C"

int main() { return 0; }  // Verilator's --exe wants one; the library is what is used
