// The RDMA network model: see rdma_sim.hpp and docs/rdma.md.
#include "rdma_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <sstream>

namespace rdma {

uint32_t crc32(const uint8_t* p, size_t n, uint32_t c) {
  static uint32_t table[256];
  static bool init = false;
  if (!init) {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t v = i;
      for (int k = 0; k < 8; ++k) v = (v & 1) ? 0xEDB88320u ^ (v >> 1) : v >> 1;
      table[i] = v;
    }
    init = true;
  }
  c = ~c;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return ~c;
}

uint32_t Packet::header() const {
  namespace f = rdma_packet;
  return f::insert(dst, f::kHdrDst) | f::insert(src, f::kHdrSrc) | f::insert(type, f::kHdrType) |
         f::insert(vc, f::kHdrVc) | f::insert(len / 4u, f::kHdrWords) | f::insert(seq, f::kHdrSeq);
}

static void image(const Packet& p, uint8_t* out) {  // header | payload | crc, little endian
  uint32_t h = p.header();
  std::memcpy(out, &h, 4);
  std::memcpy(out + 4, p.data.data(), p.len);
  std::memcpy(out + 4 + p.len, &p.crc, 4);
}

void Packet::seal() {
  uint8_t buf[kHeader + kPayload + kCrc];
  image(*this, buf);
  crc = crc32(buf, 4 + len);
}

const char* err_text(int code) {
  switch (code) {
    case E_OK: return "ok";
    case E_NO_ROUTE: return "no route to the destination card (absent from the cluster)";
    case E_REMOTE_RANGE: return "remote range past the end of the target card's memory (or misaligned)";
    case E_TIMEOUT: return "timed out: the destination did not answer";
    case E_LOCAL_RANGE: return "local range past the end of this card's memory";
    case E_ALIGN: return "size and addresses must be positive multiples of 4 bytes";
    case E_BAD_CARD: return "no such card in the cluster";
    default: return "unknown error";
  }
}

// ---- memory -------------------------------------------------------------------
constexpr uint64_t kPage = 1 << 16;

void Memory::write(uint64_t a, const uint8_t* p, uint64_t n) {
  while (n) {
    uint64_t pg = a / kPage, off = a % kPage, k = std::min(n, kPage - off);
    auto& slot = pages_[pg];
    if (!slot) {
      slot.reset(new uint8_t[kPage]);
      std::memset(slot.get(), 0, kPage);
    }
    std::memcpy(slot.get() + off, p, k);
    a += k, p += k, n -= k;
  }
}

void Memory::read(uint64_t a, uint8_t* p, uint64_t n) const {
  while (n) {
    uint64_t pg = a / kPage, off = a % kPage, k = std::min(n, kPage - off);
    auto it = pages_.find(pg);
    if (it == pages_.end()) std::memset(p, 0, k);
    else std::memcpy(p, it->second.get() + off, k);
    a += k, p += k, n -= k;
  }
}

void Memory::scatter(uint64_t base, uint64_t block, uint64_t stride, uint64_t off, const uint8_t* p, uint64_t n) {
  if (!block) return write(base + off, p, n);
  while (n) {
    uint64_t b = off / block, o = off % block, k = std::min(n, block - o);
    write(base + b * stride + o, p, k);
    off += k, p += k, n -= k;
  }
}

void Memory::gather(uint64_t base, uint64_t block, uint64_t stride, uint64_t off, uint8_t* p, uint64_t n) const {
  if (!block) return read(base + off, p, n);
  while (n) {
    uint64_t b = off / block, o = off % block, k = std::min(n, block - o);
    read(base + b * stride + o, p, k);
    off += k, p += k, n -= k;
  }
}

// ---- set-up -------------------------------------------------------------------
static void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
static void put64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
static uint32_t get32(const uint8_t* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }
// f32 a + b on bit patterns (round to nearest even, subnormals kept: the host's SSE
// arithmetic, as the RTL adder spg_fadd; NaNs come out as the quiet NaN 0x7FC00000 as there)
static uint32_t f32_add(uint32_t a, uint32_t b) {
  float x, y;
  std::memcpy(&x, &a, 4), std::memcpy(&y, &b, 4);
  const float z = x + y;
  uint32_t r;
  std::memcpy(&r, &z, 4);
  return z != z ? 0x7FC00000u : r;
}

Cluster::Cluster(const std::string& desc) : Cluster(ClusterDesc::parse(desc)) {}

