// Cycle-accurate model of the card-to-card RDMA network: link layer (CRC-32, credits,
// go-back-N), router (crossbar, routing table, dateline virtual channels), RDMA engine.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "cluster_desc.hpp"
#include "include/afushell/rdma_packet.h"  // header fields and types, generated

namespace rdma {

constexpr int kPayload = 64;      // payload bytes of a full packet
constexpr int kHeader = 4;        // header: dst 6 | src 6 | type 4 | vc 1 | words 5 | seq 10
constexpr int kCrc = 4;           // CRC-32 trailer
constexpr int kCtrlPayload = 8;   // ACK/NAK + cumulative credit counters
constexpr int kMaxCards = 64;
constexpr int kVcs = 2;
constexpr uint32_t kSeqMod = 1u << rdma_packet::kHdrSeq.width;

uint32_t crc32(const uint8_t* p, size_t n, uint32_t c = 0);

// packet types: numbers from shell/rdma/rdma_packet.json (the RTL reads the same)
enum PType : uint8_t {
  P_CTRL = rdma_packet::T_CTRL,        // link level: ack/nak/credits, never routed
  P_PUT = rdma_packet::T_PUT,          // start of a put stream: op, remote addr, len
  P_GETRESP = rdma_packet::T_GETRESP,  // start of a get-response stream: op, local addr of the initiator, len
  P_DATA = rdma_packet::T_DATA,        // stream data
  P_GETREQ = rdma_packet::T_GETREQ,    // single packet: op, remote addr, len, initiator local addr
  P_DONE = rdma_packet::T_DONE,        // single packet: op completed at the target
  P_ERR = rdma_packet::T_ERR,          // single packet: op failed at the target (code)
  P_RED = rdma_packet::T_RED,          // start of a reduction stream: op, addr, len, origin, chain
};

struct Packet {
  uint8_t dst = 0, src = 0, type = 0, vc = 0;
  uint16_t seq = 0;
  uint8_t len = 0;  // payload bytes, multiple of 4, <= 64
  std::array<uint8_t, kPayload> data{};
  uint32_t crc = 0;
  int64_t ready = 0;  // cycle from which a router may forward it
  int wire_bytes() const { return kHeader + len + kCrc; }
  uint32_t header() const;
  void seal();  // computes crc over header + payload
};

struct Params {
  double clock_mhz = 390.625;     // router / engine clock (2.56 ns)
  int router_latency = 9;         // cycles input -> output (CIRCUS: 9 cycles)
  int engine_latency = 32;        // descriptor fetch + issue, cycles
  int mem_read_latency = 40;      // DDR read latency, cycles
  int mem_write_latency = 24;     // DDR write until visible, cycles
  int vc_buffer = 96;             // packets per input VC buffer
  int window = 128;               // go-back-N replay window, packets (< kSeqMod/2)
  int ctrl_interval = 16;         // min cycles between coalesced ACK/credit packets
  int keepalive = 256;            // ctrl packet at least this often
  int retry_timeout = 1024;       // cycles without ACK progress before a replay
  int local_queue = 16;           // injection / ejection queue depth, packets
  int64_t op_timeout = 2000000;   // cycles before an outstanding op fails (~5 ms)
  uint64_t mem_bytes = 8ull << 30;  // FPGA memory per card (sparse)
};

struct Fault {
  double ber = 0, per = 0, drop = 0;                 // bit / packet error, packet drop rates
  std::vector<std::pair<int64_t, int64_t>> down;     // [from, to) cycles
  bool is_down(int64_t c) const {
    for (auto& d : down)
      if (c >= d.first && c < d.second) return true;
    return false;
  }
};

struct InFlight {
  int64_t arrive;
  Packet p;
  int flip = -1;  // bit of the wire image flipped by a fault, -1 none
};

// One direction of a link.
struct Channel {
  int from = 0, from_port = 0, to = 0, to_port = 0;
  double bits_per_cycle = 0;
  int latency = 0;  // cycles of wire + PHY
  int dim = -1;
  bool dateline = false;
  Fault fault;
  std::mt19937_64 rng;
  std::deque<InFlight> wire;
  double next_free = 0;
  uint64_t sent = 0, corrupted = 0, dropped = 0, ctrl_sent = 0, bytes_on_wire = 0;
};

struct TxState {
  std::deque<Packet> replay;  // sent, not yet acknowledged, in seq order
  size_t resend = 0;          // index of the next replay entry to (re)send
  uint16_t next_seq = 0;
  uint16_t sent_new[kVcs]{};  // new packets sent per VC (credits consumed)
  uint16_t peer_freed[kVcs]{};
  bool has_new = false;
  Packet pending;             // accepted from the router, not yet on the wire
  int64_t last_progress = 0;
  uint64_t replays = 0;
};

struct RxState {
  uint16_t expected = 0;
  std::deque<Packet> buf[kVcs];
  uint16_t freed[kVcs]{};
  bool nak_sent = false, nak_now = false, dirty = false;
  int64_t last_ctrl = -1000000;
};

struct Port {
  int out_channel = -1;  // index into Cluster::channels, -1 unconnected
  int in_channel = -1;
  TxState tx;
  RxState rx;
};

enum OpState { OP_PENDING = 0, OP_DONE = 1, OP_ERROR = 2 };
enum ErrCode {
  E_OK = 0, E_NO_ROUTE = 1, E_REMOTE_RANGE = 2, E_TIMEOUT = 3, E_LOCAL_RANGE = 4,
  E_ALIGN = 5, E_BAD_CARD = 6,
};
const char* err_text(int code);

struct Op {
  int state = OP_PENDING, code = E_OK;
  int64_t issued = 0, done = -1, deadline = 0;
  int kind = 0, peer = 0;
  uint64_t len = 0;
};

struct Event {  // completion at a target (the "interrupt")
  int kind, peer;
  uint64_t addr, len;
  int64_t cycle;
};

struct OutMsg {  // a stream the engine sends to one destination
  int type;
  uint32_t op;
  uint64_t src_addr, dst_addr, len, sent = 0;
  uint64_t block = 0, src_stride = 0;  // block-stride source (block 0: contiguous)
  int64_t ready;
  std::vector<uint8_t> start;            // extra start-packet payload (reduction chain)
  std::deque<Packet> fed;                // reduction: data packets fed by arrivals
  bool streamed = false, started = false;
  int notify_kind = -1, notify_peer = 0;  // target-side event when the last packet leaves
};

// A reduction's start payload (after op, dst, len): byte 20 the origin, 21 the receiver's
// index (n .. 2n-2: an allreduce's result on its way back, at chain[2n - 2 - idx]), 22 the
// chain's length and these flags, then the chain and the vectors' address (8 bytes).
constexpr uint8_t kRedCards = 0x3f, kRedAll = 0x40, kRedF32 = 0x80;
constexpr size_t kRedMaxCards = kPayload - 23 - 8;
constexpr uint64_t kInPlace = ~0ull;  // Cluster::reduce's dst: the result where the vectors are
std::vector<uint8_t> red_start(int origin, size_t idx, uint8_t len_flags, const std::vector<uint8_t>& chain,
                               uint64_t src);

struct RxStream {  // the stream a target is receiving from one source
  int type = -1;
  uint32_t op = 0;
  uint64_t addr = 0, remaining = 0, len = 0;
  uint64_t block = 0, stride = 0;  // block-stride destination (block 0: contiguous)
  bool discard = false;
  int origin = 0;
  std::vector<uint8_t> chain;
  size_t idx = 0;
  bool f32 = false;  // reduction: f32 sums (else u32)
  bool all = false;  // allreduce: the result flows back along the chain
  uint64_t src = 0;  // reduction: the vectors' address (addr: the result's)
  OutMsg* fwd = nullptr;
};
// A card of a reduction passes what arrives on to the next as it arrives: every card of the
// chain but the last (which holds the sums; an allreduce's last card sends each sum back to
// the card before it as it writes it, while the sums still flow) and, of the result's way
// back (chain[n-2] .. chain[0]), all but its last stop.
inline bool red_streams_on(const RxStream& s) {
  const size_t n = s.chain.size();
  return s.idx + 1 < n || (s.all && s.idx + 1 >= n && s.idx + 1 < 2 * n - 1);
}
// The card of receiver index `idx`: the sums' chain[idx], the result's chain[2n - 2 - idx].
inline int red_card(const RxStream& s, size_t idx) {
  const size_t n = s.chain.size();
  return s.chain[idx < n ? idx : 2 * n - 2 - idx];
}

class Memory {  // sparse byte memory, 64 KiB pages
 public:
  uint64_t size = 0;
  void write(uint64_t a, const uint8_t* p, uint64_t n);
  void read(uint64_t a, uint8_t* p, uint64_t n) const;
  // bytes [off, off+n) of a block-stride region: `block` bytes every `stride` (block 0: contiguous)
  void scatter(uint64_t base, uint64_t block, uint64_t stride, uint64_t off, const uint8_t* p, uint64_t n);
  void gather(uint64_t base, uint64_t block, uint64_t stride, uint64_t off, uint8_t* p, uint64_t n) const;
  uint32_t word(uint64_t a) const { uint32_t w; read(a, reinterpret_cast<uint8_t*>(&w), 4); return w; }
 private:
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

class Cluster;

struct Card {
  int id = 0;
  bool present = true;
  Memory mem;
  std::vector<Port> ports;
  std::vector<int> route;  // dst -> port, -1 local, -2 none
  // engine
  std::deque<Packet> inject, eject;
  std::vector<std::deque<Packet>> ctrl_out;         // dst -> single-packet messages
  std::vector<std::deque<std::unique_ptr<OutMsg>>> bulk;  // dst -> streams
  int rr_dst = 0;
  std::unordered_map<uint32_t, Op> ops;
  uint32_t next_op = 1;
  std::vector<RxStream> rxs;  // per source
  std::vector<Event> events;
  std::vector<int> rr_out;  // round-robin pointer per router output
};

class Cluster {
 public:
  Params prm;
  std::vector<Card> cards;
  std::vector<Channel> channels;
  int64_t now = 0;
  std::function<void(int card, const Event&)> on_event;
  uint64_t overflow_checks = 0, delivered_packets = 0;
  std::vector<char> local;  // cards simulated by this process (MPI ranks); empty: all
  bool is_local(int card) const { return local.empty() || local[card]; }

