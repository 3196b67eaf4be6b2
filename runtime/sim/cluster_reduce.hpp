// Pipelined reductions along a chain of RTL cards (docs/rdma.md "Reductions"): each card's
// reduction unit (shell/rdma/rdma_reduce.v, REDUCE_* CSRs) adds its vector to the partial
// sums arriving from the previous card and sends the sums on; the last card writes the
// result to its memory; an allreduce streams the result back along the chain while the sums
// still flow, every card writing it (REDUCE_CFG.ALL). The host side, on the cluster clock, binds
// and starts the chain with posted writes alone (the first card's START reaching it no earlier
// than the others'), and waits on its own memory: each card writes a completion record (its
// REDUCE_STATUS and REDUCE_STALLS) to a line of host memory (REDUCE_CPL) when its part ends,
// so no MMIO read is needed to see the end.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.hpp"

namespace spgsim {

struct ReduceSpec {
    std::vector<int> chain;   // cards in summation order, each once, at least 2
    uint64_t src = 0;         // the vector's address on every card of the chain
    uint64_t dst = 0;         // the result's address on the last card, allreduce: every card's (may equal src)
    uint64_t len = 0;         // bytes, a positive multiple of 4
    bool f32 = false;         // false: u32 sums (wrap around); true: f32 sums in chain order
    bool all = false;         // allreduce: every card of the chain ends with the result at dst
};

struct ReduceCardStats {
    uint64_t words = 0;       // REDUCE_STATUS.WORDS: sums sent on (written, on the last card);
                              // allreduce: plus the result's words written or passed on
    uint64_t in_stalls = 0;   // REDUCE_STALLS.IN: cycles waiting for the previous card's sums
    uint64_t out_stalls = 0;  // REDUCE_STALLS.OUT: cycles waiting for credits (or memory)
};

/// A reduction under way: started by start_reduce(), advanced by the cluster's clock
/// (any step, another operation's wait included), finished by poll_reduce().
struct Reduction {
    ReduceSpec spec;
    int code = RTL_PENDING;   // RTL_* code once finished
    std::string error;        // what went wrong (a state dump on a timeout)
    uint64_t issued = 0, done = 0;  // cluster cycles: the host's call, completion seen by the host
    uint64_t deadline = 0;    // cycle after which a wait gives it up (TIMEOUT)
    uint64_t sid = 0;         // its reduction number (REDUCE_CFG.SID)
    std::vector<ReduceCardStats> cards;  // per card of the chain, when finished
};

/// The host-side checks of start_reduce (0 or an RTL_* code, what is wrong in *why).
int check_reduce(const RtlCluster& cl, const ReduceSpec& spec, std::string* why);
/// Clears chain[k]'s completion record and writes its REDUCE_CFG, SRC, DST, LEN, CPL and
/// CTRL.START, reduction number sid.
void program_reduce(RtlCluster& cl, const ReduceSpec& spec, size_t k, uint64_t sid);
/// The one-round-trip start, shared by the in-process cluster and the MPI ranks: programs
/// and starts chain[1..] (those the cluster has; absent: simulated by another rank) with posted
/// writes and returns the cycle the last of them reaches its card; the first card is
/// started, with posted writes too, once first_may_start(bound of all cards) holds.
uint64_t bind_rest(RtlCluster& cl, const ReduceSpec& spec, uint64_t sid);
/// Whether the first card's writes, issued now, reach it no earlier than cycle `bound`.
bool first_may_start(const RtlCluster& cl, Card& first, uint64_t bound);
/// The cycle after which a reduction started now is given up.
uint64_t reduce_deadline(const RtlCluster& cl, const ReduceSpec& spec);
/// Checks the request (BAD_CARD: a card twice, absent or not in the cluster, a chain of
/// fewer than 2; ALIGN; LOCAL_RANGE), then programs and starts every card of the chain.
/// On a refusal r.code is the error at once.
Reduction start_reduce(RtlCluster& cl, const ReduceSpec& spec);
/// Whether the host sees card c's completion record of reduction sid now: written, and
/// host_write_latency_ns past the cycle the host first found it; then *status and *stalls
/// are its REDUCE_STATUS and REDUCE_STALLS. Shared by the in-process cluster and the MPI ranks.
bool reduce_record_seen(RtlCluster& cl, int c, uint64_t sid, uint64_t* status, uint64_t* stalls);
/// Looks at the chain's completion records (running the cards a cycle when one is missing)
/// and finishes r when every card is done or one refused. Returns r.code.
int poll_reduce(RtlCluster& cl, Reduction& r);
/// Polls until r ends or max_cycles pass (0: until its deadline); on the deadline it
/// aborts every card of the chain and ends with RTL_TIMEOUT and a dump of the chain's
/// reduction state and the cluster's links.
int wait_reduce(RtlCluster& cl, Reduction& r, uint64_t max_cycles = 0);

}  // namespace spgsim
