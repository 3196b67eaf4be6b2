// afushell distributed counting sort on cards with the scatter writer (docs/sort.md, "The
// scatter writer"): sort_on_cards sorts an array spread over the cards with every key moved
// by the cards, distributed_sort_on_cards spreads, sorts and gathers. spgen.sort runs this
// same sort_on_cards over a Python cluster. Included by afushell/sort.hpp, which holds the
// planning it uses.
#ifndef AFUSHELL_SORT_WRITER_HPP
#define AFUSHELL_SORT_WRITER_HPP

#include <afushell/sort.hpp>

#include <array>
#include <cstdio>
#include <thread>

namespace afushell {

namespace sort_detail {

// A program of the card's sequencer (SEQ_* registers, shell/rdma/afu/rdma_seq.v; docs/sort.md
// "The sequencer"): the register writes and polls the host would make, which the card runs
// from one SEQ_CTRL.START. Each word names its step, so a failed run says where it stopped.
class SeqProgram {
  public:
    enum Op : uint32_t { END = 0, WRITE = 1, WAIT = 2, CHECK = 3 };
    void write(uint32_t reg, uint64_t v) { add(WRITE, reg, 0, false, v); }
    // poll reg until its bit `bit` equals pol; a bit of `errors` set in the value read fails the run
    void wait(uint32_t reg, int bit, bool pol, uint64_t errors) { add(WAIT, reg, bit, pol, errors); }
    // fail the run unless ((reg >> shift) & mask) == expect
    void check(uint32_t reg, int shift, uint32_t mask, uint32_t expect) {
        add(CHECK, reg, shift, false, uint64_t(mask) << 32 | expect);
    }
    void end() { add(END, 0, 0, false, 0); }
    // what the following words do, for the report of a run that stops in them
    void step(std::string name) { step_ = std::move(name); }
    size_t size() const { return words_.size(); }
    // Writes the program into card c's sequencer through its open handle h (at the host time
    // of the card's thread, as every access of a run, so that the figures repeat): "" or why not.
    std::string load(afu_shell_handle h, int c) const {
        uint64_t info = 0, st = 0;
        afuShellReadRegAt(h, AFUSHELL_SEQ_STATUS, &st);
        afuShellReadRegAt(h, AFUSHELL_SEQ_INFO, &info);
        if (!(st & AFUSHELL_SEQ_STATUS_PRESENT_MASK))
            return "card " + std::to_string(c) + " has no sequencer (rebuild the cards with spgen build --loopback "
                   "--links N --sort-scatter)";
        if (words_.size() > (uint64_t(1) << (info & AFUSHELL_SEQ_INFO_DEPTH_BITS_MASK)))
            return "card " + std::to_string(c) + "'s sequencer holds " + std::to_string(1u << (info & 0xFF)) +
                   " words, the program has " + std::to_string(words_.size());
        afuShellWriteRegAt(h, AFUSHELL_SEQ_PROG_ADDR, 0);
        for (const auto &[ctrl, data] : words_) {
            afuShellWriteRegAt(h, AFUSHELL_SEQ_PROG_DATA, data);
            afuShellWriteRegAt(h, AFUSHELL_SEQ_PROG_CTRL, ctrl);
        }
        return "";
    }
    // Why a run that stopped with SEQ_STATUS st (and SEQ_FAIL_VALUE v) failed, "" if it ended.
    std::string why(uint64_t st, uint64_t v) const {
        const size_t pc = (st & AFUSHELL_SEQ_STATUS_PC_MASK) >> AFUSHELL_SEQ_STATUS_PC_SHIFT;
        if (st & AFUSHELL_SEQ_STATUS_DONE_MASK) return "";
        char hex[24];
        std::snprintf(hex, sizeof hex, "%#llx", (unsigned long long)v);
        const std::string at = pc < steps_.size() ? steps_[pc] : "word " + std::to_string(pc);
        return st & AFUSHELL_SEQ_STATUS_ABORTED_MASK ? "was aborted in " + at
               : st & AFUSHELL_SEQ_STATUS_FAILED_MASK ? "failed in " + at + " (read " + hex + ")"
                                                      : "did not finish: it waits in " + at;
    }

