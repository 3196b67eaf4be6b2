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
    PipelineResult r;
    auto fail = [&](int code, const std::string& what) {
        r.code = code;
        r.error = what;
        return r;
    };
    const size_t n = s.chain.size();
    if (n < 1) return fail(RTL_BAD_CARD, "a pipeline needs at least 1 card");
    std::set<int> seen;
    for (int c : s.chain) {
        if (!cl.present(c)) return fail(RTL_BAD_CARD, "card " + std::to_string(c) + " is not in the cluster");
        if (!seen.insert(c).second) return fail(RTL_BAD_CARD, "card " + std::to_string(c) + " is twice in the chain");
    }
    if (!s.records || !s.passes) return fail(-1, "records and passes must be positive");
    for (size_t k = 0; k < n; ++k) {
        const uint64_t st = cl.csr_read(s.chain[k], AFUSHELL_STREAM_STATUS);
        const uint64_t words = (st & AFUSHELL_STREAM_STATUS_RECORD_WORDS_MASK) >> AFUSHELL_STREAM_STATUS_RECORD_WORDS_SHIFT;
        if (words == 0)
            return fail(-1, "card " + std::to_string(s.chain[k]) +
                                ": no cascade with stream endpoints (build it from a core with --links N)");
        if (4 * words != s.record_bytes)
            return fail(-1, "card " + std::to_string(s.chain[k]) + " streams records of " + std::to_string(4 * words) +
                                " B, the pipeline was given " + std::to_string(s.record_bytes) + " B");
    }
    const uint64_t bytes = s.records * s.record_bytes;
    const uint64_t limit = s.max_cycles ? s.max_cycles : 200 * s.records + 1000000;
    Card& first = *cl.card(s.chain.front());
    Card& last = *cl.card(s.chain.back());

    // two host buffers in turn: a pass reads one, writes the other; whole pages, as the
    // runtime allocates them, since the TX engine reads whole 64-byte lines
    const uint64_t padded = (bytes + 4095) & ~uint64_t(4095);
    std::vector<uint8_t> buf[2] = {std::vector<uint8_t>(padded), std::vector<uint8_t>(padded)};
    std::memcpy(buf[0].data(), in, bytes);
    uint64_t ws[2][2], io[2][2];  // [card first/last][buffer]
    for (int b = 0; b < 2; ++b) {
        io[0][b] = first.host.add(buf[b].data(), padded, false, &ws[0][b]);
        io[1][b] = last.host.add(buf[b].data(), padded, false, &ws[1][b]);
    }
    const uint64_t bus0 = first.bus_errors() + last.bus_errors();
    auto release = [&]() {
        HostRegion h;
        for (int b = 0; b < 2; ++b) first.host.remove(ws[0][b], &h), last.host.remove(ws[1][b], &h);
    };

    // the stream binding: card k sends to k + 1 and receives from k - 1
    for (size_t k = 0; k < n; ++k) {
        const uint64_t next = uint64_t(k + 1 < n ? s.chain[k + 1] : s.chain[k]);
        const uint64_t prev = uint64_t(k ? s.chain[k - 1] : s.chain[k]);
        uint64_t cfg = next << AFUSHELL_STREAM_CFG_TX_DST_SHIFT | kSid << AFUSHELL_STREAM_CFG_TX_SID_SHIFT |
                       prev << AFUSHELL_STREAM_CFG_RX_PEER_SHIFT | kSid << AFUSHELL_STREAM_CFG_RX_SID_SHIFT;
        if (k > 0) cfg |= AFUSHELL_STREAM_CFG_IN_LINK_MASK;
        if (k + 1 < n) cfg |= AFUSHELL_STREAM_CFG_OUT_LINK_MASK;
        cl.card(s.chain[k])->mmio_write(AFUSHELL_STREAM_CFG, cfg);
    }
    r.cards.resize(n);
    std::mt19937_64 rng(s.seed);
    const uint64_t t0 = cl.now();
    for (uint64_t pass = 0; pass < s.passes; ++pass) {
        Feeder fd[2];
        for (int e = 0; e < 2; ++e) {
            Feeder& f = fd[e];
            f.tx = e == 0;
            f.card = f.tx ? &first : &last;
            f.base = f.tx ? AFUSHELL_TX_BASE : AFUSHELL_RX_BASE;
            f.addr = kHostWindow | io[e][f.tx ? pass % 2 : (pass + 1) % 2];
            for (uint64_t left = s.records; left;) {
                const uint64_t m = s.max_chunk ? std::min(left, 1 + rng() % s.max_chunk) : left;
                f.chunks.push_back(m * s.record_bytes);
                f.gaps.push_back(s.max_gap ? rng() % (s.max_gap + 1) : 0);
                left -= m;
            }
            f.done0 = done_count(cl.csr_read(s.chain[e ? n - 1 : 0], f.base + AFUSHELL_DMA_STATUS));
        }
        // words on the cables the stream takes from card k to card k + 1 (their first hop)
        auto link_words = [&](size_t k) -> uint64_t {
            const std::vector<int> way = cl.route(s.chain[k], s.chain[k + 1]);
            return way.empty() ? 0 : cl.channels()[size_t(way.front())].delivered_words;
        };
        std::vector<uint64_t> link0(n, 0);
        for (size_t k = 0; k + 1 < n; ++k) link0[k] = link_words(k);
        // downstream cards first, so they run when the records arrive; the first card armed
        for (size_t k = n; k-- > 0;) {
            Card& c = *cl.card(s.chain[k]);
            c.mmio_write(AFUSHELL_CORE_ELEMENTS, s.records);
            c.mmio_write(AFUSHELL_CORE_CTRL, k ? AFUSHELL_CORE_CTRL_START_MASK : AFUSHELL_CORE_CTRL_ARM_MASK);
        }
        const uint64_t p0 = cl.now();
        while (!fd[1].finished() || !fd[0].finished()) {
            if (cl.now() - p0 > limit) {
                std::ostringstream o;
                o << "pipeline pass " << pass << ": not done after " << limit << " cycles (TX chunks " << fd[0].completed
                  << "/" << fd[0].chunks.size() << " done, RX chunks " << fd[1].completed << "/" << fd[1].chunks.size()
                  << ")\n";
                for (size_t k = 0; k < n; ++k) {
                    const int c = s.chain[k];
                    o << "  card " << c << ": stream words out " << cl.csr_read(c, AFUSHELL_STREAM_TX_WORDS) << " in "
                      << cl.csr_read(c, AFUSHELL_STREAM_RX_WORDS) << ", send stalls "
                      << cl.csr_read(c, AFUSHELL_STREAM_TX_STALLS) << " cycles, status 0x" << std::hex
                      << cl.csr_read(c, AFUSHELL_STREAM_STATUS) << ", core status 0x"
                      << cl.csr_read(c, AFUSHELL_CORE_STATUS) << std::dec << "\n";
                }
                o << cl.dump();
                release();
                return fail(RTL_TIMEOUT, o.str());
            }
            cl.step();
            fd[0].step(cl.now());
            fd[1].step(cl.now());
        }
        // the pass's figures and errors, through the CSRs
        for (size_t k = 0; k < n; ++k) {
            const int c = s.chain[k];
            PipelineCardStats& st = r.cards[k];
            st.in_total += cl.csr_read(c, AFUSHELL_CORE_IN_TOTAL_CYCLES);
            st.in_moved += cl.csr_read(c, AFUSHELL_CORE_IN_MOVED_CYCLES);
            st.out_total += cl.csr_read(c, AFUSHELL_CORE_OUT_TOTAL_CYCLES);
            st.out_moved += cl.csr_read(c, AFUSHELL_CORE_OUT_MOVED_CYCLES);
            const uint64_t sst = cl.csr_read(c, AFUSHELL_STREAM_STATUS);
            if (sst & (AFUSHELL_STREAM_STATUS_RX_OVERFLOW_MASK | AFUSHELL_STREAM_STATUS_RX_MISROUTED_MASK)) {
                release();
                return fail(-1, "card " + std::to_string(c) + ": stream error (STREAM_STATUS 0x" +
                                    std::to_string(sst) + ": a word without credit or with another stream id)");
            }
            if (k + 1 < n) st.link_words += link_words(k) - link0[k];
        }
        if (first.bus_errors() + last.bus_errors() != bus0) {
            release();
            return fail(-1, "pipeline pass " + std::to_string(pass) + ": a DMA access outside the host buffers");
        }
        const uint64_t txe = cl.csr_read(s.chain.front(), AFUSHELL_TX_ERROR), rxe = cl.csr_read(s.chain.back(), AFUSHELL_RX_ERROR);
        if ((txe | rxe) & AFUSHELL_DMA_ERROR_CODE_MASK) {
            release();
            return fail(-1, "pipeline pass " + std::to_string(pass) + ": DMA error, TX code " +
                                std::to_string(txe & AFUSHELL_DMA_ERROR_CODE_MASK) + " on card " +
                                std::to_string(s.chain.front()) + ", RX code " +
                                std::to_string(rxe & AFUSHELL_DMA_ERROR_CODE_MASK) + " on card " +
                                std::to_string(s.chain.back()) + " (docs/shell.md, ERROR codes)");
        }
    }
    for (size_t k = 0; k < n; ++k) {
        const int c = s.chain[k];
        r.cards[k].tx_words = cl.csr_read(c, AFUSHELL_STREAM_TX_WORDS);
        r.cards[k].rx_words = cl.csr_read(c, AFUSHELL_STREAM_RX_WORDS);
        r.cards[k].tx_stalls = cl.csr_read(c, AFUSHELL_STREAM_TX_STALLS);
    }
    r.cycles = cl.now() - t0;
    std::memcpy(out, buf[s.passes % 2].data(), bytes);
    release();
    return r;
}

}  // namespace spgsim