Cluster::Cluster(const ClusterDesc& d) {
  // the cycle counts and depths of Params, by the names the description uses
  static const std::pair<const char*, int Params::*> ints[] = {
      {"router_latency", &Params::router_latency}, {"engine_latency", &Params::engine_latency},
      {"mem_read_latency", &Params::mem_read_latency}, {"mem_write_latency", &Params::mem_write_latency},
      {"vc_buffer", &Params::vc_buffer}, {"window", &Params::window},
      {"ctrl_interval", &Params::ctrl_interval}, {"keepalive", &Params::keepalive},
      {"retry_timeout", &Params::retry_timeout}, {"local_queue", &Params::local_queue}};
  for (const auto& [k, v] : d.params) {
    auto named = std::find_if(std::begin(ints), std::end(ints), [&](const auto& e) { return k == e.first; });
    if (named != std::end(ints)) prm.*(named->second) = int(v);
    else if (k == "clock_mhz") prm.clock_mhz = v;
    else if (k == "op_timeout") prm.op_timeout = int64_t(v);
    else if (k == "mem_bytes") prm.mem_bytes = uint64_t(v);
  }
  if (prm.window < 2 || prm.window >= int(kSeqMod / 2)) throw DescError("param window must be 2..511");
  if (prm.vc_buffer < 1) throw DescError("param vc_buffer must be >= 1");
  const int n = d.cards, nports = d.ports;
  cards = std::vector<Card>(size_t(n));
  for (int i = 0; i < n; ++i) {
    cards[i].id = i;
    cards[i].present = !d.absent[size_t(i)];
    cards[i].mem.size = prm.mem_bytes;
    cards[i].ports.resize(nports);
    cards[i].route = d.route[size_t(i)];
    cards[i].rxs.resize(n);
    cards[i].ctrl_out.resize(n);
    cards[i].bulk.resize(n);
    cards[i].rr_out.assign(nports + 1, 0);
  }
  const double cyc_ns = 1000.0 / prm.clock_mhz;
  for (size_t i = 0; i < d.links.size(); ++i) {
    const ClusterDesc::Link& l = d.links[i];
    for (int dir = 0; dir < 2; ++dir) {
      Channel ch;
      ch.from = dir ? l.b : l.a, ch.from_port = dir ? l.pb : l.pa, ch.to = dir ? l.a : l.b, ch.to_port = dir ? l.pa : l.pb;
      ch.bits_per_cycle = l.gbps * cyc_ns;
      ch.latency = std::max(1, int(std::lround(l.latency_ns / cyc_ns)));
      ch.dim = l.dim, ch.dateline = l.dateline;
      ch.rng.seed(d.seed * 1000003ull + channels.size() * 7919ull + 17);
      const ClusterDesc::Fault& f = d.faults[2 * i + size_t(dir)];
      ch.fault.ber = f.ber, ch.fault.per = f.per, ch.fault.drop = f.drop;
      for (const auto& [from, to] : f.down) ch.fault.down.push_back({int64_t(from / cyc_ns), int64_t(to / cyc_ns)});
      cards[ch.from].ports[ch.from_port].out_channel = cards[ch.to].ports[ch.to_port].in_channel = int(channels.size());
      channels.push_back(std::move(ch));
    }
  }
}

