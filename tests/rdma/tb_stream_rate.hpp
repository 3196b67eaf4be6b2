// Stream throughput between RDMA nodes whose link ports are held to a line rate, as
// RTLCluster's PHYs hold them (runtime/sim/cluster.cpp): a port's beat leaves when the wire
// has sent the beats before it, and the wire carries a packet's header, payload and CRC
// words (4 bytes each; idle lanes not) at GBPS with a clock of 200 MHz. A ring of 2 x HOPS
// cards; card 0 streams RECORDS records of RECORD_WORDS words to card HOPS (HOPS hops the
// short way), RECORDS_PER_CYCLE records a cycle at most (the producer: one for a core with
// one output record a cycle); the consumer takes a record at a time with probability P_OUT;
// every packet's bits are flipped with probability PER (the link replays it). Prints the
// payload rate from the first word taken to the last (the stream's throughput, its pipeline
// fill left out: first_latency, the cycles from the first word given to the first taken),
// and its share of the line.
//   rate GBPS HOPS RECORD_WORDS RECORDS_PER_CYCLE RECORDS P_OUT PER SEED
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "rtl_links.hpp"
#include "tb_lanes.hpp"

template <class Node>
int stream_rate(int argc, char** argv) {
  if (argc < 9 || LANES < 2) return 2;
  const double gbps = std::atof(argv[1]);
  const int hops = std::atoi(argv[2]), rw = std::atoi(argv[3]), rpc = std::atoi(argv[4]);
  const uint64_t records = std::strtoull(argv[5], nullptr, 10);
  const double p_out = std::atof(argv[6]), per = std::atof(argv[7]);
  std::mt19937_64 rng(std::strtoull(argv[8], nullptr, 10));
  if (hops < 1 || rw < 1 || rpc < 1 || rw * rpc > LANES) return 2;
  const double clock_mhz = 200, words_per_cycle = gbps * 1000 / clock_mhz / 32;
  const uint64_t lat = 40;  // 200 ns of cable
  const int n = 2 * hops, X = n, dims[2] = {X, 1};
  std::uniform_real_distribution<double> u(0, 1);
  VerilatedContext ctx;
  std::vector<Node*> card(static_cast<size_t>(n));
  const rdma_links::Torus links = rdma_links::torus(X, 1);
  for (int c = 0; c < n; ++c) {
    Node* m = card[size_t(c)] = new Node(&ctx, ("c" + std::to_string(c)).c_str());
    m->rst = 1, m->card_id = c, m->port_dim = 0b01010000, m->port_dateline = links.dateline[size_t(c)];
    m->st_tx_dst = hops, m->st_tx_sid = 1, m->st_rx_peer = 0, m->st_rx_sid = 1;
    m->clk = 0; m->eval(); m->clk = 1; m->eval();
    m->rst = 0;
    rdma_links::program_routes(m, c, n, X, dims, 64);
  }
  using Cable = rdma_links::CableT<LANES>;
  std::map<rdma_links::Port, Cable> cable;
  std::map<rdma_links::Port, double> wire_free;  // cycle at which each port's wire is free
  std::map<rdma_links::Port, std::pair<int, int>> pkt;  // words of the packet on it, and beats sent
  const uint64_t total = records * uint64_t(rw);
  uint64_t first_n = 0, sent = 0, got = 0, given = 0, first = 0, last = 0, errors = 0, flips = 0, cyc = 0;
  // card 0: cycles its producer was held, and its first port's PHY ready without a beat to send
  uint64_t src_held = 0, phy_idle = 0;
  // card 0's first port: STREAM packets and their data words, words of the other packets
  uint64_t st_pkts = 0, st_words = 0, other_words = 0;
  double wire_busy = 0;
  auto word = [](uint64_t i) { return uint32_t(i * 0x9E3779B97F4A7C15ull >> 32); };
  const uint64_t max_cyc = 200000 + uint64_t(40.0 * double(total) / words_per_cycle);
  for (; cyc < max_cyc && got < total; ++cyc) {
    for (int c = 0; c < n; ++c) {
      Node* m = card[size_t(c)];
      uint32_t ready = 0;
      for (int p = 0; p < 2; ++p)
        if (wire_free[{c, p}] <= double(cyc) + 1.0) ready |= 1u << p;
      m->link_out_ready = ready;
      m->st_s_valid = 0, m->st_m_ready = 0;
      if (c == 0 && sent < total) {
        const uint64_t k = std::min<uint64_t>(uint64_t(rw * rpc), total - sent);
        uint32_t w[LANES] = {};
        for (uint64_t j = 0; j < k; ++j) w[j] = word(sent + j);
        set_beat(m->st_s_data, w);
        m->st_s_valid = 1, m->st_s_words = uint32_t(k), m->st_s_last = sent + k == total;
      }
      if (c == hops) m->st_m_want = uint32_t(rw * rpc), m->st_m_ready = u(rng) < p_out;
      m->cmd_valid = 0, m->evt_ready = 1, m->mem_rd_waitrequest = 0, m->mem_wr_waitrequest = 0;
      m->mem_rd_readdatavalid = 0;
      rdma_links::receive(m, c, links.peer, cable, cyc);
      m->clk = 0;
      m->eval();
    }
    for (int c = 0; c < n; ++c) {
      Node* m = card[size_t(c)];
      if (c == 0 && sent < total && !m->st_s_ready) ++src_held;
      if (c == 0 && sent > 0 && sent < total && (m->link_out_ready & 1) && !(m->link_out_valid & 1)) ++phy_idle;
      if (c == 0 && m->st_s_valid && m->st_s_ready) {
        if (sent == 0) given = cyc;
        sent += m->st_s_words;
      }
      if (c == hops && m->st_m_valid && m->st_m_ready) {
        std::vector<uint32_t> w;
        append_beat(m->st_m_data, w);
        if (got == 0) first = cyc, first_n = m->st_m_words;
        for (uint32_t j = 0; j < m->st_m_words; ++j)
          if (got + j >= total || w[j] != word(got + j)) ++errors;
        got += m->st_m_words;
        if (bool(m->st_m_last) != (got == total)) ++errors;
        last = cyc;
      }
      for (int p = 0; p < 2; ++p) {
        if (!((m->link_out_valid >> p) & 1) || !((m->link_out_ready >> p) & 1)) continue;
        std::array<uint32_t, LANES> w;
        for (int i = 0; i < LANES; ++i) w[size_t(i)] = m->link_out_data[p * LANES + i];
        auto& pk = pkt[{c, p}];
        if (pk.second == 0) {  // header, payload and CRC words on the wire
          pk.first = 2 + int(rdma_packet::payload_words(rdma_packet::extract(w[0], rdma_packet::kHdrWords)));
          if (c == 0 && p == 0) {
            const bool st = rdma_packet::extract(w[0], rdma_packet::kHdrType) == rdma_packet::T_STREAM;
            st_pkts += st, st_words += st ? uint64_t(pk.first - 3) : 0, other_words += st ? 0 : uint64_t(pk.first);
          }
        }
        const int on = std::max(1, std::min(LANES, pk.first - pk.second * LANES));
        double& wf = wire_free[{c, p}];
        wf = std::max(wf, double(cyc)) + on / words_per_cycle;
        if (c == 0 && p == 0) wire_busy += on / words_per_cycle;
        const bool end = (m->link_out_last >> p) & 1;
        pk.second = end ? 0 : pk.second + 1;
        const uint64_t leaves = std::max<uint64_t>(cyc, uint64_t(std::ceil(wf)) - 1);
        rdma_links::send_beat(cable[{c, p}], w, end, leaves, lat, [&](Cable& cb) {
                                rdma_links::draw_faults(cb, rng, 0.0, per, uint64_t(258 / LANES + 1));
                                flips += cb.flip_word >= 0;
                              });
      }
      m->clk = 1;
      m->eval();
    }
  }
  unsigned st_err = 0;
  for (auto* m : card) st_err |= m->st_errors | m->overflow;
  // the words after the first take's, over the cycles after it
  const double span = double(last - first), rate = double(got - first_n) * 32.0 * clock_mhz / 1000.0 / span;
  std::printf("cycles %llu words %llu delivered %llu flips %llu stream_errors %u errors %llu gbps_x1000 %lld "
              "line_pct_x1000 %lld first_latency %llu src_held %llu phy_idle %llu st_pkts %llu st_words %llu "
              "other_words %llu wire_busy %lld\n",
              (unsigned long long)cyc, (unsigned long long)total, (unsigned long long)got, (unsigned long long)flips,
              st_err, (unsigned long long)errors, (long long)std::llround(rate * 1000),
              (long long)std::llround(rate / gbps * 100000), (unsigned long long)(first - given),
              (unsigned long long)src_held,
              (unsigned long long)phy_idle, (unsigned long long)st_pkts, (unsigned long long)st_words,
              (unsigned long long)other_words, (long long)wire_busy);
  for (auto* m : card) { m->final(); delete m; }
  return errors || st_err ? 1 : got == total ? 0 : 3;
}
