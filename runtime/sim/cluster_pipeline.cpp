// Pipeline of cascades across cards: the host side (DMA descriptors, run control, the
// stream binding) through each card's CSRs, on the cluster clock.
#include "cluster_pipeline.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <sstream>

#include "afushell_csr.h"

namespace spgsim {

namespace {
constexpr uint64_t kHostWindow = 0x8000000000000000ull;  // DMA address of host memory (docs/shell.md)
constexpr uint64_t kSid = 1;                              // every card receives one stream, id 1

uint64_t done_count(uint64_t status) {
    return (status & AFUSHELL_DMA_STATUS_DONE_COUNT_MASK) >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT;
}

// One DMA engine fed by the host: descriptors of the chunks of one pass, each pushed
// when the previous one completed and its random gap passed (with one chunk, at once).
struct Feeder {
    Card* card = nullptr;
    uint32_t base = 0;                 // AFUSHELL_TX_BASE or AFUSHELL_RX_BASE
    bool tx = false;
    uint64_t addr = 0;                 // DMA address of the pass's buffer
    std::vector<uint64_t> chunks;      // bytes
    std::vector<uint64_t> gaps;        // cycles before pushing chunk i (i > 0)
    uint64_t done0 = 0, pushed = 0, completed = 0, offset = 0, ready_at = 0, read_id = 0;
    bool reading = false;