  // desc: the resolved text form written by spgen.runtime.rdma (docs/rdma.md); DescError
  explicit Cluster(const std::string& desc);
  explicit Cluster(const ClusterDesc& desc);
  uint64_t put(int card, int dst, uint64_t local, uint64_t remote, uint64_t len);
  // block-stride put (halo exchange): `count` blocks of `block` bytes, strides on each side
  uint64_t put_strided(int card, int dst, uint64_t local, uint64_t remote, uint64_t block, uint64_t count,
                       uint64_t local_stride, uint64_t remote_stride);
  uint64_t get(int card, int dst, uint64_t local, uint64_t remote, uint64_t len);
  // block-stride get: `count` blocks of `block` bytes from card dst, strides on each side
  uint64_t get_strided(int card, int dst, uint64_t local, uint64_t remote, uint64_t block, uint64_t count,
                       uint64_t local_stride, uint64_t remote_stride);
  /// Pipelined sum of the vectors at `src` along `chain` into the last card's `dst`
  /// (kInPlace: `src`): u32 (wrapping) or, with f32, IEEE-754 sums in chain order
  /// ((v0 + v1) + v2) + ... With `all` (allreduce) the last card sends the result back
  /// as it writes it (to chain[n-2], on to chain[n-3], ...), each card writing it at `dst`.
  uint64_t reduce(const std::vector<int>& chain, uint64_t src, uint64_t len, bool f32 = false, bool all = false,
                  uint64_t dst = kInPlace);
  const Op& op(uint64_t handle) const;
  bool wait(uint64_t handle, int64_t max_cycles);
  bool wait_all(const std::vector<uint64_t>& hs, int64_t max_cycles);
  void step();
  void run(int64_t cycles) { for (int64_t i = 0; i < cycles; ++i) step(); }
  bool quiet() const;  // nothing anywhere in flight
  double ns(int64_t cycles) const { return cycles * 1000.0 / prm.clock_mhz; }

 private:
  uint64_t issue(int card, int kind, int dst, uint64_t local, uint64_t remote, uint64_t len, Op** op);
  // a get: `count` bytes, or with `strided` count blocks of `block` bytes
  uint64_t get_request(int card, int dst, uint64_t local, uint64_t remote, bool strided, uint64_t block,
                       uint64_t count, uint64_t local_stride, uint64_t remote_stride);
  void link_rx(Card& c, Port& p);
  void send_ctrl(Card& c, Port& p, Channel& ch);
  void link_tx(Card& c, Port& p);
  void router(Card& c);
  void engine_out(Card& c);
  void engine_in(Card& c);
  bool engine_packet(Card& c, Packet& pk);
  int out_vc(Card& c, int in_port, int in_vc, int out_port);
  void finish_op(Card& c, uint32_t op, int code);
  void ctrl_msg(Card& c, int dst, int type, uint32_t op, uint32_t code, int64_t ready);
};

}  // namespace rdma