  private:
    void add(Op op, uint32_t reg, int bit, bool pol, uint64_t data) {
        const uint64_t ctrl = uint64_t(op) << AFUSHELL_SEQ_PROG_CTRL_OP_SHIFT |
                              uint64_t(bit) << AFUSHELL_SEQ_PROG_CTRL_BIT_SHIFT |
                              uint64_t(pol) << AFUSHELL_SEQ_PROG_CTRL_POL_SHIFT |
                              uint64_t(reg >> 3) << AFUSHELL_SEQ_PROG_CTRL_ADDR_SHIFT;
        words_.emplace_back(ctrl, data);
        steps_.push_back(step_);
    }
    std::vector<std::pair<uint64_t, uint64_t>> words_;  // (PROG_CTRL, PROG_DATA)
    std::vector<std::string> steps_;
    std::string step_ = "the program";
};

// The scatter writer on every card (shell/shell_sort_scatter.v, SORT_* registers): one
// pass streams n keys from src through it (a DMA from card memory to card memory whose RX
// side the writer takes over), counting bins ((k - count_lo) >> count_sh) & 255 and, with
// scatter, writing each key to dst + 4 * its place by the bins ((k - lo) >> sh) & 255 that
// the card's previous pass counted; dump: where the range line and the 256 counts go.
// Elements of 8 bytes (at dst + 8 * place): (key, payload) pairs, or with u64 uint64 keys,
// whose bins and range are over all 64 bits (SORT_CFG.U64); with both, 16 bytes (at dst +
// 16 * place): a uint64 key, its uint32 payload and a zero word (SORT_CFG.U64 | PAIRS).
class ScatterWriter {
  public:
    // Bytes of an element: a uint32 key (4), a pair or a uint64 key (8), a uint64 key with
    // its payload (16, the payload in the third word).
    static int element_bytes(bool pairs, bool u64) { return pairs && u64 ? 16 : pairs || u64 ? 8 : 4; }
    struct Scatter {
        bool on = false;
        uint64_t lo = 0;
        int sh = 0;
        uint64_t dst = 0;
    };
    // What one card's passes moved: bytes read and written in card memory, and their ns.
    struct Moved {
        uint64_t read = 0, written = 0, ns = 0;
    };
    // Where a card's single pass spent its cycles (its stage's STAGE_CYCLES and STAGE_ENGINE).
    struct StageCycles {
        uint64_t pass = 0, writer_waits = 0, engine_reads = 0, engine_gaps = 0;
    };
    ScatterWriter(afu_rdma_cluster cl, bool pairs, bool u64 = false)
        : cl_(cl), h_(afuShellRDMAClusterCards(cl), nullptr), pairs_(pairs), u64_(u64), passes(h_.size(), 0),
          moved(h_.size()), stage(h_.size()) {}
    ScatterWriter(const ScatterWriter &) = delete;
    ScatterWriter &operator=(const ScatterWriter &) = delete;
    ~ScatterWriter() {
        for (afu_shell_handle h : h_)
            if (h) afuShellClose(h);
    }
    // Opens `cards` as ordinary cards, then reads their writers' widths through them, and
    // whether all count by destination (up to the first that does not): each read on an open
    // card takes its host time, so the reads are those spgen.sort made when it drove the
    // writers from Python, whose figures these repeat.
    std::string open(const std::vector<int> &cards) {
        for (int c : cards)
            if (c < 0 || size_t(c) >= h_.size() || afuShellRDMAClusterCardOpen(cl_, c, &h_[c]) != FPGA_OK)
                return std::string("card ") + std::to_string(c) + " does not open: " + afuShellLastError();
        auto status = [&](int c) {
            uint64_t v = 0;
            afuShellReadRegAt(h_[c], AFUSHELL_SORT_STATUS, &v);
            return v;
        };
        for (size_t i = 0; i < cards.size(); ++i) {  // 0: a writer of a key a cycle, 256 bins
            const int bits = int(status(cards[i]) >> 8) & 0xF;
            max_bits = i == 0 ? bits : std::min(max_bits, bits);
        }
        seq_words = 0;  // the smallest sequencer's words (0: a card has none)
        for (size_t i = 0; i < cards.size(); ++i) {
            uint64_t st = 0, info = 0;
            afuShellReadRegAt(h_[cards[i]], AFUSHELL_SEQ_STATUS, &st);
            afuShellReadRegAt(h_[cards[i]], AFUSHELL_SEQ_INFO, &info);
            const size_t words = st & AFUSHELL_SEQ_STATUS_PRESENT_MASK
                                     ? size_t(1) << (info & AFUSHELL_SEQ_INFO_DEPTH_BITS_MASK) : 0;
            seq_words = i == 0 ? words : std::min(seq_words, words);
        }
        dest = !cards.empty();  // counts by destination, loads counts
        for (size_t i = 0; i < cards.size() && dest; ++i) dest = status(cards[i]) >> 12 & 1;
        for (size_t i = 0; i < cards.size() && u64_; ++i)
            if (!(status(cards[i]) >> (pairs_ ? 14 : 13) & 1))
                return "card " + std::to_string(cards[i]) + "'s scatter writer takes no uint64 keys" +
                       (pairs_ ? " with payloads" : "") + " (an older build: spgen build --loopback --links N --sort-scatter)";
        return "";
    }
    // "" or why the cards carry no scatter writer (SORT_CFG.EN reads back as written).
    std::string present(const std::vector<int> &cards) {
        for (int c : cards) {
            uint64_t cfg = 0;
            afuShellRDMACardWriteCSR(cl_, c, AFUSHELL_SORT_CFG, 1);
            afuShellRDMACardReadCSR(cl_, c, AFUSHELL_SORT_CFG, &cfg);
            afuShellRDMACardWriteCSR(cl_, c, AFUSHELL_SORT_CFG, 0);
            if (!(cfg & 1))
                return "the cards carry no scatter writer (build them with spgen build --loopback --links N "
                       "--sort-scatter)";
        }
        return "";
    }
    // The local passes' digit over sort_bits bits of `elements` keys per card (choose_digit_bits).
    int digit_bits(int sort_bits, uint64_t elements, bool odd_penalty = true) const {
        return choose_digit_bits(max_bits, element_bytes(pairs_, u64_), sort_bits, elements, odd_penalty);
    }
    // "" or what went wrong; adds the pass's ns to ns. A scatter shift of 32: every key in one
    // bin (a copy); count_bits: the counted bins' width where it differs from bits; dests
    // (SORT_DESTS): count by destination; load: the n words at src are counts to add to the
    // card's counters (no pass over the keys). The registers are written through the
    // cluster, the status read through the open card, at its thread's host time: a read
    // through the cluster enters where the cluster's clock thread happens to be (docs/runtime.md
    // "Host time"); a pass without keys (the flush and the dump) takes the card's time to DONE.
    // While a program records (record()), the pass is added to it instead (seq_pass), for the
    // card's sequencer to run.
    std::string run(int c, uint64_t src, uint64_t n, uint64_t count_lo, int count_sh, Scatter sc, uint64_t dump,
                    uint64_t &ns, int bits = 8, int count_bits = 0, const uint64_t *dests = nullptr, bool load = false) {
        if (rec_) {
            seq_pass(*rec_, c, src, n, count_lo, count_sh, sc, dump, bits, count_bits, dests, load);
            return "";
        }
        auto w = [&](uint32_t off, uint64_t v) { afuShellRDMACardWriteCSR(cl_, c, off, v); };
        auto now = [&] { return sim_ns(h_[c]); };
        if (c < 0 || size_t(c) >= h_.size() || !h_[c]) return "card " + std::to_string(c) + " is not open";
        const bool pairs = pairs_ && !load, u64 = u64_ && !load;
        const uint64_t es = element_bytes(pairs, u64);
        configure(c, n, count_lo, count_sh, sc, dump, bits, count_bits, dests, load);
        uint64_t took = 0, status = 0;
        if (n) {  // the RX destination is not written: the writer takes the stream
            void *a = reinterpret_cast<void *>(uintptr_t(src));
            if (afuShellDMATransferH(h_[c], a, a, es * n, F2F) || afuShellElapsedNs(h_[c], &took)) {
                w(AFUSHELL_SORT_CFG, 0);  // the RX engine writes as usual again
                return "the pass's DMA failed on card " + std::to_string(c) + ": " + afuShellLastError();
            }
        }
        const uint64_t t0 = now();
        while (afuShellReadRegAt(h_[c], AFUSHELL_SORT_STATUS, &status) == FPGA_OK && !(status & 2)) {
            if (now() - t0 > 500000) {
                w(AFUSHELL_SORT_CFG, 0);
                char hex[24];
                std::snprintf(hex, sizeof hex, "%#llx", (unsigned long long)status);
                return "card " + std::to_string(c) + "'s scatter writer did not finish a pass (status " + hex + ")";
            }
        }
        w(AFUSHELL_SORT_CFG, 0);
        if ((status & 4) || status >> 32 != n)
            return "card " + std::to_string(c) + "'s scatter writer took " + std::to_string(status >> 32) +
                   " keys of " + std::to_string(n) + (status & 4 ? " and dropped words past them" : "");
        if (!took) took = now() - t0;
        passes[c] += !load;
        const uint64_t bytes = es * n;
        moved[c].read += bytes, moved[c].written += sc.on ? bytes : 0, moved[c].ns += took;
        ns += took;
        return "";
    }

    // The card's simulated time, ns (every card of a cluster shares one clock).
    static uint64_t sim_ns(afu_shell_handle h) {
        afu_shell_sim_stats st{};
        afuShellSimStats(h, &st);
        return uint64_t(st.now_ns);
    }
    // Reads reg through the open card until a bit of `bit` is set (true), or for limit_ns of
    // simulated time (false); v: the last value read.
    static bool wait_bit(afu_shell_handle h, uint32_t reg, uint64_t bit, uint64_t limit_ns, uint64_t &v) {
        const uint64_t start = sim_ns(h);
        while (afuShellReadRegAt(h, reg, &v) == FPGA_OK && !(v & bit))
            if (sim_ns(h) - start > limit_ns) return false;
        return true;
    }

    // From now on run() adds its passes to p (nullptr: runs them from the host again).
    void record(SeqProgram *p) { rec_ = p; }