// ---- link layer ---------------------------------------------------------------
void Cluster::link_rx(Card& c, Port& p) {
  Channel& ch = channels[p.in_channel];
  while (!ch.wire.empty() && ch.wire.front().arrive <= now) {
    InFlight f = std::move(ch.wire.front());
    ch.wire.pop_front();
    // Check the CRC over the bytes as received (a fault flipped one bit of them).
    uint8_t buf[kHeader + kPayload + kCrc];
    image(f.p, buf);
    const int wire_len = f.p.wire_bytes();
    if (f.flip >= 0) buf[f.flip / 8] ^= uint8_t(1u << (f.flip % 8));
    uint32_t h;
    std::memcpy(&h, buf, 4);
    int len = int(rdma_packet::extract(h, rdma_packet::kHdrWords)) * 4;
    bool ok = len <= kPayload && 4 + len + 4 == wire_len && crc32(buf, 4 + len) == get32(buf + 4 + len);
    Packet& pk = f.p;
    if (ok) {  // decode from the received bytes
      namespace f = rdma_packet;
      pk.dst = uint8_t(f::extract(h, f::kHdrDst)), pk.src = uint8_t(f::extract(h, f::kHdrSrc));
      pk.type = uint8_t(f::extract(h, f::kHdrType)), pk.vc = uint8_t(f::extract(h, f::kHdrVc));
      pk.len = uint8_t(len), pk.seq = uint16_t(f::extract(h, f::kHdrSeq));
      std::memcpy(pk.data.data(), buf + 4, len);
    }
    if (!ok) {
      if (!p.rx.nak_sent) p.rx.nak_now = p.rx.nak_sent = true;
      continue;
    }
    if (pk.type == P_CTRL) {
      TxState& tx = p.tx;
      uint16_t ack = uint16_t(get32(pk.data.data()) & 0xFFFF);
      bool nak = pk.data[2] != 0;
      for (int v = 0; v < kVcs; ++v) {
        uint16_t fr;
        std::memcpy(&fr, pk.data.data() + 4 + 2 * v, 2);
        tx.peer_freed[v] = fr;
      }
      bool progress = false;
      while (!tx.replay.empty()) {
        uint32_t d = (ack + kSeqMod - tx.replay.front().seq) % kSeqMod;
        if (d == 0 || d > uint32_t(prm.window)) break;
        tx.replay.pop_front();
        if (tx.resend) --tx.resend;
        progress = true;
      }
      if (progress) tx.last_progress = now;
      if (nak && !tx.replay.empty() && tx.replay.front().seq == ack) {
        tx.resend = 0;  // go back N
        tx.last_progress = now;
        ++tx.replays;
      }
      continue;
    }
    RxState& rx = p.rx;
    uint32_t d = (pk.seq + kSeqMod - rx.expected) % kSeqMod;
    if (d == 0) {
      if (pk.vc >= kVcs) continue;
      ++overflow_checks;
      if (int(rx.buf[pk.vc].size()) >= prm.vc_buffer)
        throw std::logic_error("credit violation: input buffer overflow at card " + std::to_string(c.id));
      pk.ready = now + prm.router_latency;
      rx.buf[pk.vc].push_back(pk);
      rx.expected = uint16_t((rx.expected + 1) % kSeqMod);
      rx.nak_sent = false;
      rx.dirty = true;
    } else if (d < kSeqMod / 2) {  // a gap: something before it was lost
      if (!rx.nak_sent) rx.nak_now = rx.nak_sent = true;
    } else {
      rx.dirty = true;  // a duplicate after a replay: re-acknowledge
    }
  }
}

static bool fault_hits(Channel& ch, const Packet& pk, int64_t now, int* flip) {
  *flip = -1;
  const Fault& f = ch.fault;
  if (f.is_down(now)) return true;
  if (f.per == 0 && f.ber == 0 && f.drop == 0) return false;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  if (f.drop > 0 && u(ch.rng) < f.drop) return true;
  const int bits = pk.wire_bytes() * 8;
  double p_err = f.per + (f.ber > 0 ? -std::expm1(bits * std::log1p(-f.ber)) : 0.0);
  if (p_err > 0 && u(ch.rng) < p_err) *flip = int(ch.rng() % uint64_t(bits));
  return false;
}

void Cluster::send_ctrl(Card&, Port& p, Channel& ch) {
  Packet k;
  k.type = P_CTRL;
  k.len = kCtrlPayload;
  put32(k.data.data(), p.rx.expected);
  k.data[2] = p.rx.nak_now ? 1 : 0;
  for (int v = 0; v < kVcs; ++v) std::memcpy(k.data.data() + 4 + 2 * v, &p.rx.freed[v], 2);
  k.seal();
  p.rx.nak_now = false, p.rx.dirty = false, p.rx.last_ctrl = now;
  double start = std::max(ch.next_free, double(now));
  ch.next_free = start + k.wire_bytes() * 8 / ch.bits_per_cycle;
  ++ch.ctrl_sent;
  ch.bytes_on_wire += k.wire_bytes();
  int flip;
  if (fault_hits(ch, k, now, &flip)) { ++ch.dropped; return; }
  if (flip >= 0) ++ch.corrupted;
  ch.wire.push_back({int64_t(std::ceil(ch.next_free)) + ch.latency, k, flip});
}

