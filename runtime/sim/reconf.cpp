// Partial reconfiguration of a simulated card: one AFU model torn down, another loaded.
#include <algorithm>

#include "card.hpp"

namespace spgsim {

std::string Card::busy_locked() const {
    if (holds_ || pending_reads_ || waiters_ || sleepers_)
        return "a host thread is still using the card (a request being written or waited for)";
    if (!mmio_in_.empty() || !mmio_local_.empty() || rd_outstanding_ || !rd_done_local_.empty())
        return "MMIO accesses are in flight";
    if (!tx_q_.empty() || !dsc_q_.empty() || rx_burst_.left || pins_.tx_rd.read || pins_.dsc_rd.read ||
        pins_.rx_wr.write || !irq_pending_.empty())
        return "transfers are in flight";
    return "";
}

std::string Card::reconfigure(std::shared_ptr<CardLib> lib, bool keep_ddr, uint64_t* cycles) {
    if (!thread_.joinable()) return "a card of a cluster cannot be reconfigured (its clock is the cluster's)";
    std::unique_lock<std::mutex> lk(m_);
    // The card's traffic completes first: the caller waits on the card like a blocked host
    // thread (deterministic host time lets the card run past its cursor meanwhile).
    Lane& me = lane_locked();
    const bool program = &me == &lanes_[0];
    if (program) ++user_blocked_;
    else me.idle = true;
    ++sleepers_;
    cv_work_.notify_all();
    // what the clock thread owns is judged by it (idle_parked_), what host threads change here
    cv_done_.wait(lk, [&] {
        return idle_parked_ && mmio_in_.empty() && holds_ == 0 && waiters_ == 0 && pending_reads_ == 0;
    });
    --sleepers_;
    if (program) --user_blocked_;
    else me.idle = false;
    me.cursor = std::max(me.cursor, now_cycles());
    // The clock stops, so that nothing moves between the last check and the swap.
    stop_ = true;
    lk.unlock();
    cv_work_.notify_all();
    thread_.join();
    lk.lock();
    stop_ = false;
    std::string busy = busy_locked();
    if (busy.empty()) {
        const uint64_t start = det_ ? std::max(me.cursor, now_cycles()) : std::max(host_write_at_, now_cycles());
        const uint64_t n = uint64_t(p_.cycles(p_.reconf_s * 1e9));
        lib_->destroy(afu_);
        lib_ = std::move(lib);
        reset_afu();
        irq_prev_ = 0;
        idle_ = 0;
        if (!keep_ddr)
            for (auto& d : ddr_) d.mem = SparseMemory();
        cycle_.store(start + n, std::memory_order_release);
        host_write_at_ = std::max(host_write_at_, start + n);
        for (Lane& L : lanes_) L.cursor = std::max(L.cursor, start + n);
        *cycles = n;
    }
    thread_ = std::thread([this] { run(); });
    return busy;
}

}  // namespace spgsim
