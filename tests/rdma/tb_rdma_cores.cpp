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
#include "verilated.h"

struct Cable {
  std::deque<std::pair<uint64_t, std::pair<uint32_t, bool>>> q;
  bool in_pkt = false, drop = false;
  int flip_word = -1, flip_bit = 0, widx = 0;
};

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
    top.cfg_we = 1, top.cfg_addr = t;
    top.cfg_port0 = t == 0 ? 2 : t == 1 ? 0 : 15;
    top.cfg_port1 = t == 1 ? 2 : t == 0 ? 0 : 15;
    tick();
  }
  top.cfg_we = 0;
  // cables keyed by (sending card, port); card c port p arrives at card 1-c port 1-p
  Cable cable[2][2];
  size_t ia = 0, ib = 0;
  uint64_t cyc = 0, flips = 0, drops = 0, errors = 0;
  const uint64_t lat = 12, max_cyc = 200 * N + 200000;
  for (; cyc < max_cyc && (y.size() < N || v.size() < N); ++cyc) {
    top.a_s_valid = ia < N && u(rng) < p_in;
    top.a_s_data = ia < N ? x[ia] : 0, top.a_s_last = ia + 1 == N;
    top.b_s_valid = ib < N && u(rng) < p_in;
    top.b_s_data = ib < N ? uu[ib] : 0, top.b_s_last = ib + 1 == N;
    top.a_m_ready = u(rng) < p_out;
    top.b_m_ready = u(rng) < p_out;
    uint32_t in_v[2] = {0, 0}, in_l[2] = {0, 0};
    uint64_t in_d[2] = {0, 0};
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < 2; ++p) {
        Cable& cb = cable[1 - c][1 - p];  // what arrives at (c, p)
        if (!cb.q.empty() && cb.q.front().first <= cyc) {
          in_v[c] |= 1u << p;
          in_d[c] |= uint64_t(cb.q.front().second.first) << (32 * p);
          if (cb.q.front().second.second) in_l[c] |= 1u << p;
          cb.q.pop_front();
        }
      }
    top.l0_in_valid = in_v[0], top.l0_in_data = in_d[0], top.l0_in_last = in_l[0];
    top.l1_in_valid = in_v[1], top.l1_in_data = in_d[1], top.l1_in_last = in_l[1];
    top.clk = 0;
    top.eval();
    if (top.a_s_valid && top.a_s_ready) ++ia;
    if (top.b_s_valid && top.b_s_ready) ++ib;
    if (top.a_m_valid && top.a_m_ready) {
      y.push_back(top.a_m_data);
      if (bool(top.a_m_last) != (y.size() == N)) ++errors;
    }
    if (top.b_m_valid && top.b_m_ready) {
      v.push_back(top.b_m_data);
      if (bool(top.b_m_last) != (v.size() == N)) ++errors;
    }
    for (int c = 0; c < 2; ++c) {
      uint32_t ov = c ? top.l1_out_valid : top.l0_out_valid, ol = c ? top.l1_out_last : top.l0_out_last;
      uint64_t od = c ? top.l1_out_data : top.l0_out_data;
      for (int p = 0; p < 2; ++p) {
        if (!((ov >> p) & 1)) continue;
        Cable& cb = cable[c][p];
        if (!cb.in_pkt) {
          cb.in_pkt = true, cb.widx = 0;
          cb.drop = u(rng) < pdrop;
          cb.flip_word = u(rng) < pflip ? int(rng() % 19) : -1;
          cb.flip_bit = int(rng() % 32);
          drops += cb.drop, flips += cb.flip_word >= 0;
        }
        uint32_t w = uint32_t(od >> (32 * p));
        bool last = (ol >> p) & 1;
        if (cb.widx++ == cb.flip_word) w ^= 1u << cb.flip_bit;
        if (!cb.drop) cb.q.push_back({cyc + lat, {w, last}});
        if (last) cb.in_pkt = false;
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