void Cluster::link_tx(Card& c, Port& p) {
  Channel& ch = channels[p.out_channel];
  TxState& tx = p.tx;
  if (!tx.replay.empty() && tx.resend >= tx.replay.size() && now - tx.last_progress > prm.retry_timeout) {
    tx.resend = 0;
    tx.last_progress = now;
    ++tx.replays;
  }
  while (ch.next_free < double(now + 1)) {
    RxState& rx = p.rx;
    if (rx.nak_now || (rx.dirty && now - rx.last_ctrl >= prm.ctrl_interval) || now - rx.last_ctrl >= prm.keepalive) {
      send_ctrl(c, p, ch);
      continue;
    }
    Packet* pk;
    if (tx.resend < tx.replay.size()) {
      pk = &tx.replay[tx.resend++];
    } else if (tx.has_new) {
      tx.pending.seq = tx.next_seq;
      tx.next_seq = uint16_t((tx.next_seq + 1) % kSeqMod);
      if (tx.replay.empty()) tx.last_progress = now;
      tx.replay.push_back(tx.pending);
      tx.has_new = false;
      tx.resend = tx.replay.size();
      pk = &tx.replay.back();
    } else {
      break;
    }
    pk->seal();
    double start = std::max(ch.next_free, double(now));
    ch.next_free = start + pk->wire_bytes() * 8 / ch.bits_per_cycle;
    ++ch.sent;
    ch.bytes_on_wire += pk->wire_bytes();
    int flip;
    if (fault_hits(ch, *pk, now, &flip)) { ++ch.dropped; continue; }
    if (flip >= 0) ++ch.corrupted;
    ch.wire.push_back({int64_t(std::ceil(ch.next_free)) + ch.latency, *pk, flip});
  }
}

// ---- router -------------------------------------------------------------------
int Cluster::out_vc(Card& c, int in_port, int in_vc, int out_port) {
  const Channel& o = channels[c.ports[out_port].out_channel];
  int in_dim = in_port < int(c.ports.size()) ? channels[c.ports[in_port].in_channel].dim : -2;
  int vc = (in_dim == o.dim && o.dim >= 0) ? in_vc : 0;  // a new dimension starts on VC 0
  if (o.dateline) vc = 1;                                  // crossing the dateline moves to VC 1
  return vc;
}

void Cluster::router(Card& c) {
  const int P = int(c.ports.size());
  const int slots = (P + 1) * kVcs;
  std::vector<char> used(P + 1, 0);
  for (int o = 0; o <= P; ++o) {
    if (o < P) {
      if (c.ports[o].out_channel < 0) continue;
      const TxState& tx = c.ports[o].tx;
      if (tx.has_new || int(tx.replay.size()) >= prm.window) continue;
    } else if (int(c.eject.size()) >= prm.local_queue) {
      continue;
    }
    for (int k = 0; k < slots; ++k) {
      int s = (c.rr_out[o] + k) % slots, in = s / kVcs, vc = s % kVcs;
      if (used[in]) continue;
      std::deque<Packet>* q;
      if (in < P) {
        if (c.ports[in].in_channel < 0) continue;
        q = &c.ports[in].rx.buf[vc];
      } else {
        if (vc) continue;
        q = &c.inject;
      }
      if (q->empty() || q->front().ready > now) continue;
      int r = c.route[q->front().dst];
      if (r == -2) {  // misrouted: nowhere to go; drop it rather than block the input
        q->pop_front();
        continue;
      }
      int op = r == -1 ? P : r;
      if (op != o) continue;
      Packet pk = q->front();
      if (o < P) {
        int ovc = out_vc(c, in, vc, o);
        TxState& tx = c.ports[o].tx;
        if (uint16_t(tx.sent_new[ovc] - tx.peer_freed[ovc]) >= prm.vc_buffer) continue;  // no credit
        pk.vc = uint8_t(ovc);
        ++tx.sent_new[ovc];
        tx.pending = pk;
        tx.has_new = true;
      } else {
        c.eject.push_back(pk);
      }
      q->pop_front();
      if (in < P) {
        ++c.ports[in].rx.freed[vc];
        c.ports[in].rx.dirty = true;
      }
      used[in] = 1;
      c.rr_out[o] = (s + 1) % slots;
      break;
    }
  }
}

// ---- RDMA engine ----------------------------------------------------------------
void Cluster::ctrl_msg(Card& c, int dst, int type, uint32_t op, uint32_t code, int64_t ready) {
  Packet k;
  k.dst = uint8_t(dst), k.src = uint8_t(c.id), k.type = uint8_t(type), k.len = 8;
  put32(k.data.data(), op);
  put32(k.data.data() + 4, code);
  k.ready = ready;
  c.ctrl_out[dst].push_back(k);
}

