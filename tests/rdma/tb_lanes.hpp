// What the RDMA testbenches of wide ports share: the ports' LANES and MAX_WORDS (given with
// -DLANES=L -DMAX_WORDS=M to match the Verilog parameters; 1 and 16 by default), the packet
// format, and beats of LANES 32-bit words on Verilated ports (uint32_t, uint64_t or VlWide).
#pragma once

#include <cstdint>
#include <vector>

#include "include/afushell/rdma_packet.h"

#ifndef LANES
#define LANES 1
#endif
#ifndef MAX_WORDS
#define MAX_WORDS 16
#endif

// port <- LANES words
template <class Port> void set_beat(Port& p, const uint32_t* w) {
  if constexpr (LANES == 1) p = w[0];
  else if constexpr (LANES == 2) p = w[0] | uint64_t(w[1]) << 32;
  else for (int i = 0; i < LANES; ++i) p[i] = w[i];
}

// the LANES words of a port, appended to `out`
template <class Port> void append_beat(const Port& p, std::vector<uint32_t>& out) {
  if constexpr (LANES == 1) out.push_back(uint32_t(p));
  else if constexpr (LANES == 2) out.insert(out.end(), {uint32_t(p), uint32_t(uint64_t(p) >> 32)});
  else for (int i = 0; i < LANES; ++i) out.push_back(p[i]);
}

// beat `pos` of a packet (header and payload words), zero-padded
inline std::vector<uint32_t> beat_of(const std::vector<uint32_t>& pk, size_t pos) {
  std::vector<uint32_t> w(LANES, 0);
  for (size_t i = 0; i < LANES && pos * LANES + i < pk.size(); ++i) w[i] = pk[pos * LANES + i];
  return w;
}

// a received packet's beats cut to its header and payload; false when the beat count is wrong
inline bool trim_packet(std::vector<uint32_t>& words) {
  const uint32_t n = rdma_packet::payload_words(rdma_packet::extract(words[0], rdma_packet::kHdrWords));
  const bool ok = words.size() == (n + LANES) / LANES * LANES;
  words.resize(n + 1);
  return ok;
}
