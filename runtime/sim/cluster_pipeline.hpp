// A pipeline of core cascades across the cards of an RTL cluster (as CIRCUS): the first
// card's TX DMA streams host records into its cascade, every card's cascade output goes
// over a link into the next card's cascade (stream endpoints, STREAM_* CSRs, credits end
// to end), and the last card's RX DMA writes the records back to host memory. The host
// side touches CSRs only, on the cluster clock, so runs repeat to the cycle.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cluster.hpp"

namespace spgsim {

struct PipelineSpec {
    std::vector<int> chain;        // cards in stream order (each once; one card: no link)
    uint64_t record_bytes = 0;     // bytes per record: the cascade's input = output record
    uint64_t out_record_bytes = 0; // a chain of one card: its output record if another (0: the same)
    uint64_t records = 0;          // records per pass
    uint64_t passes = 1;           // the output of a pass is the input of the next
    // Host-made back-pressure and gaps: with max_chunk > 0 the first card's TX and the
    // last card's RX get descriptors of 1..max_chunk records, each pushed 0..max_gap
    // cycles after the previous one completed (seeded), so the stream stops and starts
    // at both ends of the chain.
    uint64_t max_chunk = 0, max_gap = 0, seed = 1;
    uint64_t max_cycles = 0;       // per pass; 0: 200 cycles per record + 1,000,000
};

struct PipelineCardStats {
    uint64_t in_total = 0, in_moved = 0;    // CORE_IN_TOTAL/MOVED_CYCLES: at the first core's input
    uint64_t in_first = 0;                  // CORE_IN_FIRST_CYCLES: of in_total, before the first record
    uint64_t out_total = 0, out_moved = 0;  // at the last core's output
    uint64_t tx_words = 0, rx_words = 0;    // STREAM_TX/RX_WORDS: words into / out of the link
    uint64_t tx_stalls = 0;                 // STREAM_TX_STALLS: cycles the outgoing stream waited
    uint64_t link_words = 0;                // words on the cable to the next card (first hop, all packets)
};

struct PipelineResult {
    int code = 0;                            // 0 ok, else RTL_TIMEOUT / RTL_BAD_CARD / -1 (error)
    std::string error;                       // what went wrong, with a state dump on a timeout
    uint64_t cycles = 0;                     // cluster cycles of all passes, host calls included
    std::vector<PipelineCardStats> cards;    // per card of the chain, summed over the passes
};

/// Runs `spec.passes` passes of `in` (records * record_bytes bytes) through the chain;
/// the final pass's records land in `out` (same size).
PipelineResult run_pipeline(RtlCluster& cl, const PipelineSpec& spec, const void* in, void* out);

/// Several chains at once, on one clock (e.g. card A's core feeding card B's core by a
/// branch stream, each card a chain of one fed by its own host): every chain's records
/// in[i] through its cards, its last card's output into out[i]. The passes, chunks, gaps,
/// seed and cycle limit are the first spec's; the result's cards are every chain's in turn.
/// A card bound by the cluster file's "branches" keeps its branch stream: a chain that
/// needs the same direction of its stream endpoints is refused.
PipelineResult run_pipelines(RtlCluster& cl, const std::vector<PipelineSpec>& specs,
                             const std::vector<const void*>& in, const std::vector<void*>& out);

}  // namespace spgsim