void Cluster::finish_op(Card& c, uint32_t opid, int code) {
  auto it = c.ops.find(opid);
  if (it == c.ops.end() || it->second.state != OP_PENDING) return;  // late answer to a timed-out op
  it->second.state = code == E_OK ? OP_DONE : OP_ERROR;
  it->second.code = code;
  it->second.done = now;
}

void Cluster::engine_out(Card& c) {
  if (int(c.inject.size()) >= prm.local_queue) return;
  const int n = int(cards.size());
  for (int k = 1; k <= n; ++k) {
    int d = (c.rr_dst + k) % n;
    Packet pk;
    auto& cq = c.ctrl_out[d];
    if (!cq.empty() && cq.front().ready <= now) {
      pk = cq.front();
      cq.pop_front();
    } else {
      auto& bq = c.bulk[d];
      if (bq.empty()) continue;
      OutMsg& m = *bq.front();
      if (m.ready > now) continue;
      pk.dst = uint8_t(d), pk.src = uint8_t(c.id);
      if (!m.started) {
        pk.type = uint8_t(m.type);
        put32(pk.data.data(), m.op);
        put64(pk.data.data() + 4, m.dst_addr);
        put64(pk.data.data() + 12, m.len);
        std::copy(m.start.begin(), m.start.end(), pk.data.begin() + 20);
        pk.len = uint8_t(std::min<size_t>(kPayload, (20 + m.start.size() + 3) / 4 * 4));
        m.started = true;
      } else {
        if (m.streamed) {
          if (m.fed.empty()) continue;
          pk = m.fed.front();
          m.fed.pop_front();
          pk.dst = uint8_t(d), pk.src = uint8_t(c.id);
        } else {
          pk.type = P_DATA;
          pk.len = uint8_t(std::min<uint64_t>(kPayload, m.len - m.sent));
          c.mem.gather(m.src_addr, m.block, m.src_stride, m.sent, pk.data.data(), pk.len);
        }
        m.sent += pk.len;
        if (m.sent >= m.len) {
          if (m.notify_kind >= 0) {
            Event e{m.notify_kind, m.notify_peer, m.src_addr, m.len, now};
            c.events.push_back(e);
            if (on_event) on_event(c.id, e);
          }
          bq.pop_front();
        }
      }
    }
    pk.ready = now + prm.router_latency;
    c.inject.push_back(pk);
    c.rr_dst = d;
    return;
  }
}