    bool finished() const { return completed == chunks.size(); }
    void push(uint64_t now) {
        const uint64_t n = chunks[pushed];
        uint64_t ctrl = AFUSHELL_DMA_DESC_CTRL_GO_MASK;
        if (pushed == 0) ctrl |= AFUSHELL_DMA_DESC_CTRL_SOP_MASK;
        if (pushed + 1 == chunks.size()) ctrl |= AFUSHELL_DMA_DESC_CTRL_EOP_MASK;
        card->mmio_write(base + AFUSHELL_DMA_DESC_SRC, tx ? addr + offset : 0);
        card->mmio_write(base + AFUSHELL_DMA_DESC_DST, tx ? 0 : addr + offset);
        card->mmio_write(base + AFUSHELL_DMA_DESC_LEN, n);
        card->mmio_write(base + AFUSHELL_DMA_DESC_STRIDE, 0);
        card->mmio_write(base + AFUSHELL_DMA_DESC_NEXT, 0);
        card->mmio_write(base + AFUSHELL_DMA_DESC_CTRL, ctrl);
        offset += n;
        ++pushed;
        (void)now;
    }
    // One host step: poll the engine's DONE_COUNT, push the next chunk when it is due.
    void step(uint64_t now) {
        if (finished()) return;
        if (pushed < chunks.size() && pushed == completed && now >= ready_at) push(now);
        uint64_t v = 0;
        if (reading && card->read_result(read_id, &v)) {
            reading = false;
            const uint64_t c = std::min<uint64_t>(done_count(v) - done0, pushed);
            if (c > completed) {
                completed = c;
                if (pushed < chunks.size()) ready_at = now + gaps[pushed];
            }
        }
        if (!reading && completed < pushed) {
            read_id = card->post_read(base + AFUSHELL_DMA_STATUS);
            reading = true;
        }
    }
};
}  // namespace

PipelineResult run_pipeline(RtlCluster& cl, const PipelineSpec& s, const void* in, void* out) {
    return run_pipelines(cl, {s}, {in}, {out});
}

namespace {
// One chain's host side: its buffers (two in turn: a pass reads one, writes the other) and
// the DMA feeders of its current pass.
struct Chain {
    const PipelineSpec* s = nullptr;
    Card* first = nullptr;
    Card* last = nullptr;
    uint64_t in_bytes = 0, out_bytes = 0, padded = 0;
    std::vector<uint8_t> buf[2];
    uint64_t ws[2][2] = {}, io[2][2] = {};  // [card first/last][buffer]
    uint64_t bus0 = 0;
    Feeder fd[2];
    std::vector<uint64_t> link0;
    bool registered = false;
    void release() {
        if (!registered) return;
        HostRegion h;
        for (int b = 0; b < 2; ++b) first->host.remove(ws[0][b], &h), last->host.remove(ws[1][b], &h);
        registered = false;
    }
};
}  // namespace

PipelineResult run_pipelines(RtlCluster& cl, const std::vector<PipelineSpec>& specs,
                             const std::vector<const void*>& in, const std::vector<void*>& out) {
    PipelineResult r;
    std::vector<Chain> ch(specs.size());
    auto fail = [&](int code, const std::string& what) {
        for (Chain& c : ch) c.release();
        r.code = code;
        r.error = what;
        return r;
    };
    if (specs.empty() || in.size() != specs.size() || out.size() != specs.size())
        return fail(-1, "run_pipelines: one input and one output per chain");
    const PipelineSpec& s0 = specs.front();
    std::set<int> seen;
    for (const PipelineSpec& s : specs) {
        const size_t n = s.chain.size();
        if (n < 1) return fail(RTL_BAD_CARD, "a pipeline needs at least 1 card");
        for (int c : s.chain) {
            if (!cl.present(c)) return fail(RTL_BAD_CARD, "card " + std::to_string(c) + " is not in the cluster");
            if (!seen.insert(c).second) return fail(RTL_BAD_CARD, "card " + std::to_string(c) + " is twice in the chain");
        }
        if (!s.records || !s.passes) return fail(-1, "records and passes must be positive");
        if (s.passes != s0.passes) return fail(-1, "chains run together: give every chain the same passes");
        if ((n > 1 || s.passes > 1) && s.out_record_bytes && s.out_record_bytes != s.record_bytes)
            return fail(-1, "a chain of several cards, or of several passes, takes records of one size in and out");
        for (size_t k = 0; k < n; ++k) {
            const int c = s.chain[k];
            const uint64_t info = cl.csr_read(c, AFUSHELL_SHELL_INFO);
            const uint64_t iw = (info & AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_MASK) >> AFUSHELL_SHELL_INFO_IN_RECORD_WORDS_SHIFT;
            const uint64_t ow = (info & AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_MASK) >> AFUSHELL_SHELL_INFO_OUT_RECORD_WORDS_SHIFT;
            if (n > 1) {
                const uint64_t st = cl.csr_read(c, AFUSHELL_STREAM_STATUS);
                if ((st & AFUSHELL_STREAM_STATUS_RECORD_WORDS_MASK) == 0)
                    return fail(-1, "card " + std::to_string(c) +
                                        ": no cascade with stream endpoints (build it from a core with --links N)");
            }
            const uint64_t want_in = s.record_bytes, want_out = n == 1 && s.out_record_bytes ? s.out_record_bytes : s.record_bytes;
            if (4 * ow != want_out || (k == 0 && 4 * iw != want_in)) {
                auto sizes = [](uint64_t a, uint64_t b) {
                    return a == b ? std::to_string(a) + " B" : std::to_string(a) + " B in, " + std::to_string(b) + " B out";
                };
                return fail(-1, "card " + std::to_string(c) + " streams records of " + sizes(4 * iw, 4 * ow) +
                                    ", the pipeline was given " + sizes(want_in, want_out));
            }
            // the endpoints a chain needs must not carry a branch stream of the cluster file
            const uint64_t b = cl.branch_cfg(c);
            if (k > 0 && (b & AFUSHELL_STREAM_CFG_IN_BRCH_MASK))
                return fail(-1, "card " + std::to_string(c) + ": its stream endpoint receives a branch stream (the cluster "
                                    "file's \"branches\"), so its cascade cannot take another card's records");
            if (k + 1 < n && (b & AFUSHELL_STREAM_CFG_OUT_BRCH_MASK))
                return fail(-1, "card " + std::to_string(c) + ": its stream endpoint sends a branch stream (the cluster "
                                    "file's \"branches\"), so its cascade's output cannot go to another card");
        }
    }
    const uint64_t limit = s0.max_cycles ? s0.max_cycles : 200 * s0.records + 1000000;
    for (size_t i = 0; i < specs.size(); ++i) {
        const PipelineSpec& s = specs[i];
        Chain& c = ch[i];
        c.s = &s;
        c.first = cl.card(s.chain.front());
        c.last = cl.card(s.chain.back());
        c.in_bytes = s.records * s.record_bytes;
        c.out_bytes = s.records * (s.out_record_bytes ? s.out_record_bytes : s.record_bytes);
        // whole pages, as the runtime allocates them, since the TX engine reads whole 64-byte lines
        c.padded = (std::max(c.in_bytes, c.out_bytes) + 4095) & ~uint64_t(4095);
        for (int b = 0; b < 2; ++b) c.buf[b].assign(c.padded, 0);
        std::memcpy(c.buf[0].data(), in[i], c.in_bytes);
        for (int b = 0; b < 2; ++b) {
            c.io[0][b] = c.first->host.add(c.buf[b].data(), c.padded, false, &c.ws[0][b]);
            c.io[1][b] = c.last->host.add(c.buf[b].data(), c.padded, false, &c.ws[1][b]);
        }
        c.registered = true;
        c.bus0 = c.first->bus_errors() + c.last->bus_errors();
        // the stream binding: card k sends to k + 1 and receives from k - 1, beside the
        // branch streams of the cluster file
        const size_t n = s.chain.size();
        for (size_t k = 0; k < n; ++k) {
            const uint64_t next = uint64_t(k + 1 < n ? s.chain[k + 1] : s.chain[k]);
            const uint64_t prev = uint64_t(k ? s.chain[k - 1] : s.chain[k]);
            const uint64_t b = cl.branch_cfg(s.chain[k]);
            const uint64_t tx_mask = AFUSHELL_STREAM_CFG_TX_DST_MASK | AFUSHELL_STREAM_CFG_TX_SID_MASK;
            const uint64_t rx_mask = AFUSHELL_STREAM_CFG_RX_PEER_MASK | AFUSHELL_STREAM_CFG_RX_SID_MASK;
            uint64_t cfg = b;
            if (!(b & AFUSHELL_STREAM_CFG_OUT_BRCH_MASK))
                cfg |= (next << AFUSHELL_STREAM_CFG_TX_DST_SHIFT | kSid << AFUSHELL_STREAM_CFG_TX_SID_SHIFT) & tx_mask;
            if (!(b & AFUSHELL_STREAM_CFG_IN_BRCH_MASK))
                cfg |= (prev << AFUSHELL_STREAM_CFG_RX_PEER_SHIFT | kSid << AFUSHELL_STREAM_CFG_RX_SID_SHIFT) & rx_mask;
            if (k > 0) cfg |= AFUSHELL_STREAM_CFG_IN_LINK_MASK;
            if (k + 1 < n) cfg |= AFUSHELL_STREAM_CFG_OUT_LINK_MASK;
            cl.card(s.chain[k])->mmio_write(AFUSHELL_STREAM_CFG, cfg);
        }
    }
    for (const PipelineSpec& s : specs) r.cards.resize(r.cards.size() + s.chain.size());
    std::mt19937_64 rng(s0.seed);
    const uint64_t t0 = cl.now();
    // words on the cables the stream takes from card k to card k + 1 (their first hop)
    auto link_words = [&](const PipelineSpec& s, size_t k) -> uint64_t {
        const std::vector<int> way = cl.route(s.chain[k], s.chain[k + 1]);
        return way.empty() ? 0 : cl.channels()[size_t(way.front())].delivered_words;
    };
    for (uint64_t pass = 0; pass < s0.passes; ++pass) {
        for (Chain& c : ch) {
            const PipelineSpec& s = *c.s;
            const size_t n = s.chain.size();
            for (int e = 0; e < 2; ++e) {
                Feeder& f = c.fd[e];
                f = Feeder{};
                f.tx = e == 0;
                f.card = f.tx ? c.first : c.last;
                f.base = f.tx ? AFUSHELL_TX_BASE : AFUSHELL_RX_BASE;
                f.addr = kHostWindow | c.io[e][f.tx ? pass % 2 : (pass + 1) % 2];
                const uint64_t rec = f.tx ? s.record_bytes : (s.out_record_bytes ? s.out_record_bytes : s.record_bytes);
                for (uint64_t left = s.records; left;) {
                    const uint64_t m = s0.max_chunk ? std::min(left, 1 + rng() % s0.max_chunk) : left;
                    f.chunks.push_back(m * rec);
                    f.gaps.push_back(s0.max_gap ? rng() % (s0.max_gap + 1) : 0);
                    left -= m;
                }
                f.done0 = done_count(cl.csr_read(s.chain[e ? n - 1 : 0], f.base + AFUSHELL_DMA_STATUS));
            }
            c.link0.assign(n, 0);
            for (size_t k = 0; k + 1 < n; ++k) c.link0[k] = link_words(s, k);
        }
        // downstream cards first, so they run when the records arrive; each first card armed
        for (Chain& c : ch)
            for (size_t k = c.s->chain.size(); k-- > 0;) {
                Card& card = *cl.card(c.s->chain[k]);
                card.mmio_write(AFUSHELL_CORE_ELEMENTS, c.s->records);
                card.mmio_write(AFUSHELL_CORE_CTRL, k ? AFUSHELL_CORE_CTRL_START_MASK : AFUSHELL_CORE_CTRL_ARM_MASK);
            }
        const uint64_t p0 = cl.now();
        auto finished = [&] {
            for (Chain& c : ch)
                if (!c.fd[0].finished() || !c.fd[1].finished()) return false;
            return true;
        };
        while (!finished()) {
            if (cl.now() - p0 > limit) {
                std::ostringstream o;
                o << "pipeline pass " << pass << ": not done after " << limit << " cycles\n";
                for (Chain& c : ch) {
                    o << "  chain from card " << c.s->chain.front() << ": TX chunks " << c.fd[0].completed << "/"
                      << c.fd[0].chunks.size() << " done, RX chunks " << c.fd[1].completed << "/" << c.fd[1].chunks.size()
                      << "\n";
                    for (int k : c.s->chain)
                        o << "  card " << k << ": stream words out " << cl.csr_read(k, AFUSHELL_STREAM_TX_WORDS) << " in "
                          << cl.csr_read(k, AFUSHELL_STREAM_RX_WORDS) << ", send stalls "
                          << cl.csr_read(k, AFUSHELL_STREAM_TX_STALLS) << " cycles, cfg 0x" << std::hex
                          << cl.csr_read(k, AFUSHELL_STREAM_CFG) << ", status 0x" << cl.csr_read(k, AFUSHELL_STREAM_STATUS)
                          << ", core status 0x" << cl.csr_read(k, AFUSHELL_CORE_STATUS) << std::dec << "\n";
                }
                o << cl.dump();
                return fail(RTL_TIMEOUT, o.str());
            }
            cl.step();
            for (Chain& c : ch) c.fd[0].step(cl.now()), c.fd[1].step(cl.now());
        }
        // the pass's figures and errors, through the CSRs
        size_t at = 0;
        for (Chain& c : ch) {
            const PipelineSpec& s = *c.s;
            const size_t n = s.chain.size();
            for (size_t k = 0; k < n; ++k) {
                const int id = s.chain[k];
                PipelineCardStats& st = r.cards[at + k];
                st.in_total += cl.csr_read(id, AFUSHELL_CORE_IN_TOTAL_CYCLES);
                st.in_moved += cl.csr_read(id, AFUSHELL_CORE_IN_MOVED_CYCLES);
                st.in_first += cl.csr_read(id, AFUSHELL_CORE_IN_FIRST_CYCLES);
                st.out_total += cl.csr_read(id, AFUSHELL_CORE_OUT_TOTAL_CYCLES);
                st.out_moved += cl.csr_read(id, AFUSHELL_CORE_OUT_MOVED_CYCLES);
                const uint64_t sst = cl.csr_read(id, AFUSHELL_STREAM_STATUS);
                if (sst & (AFUSHELL_STREAM_STATUS_RX_OVERFLOW_MASK | AFUSHELL_STREAM_STATUS_RX_MISROUTED_MASK))
                    return fail(-1, "card " + std::to_string(id) + ": stream error (STREAM_STATUS 0x" +
                                        std::to_string(sst) + ": a word without credit or with another stream id)");
                if (k + 1 < n) st.link_words += link_words(s, k) - c.link0[k];
            }
            at += n;
            if (c.first->bus_errors() + c.last->bus_errors() != c.bus0)
                return fail(-1, "pipeline pass " + std::to_string(pass) + ": a DMA access outside the host buffers");
            const uint64_t txe = cl.csr_read(s.chain.front(), AFUSHELL_TX_ERROR);
            const uint64_t rxe = cl.csr_read(s.chain.back(), AFUSHELL_RX_ERROR);
            if ((txe | rxe) & AFUSHELL_DMA_ERROR_CODE_MASK)
                return fail(-1, "pipeline pass " + std::to_string(pass) + ": DMA error, TX code " +
                                    std::to_string(txe & AFUSHELL_DMA_ERROR_CODE_MASK) + " on card " +
                                    std::to_string(s.chain.front()) + ", RX code " +
                                    std::to_string(rxe & AFUSHELL_DMA_ERROR_CODE_MASK) + " on card " +
                                    std::to_string(s.chain.back()) + " (docs/shell.md, ERROR codes)");
        }
    }
    size_t at = 0;
    for (Chain& c : ch)
        for (int id : c.s->chain) {
            r.cards[at].tx_words = cl.csr_read(id, AFUSHELL_STREAM_TX_WORDS);
            r.cards[at].rx_words = cl.csr_read(id, AFUSHELL_STREAM_RX_WORDS);
            r.cards[at].tx_stalls = cl.csr_read(id, AFUSHELL_STREAM_TX_STALLS);
            ++at;
        }
    r.cycles = cl.now() - t0;
    for (size_t i = 0; i < ch.size(); ++i) std::memcpy(out[i], ch[i].buf[s0.passes % 2].data(), ch[i].out_bytes);
    for (Chain& c : ch) c.release();
    return r;
}

}  // namespace spgsim
