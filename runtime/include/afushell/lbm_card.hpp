// Running N steps of the D2Q9 LBM core on a card through the afushell C API (C++17).
//
// The one implementation of N steps on a card (spgen.lbm.run_card calls it through the
// runtime's extension module): a header over afushell.h (link libafushell), separate
// from the header-only lbm.hpp so that grid and record code needs no runtime.
// On a card with cores every transfer streams through the cascade (docs/shell.md: the
// shell has no bypass), so with D cores the upload (H2F) advances the grid D steps,
// each F2F run between memories A and B D more, and the download (F2H) D more:
// N steps take N / D transfers, N a multiple of D and at least 2D. Other N are refused
// with a message (the cores cannot be bypassed to make up a remainder).
// Errors come back as codes (afu_result / afu_shell_error) with a message; nothing
// throws.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "afushell.h"
#include "lbm.hpp"
#include "lbm_passes.hpp"
// run_slabs (a cluster of cards) needs afushell/rdma.h: installed beside this header; in
// the source tree add -I runtime/rdma/include
#if __has_include("rdma.h")
#include "rdma.h"
#elif __has_include(<afushell/rdma.h>)
#include <afushell/rdma.h>
#endif

namespace afushell {
namespace lbm {

// The core's Regs (LBM.md): relaxation rate and moving-wall velocity, written as float32.
struct Params {
    double omega = 1.0;
    double uw_x = 0.0;
    double uw_y = 0.0;
};

// Outcome of run_card: code FPGA_OK, or the failing call's code and a message.
struct CardResult {
    afu_result code = FPGA_OK;
    std::string message;
    unsigned depth = 0;                      // cores in the card's cascade
    std::uint64_t transfers = 0;             // H2F + F2F runs + F2H, each advancing `depth` steps
    std::vector<afu_shell_run_result> runs;  // the F2F runs' counters, in order
    std::uint64_t elapsed_ns = 0;            // request-to-completion time of all transfers