    // A pass as the card's sequencer runs it, added to p (what run() does from the host): the
    // writer's registers, the card's own DMA of the pass's elements from src through the
    // writer (P2P_*), the writer's DONE (OVERRUN fails the run), its key count, the DMA's end
    // (an error or a dropped GO fails the run), and the writer switched off.
    void seq_pass(SeqProgram &p, int c, uint64_t src, uint64_t n, uint64_t count_lo, int count_sh, Scatter sc,
                  uint64_t dump, int bits = 8, int count_bits = 0, const uint64_t *dests = nullptr, bool load = false) {
        const uint64_t es = element_bytes(pairs_ && !load, u64_ && !load);
        configure(c, n, count_lo, count_sh, sc, dump, bits, count_bits, dests, load, &p);
        if (n) {
            p.write(AFUSHELL_P2P_SRC, src);
            p.write(AFUSHELL_P2P_DST, src);  // the writer takes the stream: the RX side writes nothing
            p.write(AFUSHELL_P2P_LEN, es * n);
            p.write(AFUSHELL_P2P_PATTERN, 1);
            p.write(AFUSHELL_P2P_CTRL, AFUSHELL_P2P_CTRL_GO_MASK);
        }
        p.wait(AFUSHELL_SORT_STATUS, 1, true, 4);                    // DONE; OVERRUN fails
        p.check(AFUSHELL_SORT_STATUS, 32, 0xFFFFFFFFu, uint32_t(n));  // every key taken
        if (n) p.wait(AFUSHELL_P2P_STATUS, AFUSHELL_P2P_STATUS_BUSY_SHIFT, false,
                      AFUSHELL_P2P_STATUS_ERROR_MASK | AFUSHELL_P2P_STATUS_DROPPED_MASK);
        p.write(AFUSHELL_SORT_CFG, 0);
        passes[c] += !load;
        moved[c].read += es * n, moved[c].written += sc.on ? es * n : 0;
    }

    // OPTWEB's single pass (docs/sort.md, "OPTWEB's single pass") as p's tail on card c: its
    // grouping pass writes the card's n keys from address 0 into its stage's window, whose
    // chunks go to their destinations as RDMA puts; then the stage sends its bins' rests and
    // the card's counts to every card (the count exchange, STAGE_CNT_*). The stage is
    // programmed and started at p's head, the writer's capacities loaded.
    void seq_single_pass(SeqProgram &p, int c, uint64_t n, uint64_t lo, uint64_t window, uint64_t dump) {
        p.step("the single pass's grouping");
        seq_pass(p, c, 0, n, lo, 0, {true, lo, 0, window}, dump);
        p.step("the stage's rests and counts' puts");
        p.write(AFUSHELL_STAGE_CTRL, 2);  // the rest of every bin
        p.wait(AFUSHELL_STAGE_STATUS, 0, true, AFUSHELL_STAGE_STATUS_CODE_MASK);  // a failed put fails the run
        p.write(AFUSHELL_STAGE_CFG, 0);
        p.end();
    }

    // Card c's puts, in the order given, as p's words (docs/sort.md "The sequencer"): each
    // staged in RDMA_LOCAL / REMOTE / LEN and started by RDMA_CMD with the cluster's packet
    // size, the next staged once the engine took it (STATUS.PENDING clear; a dropped GO or an
    // overflow fails the run); then every put's end (STATUS.BUSY clear) and the engine's
    // counts: the host's driver takes every completion from DONE_INFO, so the run compares
    // OPS_DONE and FAILED with their values before its puts (`done`, `failed`).
    void seq_puts(SeqProgram &p, const std::vector<Put> &puts, uint32_t done, uint32_t failed) {
        const uint64_t pkt = uint64_t(afuShellRDMAPacketBytes(cl_) / 4) << AFUSHELL_RDMA_CMD_PKT_SHIFT;
        p.write(AFUSHELL_RDMA_BLOCK, 0);  // contiguous puts
        uint32_t n = 0;
        for (const Put &q : puts) {
            if (!q.bytes) continue;
            p.write(AFUSHELL_RDMA_LOCAL, q.local);
            p.write(AFUSHELL_RDMA_REMOTE, q.remote);
            p.write(AFUSHELL_RDMA_LEN, q.bytes);
            p.write(AFUSHELL_RDMA_CMD,
                    uint64_t(q.dst & 0x3F) << AFUSHELL_RDMA_CMD_DST_SHIFT | pkt | AFUSHELL_RDMA_CMD_GO_MASK);
            p.wait(AFUSHELL_RDMA_STATUS, AFUSHELL_RDMA_STATUS_PENDING_SHIFT, false,
                   AFUSHELL_RDMA_STATUS_DROPPED_MASK | AFUSHELL_RDMA_STATUS_OVERFLOW_MASK);
            ++n;
        }
        p.wait(AFUSHELL_RDMA_STATUS, AFUSHELL_RDMA_STATUS_BUSY_SHIFT, false, AFUSHELL_RDMA_STATUS_OVERFLOW_MASK);
        p.check(AFUSHELL_RDMA_STATUS, 32, 0xFFFFFFFFu, done + n);                  // every put ended
        p.check(AFUSHELL_RDMA_STATUS, 0, AFUSHELL_RDMA_STATUS_FAILED_MASK & 0xFFFFFFFFu,
                uint32_t(failed << AFUSHELL_RDMA_STATUS_FAILED_SHIFT));             // none failed
    }

    // A network phase from the cards' sequencers: every card of `cards` issues its puts of
    // `puts` (Put::card its card, in the order given) from its own program, all cards at
    // once, in rounds of what a program holds. ns: the slowest card's run by its own count,
    // summed over the rounds. "" or what went wrong; code: the engine's code of a failed put
    // (AFU_ERR_RDMA_*), or AFU_ERR_BAD_ARG.
    std::string puts_on_cards(const std::vector<int> &cards, const std::vector<Put> &puts, uint64_t &ns,
                              afu_result &code) {
        const size_t per_round = seq_words > 8 ? (seq_words - 8) / 5 : 0;  // 5 words a put
        code = AFU_ERR_BAD_ARG;
        ns = 0;
        if (!per_round) return "the cards' sequencers hold too few words for a put";
        std::vector<std::vector<Put>> of(cards.size());
        for (const Put &q : puts)
            for (size_t i = 0; i < cards.size(); ++i)
                if (cards[i] == q.card && q.bytes) of[i].push_back(q);
        size_t rounds = 1;
        for (const auto &v : of) rounds = std::max(rounds, (v.size() + per_round - 1) / per_round);
        for (size_t k = 0; k < rounds; ++k) {
            std::vector<SeqProgram> progs(cards.size());
            for (size_t i = 0; i < cards.size(); ++i) {
                uint64_t st = 0;
                afuShellReadRegAt(h_[cards[i]], AFUSHELL_RDMA_STATUS, &st);
                const size_t a = std::min(of[i].size(), k * per_round), b = std::min(of[i].size(), a + per_round);
                progs[i].step("its puts");
                seq_puts(progs[i], std::vector<Put>(of[i].begin() + a, of[i].begin() + b), uint32_t(st >> 32),
                         uint32_t((st & AFUSHELL_RDMA_STATUS_FAILED_MASK) >> AFUSHELL_RDMA_STATUS_FAILED_SHIFT));
                progs[i].end();
            }
            uint64_t took = 0;
            std::vector<uint64_t> card_ns;
            if (std::string e = run_programs(cards, progs, took, card_ns); !e.empty()) {
                for (int c : cards) {  // the code of a put that failed, where one did
                    uint64_t st = 0;
                    afuShellReadRegAt(h_[c], AFUSHELL_RDMA_STATUS, &st);
                    if (const uint64_t last = (st & AFUSHELL_RDMA_STATUS_CODE_MASK) >> AFUSHELL_RDMA_STATUS_CODE_SHIFT) {
                        code = afu_result(AFU_ERR_RDMA_BASE + last);
                        break;
                    }
                }
                return e;
            }
            ns += *std::max_element(card_ns.begin(), card_ns.end());
        }
        return "";
    }