bool Cluster::engine_packet(Card& c, Packet& pk) {
  const uint8_t* b = pk.data.data();
  const int src = pk.src;
  if (src >= int(cards.size())) return true;
  RxStream& s = c.rxs[src];
  auto bad_range = [&](uint64_t a, uint64_t len) { return a % 4 || len % 4 || a > c.mem.size || len > c.mem.size - a; };
  switch (pk.type) {
    case P_PUT:
    case P_GETRESP:
    case P_RED: {
      s = RxStream();
      s.type = pk.type, s.op = get32(b), s.addr = get64(b + 4), s.len = s.remaining = get64(b + 12);
      s.origin = src;
      if ((pk.type == P_PUT || pk.type == P_GETRESP) && pk.len >= 36) {  // block-stride destination
        s.block = get64(b + 20), s.stride = get64(b + 28);
      }
      if (pk.type == P_RED) {
        s.origin = b[20];
        s.idx = b[21];
        s.chain.assign(b + 23, b + 23 + (b[22] & kRedCards));
        s.f32 = b[22] & kRedF32;
        s.all = b[22] & kRedAll;
        s.src = get64(b + 23 + s.chain.size());
      }
      uint64_t span = s.len;
      if (s.block) {
        uint64_t count = s.len / s.block;
        bool bad = s.len % s.block || s.block % 4 || s.stride % 4 || s.stride < s.block;
        span = bad || (count - 1) > (c.mem.size / std::max<uint64_t>(s.stride, 1)) ? c.mem.size + 4
                                                                                  : (count - 1) * s.stride + s.block;
      }
      if (bad_range(s.addr, span)) {
        s.discard = true;
        if (pk.type != P_GETRESP) ctrl_msg(c, s.origin, P_ERR, s.op, E_REMOTE_RANGE, now);
      } else if (pk.type == P_GETRESP) {
        auto it = c.ops.find(s.op);
        s.discard = it == c.ops.end() || it->second.state != OP_PENDING;
      } else if (pk.type == P_RED && red_streams_on(s)) {
        int next = red_card(s, s.idx + 1);
        if (next >= int(cards.size()) || c.route[next] == -2) {
          s.discard = true;
          ctrl_msg(c, s.origin, P_ERR, s.op, E_NO_ROUTE, now);
        } else {
          auto m = std::make_unique<OutMsg>();
          m->type = P_RED, m->op = s.op, m->src_addr = s.addr, m->dst_addr = s.addr, m->len = s.len;
          m->ready = now, m->streamed = true;
          m->start = red_start(s.origin, s.idx + 1, b[22], s.chain, s.src);
          s.fwd = m.get();
          c.bulk[next].push_back(std::move(m));
        }
      }
      return true;
    }
    case P_DATA: {
      if (s.type < 0) return true;  // stray data after a timeout: ignore
      uint64_t off = s.len - s.remaining, n = std::min<uint64_t>(pk.len, s.remaining);
      if (!s.discard) {
        if (s.type == P_RED) {
          if (s.fwd && s.fwd->fed.size() >= 16) return false;  // back-pressure from the next card
          const bool result = s.idx >= s.chain.size();  // an allreduce's result on its way back
          for (uint64_t i = 0; i < n && !result; i += 4) {
            const uint32_t in = get32(b + i), own = c.mem.word(s.src + off + i);
            put32(pk.data.data() + i, s.f32 ? f32_add(in, own) : in + own);
          }
          if (s.fwd) s.fwd->fed.push_back(pk);
          if (!s.fwd || result || s.idx + 1 == s.chain.size()) c.mem.write(s.addr + off, pk.data.data(), n);
        } else {
          c.mem.scatter(s.addr, s.block, s.stride, off, b, n);
        }
      }
      s.remaining -= n;
      if (s.remaining == 0) {
        if (!s.discard) {
          int64_t vis = now + prm.mem_write_latency;
          if (s.type == P_PUT || (s.type == P_RED && !s.fwd)) {
            Event e{s.type, s.origin, s.addr, s.len, vis};
            c.events.push_back(e);
            if (on_event) on_event(c.id, e);
            if (s.origin == c.id) finish_op(c, s.op, E_OK);
            else ctrl_msg(c, s.origin, P_DONE, s.op, 0, vis);
          } else if (s.type == P_GETRESP) {
            auto it = c.ops.find(s.op);
            if (it != c.ops.end() && it->second.state == OP_PENDING) {
              it->second.state = OP_DONE, it->second.done = vis;
            }
          }
        }
        s = RxStream();
      }
      return true;
    }
    case P_GETREQ: {
      uint32_t op = get32(b);
      uint64_t ra = get64(b + 4), len = get64(b + 12), la = get64(b + 20);
      const uint64_t block = pk.len >= 44 ? get32(b + 28) : 0, rstride = block ? get32(b + 36) : 0;
      // a block-stride get reads count blocks rstride apart (the initiator checked the shape)
      const uint64_t span = block ? (len / block - 1) * rstride + block : len;
      if (bad_range(ra, span) || (block && (len / block - 1) > c.mem.size / std::max<uint64_t>(rstride, 1))) {
        ctrl_msg(c, src, P_ERR, op, E_REMOTE_RANGE, now);
      } else {
        auto m = std::make_unique<OutMsg>();
        m->type = P_GETRESP, m->op = op, m->src_addr = ra, m->dst_addr = la, m->len = len;
        if (block) {
          m->block = block, m->src_stride = rstride;
          m->start.resize(16);
          put64(m->start.data(), block);
          put64(m->start.data() + 8, get32(b + 40));
        }
        m->ready = now + prm.engine_latency + prm.mem_read_latency;
        m->notify_kind = P_GETREQ, m->notify_peer = src;
        c.bulk[src].push_back(std::move(m));
      }
      return true;
    }
    case P_DONE: finish_op(c, get32(b), E_OK); return true;
    case P_ERR: finish_op(c, get32(b), int(get32(b + 4))); return true;
    default: return true;
  }
}

void Cluster::engine_in(Card& c) {
  if (!c.eject.empty() && c.eject.front().ready <= now + prm.router_latency) {
    if (engine_packet(c, c.eject.front())) {
      ++delivered_packets;
      c.eject.pop_front();
    }
  }
}