    bool ok() const { return code == FPGA_OK; }
};

namespace detail {
inline CardResult fail(CardResult r, afu_result code, const std::string& msg) {
    r.code = code;
    r.message = msg;
    return r;
}

// A failed runtime call: its code and the runtime's message, prefixed with what we did.
inline CardResult failed_call(CardResult r, afu_result code, const std::string& what) {
    const char* m = afuShellLastError();
    return fail(std::move(r), code, what + ": " + (m && *m ? m : afuShellErrStr(code)));
}
}  // namespace detail

// Advances `rec` (a record stream of a `width`-wide grid, in place) by `steps` time steps
// on the open card `h`: writes the Regs omega, uw_x, uw_y by name, uploads the records
// to memory A (H2F), runs F2F A -> cores -> B, B -> cores -> A, ... (afuShellRun, whose
// counters are kept) and downloads the result (F2H). The card's cores must be the LBM
// core compiled for this width: a card that reports its core's Param W (every
// `spgen build` card) is refused for a grid of another width. On error `rec` is left
// unchanged.
inline CardResult run_card(afu_shell_handle h, std::vector<Record>& rec, int width,
                           std::uint64_t steps, const Params& p = Params()) {
    CardResult r;
    if (!h) return detail::fail(r, AFU_ERR_NULL_POINTER, "run_card: the card handle is NULL");
    try {
        auto fg = from_records(rec, width);
        check_grid(fg.second);
    } catch (const std::exception& e) {
        return detail::fail(r, FPGA_INVALID_PARAM, std::string("run_card: ") + e.what());
    }
    afu_shell_info info{};
    afu_result c = afuShellInfo(h, &info);
    if (c != FPGA_OK) return detail::failed_call(r, c, "run_card: reading the card's build facts");
    if (info.n_cores < 1)
        return detail::fail(r, FPGA_NOT_SUPPORTED,
                            "run_card: the card has no cores (n_cores = 0, a loop-back build?); "
                            "open a `spgen build` of cores/lbm/lbm_d2q9.spd");
    std::int64_t built_w = 0;
    if (afuShellCoreParam(h, "W", &built_w) == FPGA_OK && built_w != width)
        return detail::fail(r, FPGA_INVALID_PARAM,
                            "run_card: the card's cores were built for grids " + std::to_string(built_w) +
                                " cells wide (Param W), the records are a grid " + std::to_string(width) +
                                " wide: rebuild with -P W=" + std::to_string(width));
    r.depth = info.n_cores;
    const unsigned words = sizeof(Record) / 4;
    if (info.in_record_words != words || info.out_record_words != words)
        return detail::fail(r, AFU_ERR_RECORD_WIDTH,
                            "run_card: the card's cores take " + std::to_string(info.in_record_words) +
                                "-word records and give " + std::to_string(info.out_record_words) +
                                "-word records; the LBM core streams " + std::to_string(words) + "-word (" +
                                std::to_string(RECORD_BYTES) + "-byte) records");
    const std::string bad_steps = steps_error(steps, r.depth);
    if (!bad_steps.empty()) return detail::fail(r, FPGA_INVALID_PARAM, "run_card: " + bad_steps);
    const std::size_t bytes = rec.size() * sizeof(Record);
    if (bytes > MEM_B)
        return detail::fail(r, AFU_ERR_OUT_OF_RANGE,
                            "run_card: " + std::to_string(bytes) + " bytes of records do not fit "
                            "in one 4 GiB FPGA memory");

    const struct { const char* name; double value; } regs[] = {
        {"omega", p.omega}, {"uw_x", p.uw_x}, {"uw_y", p.uw_y}};
    for (const auto& reg : regs) {
        c = afuShellWriteRegValue(h, reg.name, reg.value);  // f32 Regs: binary32 of the value
        if (c != FPGA_OK)
            return detail::failed_call(r, c, std::string("run_card: writing the core Reg ") + reg.name);
    }

    void* buf = nullptr;
    c = afuShellAllocH(h, bytes, &buf);
    if (c != FPGA_OK) return detail::failed_call(r, c, "run_card: allocating a host buffer");
    std::memcpy(buf, rec.data(), bytes);
    auto done = [&](CardResult res) {
        afuShellFreeH(h, buf);
        return res;
    };
    auto timed = [&]() {
        std::uint64_t ns = 0;
        if (afuShellElapsedNs(h, &ns) == FPGA_OK) r.elapsed_ns += ns;
    };

    c = afuShellDMATransferH(h, reinterpret_cast<void*>(pass_memory(0)), buf, bytes, H2F);
    if (c != FPGA_OK) return done(detail::failed_call(r, c, "run_card: upload (H2F) to memory A"));
    timed();
    r.transfers = 1;
    const std::uint64_t f2f = steps / r.depth - 2;
    for (std::uint64_t k = 0; k < f2f; ++k) {
        afu_shell_run_result run{};
        c = afuShellRun(h, pass_memory(k), pass_memory(k + 1), rec.size(), &run);
        if (c != FPGA_OK)
            return done(detail::failed_call(r, c, "run_card: F2F run " + std::to_string(k + 1) + " of " +
                                                      std::to_string(f2f)));
        r.runs.push_back(run);
        r.elapsed_ns += run.elapsed_ns;
        ++r.transfers;
    }
    c = afuShellDMATransferH(h, buf, reinterpret_cast<const void*>(pass_memory(f2f)), bytes, F2H);
    if (c != FPGA_OK) return done(detail::failed_call(r, c, "run_card: download (F2H)"));
    timed();
    ++r.transfers;
    std::memcpy(rec.data(), buf, bytes);
    return done(std::move(r));
}

// The same on a target opened for the call ("sim:<spgen build dir>", an AFU ID, ...).
inline CardResult run_card(const std::string& uri, std::vector<Record>& rec, int width,
                           std::uint64_t steps, const Params& p = Params()) {
    afu_shell_handle h = nullptr;
    afu_result c = afuShellOpen(uri.c_str(), &h);
    if (c != FPGA_OK) return detail::failed_call(CardResult(), c, "run_card: opening " + uri);
    CardResult r = run_card(h, rec, width, steps, p);
    afuShellClose(h);
    return r;
}

#ifdef AFUSHELL_RDMA_H
// ---- slabs across the cards of an RTL cluster (spgen.lbm.run_cards(mode="slabs")) --------

struct SlabsResult {
    afu_result code = FPGA_OK;
    std::string message;
    unsigned depth = 0;
    std::vector<std::vector<afu_shell_run_result>> runs;  // per card, its F2F runs
    std::uint64_t halo_puts = 0;
    // host time from the start to the last card's download in cycles (simulated cards with
    // deterministic host time; 0 otherwise): the same on every run of the same input
    std::uint64_t cycles = 0;
    bool ok() const { return code == FPGA_OK; }
};

// Advances `rec` (a `width`-wide grid, in place) by `steps` on the cards of the open RTL
// cluster `cl` (a line of cards: card k linked to k - 1 and k + 1, as a "mesh" cluster
// file with dims [N] gives), each holding a slab of rows: after every pass through its
// cascade (upload, F2F runs, download) a card puts its D edge rows into its neighbours'
// halos (block-stride RDMA puts, one block per row); a card starts its next pass when its
// neighbours' puts into it have landed. One host thread per card; a thread waiting for
// another (a neighbour's pass done, its put issued) declares it to the deterministic host
// time (afuShellSimHostTime, docs/runtime.md "Host time"), and the thread that ends the wait
// hands over the host cycle of the event, so the timing repeats on any load. The schedule
// (each pass's memory, each halo put, when a put may go and a pass may start) is
// lbm_passes.hpp's, which lbm-slabs-mpi follows too: only this driver is its own.
// Bit for bit the same as `steps` emulated steps of the whole grid. On error `rec` is
// unchanged.
inline SlabsResult run_slabs(afu_rdma_cluster cl, std::vector<Record>& rec, int width, std::uint64_t steps,
                             const Params& p = Params()) {
    SlabsResult res;
    auto fail = [&](afu_result code, const std::string& msg) {
        res.code = code;
        res.message = "run_slabs: " + msg;
        return res;
    };
    if (!cl || !afuShellRDMAClusterIsRTL(cl))
        return fail(FPGA_INVALID_PARAM, "needs a cluster of RTL cards (a cluster file naming a \"card\")");
    try {
        check_grid(from_records(rec, width).second);
    } catch (const std::exception& e) {
        return fail(FPGA_INVALID_PARAM, e.what());
    }
    const int cards = afuShellRDMAClusterCards(cl), height = int(rec.size()) / width;
    std::vector<afu_shell_handle> h(std::size_t(cards), nullptr);
    auto close_all = [&] {
        for (auto x : h)
            if (x) afuShellClose(x);
    };
    for (int k = 0; k < cards; ++k) {
        afu_shell_handle one = nullptr;
        const afu_result rc = afuShellRDMAClusterCardOpen(cl, k, &one);
        if (rc) {
            close_all();
            return fail(rc, "card " + std::to_string(k) + ": " + afuShellLastError());
        }
        h[std::size_t(k)] = one;
    }
    afu_shell_info info{};
    afuShellInfo(h[0], &info);
    res.depth = info.n_cores;
    const int depth = int(info.n_cores);
    std::string err;
    std::int64_t built_w = 0;
    if (depth < 1) err = "the cards have no cores";
    else if (afuShellCoreParam(h[0], "W", &built_w) == FPGA_OK && built_w != width)
        err = "the cards' cores were built for grids " + std::to_string(built_w) + " cells wide, the grid is " +
              std::to_string(width) + " wide";
    else err = steps_error(steps, info.n_cores);
    std::vector<Slab> slabs;
    if (err.empty()) try {
            slabs = slab_layout(height, cards, depth);
        } catch (const std::invalid_argument& e) {
            err = e.what();
        }
    if (!err.empty()) {
        close_all();
        return fail(FPGA_INVALID_PARAM, err);
    }
    const std::uint64_t row_b = std::uint64_t(width) * sizeof(Record);
    const int passes = int(steps / std::uint64_t(depth));
    std::mutex m;
    std::condition_variable cv;
    // done[k][q]: the host cycle at which card k's pass q had ended (kNotYet before);
    // inbox[k][q]: the puts into card k after pass q with the host cycle of their issue
    constexpr std::uint64_t kNotYet = ~std::uint64_t(0);
    const std::size_t n_cards = static_cast<std::size_t>(cards), n_passes = static_cast<std::size_t>(passes);
    std::vector<std::vector<std::uint64_t>> done(n_cards, std::vector<std::uint64_t>(n_passes, kNotYet));
    std::vector<std::vector<std::vector<std::pair<afu_rdma_handle, std::uint64_t>>>> inbox(
        n_cards, std::vector<std::vector<std::pair<afu_rdma_handle, std::uint64_t>>>(n_passes));
    std::uint64_t t_host0 = 0;
    const bool hosted = afuShellSimHostTime(h[0], AFU_SIM_HOST_NOW, 0, &t_host0) == FPGA_OK;
    auto host_now = [&](afu_shell_handle c) {
        std::uint64_t t = 0;
        if (hosted) afuShellSimHostTime(c, AFU_SIM_HOST_NOW, 0, &t);
        return t;
    };
    // threads blocked on another's fact: what gives the fact's host cycle (kNotYet: not yet)
    std::map<int, std::function<std::uint64_t()>> waiting;
    std::vector<Record> out(rec.size());
    res.runs.assign(std::size_t(cards), {});
    std::string first_error;
    afu_result first_code = FPGA_OK;
    // A fact was set (m held): the waiters it completes resume at its host cycle (at once,
    // with no cycle to hand over, after a failure).
    auto changed = [&] {
        for (auto it = waiting.begin(); it != waiting.end();) {
            const std::uint64_t t = first_code != FPGA_OK ? 0 : it->second();
            if (t == kNotYet) {
                ++it;
                continue;
            }
            afuShellSimHostTime(h[std::size_t(it->first)], AFU_SIM_HOST_WAKE, t, nullptr);
            it = waiting.erase(it);
        }
        cv.notify_all();
    };
    // Card k's thread (lk held) until at() gives the host cycle of what it waits for.
    auto wait_for = [&](int k, std::unique_lock<std::mutex>& lk, std::function<std::uint64_t()> at) {
        const std::uint64_t t = at();
        if (first_code != FPGA_OK) return;
        if (t != kNotYet) {
            if (hosted) afuShellSimHostTime(h[std::size_t(k)], AFU_SIM_HOST_SYNC, t, nullptr);
            return;
        }
        if (!hosted) return cv.wait(lk, [&] { return at() != kNotYet || first_code != FPGA_OK; });
        afuShellSimHostTime(h[std::size_t(k)], AFU_SIM_HOST_BLOCK, 0, nullptr);
        waiting[k] = at;
        cv.wait(lk, [&] { return waiting.count(k) == 0; });
    };
    int started = 0;

    auto card_thread = [&](int k) {
        const Slab s = slabs[std::size_t(k)];
        afu_shell_handle c = h[std::size_t(k)];
        auto bad = [&](afu_result code, const std::string& what) {
            std::lock_guard<std::mutex> g(m);
            if (first_code == FPGA_OK) first_code = code, first_error = "card " + std::to_string(k) + ": " + what;
            changed();
        };
        if (hosted)  // the thread starts at the host time of the one that started it
            afuShellSimHostTime(c, AFU_SIM_HOST_SYNC, t_host0, nullptr);
        {
            std::lock_guard<std::mutex> g(m);
            ++started;
            cv.notify_all();
        }
        struct Leave {  // done: its host time holds the others' clock no more
            afu_shell_handle c;
            bool on;
            ~Leave() {
                if (on) afuShellSimHostTime(c, AFU_SIM_HOST_LEAVE, 0, nullptr);
            }
        } leave{c, hosted};
        auto failed = [&] {
            std::lock_guard<std::mutex> g(m);
            return first_code != FPGA_OK;
        };
        const struct { const char* name; double value; } regs[] = {{"omega", p.omega}, {"uw_x", p.uw_x}, {"uw_y", p.uw_y}};
        afu_result rc = FPGA_OK;  // each failure keeps its call's code
        for (const auto& r : regs)
            if ((rc = afuShellWriteRegValue(c, r.name, r.value)) != FPGA_OK) return bad(rc, afuShellLastError());
        const std::uint64_t bytes = std::uint64_t(s.rows()) * row_b;
        void* buf = nullptr;
        if ((rc = afuShellAllocH(c, bytes, &buf)) != FPGA_OK) return bad(rc, afuShellLastError());
        std::memcpy(buf, rec.data() + std::size_t(s.first) * std::size_t(width), bytes);
        if ((rc = afuShellDMATransferH(c, reinterpret_cast<void*>(pass_memory(0)), buf, bytes, H2F)) != FPGA_OK)
            return afuShellFreeH(c, buf), bad(rc, std::string("upload: ") + afuShellLastError());
        for (int q = 1; q < passes; ++q) {
            const std::uint64_t mm = pass_memory(std::uint64_t(q - 1));
            {
                std::lock_guard<std::mutex> g(m);
                done[std::size_t(k)][std::size_t(q - 1)] = host_now(c);
                changed();
            }
            for (int j : {k - 1, k + 1}) {
                if (j < 0 || j >= cards) continue;
                std::unique_lock<std::mutex> lk(m);
                wait_for(k, lk, [&done, j, q] { return done[std::size_t(j)][std::size_t(q - 1)]; });
                if (first_code != FPGA_OK) break;
                lk.unlock();
                const HaloPut hp = halo_put(slabs, k, j, depth, row_b, std::uint64_t(q - 1));
                afu_rdma_handle put = 0;
                rc = afuShellRDMAPutStridedAsync(cl, k, j, hp.local, hp.remote, hp.block, hp.count, hp.block,
                                                 hp.block, &put);
                if (rc) {
                    bad(rc, std::string("halo put: ") + afuShellLastError());
                    break;
                }
                const std::uint64_t issued = host_now(c);
                lk.lock();
                inbox[std::size_t(j)][std::size_t(q - 1)].push_back({put, issued});
                ++res.halo_puts;
                changed();
            }
            const std::size_t want = std::size_t((k > 0) + (k + 1 < cards));
            std::vector<std::pair<afu_rdma_handle, std::uint64_t>> mine;
            {
                std::unique_lock<std::mutex> lk(m);
                const auto& got = inbox[std::size_t(k)][std::size_t(q - 1)];
                wait_for(k, lk, [&got, want, kNotYet] {
                    std::uint64_t t = 0;
                    for (const auto& x : got) t = std::max(t, x.second);
                    return got.size() == want ? t : kNotYet;
                });
                mine = got;
            }
            if (failed()) break;
            for (const auto& [put, issued] : mine) {
                (void)issued;
                rc = afuShellRDMAWait(cl, put, 0);
                if (rc) bad(rc, std::string("halo put into it: ") + afuShellLastError());
            }
            if (failed()) break;
            if (q < passes - 1) {
                afu_shell_run_result run{};
                if ((rc = afuShellRun(c, mm, pass_memory(std::uint64_t(q)), std::uint64_t(s.rows()) * std::uint64_t(width), &run)) !=
                    FPGA_OK) {
                    bad(rc, std::string("F2F run: ") + afuShellLastError());
                    break;
                }
                res.runs[std::size_t(k)].push_back(run);
            } else if ((rc = afuShellDMATransferH(c, buf, reinterpret_cast<const void*>(mm), bytes, F2H)) != FPGA_OK) {
                bad(rc, std::string("download: ") + afuShellLastError());
            } else {
                const std::uint64_t end = host_now(c);
                {
                    std::lock_guard<std::mutex> g(m);
                    res.cycles = std::max(res.cycles, end - t_host0);
                }
                const Record* r = static_cast<const Record*>(buf) + std::size_t(s.lo - s.first) * std::size_t(width);
                std::copy(r, r + std::size_t(s.hi - s.lo) * std::size_t(width),
                          out.begin() + std::ptrdiff_t(std::size_t(s.lo) * std::size_t(width)));
            }
        }
        afuShellFreeH(c, buf);
    };
    std::vector<std::thread> threads;
    for (int k = 0; k < cards; ++k) threads.emplace_back(card_thread, k);
    if (hosted) {  // every thread has taken over its card's host time: this one leaves
        {
            std::unique_lock<std::mutex> lk(m);
            cv.wait(lk, [&] { return started == cards; });
        }
        afuShellSimHostTime(h[0], AFU_SIM_HOST_LEAVE, 0, nullptr);
    }
    for (auto& t : threads) t.join();
    close_all();
    if (first_code != FPGA_OK) return fail(first_code, first_error);
    rec = out;
    return res;
}
#endif  // AFUSHELL_RDMA_H

}  // namespace lbm
}  // namespace afushell