    // Runs progs[i] on cards[i]'s sequencer, all at once: each program loaded (set-up), then
    // every card started and polled until its run ends. "" or what went wrong (every card's
    // writer, stage and sequencer then stopped); ns: from the first start to the last end as
    // the host saw it; card_ns[i]: card i's run by its own count (SEQ_CYCLES).
    std::string run_programs(const std::vector<int> &cards, const std::vector<SeqProgram> &progs, uint64_t &ns,
                             std::vector<uint64_t> &card_ns) {
        const size_t N = cards.size();
        auto stop = [&](std::string why) {
            for (int c : cards) {
                afuShellRDMACardWriteCSR(cl_, c, AFUSHELL_SEQ_CTRL, AFUSHELL_SEQ_CTRL_ABORT_MASK);
                afuShellRDMACardWriteCSR(cl_, c, AFUSHELL_P2P_CTRL, AFUSHELL_P2P_CTRL_ABORT_MASK);
                afuShellRDMACardWriteCSR(cl_, c, AFUSHELL_SORT_CFG, 0);
                afuShellRDMACardWriteCSR(cl_, c, AFUSHELL_STAGE_CFG, 0);
            }
            return why;
        };
        for (size_t i = 0; i < N; ++i)
            if (std::string e = progs[i].load(h_[cards[i]], cards[i]); !e.empty()) return e;
        const uint64_t t0 = sim_ns(h_[cards[0]]);
        for (int c : cards) afuShellWriteRegAt(h_[c], AFUSHELL_SEQ_CTRL, AFUSHELL_SEQ_CTRL_START_MASK);
        card_ns.assign(N, 0);
        for (size_t i = 0; i < N; ++i) {
            const afu_shell_handle h = h_[cards[i]];
            const uint64_t start = sim_ns(h);
            uint64_t st = 0, v = 0, cyc = 0;
            while (afuShellReadRegAt(h, AFUSHELL_SEQ_STATUS, &st) == FPGA_OK && (st & AFUSHELL_SEQ_STATUS_RUNNING_MASK))
                if (sim_ns(h) - start > 20000000) break;
            afuShellReadRegAt(h, AFUSHELL_SEQ_FAIL_VALUE, &v);
            if (std::string e = progs[i].why(st, v); !e.empty())
                return stop("card " + std::to_string(cards[i]) + "'s sequencer " + e);
            afuShellReadRegAt(h, AFUSHELL_SEQ_CYCLES, &cyc);
            card_ns[i] = cyc * 5;  // the card's clock: 200 MHz
        }
        ns = sim_ns(h_[cards[0]]) - t0;
        return "";
    }

  private:
    // The pass's registers, written to card c, or into prog (the card's sequencer writes them).
    void configure(int c, uint64_t n, uint64_t count_lo, int count_sh, Scatter sc, uint64_t dump, int bits,
                   int count_bits, const uint64_t *dests, bool load, SeqProgram *prog = nullptr) {
        auto w = [&](uint32_t off, uint64_t v) {
            if (prog) prog->write(off, v);
            else afuShellRDMACardWriteCSR(cl_, c, off, v);
        };
        const bool pairs = pairs_ && !load, u64 = u64_ && !load;
        w(AFUSHELL_SORT_CFG, 1 | (sc.on ? 2 : 0) | (dump ? 4 : 0) | (pairs ? 8 : 0) | (dests ? 16 : 0) | (load ? 32 : 0) |
                                 (u64 ? 64 : 0));
        w(AFUSHELL_SORT_BINS, (sc.lo & 0xFFFFFFFF) | count_lo << 32);
        if (u64) w(AFUSHELL_SORT_BINS_HI, sc.lo >> 32 | (count_lo >> 32) << 32);
        w(AFUSHELL_SORT_SHIFT, uint64_t(sc.sh) | uint64_t(count_sh) << 8 | uint64_t(max_bits ? bits : 0) << 16 |
                                   uint64_t(count_bits) << 20);
        if (dests) w(AFUSHELL_SORT_DESTS, *dests);
        w(AFUSHELL_SORT_DST, sc.dst);
        w(AFUSHELL_SORT_HIST, dump);
        w(AFUSHELL_SORT_N, n);
        w(AFUSHELL_SORT_CTRL, 1);
    }
    afu_rdma_cluster cl_;
    std::vector<afu_shell_handle> h_;  // per card of the cluster; open ones only
    bool pairs_;                       // (key, payload) pairs instead of keys
    bool u64_;                         // uint64 keys
    SeqProgram *rec_ = nullptr;        // the program run() adds its passes to, if any

