// Pipelined reductions along a chain of RTL cards: the host side (REDUCE_* CSRs).
#include "cluster_reduce.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <sstream>

#include "afushell_csr.h"

namespace spgsim {

namespace {
uint64_t field(uint64_t v, uint64_t mask, int shift) { return (v & mask) >> shift; }

// The links the sums take from each card of the chain to the next (an allreduce's result:
// back from each card to the one before it), with their faults: a hop whose cable loses
// everything (or is down) is where a reduction stands still.
std::string where_stuck(RtlCluster& cl, const Reduction& r) {
    std::ostringstream o;
    const double ns_per_cycle = 1000.0 / cl.clock_mhz(), now_ns = double(cl.now()) * ns_per_cycle;
    const size_t n = r.spec.chain.size();
    for (size_t h = 0; h < (r.spec.all ? 2 : 1) * (n - 1); ++h) {
        const bool sums = h + 1 < n;
        const size_t k = sums ? h : h - (n - 1);
        const int a = r.spec.chain[sums ? k : k + 1], b = r.spec.chain[sums ? k + 1 : k];
        for (int ch : cl.route(a, b)) {
            const RtlCluster::Channel& c = cl.channels()[size_t(ch)];
            bool down = false;
            for (const auto& iv : c.fault.down) down = down || (iv.first <= now_ns && now_ns < iv.second);
            if (!down && (c.packets == 0 || c.dropped + c.corrupted < c.packets)) continue;
            o << "  stuck: the " << (sums ? "sums" : "result") << " from card " << a << " to card " << b << " cross link " << c.link << " (to card "
              << c.to_card << " port " << c.to_port << "), " << (down ? "down now" : "losing every packet") << ": "
              << c.dropped << " of " << c.packets << " packets dropped\n";
        }
    }
    return o.str();
}

// Card c's completion record line, made and registered with the card's host memory on its
// first reduction.
RtlCluster::ReduceRecord& record(RtlCluster& cl, int c) {
    auto it = cl.reduce_records.find(c);
    if (it != cl.reduce_records.end()) return it->second;
    RtlCluster::ReduceRecord& r = cl.reduce_records[c];
    r.iova = cl.card(c)->host.add(reinterpret_cast<uint8_t*>(r.w), sizeof r.w, false, &r.wsid) |
             (1ull << AFUSHELL_HOST_ADDR_BIT);
    return r;
}

void finish(RtlCluster& cl, Reduction& r, int code, const std::string& error) {
    r.code = code;
    r.error = error;
    r.done = cl.now();
}
}  // namespace

int check_reduce(const RtlCluster& cl, const ReduceSpec& s, std::string* why) {
    if (s.chain.size() < 2) {
        *why = "a reduction chain needs at least 2 cards";
        return RTL_BAD_CARD;
    }
    std::set<int> seen;
    for (int c : s.chain) {
        if (!cl.member(c)) {
            *why = "card " + std::to_string(c) + " is not in the cluster";
            return RTL_BAD_CARD;
        }
        if (!seen.insert(c).second) {
            *why = "card " + std::to_string(c) + " is twice in the chain";
            return RTL_BAD_CARD;
        }
    }
    if (s.len == 0 || s.len % 4 || s.src % 4 || s.dst % 4) {
        *why = "addresses and the size must be multiples of 4 bytes, the size positive";
        return RTL_ALIGN;
    }
    const uint64_t mem = cl.mem_bytes();
    if (s.src > mem || s.len > mem - s.src || s.dst > mem || s.len > mem - s.dst) {
        *why = "the vector or the result runs past the end of the card memory";
        return RTL_LOCAL_RANGE;
    }
    return RTL_OK;
}

void program_reduce(RtlCluster& cl, const ReduceSpec& s, size_t k, uint64_t sid) {
    const size_t n = s.chain.size();
    Card& c = *cl.card(s.chain[k]);
    // the record line is the host's own memory: cleared before the card may write it again
    RtlCluster::ReduceRecord& rec = record(cl, s.chain[k]);
    std::fill(std::begin(rec.w), std::end(rec.w), 0);
    rec.seen = 0;
    uint64_t cfg = sid << AFUSHELL_REDUCE_CFG_SID_SHIFT;
    // the sums go to NEXT, an allreduce's result back to PREV (the first card's PREV and the
    // last card's NEXT are not used)
    cfg |= uint64_t(s.chain[(k + 1) % n]) << AFUSHELL_REDUCE_CFG_NEXT_SHIFT;
    cfg |= uint64_t(s.chain[(k + n - 1) % n]) << AFUSHELL_REDUCE_CFG_PREV_SHIFT;
    if (k + 1 == n) cfg |= AFUSHELL_REDUCE_CFG_LAST_MASK;
    if (k == 0) cfg |= AFUSHELL_REDUCE_CFG_FIRST_MASK;
    if (s.f32) cfg |= AFUSHELL_REDUCE_CFG_F32_MASK;
    if (s.all) cfg |= AFUSHELL_REDUCE_CFG_ALL_MASK;
    c.mmio_write(AFUSHELL_REDUCE_CFG, cfg);
    c.mmio_write(AFUSHELL_REDUCE_SRC, s.src);
    c.mmio_write(AFUSHELL_REDUCE_DST, s.dst);
    c.mmio_write(AFUSHELL_REDUCE_LEN, s.len);
    c.mmio_write(AFUSHELL_REDUCE_CPL, rec.iova);
    c.mmio_write(AFUSHELL_REDUCE_CTRL, AFUSHELL_REDUCE_CTRL_START_MASK);
}

uint64_t bind_rest(RtlCluster& cl, const ReduceSpec& s, uint64_t sid) {
    // every card but the first, all posted writes without a round trip between them: the
    // first card's START is issued once it reaches its card no earlier than these (should a
    // card's earlier MMIO traffic hold its writes back, the first waits for them), and its
    // first sums need a hop to arrive, so every card is bound before they do
    uint64_t bound = 0;
    for (size_t k = s.chain.size(); k-- > 1;) {
        if (Card* c = cl.card(s.chain[k])) {
            program_reduce(cl, s, k, sid);
            bound = std::max(bound, c->host_arrival());
        }
    }
    return bound;
}

bool first_may_start(const RtlCluster& cl, Card& first, uint64_t bound) {
    const uint64_t latency = uint64_t(first.params().cycles(first.params().mmio_write_latency_ns));
    return std::max(first.host_now(), cl.now()) + latency >= bound;
}

uint64_t reduce_deadline(const RtlCluster& cl, const ReduceSpec& s) {
    // the unit moves a line a cycle; give faults, crossing traffic and a memory shared
    // with other masters room: 4 cycles per word, as the word unit's budget was
    return cl.now() + cl.op_timeout_cycles() + (s.all ? 8 : 4) * (s.len / 4) + 100000;
}

Reduction start_reduce(RtlCluster& cl, const ReduceSpec& s) {
    Reduction r;
    r.spec = s;
    r.issued = cl.now();
    const size_t n = s.chain.size();
    std::string why;
    if (const int code = check_reduce(cl, s, &why)) {
        finish(cl, r, code, why);
        return r;
    }
    // a new reduction number, the same on every card: the host's next (it numbers every
    // reduction it starts), so words of an aborted reduction still in flight are not taken
    // for this one's; kept by the host, it costs no read of the cards
    const uint64_t sid_mask = AFUSHELL_REDUCE_CFG_SID_MASK >> AFUSHELL_REDUCE_CFG_SID_SHIFT;
    cl.reduce_sid = (cl.reduce_sid + 1) & sid_mask;
    if (cl.reduce_sid == 0) cl.reduce_sid = 1;
    const uint64_t sid = cl.reduce_sid;
    r.sid = sid;
    const uint64_t bound = bind_rest(cl, s, sid);
    Card& first = *cl.card(s.chain[0]);
    while (!first_may_start(cl, first, bound)) cl.step();
    program_reduce(cl, s, 0, sid);
    r.deadline = reduce_deadline(cl, s);
    return r;
}

bool reduce_record_seen(RtlCluster& cl, int c, uint64_t sid, uint64_t* status, uint64_t* stalls) {
    RtlCluster::ReduceRecord& r = record(cl, c);
    if (!(r.w[0] & AFUSHELL_REDUCE_STATUS_DONE_MASK) || r.w[2] != sid) return false;
    if (!r.seen) r.seen = cl.now();
    const Params& p = cl.card(c)->params();
    if (cl.now() < r.seen + uint64_t(p.cycles(p.host_write_latency_ns))) return false;
    *status = r.w[0];
    *stalls = r.w[1];
    return true;
}

int poll_reduce(RtlCluster& cl, Reduction& r) {
    if (r.code != RTL_PENDING) return r.code;
    const size_t n = r.spec.chain.size();
    // every card's completion record, in host memory: the poll that finds them all ends the
    // reduction; one that does not lets the cards run a cycle
    std::vector<uint64_t> st(n), stalls(n);
    std::vector<char> seen(n);
    bool all_done = true;
    for (size_t k = 0; k < n; ++k) {
        seen[k] = reduce_record_seen(cl, r.spec.chain[k], r.sid, &st[k], &stalls[k]);
        all_done = all_done && seen[k];
    }
    for (size_t k = 0; k < n; ++k) {
        if (!seen[k]) continue;
        const int c = r.spec.chain[k];
        const uint64_t code = field(st[k], AFUSHELL_REDUCE_STATUS_CODE_MASK, AFUSHELL_REDUCE_STATUS_CODE_SHIFT);
        if ((st[k] & AFUSHELL_REDUCE_STATUS_DONE_MASK) && code) {
            for (int x : r.spec.chain) cl.card(x)->mmio_write(AFUSHELL_REDUCE_CTRL, AFUSHELL_REDUCE_CTRL_ABORT_MASK);
            finish(cl, r, int(code), "card " + std::to_string(c) + " refused the reduction (REDUCE_STATUS.CODE " +
                                         std::to_string(code) + ")");
            return r.code;
        }
        // (RX_MISROUTED only says an aborted reduction's words were dropped)
        if (st[k] & AFUSHELL_REDUCE_STATUS_RX_OVERFLOW_MASK) {
            for (int x : r.spec.chain) cl.card(x)->mmio_write(AFUSHELL_REDUCE_CTRL, AFUSHELL_REDUCE_CTRL_ABORT_MASK);
            finish(cl, r, -1, "card " + std::to_string(c) + ": a partial sum arrived without credit");
            return r.code;
        }
    }
    if (!all_done) {
        cl.step();
        return RTL_PENDING;
    }
    r.done = cl.now();
    r.cards.resize(n);
    for (size_t k = 0; k < n; ++k) {
        r.cards[k].words = field(st[k], AFUSHELL_REDUCE_STATUS_WORDS_MASK, AFUSHELL_REDUCE_STATUS_WORDS_SHIFT);
        r.cards[k].in_stalls = field(stalls[k], AFUSHELL_REDUCE_STALLS_IN_MASK, AFUSHELL_REDUCE_STALLS_IN_SHIFT);
        r.cards[k].out_stalls = field(stalls[k], AFUSHELL_REDUCE_STALLS_OUT_MASK, AFUSHELL_REDUCE_STALLS_OUT_SHIFT);
    }
    r.code = RTL_OK;
    return r.code;
}

int wait_reduce(RtlCluster& cl, Reduction& r, uint64_t max_cycles) {
    const uint64_t end = max_cycles ? cl.now() + max_cycles : r.deadline;
    while (poll_reduce(cl, r) == RTL_PENDING) {
        if (cl.now() < end) continue;  // each poll that finds the records incomplete runs a cycle
        if (max_cycles) return RTL_PENDING;
        std::ostringstream o;
        o << (r.spec.all ? "allreduction" : "reduction") << " over cards";
        for (int c : r.spec.chain) o << " " << c;
        o << ": not done after " << (cl.now() - r.issued) << " cycles\n";
        for (int c : r.spec.chain) {
            const uint64_t st = cl.csr_read(c, AFUSHELL_REDUCE_STATUS), stalls = cl.csr_read(c, AFUSHELL_REDUCE_STALLS);
            o << "  card " << c << ": reduction " << ((st & AFUSHELL_REDUCE_STATUS_BUSY_MASK) ? "busy" : "idle") << ", "
              << field(st, AFUSHELL_REDUCE_STATUS_WORDS_MASK, AFUSHELL_REDUCE_STATUS_WORDS_SHIFT) << " of "
              << (r.spec.all ? 2 : 1) * (r.spec.len / 4) << (r.spec.all ? " words (sums and result)" : " sums")
              << " passed on, waited "
              << field(stalls, AFUSHELL_REDUCE_STALLS_IN_MASK, AFUSHELL_REDUCE_STALLS_IN_SHIFT)
              << " cycles for the previous card and "
              << field(stalls, AFUSHELL_REDUCE_STALLS_OUT_MASK, AFUSHELL_REDUCE_STALLS_OUT_SHIFT)
              << " for credits\n";
        }
        o << where_stuck(cl, r) << cl.dump();
        for (int c : r.spec.chain) cl.card(c)->mmio_write(AFUSHELL_REDUCE_CTRL, AFUSHELL_REDUCE_CTRL_ABORT_MASK);
        finish(cl, r, RTL_TIMEOUT, o.str());
    }
    return r.code;
}

}  // namespace spgsim
