// Running N steps of the D2Q9 LBM core on a card through the afushell C API (C++17).
//
// The counterpart of spgen.lbm.run_card: a header over afushell.h (link libafushell),
// separate from the header-only lbm.hpp so that grid and record code needs no runtime.
// On a card with cores every transfer streams through the cascade (docs/shell.md: the
// shell has no bypass), so with D cores the upload (H2F) advances the grid D steps,
// each F2F run between memories A and B D more, and the download (F2H) D more:
// N steps take N / D transfers, N a multiple of D and at least 2D. Other N are refused
// with a message (the cores cannot be bypassed to make up a remainder).
// Errors come back as codes (afu_result / afu_shell_error) with a message; nothing
// throws.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "afushell.h"
#include "lbm.hpp"

namespace afushell {
namespace lbm {

// FPGA addresses of the two ping-pong buffers: the start of memories A and B.
inline constexpr std::uint64_t MEM_A = 0x0;
inline constexpr std::uint64_t MEM_B = std::uint64_t(1) << 32;

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

// Checks steps against the cascade depth; empty when valid.
inline std::string steps_error(std::uint64_t steps, unsigned depth) {
    if (steps >= 2ull * depth && steps % depth == 0) return "";
    return "a card with " + std::to_string(depth) + " core(s) advances the grid " +
           std::to_string(depth) + " steps per transfer (the upload and the download stream "
           "through the cores too): steps must be a multiple of " + std::to_string(depth) +
           ", at least " + std::to_string(2ull * depth) + ", got " + std::to_string(steps);
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
                                "-word records; the LBM core streams 10-word (40-byte) records");
    const std::string bad_steps = detail::steps_error(steps, r.depth);
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

    const std::uint64_t mem[2] = {MEM_A, MEM_B};
    c = afuShellDMATransferH(h, reinterpret_cast<void*>(mem[0]), buf, bytes, H2F);
    if (c != FPGA_OK) return done(detail::failed_call(r, c, "run_card: upload (H2F) to memory A"));
    timed();
    r.transfers = 1;
    const std::uint64_t f2f = steps / r.depth - 2;
    for (std::uint64_t k = 0; k < f2f; ++k) {
        afu_shell_run_result run{};
        c = afuShellRun(h, mem[k % 2], mem[(k + 1) % 2], rec.size(), &run);
        if (c != FPGA_OK)
            return done(detail::failed_call(r, c, "run_card: F2F run " + std::to_string(k + 1) + " of " +
                                                      std::to_string(f2f)));
        r.runs.push_back(run);
        r.elapsed_ns += run.elapsed_ns;
        ++r.transfers;
    }
    c = afuShellDMATransferH(h, buf, reinterpret_cast<const void*>(mem[f2f % 2]), bytes, F2H);
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

}  // namespace lbm
}  // namespace afushell