  public:
    std::vector<int> passes;   // passes over the keys per card
    std::vector<Moved> moved;  // per card
    std::vector<StageCycles> stage;  // per card, of its last single pass
    int max_bits = 0;          // the widest digit of every card's writer (0: a key a cycle, 8 bits)
    size_t seq_words = 0;      // words of the smallest of the cards' sequencers
    bool dest = false;         // every card's writer counts by destination (SORT_STATUS.DEST)
};

}  // namespace sort_detail

struct SortWriterOptions {
    int digit_bits = 0;  // every local digit's width (up to the writers' widest); 0: the fewest cycles
    bool known_range = false;  // every key lies in key_range: no range pass, no range exchange
    std::pair<uint64_t, uint64_t> key_range{0, 0};
    std::function<void(const std::string &)> progress;  // called with each phase's name as it ends
    int key_bytes = 4;  // 4: uint32 keys (or pairs); 8: uint64 keys (with payloads: 16-byte elements)
    // With at most 256 key values: the keys a bin of the single grouping pass holds on a card
    // (0: the card's keys; either way at most what fits 1 GiB in bank B); a fuller bin is
    // found from the pass's counts and the card groups again (SortWriterResult::regrouped).
    uint64_t bin_capacity = 0;
    // With at most 64 key values (the stage's bins) on cards with the single-pass stage: OPTWEB's single pass,
    // each key read once and written once, at its destination, into a region per key value
    // and source card (SortWriterResult::segments says where); a bin past its region's
    // capacity makes the cards sort the two-pass way (SortWriterResult::single_pass false).
    bool single_pass = false;
};

// Where part of a card's result lies: `elements` elements from byte `address` on.
struct SortSegment {
    uint64_t address = 0, elements = 0;
};

// One card's share of a sort on the scatter writers.
struct SortCardFigures {
    int card = 0;
    uint64_t ddr_read = 0, ddr_write = 0, pass_ns = 0;  // its passes' bytes in card memory, their ns
    int passes = 0;                                     // its passes over the keys
    uint64_t link_sent = 0, link_received = 0;          // the scatter's bytes to and from other cards
    // single pass: its stage's cycles from start to idle, those a writer's line waited on a
    // full ring, those the engine read a line, and those it read none with lines put unread
    uint64_t stage_cycles = 0, writer_waits = 0, engine_reads = 0, engine_gaps = 0;
};

struct SortWriterResult : SortResult {
    bool fused = false;     // the range pass's counts were the partition's
    bool by_dest = false;   // the grouping counted every destination's first digit
    bool copy = false;      // a pass copied the keys to the other bank
    int digit_bits = 0, first_digit_bits = 0;
    int writer_bytes = 4;   // bytes a cycle of the writers: 4 (a key) or 64 (a beat)
    int banks = 1;          // DDR banks the passes alternate between
    int card_passes = 0;    // the most passes over the keys of any card
    bool binned = false;    // at most 256 key values: one grouping pass into bins of fixed capacity, no histogram pass
    bool regrouped = false; // a bin outgrew its capacity: the cards grouped again by the counts
    bool single_pass = false;  // OPTWEB's single pass: the result lies in `segments`
    bool spilled = false;      // the single pass was tried and a bin outgrew its region
    // the single pass ran from the cards' sequencers (the host started and collected); the
    // host saw it take sequencer_host_ns from its first start to the last end it read (the
    // phase holds the longest run by its card's own count)
    bool sequenced = false;
    uint64_t sequencer_host_ns = 0;
    uint64_t card_puts = 0;  // the RDMA puts the cards' sequencers issued (every network phase's)
    // after the single pass, per card of the spread: its result's segments in order (key
    // value, then source card); empty otherwise (the result at address 0)
    std::vector<std::vector<SortSegment>> segments;
    std::vector<SortCardFigures> per_card;  // per card of the spread
};

// Sorts uint32 keys spread over the cards (SortSpread; with payloads as (key, payload)
// pairs at address 0, the key in the low word), or uint64 keys (o.key_bytes 8: the same
// passes over 64 bits; with payloads as 16-byte elements (key, payload, 0) at address 0), on RTL cards built with --sort-scatter,
// every key moved by the cards (docs/sort.md, "The scatter writer"): per card a range pass
// (which counts the top digit too; a histogram pass follows when the keys span fewer of its
// values), a grouping pass by destination, the RDMA puts, a count of the first digit (on
// writers with SORT_STATUS.DEST the grouping counts it by destination and the destinations
// load those counts instead, dest_count_plan) and one scatter per digit (each counting the
// next; digits of 8 bits, or up to the writer's MAX_BITS where that takes fewer cycles), the
// passes alternating DDR banks on writers of a beat a cycle. The host computes the prefix
// sums from the exchanged counts and issues the passes and the puts. With known_range no
// range pass and no range exchange; a card holding keys outside it fails the sort
// (AFU_ERR_BAD_ARG). Afterwards card s.cards[i] holds result.counts[i] elements at address 0.
inline SortWriterResult sort_on_cards(afu_rdma_cluster cl, const SortSpread &s, const SortWriterOptions &o = {}) {
    using namespace sort_detail;
    SortWriterResult r;
    const std::vector<int> &cards = s.cards;
    const int N = int(cards.size());
    const uint64_t R = kSortRegion, B = 256, counts_at = 2 * R, hist_at = counts_at + 16ull * N, dump = 7 * R;
    const bool u64 = o.key_bytes == 8;
    const int key_bits = u64 ? 64 : 32, top = key_bits - 8;
    const uint64_t es = ScatterWriter::element_bytes(s.payloads, u64);  // bytes per element
    const uint64_t key_max = u64 ? ~0ull : 0xFFFFFFFFull;
    auto fail = [&](std::string why) {
        r.code = AFU_ERR_BAD_ARG;
        r.error = std::move(why);
        return r;
    };
    if (N < 1 || s.counts.size() != cards.size()) return fail("a spread over cards, a count per card");
    if (!afuShellRDMAClusterIsRTL(cl)) return fail("the network model has no cards to move keys on");
    if (o.key_bytes != 4 && o.key_bytes != 8) return fail("keys of 4 or 8 bytes, got " + std::to_string(o.key_bytes));
    if (o.known_range && !(o.key_range.first <= o.key_range.second && o.key_range.second <= key_max))
        return fail("key_range must satisfy 0 <= lo <= hi <= " + std::to_string(key_max) + " for uint" +
                    std::to_string(key_bits) + " keys, got (" + std::to_string(o.key_range.first) + ", " +
                    std::to_string(o.key_range.second) + ")");
    ScatterWriter writer(cl, s.payloads, u64);
    if (!(r.error = writer.open(cards)).empty()) return fail(r.error);
    if (o.digit_bits && (writer.max_bits ? o.digit_bits < 4 || o.digit_bits > writer.max_bits : o.digit_bits != 8))
        return fail("digit_bits must be " + (writer.max_bits ? "4.." + std::to_string(writer.max_bits) : std::string("8")) +
                    " on these writers, got " + std::to_string(o.digit_bits));
    Clock clock(cl, r, o.progress);
    // one pass per card; the phase takes the slowest card's time (cards run at once in hardware)
    // A phase on the cards: each card's passes as a program of its sequencer, every card's run
    // at once from one start (the host's MMIO: the programs' words and a start per card); the
    // phase takes the slowest card's run by its own count.
    auto on_cards = [&](const char *name, auto &&pass) {
        std::vector<SeqProgram> progs(N);
        std::vector<uint64_t> ns(N, 0), card_ns;
        for (int i = 0; i < N; ++i) {
            progs[i].step(name);
            writer.record(&progs[i]);
            std::string e = pass(i, cards[i], ns[i]);
            writer.record(nullptr);
            if (!e.empty()) return e;
            progs[i].end();
        }
        uint64_t took = 0;
        if (std::string e = writer.run_programs(cards, progs, took, card_ns); !e.empty()) return e;
        for (int i = 0; i < N; ++i) writer.moved[cards[i]].ns += card_ns[i];
        clock.card(name, card_ns);
        return std::string();
    };
    // A network phase: every card issues its puts (in issue_order) from its own sequencer,
    // all at once (docs/sort.md "The sequencer"); the phase takes the slowest card's run.
    auto network = [&](const char *name, const std::vector<Put> &puts) {
        std::vector<Put> ordered;
        for (size_t k : issue_order(puts)) ordered.push_back(puts[k]);
        uint64_t ns = 0;
        afu_result code = FPGA_OK;
        if (std::string e = writer.puts_on_cards(cards, ordered, ns, code); !e.empty()) {
            r.error = std::string(name) + ": " + e;
            return r.code = code;
        }
        clock.network_on_cards(name, ns, puts);
        for (const Put &p : puts) r.card_puts += p.bytes != 0;
        return r.code = FPGA_OK;
    };
    auto to_all = [&](uint64_t from, uint64_t to, uint64_t bytes) {
        std::vector<Put> puts;
        for (int i = 0; i < N; ++i)
            for (int d : cards) puts.push_back({cards[i], d, from, to + i * bytes, bytes});
        return puts;
    };
    auto scatter = [&](uint64_t send, uint64_t to, const std::vector<std::vector<Put>> &pieces) {
        std::vector<Put> puts;
        for (int i = 0; i < N; ++i)
            for (const Put &p : pieces[i])
                puts.push_back({cards[i], cards[p.dst], send + es * p.local, to + es * p.remote, es * p.bytes});
        return puts;
    };
    const ScatterWriter::Scatter none;
    const uint64_t bank_b = uint64_t(1) << 32;
    // writers that count by destination copy the keys to bank B in the first pass over them
    // (a scatter into one bin), for a grouping pass from bank B before an odd number of digits
    const ScatterWriter::Scatter copy_b = writer.dest ? ScatterWriter::Scatter{true, 0, key_bits, bank_b} : none;
    r.counts = s.counts;
    std::pair<uint64_t, uint64_t> range = o.key_range;
    if (!o.known_range) {
        if (std::string e = on_cards("range", [&](int i, int c, uint64_t &ns) {
                return writer.run(c, 0, s.counts[i], 0, top, copy_b, dump, ns); }); !e.empty())
            return fail(e);
        if (network("range exchange", to_all(dump, counts_at, 16))) return r;
        range = exchanged_range(cl, N, counts_at, cards[0]);
        for (int i = 1; i < N; ++i)  // every card computed the same range from its own copy
            if (exchanged_range(cl, N, counts_at, cards[i]) != range)
                return fail("card " + std::to_string(cards[i]) + " holds another key range than card " +
                            std::to_string(cards[0]) + " after the exchange");
    }
    const uint64_t lo = range.first, hi = range.second;
    if (lo > hi) return r;  // no keys
    const int shift = aligned_shift(lo, hi, 8);
    r.fused = !o.known_range && shift == top;  // the range pass's counts are the partition's
    const uint64_t base = shift == top ? 0 : lo >> shift << shift;  // bins (k - base) >> shift
    // One key value per bin (shift 0) on writers that load counts: no histogram pass. The
    // grouping pass writes each bin to a region of fixed capacity in bank B (the writer's
    // starts loaded as capacity * bin, as OPTWEB's per-channel regions) and counts the bins
    // as it goes; the exchange of those counts then gives every put's place. A bin that
    // outgrew its capacity only spoiled the scratch regions: the counts show it, and the
    // cards group again with the starts those counts give (the keys in bank A are intact).
    const bool binned = shift == 0 && writer.dest && writer.max_bits > 0;
    const uint64_t values = hi - lo + 1, loads = 6 * R;  // bins in use; where the capacities are loaded from
    std::vector<uint64_t> capacity(N, 0);
    // OPTWEB's single pass (docs/sort.md): the grouping pass writes each key value's bin into
    // the card's stage, which sends every chunk of a bin as a put to the bin's destination,
    // into a region of its own per key value and source card. Each key is read once from
    // bank A and written once into bank B of its destination; the counts, which the stages
    // send to every card once their bins' rests are put, say how much of each region holds
    // keys. The key values go to the cards in equal consecutive groups (no histogram before
    // the pass). A bin past its region (a
    // skewed input) only spoiled scratch regions: the cards then sort the two-pass way.
    if (binned && o.single_pass) {
        for (int c : cards) {
            uint64_t st = 0;
            afuShellRDMACardReadCSR(cl, c, AFUSHELL_STAGE_STATUS, &st);
            if (!(st >> 63))
                return fail("card " + std::to_string(c) + " has no single-pass stage (build the cards with spgen "
                            "build --loopback --links N --sort-scatter)");
        }
        uint64_t info = 0;
        afuShellRDMACardReadCSR(cl, cards[0], AFUSHELL_STAGE_INFO, &info);
        if (!(info & AFUSHELL_STAGE_INFO_COUNT_PUTS_MASK))
            return fail("card " + std::to_string(cards[0]) + "'s single-pass stage predates its counts' puts "
                        "(rebuild the cards with spgen build --loopback --links N --sort-scatter)");
        const int bin_bits = int(info & 0xFF);
        if (values > (uint64_t(1) << bin_bits))
            return fail("the single-pass stage takes up to " + std::to_string(1 << bin_bits) + " key values, got " +
                        std::to_string(values));
        // a region holds twice a card's even share of a key value (bin_capacity's keys where
        // given), at least 4 KiB; the window (2^bin_bits regions) and each destination's
        // regions (its key values x the cards) stay within 1 GiB
        const uint64_t GiB = uint64_t(1) << 30, per_dest = (values + N - 1) / N;
        const uint64_t most = *std::max_element(s.counts.begin(), s.counts.end());
        const uint64_t want = es * (o.bin_capacity ? o.bin_capacity : 2 * ((most + values - 1) / values));
        int cap_shift = 12;
        while (cap_shift < 30 && (uint64_t(1) << cap_shift) < want) ++cap_shift;
        while (cap_shift > 12 && (((uint64_t(1) << bin_bits) << cap_shift) > GiB || ((per_dest * N) << cap_shift) > GiB))
            --cap_shift;
        // the window (at most 1 GiB) aligned to its size, as STAGE_BASE requires
        const uint64_t cap = (uint64_t(1) << cap_shift) / es, window = bank_b + 2 * GiB;
        std::vector<int> dest(values);
        std::vector<uint64_t> first(N, values);
        for (uint64_t b = 0; b < values; ++b) {
            dest[b] = int(b * N / values);
            first[dest[b]] = std::min(first[dest[b]], b);
        }
        auto region = [&](uint64_t b, int i) { return bank_b + (((b - first[dest[b]]) * N + i) << cap_shift); };
        // every card's program: the stage's table and counts' puts, the writer's capacities
        // loaded, the single pass, the rests and the counts (the host only starts and collects)
        std::vector<SeqProgram> progs(N);
        uint64_t every = 0;
        for (int d : cards) every |= uint64_t(1) << d;
        for (int i = 0; i < N; ++i) {
            const int c = cards[i];
            std::vector<uint32_t> caps(B, 0);
            std::fill(caps.begin(), caps.begin() + values, uint32_t(cap));
            afuShellRDMAWriteMem(cl, c, loads, caps.data(), 4 * B);
            SeqProgram &p = progs[i];
            p.step("the stage's set-up");
            for (uint64_t b = 0; b < values; ++b) {
                p.write(AFUSHELL_STAGE_TBL_REMOTE, region(b, i));
                p.write(AFUSHELL_STAGE_TBL, b | uint64_t(cards[dest[b]]) << 8);
            }
            // the count exchange, made by the card once its bins' rests are put: its counts
            // (the writer's dump) to every card's table, at this card's row
            p.write(AFUSHELL_STAGE_CNT_LOCAL, dump + 64);
            p.write(AFUSHELL_STAGE_CNT_REMOTE, hist_at + i * 4 * B);
            p.write(AFUSHELL_STAGE_CNT_LEN, 4 * B);
            p.write(AFUSHELL_STAGE_CNT_DESTS, every);
            p.write(AFUSHELL_STAGE_BASE, window);
            p.write(AFUSHELL_STAGE_CFG, 1 | uint64_t(cap_shift) << 8);
            p.write(AFUSHELL_STAGE_CTRL, 1);
            p.step("the capacities' load");
            writer.seq_pass(p, c, loads, B, 0, 0, none, 0, 8, 0, nullptr, true);
            writer.seq_single_pass(p, c, s.counts[i], lo, window, dump);
        }
        uint64_t took = 0;
        std::vector<uint64_t> card_ns;
        if (std::string e = writer.run_programs(cards, progs, took, card_ns); !e.empty()) return fail(e);
        for (int i = 0; i < N; ++i) {
            const int c = cards[i];
            uint64_t cyc = 0, eng = 0;
            afuShellRDMACardReadCSR(cl, c, AFUSHELL_STAGE_CYCLES, &cyc);
            afuShellRDMACardReadCSR(cl, c, AFUSHELL_STAGE_ENGINE, &eng);
            writer.stage[c] = {cyc & 0xFFFFFFFF, cyc >> 32, eng & 0xFFFFFFFF, eng >> 32};
            writer.moved[c].ns += card_ns[i];
        }
        r.sequenced = true;
        // the cards' own counts (the count exchange included); the host saw `took`, from its
        // first start to the last end it read, its MMIO's time included
        clock.card("single pass", card_ns);
        r.sequencer_host_ns = took;
        const auto table = read<uint32_t>(cl, cards[0], hist_at, B * N);
        bool full = false;
        for (int i = 0; i < N; ++i)
            for (uint64_t b = 0; b < values; ++b) full = full || table[i * B + b] > cap;
        if (!full) {
            r.single_pass = r.binned = true, r.writer_bytes = 64, r.banks = 2, r.shift = 0, r.local_passes = 0;
            r.counts.assign(N, 0);
            r.segments.assign(N, {});
            for (int d = 0; d < N; ++d)
                for (uint64_t b = first[d]; b < values && dest[b] == d; ++b)
                    for (int i = 0; i < N; ++i)
                        if (const uint64_t k = table[i * B + b]) {
                            r.segments[d].push_back({region(b, i), k});
                            r.counts[d] += k;
                        }
            for (int i = 0; i < N; ++i) {
                const int c = cards[i];
                SortCardFigures f{c, writer.moved[c].read, es * r.counts[i], writer.moved[c].ns, writer.passes[c]};
                const sort_detail::ScatterWriter::StageCycles &sc = writer.stage[c];
                f.stage_cycles = sc.pass, f.writer_waits = sc.writer_waits;
                f.engine_reads = sc.engine_reads, f.engine_gaps = sc.engine_gaps;
                for (uint64_t b = 0; b < values; ++b)
                    for (int j = 0; j < N; ++j)
                        if (j == i && dest[b] != i) f.link_sent += es * table[j * B + b];
                        else if (j != i && dest[b] == i) f.link_received += es * table[j * B + b];
                r.per_card.push_back(f);
                r.card_passes = std::max(r.card_passes, f.passes);
            }
            return r;
        }
        r.spilled = true;  // the two-pass way below, from the keys in bank A
    }
    if (binned) {
        if (std::string e = on_cards("group by card", [&](int i, int c, uint64_t &ns) {
                // never past the 1 GiB of scratch in bank B, whatever bin_capacity asks
                capacity[i] = std::min<uint64_t>(o.bin_capacity ? o.bin_capacity : s.counts[i], 2 * R / (es * values));
                std::vector<uint32_t> caps(B, 0);
                std::fill(caps.begin(), caps.begin() + values, uint32_t(capacity[i]));
                afuShellRDMAWriteMem(cl, c, loads, caps.data(), 4 * B);
                std::string e = writer.run(c, loads, B, 0, 0, none, 0, ns, 8, 0, nullptr, true);
                return e.empty() ? writer.run(c, 0, s.counts[i], lo, 0, {true, lo, 0, bank_b}, dump, ns) : e; });
            !e.empty())
            return fail(e);
    } else if (!r.fused) {  // with known_range the first pass over the keys: it makes the copy
        if (std::string e = on_cards("histogram", [&](int i, int c, uint64_t &ns) {
                return writer.run(c, 0, s.counts[i], base, shift, o.known_range && shift ? copy_b : none, dump, ns); });
            !e.empty())
            return fail(e);
    }
    for (int i = 0; o.known_range && i < N; ++i) {  // the histogram pass found every card's range beside the counts
        const auto mm = read<uint64_t>(cl, cards[i], dump, 2);
        if (s.counts[i] && !(lo <= mm[0] && mm[0] <= mm[1] && mm[1] <= hi))
            return fail("card " + std::to_string(cards[i]) + " holds keys " + std::to_string(mm[0]) + ".." +
                        std::to_string(mm[1]) + ", outside key_range " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    if (network("count exchange", to_all(dump + 64, hist_at, 4 * B))) return r;
    const bool exact = shift == 0;
    std::vector<std::vector<Put>> pieces(N);
    std::vector<uint64_t> received(N);
    std::vector<std::pair<uint64_t, uint64_t>> spans(N), bins(N);  // the keys' range each card receives, its bins
    std::vector<uint32_t> table;  // every card's counts, [card][bin]
    clock.host("prefix sums", [&] {  // the exchange left every card the same table: read it once
        table = read<uint32_t>(cl, cards[0], hist_at, B * N);
        bins.assign(N, {1, 0});
        received = plan_all(table, N, exact, pieces, &bins);
        for (int i = 0; i < N; ++i) {
            const auto [b0, b1] = bins[i];
            // bins past 2^64 - 1 (the last bins of 64-bit keys) hold no keys
            uint64_t first = 0, end = 0;
            const bool past = __builtin_add_overflow(base, b0 << shift, &first);
            if (__builtin_add_overflow(base, b1 << shift, &end) ||
                __builtin_add_overflow(end, (uint64_t(1) << shift) - 1, &end))
                end = ~0ull;
            spans[i] = b0 > b1 || past || first > hi ? std::make_pair(uint64_t(1), uint64_t(0))
                                                     : std::make_pair(std::max(lo, first), std::min(end, hi));
        }
    });
    const int sort_bits = exact ? 0 : bit_length(hi - lo);
    auto finish = [&](int digits) {  // the result's counts and figures
        r.counts = received, r.shift = shift, r.local_passes = digits;
        r.card_passes = 0;
        for (int i = 0; i < N; ++i) {
            const int c = cards[i];
            SortCardFigures f{c, writer.moved[c].read, writer.moved[c].written, writer.moved[c].ns, writer.passes[c]};
            for (const Put &p : pieces[i])
                if (cards[p.dst] != c) f.link_sent += es * p.bytes;
            for (int j = 0; j < N; ++j)
                for (const Put &p : pieces[j])
                    if (p.dst == i && j != i) f.link_received += es * p.bytes;
            r.per_card.push_back(f);
            r.card_passes = std::max(r.card_passes, f.passes);
        }
        return r;
    };
    if (binned) {  // the keys were grouped into bins: put every piece from its bin's region
        bool full = false;
        for (int i = 0; i < N; ++i)
            for (uint64_t b = 0; b < values; ++b) full = full || table[i * B + b] > capacity[i];
        if (full) {  // the starts of the pass's own counts: bins in order, no gaps
            if (std::string e = on_cards("regroup", [&](int i, int c, uint64_t &ns) {
                    return writer.run(c, 0, s.counts[i], lo, 0, {true, lo, 0, bank_b}, 0, ns); }); !e.empty())
                return fail(e);
        } else {
            for (int i = 0; i < N; ++i) in_bins(pieces[i], table.data() + i * B, capacity[i]);
        }
        if (network("scatter", scatter(bank_b, 0, pieces))) return r;
        r.binned = true, r.regrouped = full, r.writer_bytes = 64, r.banks = 2;
        return finish(0);
    }
    // The grouping pass counts every destination's first digit (dest_count_plan): grouping,
    // the puts of the keys, then of the counts, then per destination a load of its sources'
    // counts and one scatter per digit (no count pass). The first pass over the keys copied
    // them to bank B: before an odd number of digits the grouping reads that copy and writes
    // bank A, the puts deliver to bank B, and the digits end in the keys' region (bank A).
    const DestCount dc =
        writer.dest && sort_bits && !o.digit_bits ? dest_count_plan(writer.max_bits, 0, bins, spans) : DestCount();
    if (dc.first) {
        const bool odd = dc.digits % 2;
        const uint64_t from = odd ? bank_b : 0, send = odd ? 3 * R : bank_b, to = odd ? bank_b + R : 5 * R;
        const uint64_t block = uint64_t(4) << dc.first, loads = 6 * R;
        if (std::string e = on_cards("group by card", [&](int i, int c, uint64_t &ns) {
                return writer.run(c, from, s.counts[i], 0, 0, {true, base, shift, send}, dump, ns, 8, dc.first,
                                  &dc.dests); });
            !e.empty())
            return fail(e);
        if (network("scatter", scatter(send, to, pieces))) return r;
        // every destination's counts of its first digit, after the keys (among their puts
        // these small ones held the keys' puts back by a third)
        std::vector<Put> puts;
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < N; ++j) puts.push_back({cards[i], cards[j], dump + 64 + j * block, loads + i * block, block});
        if (network("digit counts", puts)) return r;
        if (std::string e = on_cards("local counting", [&](int i, int c, uint64_t &ns) {
                const uint64_t k = received[i];
                if (!k) return std::string();
                std::string e = writer.run(c, loads, uint64_t(N) << dc.first, 0, 0, none, 0, ns, dc.first, 0, nullptr, true);
                uint64_t at = to;
                const uint64_t b = dc.base[i];
                for (int j = 0, sh = 0, w = dc.first; j < dc.digits && e.empty(); ++j, sh += w, w = dc.bits) {
                    const uint64_t dst = j + 1 == dc.digits ? 0 : at >= bank_b ? 5 * R : bank_b;
                    e = writer.run(c, at, k, b, sh + w < key_bits ? sh + w : 0, {true, b, sh, dst}, 0, ns, w, dc.bits);
                    at = dst;
                }
                return e; }); !e.empty())
            return fail(e);
        r.by_dest = true, r.copy = odd, r.digit_bits = dc.bits, r.first_digit_bits = dc.first;
        r.writer_bytes = 64, r.banks = 2;
        return finish(dc.digits);
    }
    // Writers of a beat a cycle read one DDR bank and write the other (bank B from 4 GiB):
    // the puts deliver to the bank from which the digit passes, alternating banks, end in
    // the keys' region in bank A, and the grouping writes the send buffer to the other
    // bank (a bank read by a card's engine while its peers' puts write it slows the puts
    // several times): bank B, or bank A before an odd number of digits unless the first
    // digit's count copies the keys to bank B (every card's keys spanning under 2^31
    // values: a scatter into one bin).
    const bool wide = writer.max_bits > 0;
    bool copy = wide && !exact;
    for (const auto &[a, b] : spans) copy = copy && (a > b || b - a < (uint64_t(1) << 31));
    const int bits = o.digit_bits ? o.digit_bits
                                  : writer.digit_bits(sort_bits, *std::max_element(received.begin(), received.end()), !copy);
    const int digits = sort_bits ? (sort_bits + bits - 1) / bits : 0;
    copy = copy && digits % 2 == 1;
    const uint64_t recv = wide && digits % 2 && !copy ? bank_b + R : 5 * R;
    const uint64_t target = exact ? 0 : recv;  // one key value per bin: straight to the final place
    const uint64_t send = wide && target < bank_b ? bank_b : 3 * R;
    if (std::string e = on_cards("group by card", [&](int i, int c, uint64_t &ns) {
            return writer.run(c, 0, s.counts[i], lo, 0, {true, base, shift, send}, 0, ns); }); !e.empty())
        return fail(e);
    if (network("scatter", scatter(send, target, pieces))) return r;
    if (std::string e = on_cards("local counting", [&](int i, int c, uint64_t &ns) {
            const uint64_t k = received[i];
            if (!sort_bits || !k) return std::string();
            std::string e = copy ? writer.run(c, recv, k, lo, 0, {true, spans[i].first, 31, bank_b}, 0, ns, bits)
                                 : writer.run(c, recv, k, lo, 0, none, 0, ns, bits);
            uint64_t src = copy ? bank_b : recv;
            for (int sh = 0, j = 0; sh < sort_bits && e.empty(); sh += bits, ++j) {
                uint64_t dst = 0;  // the last pass: the keys' region
                if (sh + bits < sort_bits) dst = wide ? (src >= bank_b ? 5 * R : bank_b) : (j % 2 ? 5 * R : 3 * R);
                e = writer.run(c, src, k, lo, sh + bits < key_bits ? sh + bits : 0, {true, lo, sh, dst}, 0, ns, bits);
                src = dst;
            }
            return e; }); !e.empty())
        return fail(e);
    r.copy = copy, r.digit_bits = bits, r.writer_bytes = wide ? 64 : 4, r.banks = wide ? 2 : 1;
    return finish(digits);
}

// Sorts uint32 or uint64 keys[0..n) (and payloads, which may be null) over every present
// card of a cluster of RTL cards built with --sort-scatter (sort_on_cards after spreading
// them in equal parts, with payloads as (key, payload) pairs, or for uint64 keys as 16-byte
// (key, payload, 0) elements); the sorted keys (and payloads) come back in out_keys / out_payloads. key_range,
// where given: every key is known to lie in [first, second] (OPTWEB's 64 values: {0, 63}).
template <class Key>
SortResult distributed_sort_on_cards(afu_rdma_cluster cl, const Key *keys, const uint32_t *payloads, uint64_t n,
                                     std::vector<Key> &out_keys, std::vector<uint32_t> *out_payloads = nullptr,
                                     const std::pair<uint64_t, uint64_t> *key_range = nullptr) {
    static_assert(std::is_same<Key, uint32_t>::value || std::is_same<Key, uint64_t>::value,
                  "distributed_sort_on_cards takes uint32_t or uint64_t keys");
    using namespace sort_detail;
    SortResult r;
    const int N = afuShellRDMAClusterCards(cl);
    const uint64_t es = ScatterWriter::element_bytes(payloads, sizeof(Key) == 8);
    r.code = AFU_ERR_BAD_ARG;
    if (N < 1 || (n && !keys)) {
        r.error = N < 1 ? "no cluster" : "keys is NULL";
        return r;
    }
    if (!afuShellRDMAClusterIsRTL(cl)) {
        r.error = "the network model has no cards to move keys on";
        return r;
    }
    if (n > kSortRegion / es - 256) {
        r.error = "too many keys: " + std::to_string(n) + " (at most " + std::to_string(kSortRegion / es - 256) + ")";
        return r;
    }
    SortSpread s{present_cards(cl), {}, payloads != nullptr};
    if (!(r.error = ScatterWriter(cl, false).present(s.cards)).empty()) return r;
    // (key, payload) pairs, the key in the low (first) word; uint64 keys: (key, payload, 0)
    using Elem = std::array<uint64_t, sizeof(Key) == 8 ? 2 : 1>;
    std::vector<Elem> pairs(payloads ? n : 0);
    for (uint64_t i = 0; i < pairs.size(); ++i) {
        pairs[i] = Elem{};
        pairs[i][0] = sizeof(Key) == 8 ? uint64_t(keys[i]) : keys[i] | uint64_t(payloads[i]) << 32;
        pairs[i].back() |= sizeof(Key) == 8 ? payloads[i] : 0;
    }
    s.counts = payloads ? spread<Elem>(cl, s.cards, pairs.data(), nullptr, n)
                        : spread<Key>(cl, s.cards, keys, nullptr, n);
    SortWriterOptions o;
    o.key_bytes = sizeof(Key);
    if (key_range) o.known_range = true, o.key_range = *key_range;
    r = sort_on_cards(cl, s, o);
    out_keys.clear();
    if (out_payloads) out_payloads->clear();
    gathered(cl, s, r, [&](int c, uint64_t count) {
        const auto k = read<Key>(cl, c, 0, count * es / sizeof(Key));
        for (uint64_t x = 0; x < k.size(); x += es / sizeof(Key)) {
            out_keys.push_back(k[x]);
            if (payloads && out_payloads) out_payloads->push_back(uint32_t(k[x + 1]));  // the word after the key
        }
    });
    return r;
}

}  // namespace afushell

#endif  // AFUSHELL_SORT_WRITER_HPP
