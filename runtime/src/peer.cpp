// Peer devices (a GPU's memory on the card's PCIe), the CPU-staged path and the card's P2P
// controller (card-initiated and register-mode DMA).
#include <cstdio>
#include <cstring>
#include <memory>

#include "afushell_csr.h"
#include "shell.hpp"
#ifdef AFUSHELL_SIM
#include <opae/spgen_sim.h>
#endif

namespace afushell {

namespace {

constexpr uint64_t kHost = 1ull << AFUSHELL_HOST_ADDR_BIT;
const char* const kErrNames[] = {"ERR_NONE", "ERR_BAD_LENGTH", "ERR_BAD_ALIGN", "ERR_ADDR_RANGE",
                                 "ERR_RECORD_WIDTH"};

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

[[noreturn]] void no_peer() {
    throw Error(FPGA_NOT_SUPPORTED,
                "peer devices are simulated only: on a real card the GPU's memory must be pinned and "
                "mapped with GPUDirect RDMA (nvidia-peermem), which this runtime does not do");
}

}  // namespace

const char* Shell::sim_info() const {
#ifdef AFUSHELL_SIM
    if (simulated_) return spgenSimInfo(h_);
#endif
    throw Error(FPGA_NOT_SUPPORTED, "not a simulated card");
}

uint64_t Shell::peer_register(uint64_t cuda_ptr, uint64_t bytes) {
    if (!bytes) throw Error(AFU_ERR_ZERO_COUNT, "a peer buffer of 0 bytes");
    if (bytes % 4) throw Error(AFU_ERR_BAD_COUNT, "a peer buffer of " + std::to_string(bytes) + " bytes (not a multiple of 4)");
#ifdef AFUSHELL_SIM
    if (simulated_) {
        uint64_t bus = 0;
        char err[256] = "";
        fpga_result r = spgenSimPeerRegister(h_, bytes, cuda_ptr, &bus, err, sizeof err);
        if (r != FPGA_OK) throw Error(r, std::string("peer buffer: ") + err);
        std::lock_guard<std::mutex> g(peer_m_);
        peer_bufs_[bus] = bytes;
        return bus;
    }
#endif
    (void)cuda_ptr;
    no_peer();
}

void Shell::peer_unregister(uint64_t bus) {
    {
        std::lock_guard<std::mutex> g(peer_m_);
        if (!peer_bufs_.erase(bus)) throw Error(FPGA_NOT_FOUND, "no peer buffer at bus address " + hex(bus));
    }
#ifdef AFUSHELL_SIM
    spgenSimPeerUnregister(h_, bus);
#endif
}

uint64_t Shell::peer_addr(uint64_t bus, uint64_t n, const char* what) const {
    if (checks_) peer_check(bus, n, what);
    return kHost | bus;
}

void Shell::peer_check(uint64_t bus, uint64_t n, const char* what) const {
    if (bus % 4) throw Error(AFU_ERR_ALIGNMENT, std::string(what) + " peer address " + hex(bus) + " is not 4-byte aligned");
    std::lock_guard<std::mutex> g(peer_m_);
    auto it = peer_bufs_.upper_bound(bus);
    if (it != peer_bufs_.begin()) {
        --it;
        if (bus - it->first <= it->second && n <= it->second - (bus - it->first)) return;
    }
    throw Error(AFU_ERR_NOT_PREPARED, std::string(what) + " peer range " + hex(bus) + "+" + std::to_string(n) +
                                          " is not inside one buffer from afuShellPeerRegister");
}

void Shell::side_addrs(int type, uint64_t dst, uint64_t src, uint64_t count, uint64_t dst_count,
                       uint64_t* d, uint64_t* s) const {
    const bool src_host = type == H2F || type == H2H, dst_host = type == F2H || type == H2H;
    *s = type == P2F ? peer_addr(src, count, "src")
                     : card_addr(reinterpret_cast<const void*>(src), count, src_host, "src");
    *d = type == F2P ? peer_addr(dst, dst_count, "dst")
                     : card_addr(reinterpret_cast<const void*>(dst), dst_count, dst_host, "dst");
}

void Shell::peer_access(uint64_t bus, void* buf, uint64_t bytes, bool write) {
    if (!buf) throw Error(AFU_ERR_NULL_POINTER, "host pointer is NULL");
    peer_check(bus, bytes, write ? "dst" : "src");  // always: it touches process memory
#ifdef AFUSHELL_SIM
    if (simulated_) {
        if (spgenSimPeerAccess(h_, bus, buf, bytes, write ? 1 : 0) != FPGA_OK)
            throw Error(FPGA_EXCEPTION, "peer memory access failed (a CUDA copy error?)");
        return;
    }
#endif
    no_peer();
}

uint64_t Shell::peer_staged(uint64_t dst, uint64_t src, uint64_t count, int type) {
    if (type != P2F && type != F2P) throw Error(AFU_ERR_BAD_TYPE, "the staged path takes P2F or F2P");
    if (!count) throw Error(AFU_ERR_ZERO_COUNT, "count is 0 bytes");
    if (count % 4) throw Error(AFU_ERR_BAD_COUNT, "count " + std::to_string(count) + " is not a multiple of 4 bytes");
    uint64_t copy_ns = 0;
#ifdef AFUSHELL_SIM
    if (simulated_) copy_ns = spgenSimPeerCopyNs(h_, count);
#endif
    if (!simulated_) no_peer();
    // Validate both sides before the first leg moves anything.
    peer_addr(type == P2F ? src : dst, count, type == P2F ? "src" : "dst");
    card_addr(reinterpret_cast<const void*>(type == P2F ? dst : src), count, false, type == P2F ? "dst" : "src");
    void* bounce = alloc(count);
    struct Free {
        Shell* s; void* p;
        ~Free() { try { s->free(p); } catch (...) {} }
    } guard{this, bounce};
    std::string msg;
    std::shared_ptr<Request> r;
    if (type == P2F) {
        peer_access(src, bounce, count, false);
        r = dma(dst, reinterpret_cast<uint64_t>(bounce), count, H2F);
    } else {
        r = dma(reinterpret_cast<uint64_t>(bounce), src, count, F2H);
    }
    afu_result res = wait(r, UINT64_MAX, &msg);
    if (res != FPGA_OK) throw Error(res, msg);
    if (type == F2P) peer_access(dst, bounce, count, true);
    return copy_ns + (r->end_ns - r->start_ns);
}

afu_shell_card_dma_result Shell::card_dma(uint64_t dst, uint64_t src, uint64_t count, int type,
                                          uint32_t repeat, uint32_t src_step, uint32_t dst_step) {
    if (type < H2F || type > F2P)
        throw Error(AFU_ERR_BAD_TYPE, "transfer type " + std::to_string(type) + " is not H2F, F2H, F2F, H2H, P2F or F2P");
    if (checks_) {
        if (!count) throw Error(AFU_ERR_ZERO_COUNT, "count is 0 bytes");
        if (count % 4) throw Error(AFU_ERR_BAD_COUNT, "count " + std::to_string(count) + " is not a multiple of 4 bytes");
        if (count > 0xFFFFFFFCull) throw Error(FPGA_INVALID_PARAM, "a card-initiated transfer moves at most 4 GiB - 4 bytes");
        if (src_step % 4 || dst_step % 4) throw Error(AFU_ERR_ALIGNMENT, "address steps must be multiples of 4");
    }
    const uint64_t n = repeat ? repeat : 1;
    // Every transfer of the pattern must lie in the same buffer or memory: check the span.
    const uint64_t s_span = (n - 1) * src_step + count, d_span = (n - 1) * dst_step + count;
    uint64_t s = 0, d = 0;
    side_addrs(type, dst, src, s_span, d_span, &d, &s);
    std::lock_guard<std::mutex> g(p2p_m_);
    {
        std::lock_guard<std::mutex> q(m_);
        usable_locked();
    }
    uint64_t t0 = now_ns();
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimHold(h_);  // the five writes and GO land at one instant, as in submit()
#endif
    try {
        mmio_w(AFUSHELL_P2P_SRC, s);
        mmio_w(AFUSHELL_P2P_DST, d);
        mmio_w(AFUSHELL_P2P_LEN, count);
        mmio_w(AFUSHELL_P2P_PATTERN, n);
        mmio_w(AFUSHELL_P2P_STEP, uint64_t(src_step) | (uint64_t(dst_step) << 32));
        mmio_w(AFUSHELL_P2P_CTRL, AFUSHELL_P2P_CTRL_GO_MASK);
    } catch (...) {
#ifdef AFUSHELL_SIM
        if (simulated_) spgenSimRelease(h_);
#endif
        throw;
    }
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimRelease(h_);
#endif
    // The card completes the sequence by itself; the host only looks (each read ~1 us). A
    // sequence that has not ended long after it should (engines held by a host descriptor
    // that never completes) is aborted and reported, never waited for forever.
    const double total = double(n) * double(count);
    const uint64_t limit = uint64_t(1e10 + total * 100.0);   // 10 s + 100 ns per byte
    bool aborted = false;
    uint64_t st = 0;
    while ((st = mmio_r(AFUSHELL_P2P_STATUS)) & AFUSHELL_P2P_STATUS_BUSY_MASK) {
        const uint64_t waited = now_ns() - t0;
        if (!aborted && waited > limit) {
            mmio_w(AFUSHELL_P2P_CTRL, AFUSHELL_P2P_CTRL_ABORT_MASK);
            aborted = true;
        } else if (aborted && waited > 2 * limit) {
            break;
        }
    }
    if (aborted)
        throw Error(AFU_ERR_TIMEOUT, "the card's P2P sequence had not ended after " + std::to_string(limit) +
                                         " ns and was aborted after " +
                                         std::to_string((st >> AFUSHELL_P2P_STATUS_DONE_COUNT_SHIFT) & 0xFFFFFFFFull) +
                                         " transfers in all (P2P_STATUS.DONE_COUNT)");
    unsigned code = unsigned((st & AFUSHELL_P2P_STATUS_ERROR_MASK) >> AFUSHELL_P2P_STATUS_ERROR_SHIFT);
    if (code)
        throw Error(AFU_ERR_DEVICE, std::string("the P2P controller refused a transfer: ") +
                                        (code < 5 ? kErrNames[code] : "unknown error") + " (" + std::to_string(code) + ")");
    afu_shell_card_dma_result out{};
    out.last_cycles = mmio_r(AFUSHELL_P2P_LAST_CYCLES);
    out.seq_cycles = mmio_r(AFUSHELL_P2P_SEQ_CYCLES);
    out.wait_cycles = mmio_r(AFUSHELL_P2P_WAIT_CYCLES);
    const uint64_t end_cycle = mmio_r(AFUSHELL_P2P_END_CYCLE);
    out.transfers = n;
    const uint64_t end_ns = uint64_t(double(end_cycle) * 1000.0 / clock_mhz_);
    out.elapsed_ns = simulated_ && end_ns > t0 ? end_ns - t0 : uint64_t(double(out.seq_cycles) * 1000.0 / clock_mhz_);
    return out;
}

}  // namespace afushell