uint64_t Cluster::issue(int card, int kind, int dst, uint64_t local, uint64_t remote, uint64_t len, Op** out) {
  if (card < 0 || card >= int(cards.size()) || !cards[card].present)
    throw std::invalid_argument("initiator card " + std::to_string(card) + " is not in the cluster");
  Card& c = cards[card];
  uint32_t id = c.next_op++;
  Op& op = c.ops[id];
  op.issued = now, op.kind = kind, op.peer = dst, op.len = len;
  op.deadline = now + prm.op_timeout;
  auto fail = [&](int code) { op.state = OP_ERROR, op.code = code, op.done = now; };
  if (dst < 0 || dst >= int(cards.size())) fail(E_NO_ROUTE);  // as an absent card: no route
  else if (len == 0 || len % 4 || local % 4 || remote % 4) fail(E_ALIGN);
  else if (local > c.mem.size || len > c.mem.size - local) fail(E_LOCAL_RANGE);
  else if (c.route[size_t(dst)] == -2) fail(E_NO_ROUTE);
  *out = &op;
  return uint64_t(card) << 32 | id;
}

uint64_t Cluster::put(int card, int dst, uint64_t local, uint64_t remote, uint64_t len) {
  Op* op;
  uint64_t h = issue(card, P_PUT, dst, local, remote, len, &op);
  if (op->state != OP_PENDING) return h;
  auto m = std::make_unique<OutMsg>();
  m->type = P_PUT, m->op = uint32_t(h), m->src_addr = local, m->dst_addr = remote, m->len = len;
  m->ready = now + prm.engine_latency + prm.mem_read_latency;
  cards[card].bulk[dst].push_back(std::move(m));
  return h;
}

uint64_t Cluster::put_strided(int card, int dst, uint64_t local, uint64_t remote, uint64_t block, uint64_t count,
                              uint64_t local_stride, uint64_t remote_stride) {
  Op* op;
  const uint64_t len = block * count;
  const uint64_t span = count ? (count - 1) * local_stride + block : 0;
  uint64_t h = issue(card, P_PUT, dst, local, remote, span ? span : 4, &op);
  if (op->state != OP_PENDING) return h;
  op->len = len;
  if (!block || !count || block % 4 || local_stride % 4 || remote_stride % 4 || local_stride < block ||
      remote_stride < block) {
    op->state = OP_ERROR, op->code = E_ALIGN, op->done = now;
    return h;
  }
  auto m = std::make_unique<OutMsg>();
  m->type = P_PUT, m->op = uint32_t(h), m->src_addr = local, m->dst_addr = remote, m->len = len;
  m->block = block, m->src_stride = local_stride;
  m->start.resize(16);
  put64(m->start.data(), block);
  put64(m->start.data() + 8, remote_stride);
  m->ready = now + prm.engine_latency + prm.mem_read_latency;
  cards[card].bulk[dst].push_back(std::move(m));
  return h;
}

uint64_t Cluster::get(int card, int dst, uint64_t local, uint64_t remote, uint64_t len) {
  return get_request(card, dst, local, remote, false, 0, len, 0, 0);
}

uint64_t Cluster::get_strided(int card, int dst, uint64_t local, uint64_t remote, uint64_t block, uint64_t count,
                              uint64_t local_stride, uint64_t remote_stride) {
  return get_request(card, dst, local, remote, true, block, count, local_stride, remote_stride);
}

uint64_t Cluster::get_request(int card, int dst, uint64_t local, uint64_t remote, bool strided, uint64_t block,
                              uint64_t count, uint64_t local_stride, uint64_t remote_stride) {
  Op* op;
  const uint64_t len = strided ? block * count : count;
  const uint64_t span = !strided ? len : count ? (count - 1) * local_stride + block : 0;
  uint64_t h = issue(card, P_GETREQ, dst, local, remote, strided && !span ? 4 : span, &op);
  if (op->state != OP_PENDING) return h;
  op->len = len;
  if (strided && (!block || !count || block % 4 || local_stride % 4 || remote_stride % 4 ||
                  local_stride < block || remote_stride < block)) {
    op->state = OP_ERROR, op->code = E_ALIGN, op->done = now;
    return h;
  }
  Packet k;
  k.dst = uint8_t(dst), k.src = uint8_t(card), k.type = P_GETREQ, k.len = strided ? 44 : 28;
  put32(k.data.data(), uint32_t(h));
  put64(k.data.data() + 4, remote);
  put64(k.data.data() + 12, len);
  put64(k.data.data() + 20, local);
  if (strided) {  // the RTL engine's 11-word GETREQ: block, count, remote stride, local stride
    put32(k.data.data() + 28, uint32_t(block));
    put32(k.data.data() + 32, uint32_t(count));
    put32(k.data.data() + 36, uint32_t(remote_stride));
    put32(k.data.data() + 40, uint32_t(local_stride));
  }
  k.ready = now + prm.engine_latency;
  cards[card].ctrl_out[dst].push_back(k);
  return h;
}

