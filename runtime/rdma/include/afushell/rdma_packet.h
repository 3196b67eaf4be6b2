// RDMA packet format generated from shell/rdma/rdma_packet.json by shell/rdma/gen_packet.py; do not edit.
#pragma once
#include <cstdint>

namespace rdma_packet {

constexpr int kMaxWords = 16;  // payload words of a full packet

struct Field { int lsb, width; };
constexpr Field kHdrDst{0, 6};  // destination card
constexpr Field kHdrSrc{6, 6};  // source card
constexpr Field kHdrType{12, 4};  // packet type (TYPES)
constexpr Field kHdrVc{16, 1};  // virtual channel
constexpr Field kHdrWords{17, 5};  // payload length: 0..16 words, or a bulk code (bulk)
constexpr Field kHdrSeq{22, 10};  // link sequence number (per hop, set by the link sender)

enum Type : uint8_t {
  T_CTRL = 0,  // link level: ACK/NAK and freed-slot counters, never routed
  T_PUT = 1,  // start of a put stream: op, remote addr, len (+ block, stride)
  T_GETRESP = 2,  // start of a get-response stream: op, initiator's local addr, len
  T_DATA = 3,  // stream data
  T_GETREQ = 4,  // single packet: op, remote addr, len, initiator's local addr (+ block, strides)
  T_DONE = 5,  // single packet: op completed at the target
  T_ERR = 6,  // single packet: op failed at the target (code)
  T_RED = 7,  // start of a reduction stream (C++ model)
  T_STREAM = 8,  // stream endpoint data: a control word (stream), then up to 15 data words, or with a bulk code 31..255 (wide endpoints: the payload's 16k words less the control word)
  T_CREDIT = 9,  // stream endpoint credits: a control word (stream: its SID), then the receive-buffer words freed (low 16 bits)
  T_STREAM2 = 10,  // STREAM for an endpoint on the card's second local port (an allreduce's result): the router ejects it there
  T_CREDIT2 = 11,  // CREDIT for an endpoint on the card's second local port
};

// first payload word of STREAM and CREDIT packets; stream ids 128..255 (bit 7) are the reductions' endpoint pair
constexpr Field kStreamSid{0, 8};  // stream id of the receiving endpoint (CREDIT: of the endpoint the credits are for)
constexpr Field kStreamLast{8, 1};  // STREAM: the packet's final data word ends a segment (the producer's last)

struct CtrlField { int word, lsb, width; };
constexpr CtrlField kCtrlAckSeq{1, 0, 10};  // next sequence number expected (cumulative ACK)
constexpr CtrlField kCtrlNak{1, 16, 1};  // resend from ACK_SEQ
constexpr CtrlField kCtrlFreed0{2, 0, 16};  // slots freed on VC 0 since reset (wraps)
constexpr CtrlField kCtrlFreed1{2, 16, 16};  // slots freed on VC 1 since reset (wraps)

constexpr uint32_t extract(uint32_t word, Field f) { return (word >> f.lsb) & ((1u << f.width) - 1u); }
constexpr uint32_t insert(uint32_t v, Field f) { return (v & ((1u << f.width) - 1u)) << f.lsb; }

// bulk packets: WORDS codes above max_payload_words are bulk packets of whole 64-byte lines, for wide datapaths (LANES > 1): code c carries (c - 15) * 16 words, 32..256 (128 B..1 KiB)
constexpr int kBulkUnit = 16;
constexpr int kMaxBulkWords = 256;
// payload words of a WORDS code, and the code of n words (n <= kMaxWords or whole bulk units)
constexpr uint32_t payload_words(uint32_t code) { return code <= 16u ? code : (code - 15u) * 16u; }
constexpr uint32_t words_code(uint32_t n) { return n <= 16u ? n : n / 16u + 15u; }

}  // namespace rdma_packet
