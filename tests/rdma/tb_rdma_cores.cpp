// Drives tb_rdma_cores_top: core_a on card 0 gets x (main input), core_b on card 1 gets u;
// core_a's branch output crosses the link to core_b's branch input. Random input gaps and
// output readiness, cables with bit flips and drops. Writes core_a's and core_b's main
// outputs (N uint32 each).   tb N P_IN P_OUT P_FLIP P_DROP SEED x.bin u.bin y.bin v.bin
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

#include "Vtb_rdma_cores_top.h"
#include "rtl_links.hpp"
#include "verilated.h"

using Cable = rdma_links::Cable;

static std::vector<uint32_t> load(const char* path, size_t n) {
  std::vector<uint32_t> v(n);
  FILE* f = std::fopen(path, "rb");
  if (!f || std::fread(v.data(), 4, n, f) != n) std::exit(2);
  std::fclose(f);
  return v;
}

int main(int argc, char** argv) {
  if (argc < 11) return 2;
  const size_t N = std::strtoull(argv[1], nullptr, 10);
  const double p_in = std::atof(argv[2]), p_out = std::atof(argv[3]), pflip = std::atof(argv[4]);
  const double pdrop = std::atof(argv[5]);
  std::mt19937_64 rng(std::strtoull(argv[6], nullptr, 10));
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<uint32_t> x = load(argv[7], N), uu = load(argv[8], N), y, v;
  VerilatedContext ctx;
  Vtb_rdma_cores_top top(&ctx);
  auto tick = [&]() { top.clk = 0; top.eval(); top.clk = 1; top.eval(); };
  top.rst = 1;
  tick(); tick();
  top.rst = 0;
  for (int t = 0; t < 64; ++t) {
    // card c: itself (port P = 2) for address c, port 0 to the other card, no route beyond
    const uint32_t port0 = t == 0 ? 2 : t == 1 ? 0 : 15, port1 = t == 1 ? 2 : t == 0 ? 0 : 15;
    top.cfg_we = 1, top.cfg_addr = t, top.cfg_port = port0 | port1 << 4;
    tick();
  }
  top.cfg_we = 0;
  // cables keyed by (sending card, port); card c port p arrives at card 1-c port 1-p
  Cable cable[2][2];
  // core c (core_a on card 0, core_b on card 1): its main input, the records taken from
  // it, and its main output
  const std::vector<uint32_t>* in[2] = {&x, &uu};
  std::vector<uint32_t>* out[2] = {&y, &v};
  size_t taken[2] = {0, 0};
  uint64_t cyc = 0, flips = 0, drops = 0, errors = 0;
  const uint64_t lat = 12, max_cyc = 200 * N + 200000;
  for (; cyc < max_cyc && (y.size() < N || v.size() < N); ++cyc) {
    uint32_t s_valid = 0, s_last = 0, m_ready = 0;
    uint64_t s_data = 0;
    for (int c = 0; c < 2; ++c) {
      const size_t i = taken[c];
      s_valid |= uint32_t(i < N && u(rng) < p_in) << c;
      s_data |= uint64_t(i < N ? (*in[c])[i] : 0) << (32 * c);
      s_last |= uint32_t(i + 1 == N) << c;
    }
    for (int c = 0; c < 2; ++c) m_ready |= uint32_t(u(rng) < p_out) << c;
    top.s_valid = s_valid, top.s_data = s_data, top.s_last = s_last, top.m_ready = m_ready;
    uint32_t in_v = 0, in_l = 0;
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < 2; ++p) {
        Cable& cb = cable[1 - c][1 - p];  // what arrives at (c, p)
        const int k = 2 * c + p;          // its bit of the link ports, word of their data
        top.link_in_data[k] = 0;
        if (!cb.q.empty() && cb.q.front().first <= cyc) {
          in_v |= 1u << k;
          top.link_in_data[k] = cb.q.front().second.first[0];
          if (cb.q.front().second.second) in_l |= 1u << k;
          cb.q.pop_front();
        }
      }
    top.link_in_valid = in_v, top.link_in_last = in_l;
    top.clk = 0;
    top.eval();
    for (int c = 0; c < 2; ++c) {
      if ((top.s_valid & top.s_ready) >> c & 1) ++taken[c];
      if ((top.m_valid & top.m_ready) >> c & 1) {
        out[c]->push_back(uint32_t(top.m_data >> (32 * c)));
        if (bool(top.m_last >> c & 1) != (out[c]->size() == N)) ++errors;
      }
    }
    for (int c = 0; c < 2; ++c) {
      for (int p = 0; p < 2; ++p) {
        const int k = 2 * c + p;
        if (!(top.link_out_valid >> k & 1)) continue;
        rdma_links::send_beat(cable[c][p], {top.link_out_data[k]}, top.link_out_last >> k & 1, cyc, lat,
                              [&](Cable& cb) {
                                rdma_links::draw_faults(cb, rng, pdrop, pflip, 19);
                                drops += cb.drop, flips += cb.flip_word >= 0;
                              });
      }
    }
    top.clk = 1;
    top.eval();
  }
  if (top.st_errors || top.overflow) ++errors;
  FILE* f = std::fopen(argv[9], "wb");
  std::fwrite(y.data(), 4, y.size(), f);
  std::fclose(f);
  f = std::fopen(argv[10], "wb");
  std::fwrite(v.data(), 4, v.size(), f);
  std::fclose(f);
  std::printf("cycles %llu y %zu v %zu flips %llu drops %llu errors %llu\n", (unsigned long long)cyc, y.size(),
              v.size(), (unsigned long long)flips, (unsigned long long)drops, (unsigned long long)errors);
  top.final();
  return errors ? 1 : (y.size() == N && v.size() == N) ? 0 : 3;
}