std::vector<uint8_t> red_start(int origin, size_t idx, uint8_t len_flags, const std::vector<uint8_t>& chain,
                               uint64_t src) {
  std::vector<uint8_t> p = {uint8_t(origin), uint8_t(idx), len_flags};
  p.insert(p.end(), chain.begin(), chain.end());
  p.resize(p.size() + 8);
  put64(p.data() + p.size() - 8, src);
  return p;
}

uint64_t Cluster::reduce(const std::vector<int>& chain, uint64_t src, uint64_t len, bool f32, bool all, uint64_t dst) {
  if (chain.size() < 2 || chain.size() > kRedMaxCards)
    throw std::invalid_argument("a reduction chain needs 2.." + std::to_string(kRedMaxCards) + " cards");
  if (dst == kInPlace) dst = src;
  Op* op;
  uint64_t h = issue(chain[0], P_RED, chain[1], src, dst, len, &op);
  for (int x : chain)
    if (x < 0 || x >= int(cards.size())) { op->state = OP_ERROR, op->code = E_BAD_CARD; return h; }
  if (op->state != OP_PENDING) return h;
  const uint64_t mem = cards[size_t(chain[0])].mem.size;
  if (dst > mem || len > mem - dst) {  // every card's memory has one size
    op->state = OP_ERROR, op->code = E_LOCAL_RANGE, op->done = now;
    return h;
  }
  auto m = std::make_unique<OutMsg>();
  m->type = P_RED, m->op = uint32_t(h), m->src_addr = src, m->dst_addr = dst, m->len = len;
  m->ready = now + prm.engine_latency + prm.mem_read_latency;
  std::vector<uint8_t> ids(chain.begin(), chain.end());
  m->start = red_start(chain[0], 1, uint8_t(chain.size() | (f32 ? kRedF32 : 0) | (all ? kRedAll : 0)), ids, src);
  cards[chain[0]].bulk[chain[1]].push_back(std::move(m));
  return h;
}

const Op& Cluster::op(uint64_t h) const {
  int card = int(h >> 32);
  if (card < 0 || card >= int(cards.size())) throw std::invalid_argument("unknown handle");
  auto it = cards[card].ops.find(uint32_t(h));
  if (it == cards[card].ops.end()) throw std::invalid_argument("unknown handle");
  return it->second;
}

void Cluster::step() {
  for (auto& c : cards) {
    if (!c.present || !is_local(c.id)) continue;
    for (auto& p : c.ports)
      if (p.in_channel >= 0) link_rx(c, p);
  }
  for (auto& c : cards) {
    if (!c.present || !is_local(c.id)) continue;
    router(c);
    engine_in(c);
    engine_out(c);
    for (auto& p : c.ports)
      if (p.out_channel >= 0) link_tx(c, p);
    if ((now & 255) == 0)
      for (auto& kv : c.ops)
        if (kv.second.state == OP_PENDING && now > kv.second.deadline) finish_op(c, kv.first, E_TIMEOUT);
  }
  ++now;
}

bool Cluster::wait(uint64_t h, int64_t max_cycles) {
  int64_t end = now + max_cycles;
  while (op(h).state == OP_PENDING && now < end) step();
  // an op finished with a future visibility time: run to it, so results are in memory
  while (op(h).done > now) step();
  return op(h).state != OP_PENDING;
}

bool Cluster::wait_all(const std::vector<uint64_t>& hs, int64_t max_cycles) {
  for (auto h : hs) {
    int64_t left = max_cycles;
    if (!wait(h, left)) return false;
  }
  return true;
}

bool Cluster::quiet() const {
  for (auto& ch : channels)
    if (!ch.wire.empty() && !(ch.wire.size() && false)) {
      // ctrl keep-alives are always in flight; only data counts
      for (auto& f : ch.wire)
        if (f.p.type != P_CTRL) return false;
    }
  for (auto& c : cards) {
    if (!c.present) continue;
    if (!c.inject.empty() || !c.eject.empty()) return false;
    for (auto& q : c.ctrl_out) if (!q.empty()) return false;
    for (auto& q : c.bulk) if (!q.empty()) return false;
    for (auto& p : c.ports) {
      if (!p.tx.replay.empty() || p.tx.has_new) return false;
      for (auto& b : p.rx.buf) if (!b.empty()) return false;
    }
  }
  return true;
}

}  // namespace rdma
