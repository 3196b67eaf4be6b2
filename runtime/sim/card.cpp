// One simulated card: clock thread, MMIO queue, master <-> memory-model wiring, interrupts.
#include "card.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

namespace spgsim {

namespace {
constexpr uint64_t kHostBit = 1ull << 63;
constexpr uint64_t kChanMask = 0xFFFFFFFFull;
// An MMIO read the AFU never answers completes with all ones, as PCIe does on timeout.
constexpr uint64_t kMmioTimeout = 200000;
constexpr int kBatch = 16;
// The host lane of the calling thread (Card::lane_enter): 0 for the program's threads.
thread_local int tl_lane = 0;
}  // namespace

int Card::swap_thread_lane(int lane) {
    const int old = tl_lane;
    tl_lane = lane;
    return old;
}

namespace {
// The calling thread's host time per cluster (by the cluster's id); gone when it ends.
struct HostThreads {
    std::map<int, std::shared_ptr<HostThread>> by_domain;
    ~HostThreads() {
        for (auto& d : by_domain) d.second->gone = true;
    }
};
thread_local HostThreads tl_hosts;
}  // namespace

std::shared_ptr<HostThread> Card::thread_host(int domain) {
    auto it = tl_hosts.by_domain.find(domain);
    return it == tl_hosts.by_domain.end() ? nullptr : it->second;
}

std::shared_ptr<HostThread> Card::host_locked() {
    auto& h = tl_hosts.by_domain[domain_];
    if (!h) {  // a thread new to the cluster starts where the clock is
        h = std::make_shared<HostThread>();
        h->cursor = now_cycles();
    }
    if (h->left) h->left = false, h->cursor = std::max<uint64_t>(h->cursor, now_cycles());
    if (std::find(users_.begin(), users_.end(), h) == users_.end()) users_.push_back(h);
    return h;
}

void Card::push_locked() {
    if (shared_ && tl_lane == 0) tl_hosts.by_domain[domain_]->cursor = lanes_[0].cursor;
}

void Card::wake_waiter_locked(uint64_t cycle) {
    if (user_waiters_.empty()) return;
    auto h = user_waiters_.front();
    user_waiters_.pop_front();
    h->cursor = std::max<uint64_t>(h->cursor, cycle);
    --h->blocked;
}

bool Card::release_holders(uint64_t cycle) {
    std::lock_guard<std::mutex> g(m_);
    bool any = false;
    for (const auto& h : users_)
        if (!h->gone && !h->left && h->blocked <= 0 && h->cursor <= cycle) h->left = any = true;
    return any;
}

void Card::leave() {
    {
        std::lock_guard<std::mutex> g(m_);
        if (shared_) host_locked()->left = true;
    }
    kick();
}

std::shared_ptr<CardLib> CardLib::load(const std::string& path, std::string* err) {
    static std::mutex m;
    static std::map<std::string, std::weak_ptr<CardLib>> cache;
    std::lock_guard<std::mutex> g(m);
    if (auto sp = cache[path].lock()) return sp;
    void* dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        *err = std::string("cannot load simulated card library: ") + dlerror();
        return nullptr;
    }
    auto abi = reinterpret_cast<spg_afu_abi_fn>(dlsym(dl, "spg_afu_abi"));
    auto info = reinterpret_cast<spg_afu_info_fn>(dlsym(dl, "spg_afu_info"));
    auto lib = std::make_shared<CardLib>();
    lib->make = reinterpret_cast<spg_afu_new_fn>(dlsym(dl, "spg_afu_new"));
    lib->destroy = reinterpret_cast<spg_afu_free_fn>(dlsym(dl, "spg_afu_free"));
    lib->eval = reinterpret_cast<spg_afu_eval_fn>(dlsym(dl, "spg_afu_eval"));
    if (!abi || !info || !lib->make || !lib->destroy || !lib->eval || abi() != SPG_AFU_ABI) {
        *err = path + " is not a simulated card library of this runtime (ABI mismatch): rebuild it";
        dlclose(dl);
        return nullptr;
    }
    lib->dl = dl;  // never dlclosed: Verilator's statics must outlive every model
    lib->path = path;
    lib->info = info();
    cache[path] = lib;
    return lib;
}

Card::Card(std::shared_ptr<CardLib> lib, const Params& p, bool own_clock)
    : lib_(std::move(lib)), p_(p), ddr_{DdrChannel(p), DdrChannel(p)}, pcie_(p), peer_timing_(p) {
    for (int v = 0; v < 3; ++v) irq_at_[v] = 0, irq_count_[v] = 0;
    reset_afu();
    det_ = own_clock && p_.realtime == 0;
    if (own_clock) thread_ = std::thread([this] { run(); });
}

Card::~Card() {
    {
        std::lock_guard<std::mutex> g(m_);
        stop_ = true;
    }
    cv_work_.notify_all();
    if (thread_.joinable()) thread_.join();
    lib_->destroy(afu_);
}

void Card::reset_afu() {
    afu_ = lib_->make();
    pins_ = spg_afu_pins{};
    pins_.rst = 1;
    for (int i = 0; i < 16; ++i) {
        lib_->eval(afu_, &pins_, 0);
        lib_->eval(afu_, &pins_, 1);
    }
    pins_.rst = 0;
}

void Card::set_wake(std::function<void()> wake) {
    std::lock_guard<std::mutex> g(m_);
    wake_ = std::move(wake);
}

void Card::start_own_clock() {
    {
        std::lock_guard<std::mutex> g(m_);
        wake_ = nullptr;
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
}

Card::ClockNeed Card::clock_need() {
    std::lock_guard<std::mutex> g(m_);
    if (holds_ > 0 && pending_reads_ == 0) return ClockNeed::held;
    return active_locked() ? ClockNeed::active : ClockNeed::idle;
}

void Card::mmio_write(uint32_t addr, uint64_t value) {
    std::function<void()> wake;
    {
        std::lock_guard<std::mutex> g(m_);
        if (det_) {
            // at the lane's host time plus the write's costs, whatever the card's cycle now
            Lane& L = lane_locked();
            L.cursor = std::max<uint64_t>(L.cursor, now_cycles()) + uint64_t(p_.cycles(p_.mmio_write_issue_ns));
            L.last_at = std::max(L.last_at, L.cursor + uint64_t(p_.cycles(p_.mmio_write_latency_ns)));
            insert_locked(MmioOp{L.last_at, true, addr, value, 0, tl_lane, seq_++});
            push_locked();
        } else {
            uint64_t issue = std::max<uint64_t>(now_cycles(), host_write_at_) +
                             uint64_t(p_.cycles(p_.mmio_write_issue_ns));
            host_write_at_ = issue;
            uint64_t at = issue + uint64_t(p_.cycles(p_.mmio_write_latency_ns));
            if (!mmio_in_.empty()) at = std::max(at, mmio_in_.back().at);
            mmio_in_.push_back(MmioOp{at, true, addr, value, 0});
        }
        wake = wake_;
    }
    cv_work_.notify_all();
    if (wake) wake();
}

void Card::insert_locked(const MmioOp& op) {
    // by arrival, then lane, then issue order: the same queue whichever thread got here first
    auto later = [&](const MmioOp& x) {
        return x.at != op.at ? x.at > op.at : x.lane != op.lane ? x.lane > op.lane : x.seq > op.seq;
    };
    auto it = mmio_in_.end();
    while (it != mmio_in_.begin() && later(*std::prev(it))) --it;
    mmio_in_.insert(it, op);
}

uint64_t Card::queue_read_locked(uint32_t addr) {
    uint64_t id = next_id_++;
    if (det_) {
        Lane& L = lane_locked();
        L.cursor = std::max<uint64_t>(L.cursor, now_cycles());
        L.last_at = std::max(L.last_at, L.cursor + uint64_t(p_.cycles(p_.mmio_read_latency_ns / 2)));
        insert_locked(MmioOp{L.last_at, false, addr, 0, id, tl_lane, seq_++});
        push_locked();
        return id;
    }
    uint64_t at = std::max<uint64_t>(now_cycles(), host_write_at_) +
                  uint64_t(p_.cycles(p_.mmio_read_latency_ns / 2));
    if (!mmio_in_.empty()) at = std::max(at, mmio_in_.back().at);
    mmio_in_.push_back(MmioOp{at, false, addr, 0, id});
    return id;
}

bool Card::take_result_locked(uint64_t id, uint64_t* value) {
    for (size_t i = 0; i < rd_results_.size(); ++i)
        if (rd_results_[i].first == id) {
            *value = rd_results_[i].second;
            rd_results_.erase(rd_results_.begin() + long(i));
            return true;
        }
    return false;
}

uint64_t Card::mmio_read(uint32_t addr) {
    std::unique_lock<std::mutex> lk(m_);
    uint64_t id = queue_read_locked(addr);
    ++waiters_;
    ++pending_reads_;
    if (det_) {  // the lane blocks until the result reaches the host
        if (tl_lane == 0 && shared_) {
            auto h = host_locked();
            ++h->blocked;
            read_host_[id] = h;
        } else if (tl_lane == 0) {
            ++user_blocked_;
        } else {
            lanes_[tl_lane].read_id = id;
        }
        read_lane_.emplace_back(id, tl_lane);
    }
    cv_work_.notify_all();
    if (wake_) {
        auto wake = wake_;
        lk.unlock();
        wake();
        lk.lock();
    }
    uint64_t value = 0;
    cv_done_.wait(lk, [&] { return take_result_locked(id, &value); });
    --waiters_;
    --pending_reads_;
    return value;
}

Card::Lane& Card::lane_locked() {
    if (tl_lane == 0) {
        if (shared_) lanes_[0].cursor = host_locked()->cursor;  // push_locked() writes it back
    }
    return lanes_[tl_lane];
}

bool Card::running_locked(int lane) const {
    if (lane == kDriverLane) return false;  // acts on the cluster clock, never ahead of it
    if (lane == 0) return user_blocked_ == 0;
    const Lane& L = lanes_[lane];
    return L.entered && !L.idle && L.wait_irq < 0 && L.read_id == 0;
}

uint64_t Card::limit_locked() const {
    uint64_t lim = UINT64_MAX;
    for (int l = shared_ ? 1 : 0; l < 3; ++l)
        if (running_locked(l)) lim = std::min(lim, lanes_[l].cursor);
    if (shared_)
        for (const auto& h : users_)
            if (!h->gone && !h->left && h->blocked <= 0) lim = std::min<uint64_t>(lim, h->cursor);
    return lim;
}

void Card::lane_enter(int lane) {
    tl_lane = lane;
    std::lock_guard<std::mutex> g(m_);
    lanes_[lane] = Lane();
    lanes_[lane].entered = true;
}

void Card::lane_idle(bool idle) {
    {
        std::lock_guard<std::mutex> g(m_);
        lane_locked().idle = idle;
    }
    kick();
}

// A lane's state changed: the clock (the card's own, or its cluster's) looks again.
void Card::kick() {
    std::function<void()> wake;
    {
        std::lock_guard<std::mutex> g(m_);
        wake = wake_;
    }
    cv_work_.notify_all();
    if (wake) wake();
}

void Card::wait_irq_begin(unsigned vector) {
    std::function<void()> wake;
    {
        std::lock_guard<std::mutex> g(m_);
        ++waiters_;
        // an interrupt already delivered and not taken: the poll returns at once, the lane runs on
        if (det_ && !irq_host_[vector % 3]) lane_locked().wait_irq = int(vector % 3);
        wake = wake_;
    }
    cv_work_.notify_all();
    if (wake) wake();
}

void Card::wait_irq_end(unsigned vector, bool fired) {
    std::lock_guard<std::mutex> g(m_);
    --waiters_;
    Lane& L = lane_locked();
    L.wait_irq = -1;  // a poll timeout leaves the cursor as it was: the lane does nothing with it
    if (fired) {  // drained here, where the clock thread writes it: no interrupt falls between
        uint64_t n;
        if (event_fd_[vector % 3] >= 0) {
            ssize_t r = ::read(event_fd_[vector % 3], &n, sizeof n);
            (void)r;
        }
        irq_host_[vector % 3] = false;
        L.cursor = std::max(L.cursor, irq_at_[vector % 3].load());
    }
}

void Card::user_block() {
    {
        std::lock_guard<std::mutex> g(m_);
        if (shared_) {
            auto h = host_locked();
            ++h->blocked;
            user_waiters_.push_back(h);
        } else {
            ++user_blocked_;
        }
    }
    kick();
}

void Card::user_wake() {
    std::lock_guard<std::mutex> g(m_);
    if (shared_) return wake_waiter_locked(lane_locked().cursor);
    if (user_blocked_ > 0) --user_blocked_;
    lanes_[0].cursor = std::max(lanes_[0].cursor, lane_locked().cursor);
}

void Card::user_wake_at(uint64_t cycle) {
    std::lock_guard<std::mutex> g(m_);
    if (shared_) return wake_waiter_locked(cycle);
    if (user_blocked_ > 0) --user_blocked_;
    lanes_[0].cursor = std::max(lanes_[0].cursor, cycle);
}

void Card::user_unblock() {
    std::lock_guard<std::mutex> g(m_);
    if (shared_) return wake_waiter_locked(now_cycles());
    if (user_blocked_ > 0) --user_blocked_;
    lanes_[0].cursor = std::max(lanes_[0].cursor, now_cycles());
}

void Card::enable_host_time(uint64_t at, int domain) {
    std::lock_guard<std::mutex> g(m_);
    if (p_.realtime != 0) return;
    det_ = shared_ = true;
    domain_ = domain;
    lanes_[0].cursor = std::max(lanes_[0].cursor, at);
    lanes_[kDriverLane].cursor = std::max(lanes_[kDriverLane].cursor, host_write_at_);
}

uint64_t Card::host_limit() {
    std::lock_guard<std::mutex> g(m_);
    if (!det_) return UINT64_MAX;
    // a host thread writing a request's descriptors stops the clock where it is
    return holds_ > 0 && pending_reads_ == 0 ? 0 : limit_locked();
}

uint64_t Card::host_cycle() {
    std::lock_guard<std::mutex> g(m_);
    return det_ ? lane_locked().cursor : host_write_at_;
}

uint64_t Card::host_arrival() {
    std::lock_guard<std::mutex> g(m_);
    if (det_) return lane_locked().last_at;
    return mmio_in_.empty() ? now_cycles() : mmio_in_.back().at;
}

uint64_t Card::host_now() {
    std::lock_guard<std::mutex> g(m_);
    return det_ ? lane_locked().cursor : now_cycles();
}

void Card::host_sync(uint64_t cycle, unsigned writes) {
    std::lock_guard<std::mutex> g(m_);
    const uint64_t after = cycle + writes * uint64_t(p_.cycles(p_.mmio_write_issue_ns));
    lane_locked().cursor = std::max(lane_locked().cursor, after);
    push_locked();
}

void Card::host_sleep(uint64_t cycles) {
    std::unique_lock<std::mutex> lk(m_);
    if (!det_) return;
    Lane& L = lane_locked();
    const uint64_t target = std::max<uint64_t>(L.cursor, now_cycles()) + cycles;
    L.cursor = target;
    push_locked();
    ++sleepers_;
    cv_work_.notify_all();
    if (wake_) {  // a cluster's clock: it may now run up to the new cursor
        auto wake = wake_;
        lk.unlock();
        wake();
        lk.lock();
    }
    // an idle card has nothing to do in that time: the host's time moves on alone (a card
    // held while a worker writes descriptors is not idle: it goes on once they are written)
    cv_done_.wait(lk, [&] { return stop_ || now_cycles() >= target || (!active_locked() && holds_ == 0); });
    --sleepers_;
}

// Read results and interrupts that reached the host in the batch just run: the lanes they
// wake resume at this cycle (the clock thread stopped right after delivering them).
void Card::account_locked(std::vector<std::pair<uint64_t, uint64_t>>& published, const int fds[3]) {
    const uint64_t c = now_cycles();
    for (const auto& r : published) {
        rd_results_.push_back(r);
        for (size_t i = 0; i < read_lane_.size(); ++i) {
            if (read_lane_[i].first != r.first) continue;
            const int l = read_lane_[i].second;
            auto rh = read_host_.find(r.first);
            if (rh != read_host_.end()) {  // a cluster card's program thread
                rh->second->cursor = std::max<uint64_t>(rh->second->cursor, c);
                --rh->second->blocked;
                read_host_.erase(rh);
                read_lane_.erase(read_lane_.begin() + long(i));
                break;
            }
            if (l == 0 && user_blocked_ > 0) --user_blocked_;
            if (l != 0) lanes_[l].read_id = 0;
            lanes_[l].cursor = std::max(lanes_[l].cursor, c);
            read_lane_.erase(read_lane_.begin() + long(i));
            break;
        }
    }
    if (!published.empty() || sleepers_) cv_done_.notify_all();
    published.clear();
    for (unsigned v : irq_new_) {
        irq_host_[v] = true;
        for (Lane& L : lanes_)
            if (L.wait_irq == int(v)) L.wait_irq = -1, L.cursor = std::max(L.cursor, c);
        if (fds[v] >= 0) {
            uint64_t one = 1;
            ssize_t r = ::write(fds[v], &one, sizeof one);
            (void)r;
        }
    }
    irq_new_.clear();
}

void Card::set_event(unsigned vector, int fd) {
    std::lock_guard<std::mutex> g(m_);
    event_fd_[vector % 3] = fd;
}

void Card::wait_begin() {
    std::function<void()> wake;
    {
        std::lock_guard<std::mutex> g(m_);
        ++waiters_;
        wake = wake_;
    }
    cv_work_.notify_all();
    if (wake) wake();
}

void Card::hold() {
    std::lock_guard<std::mutex> g(m_);
    ++holds_;
}

void Card::release() {
    std::function<void()> wake;
    {
        std::lock_guard<std::mutex> g(m_);
        if (holds_ > 0) --holds_;
        wake = wake_;
    }
    cv_work_.notify_all();
    cv_done_.notify_all();  // a host_sleep waiting on a held card that now has nothing to do
    if (wake) wake();
}

void Card::wait_end() {
    std::lock_guard<std::mutex> g(m_);
    --waiters_;
}

bool Card::active_locked() const {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    // While the host is still writing a request's descriptors simulated time stands
    // still (the host is infinitely fast but for its modelled MMIO costs), unless a
    // host thread is blocked on an MMIO read, which needs the clock.
    if (holds_ > 0 && pending_reads_ == 0) return false;
    return waiters_ > 0 || !mmio_in_.empty() || !mmio_local_.empty() || rd_outstanding_ ||
           !rd_done_local_.empty() || !irq_pending_.empty() || idle_ < uint64_t(p_.idle_cycles) ||
           !tx_q_.empty() || !dsc_q_.empty() || rx_burst_.left || ddr_[0].busy(c) ||
           ddr_[1].busy(c) || pcie_.busy(c);
}

void Card::run() {
    std::vector<std::pair<uint64_t, uint64_t>> published;
    while (true) {
        int fds[3];
        int n = kBatch;
        {
            std::unique_lock<std::mutex> lk(m_);
            for (int v = 0; v < 3; ++v) fds[v] = event_fd_[v];
            if (det_) {
                account_locked(published, fds);
            } else if (!published.empty()) {
                rd_results_.insert(rd_results_.end(), published.begin(), published.end());
                published.clear();
                cv_done_.notify_all();
            }
            // Deterministic: never past the host time of a lane that is running (it may still
            // send something that enters the card then).
            // Every change a sleeping host thread may be waiting for (the card going idle while
            // held back, say) wakes this thread, which passes it on.
            while (!(stop_ || (active_locked() && (!det_ || now_cycles() < limit_locked())))) {
                idle_parked_ = !active_locked();
                if (sleepers_) cv_done_.notify_all();
                cv_work_.wait(lk);
            }
            idle_parked_ = false;
            if (stop_) break;
            if (det_) n = int(std::min<uint64_t>(kBatch, limit_locked() - now_cycles()));
            drain_locked();
        }
        auto t0 = std::chrono::steady_clock::now();
        int done = 0;
        while (done < n) {
            cycle();
            ++done;
            // deterministic: stop at the cycle an event reaches the host, which may wake a lane
            if (deliver(published, fds) && det_) break;
        }
        busy_cycles_ += uint64_t(done);
        busy_wall_ns_ += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now() - t0).count());
    }
    std::lock_guard<std::mutex> g(m_);
    cv_done_.notify_all();
}

// Interrupts and MMIO read results whose host-side cycle has come.
bool Card::deliver(std::vector<std::pair<uint64_t, uint64_t>>& published, const int fds[3]) {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    bool any = false;
    while (!irq_pending_.empty() && irq_pending_.front().first <= c) {
        unsigned v = irq_pending_.front().second;
        irq_at_[v].store(irq_pending_.front().first);
        ++irq_count_[v];
        any = true;
        if (det_) {
            irq_new_.push_back(v);  // written to its eventfd when the lanes are accounted
        } else if (fds[v] >= 0) {
            uint64_t one = 1;
            ssize_t r = ::write(fds[v], &one, sizeof one);
            (void)r;
        }
        irq_pending_.pop_front();
    }
    while (!rd_done_local_.empty() && rd_done_local_.front().first <= c) {
        published.emplace_back(rd_done_local_.front().second.id, rd_done_local_.front().second.data);
        rd_done_local_.pop_front();
        any = true;
    }
    return any;
}

// The host's MMIO accesses into the clock's queue (m_ held).
void Card::drain_locked() {
    if (det_) {
        while (!mmio_in_.empty()) {  // both queues stay in (arrival, lane, order)
            const MmioOp& op = mmio_in_.front();
            auto it = mmio_local_.end();
            while (it != mmio_local_.begin() &&
                   (std::prev(it)->at > op.at || (std::prev(it)->at == op.at && std::prev(it)->lane > op.lane)))
                --it;
            mmio_local_.insert(it, op);
            mmio_in_.pop_front();
        }
        return;
    }
    while (!mmio_in_.empty()) {
        mmio_local_.push_back(mmio_in_.front());
        mmio_in_.pop_front();
    }
}

void Card::step_model() {
    {
        std::lock_guard<std::mutex> g(m_);
        drain_locked();
        for (int v = 0; v < 3; ++v) step_fds_[v] = event_fd_[v];
        step_det_ = det_;
    }
    cycle();
}

bool Card::step_host() {
    auto& published = step_published_;
    published.clear();
    const bool reached = deliver(published, step_fds_);
    ++busy_cycles_;
    if (step_det_) {  // the lanes an event wakes resume at this cycle: the cluster's clock looks again
        std::lock_guard<std::mutex> g(m_);
        account_locked(published, step_fds_);
        return reached;
    }
    if (!published.empty()) {
        {
            std::lock_guard<std::mutex> g(m_);
            rd_results_.insert(rd_results_.end(), published.begin(), published.end());
        }
        cv_done_.notify_all();  // a host thread blocked in mmio_read
    }
    return reached;
}

uint64_t Card::post_read(uint32_t addr) {
    std::lock_guard<std::mutex> g(m_);
    return queue_read_locked(addr);
}

bool Card::read_result(uint64_t id, uint64_t* value) {
    std::lock_guard<std::mutex> g(m_);
    return take_result_locked(id, value);
}

bool Card::mem_access(uint64_t addr, void* buf, uint64_t n, bool write) {
    if (addr >= (2ull << 32) || n > (2ull << 32) - addr) return false;
    auto* b = static_cast<uint8_t*>(buf);
    while (n) {  // split at the A/B boundary
        const int t = int(addr >> 32);
        const uint64_t off = addr & kChanMask, k = std::min<uint64_t>(n, (1ull << 32) - off);
        if (write) ddr_[t].mem.write(off, b, size_t(k));
        else ddr_[t].mem.read(off, b, size_t(k));
        addr += k, b += k, n -= k;
    }
    return true;
}

int Card::target_of(uint64_t addr) const {
    if (addr & kHostBit) return PeerDevice::claims(addr & ~kHostBit) ? 3 : 2;
    if (addr < (2ull << 32)) return int(addr >> 32);
    return -1;
}

bool Card::rd_can_accept(const spg_rd_master& m) {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    unsigned beats = m.burstcount ? m.burstcount : 1;
    switch (target_of(m.address)) {
        case 0: case 1: return ddr_[m.address >> 32].can_accept(c);
        case 2: case 3: return pcie_.can_read(c, uint64_t(beats) * 64);
        default: return true;
    }
}

void Card::rd_accept(spg_rd_master& m, std::deque<Beat>& q) {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    unsigned beats = m.burstcount ? m.burstcount : 1;
    uint64_t bytes = uint64_t(beats) * 64;
    int t = target_of(m.address);
    const uint8_t* hp = nullptr;
    if (t == 2) hp = host.translate(m.address & ~kHostBit, bytes);
    // A peer read may run past its buffer's end by the rest of the last beat: the engines
    // read whole beats, so only the bytes the transfer asked for must be in the buffer.
    bool bad = !m.burstcount || t < 0 || (t == 2 && !hp) ||
               (t == 3 && !peer.contains(m.address & ~kHostBit, 4)) ||
               (t < 2 && (m.address & kChanMask) + bytes > (1ull << 32));
    if (bad) {
        ++bus_errors_;
        for (unsigned i = 0; i < beats; ++i) {
            Beat b{c + 1 + i, {}};
            q.push_back(b);
        }
        return;
    }
    if (t == 2) pcie_.read(c, m.address & ~kHostBit, bytes, &ready_);
    else if (t == 3) pcie_.read(c, m.address & ~kHostBit, bytes, &ready_, &peer_timing_);
    else ddr_[t].schedule(c, beats, false, &ready_);
    for (unsigned i = 0; i < beats; ++i) {
        Beat b;
        b.ready = ready_[i];
        if (t == 2) std::memcpy(b.data, hp + i * 64, 64);
        else if (t == 3) peer_read_beat(m.address + i * 64, b.data);
        else ddr_[t].mem.read((m.address & kChanMask) + i * 64, b.data, 64);
        q.push_back(b);
    }
}

bool Card::wr_can_accept(const spg_wr_master& m, const WriteBurst& b) {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    int t = b.left ? b.target : target_of(m.address);
    switch (t) {
        case 0: case 1: return ddr_[t].can_accept(c);
        case 2: case 3: return pcie_.can_write(c);
        default: return true;
    }
}

void Card::wr_accept(spg_wr_master& m, WriteBurst& b) {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    if (!b.left) {
        b.target = target_of(m.address);
        b.addr = m.address;
        b.left = m.burstcount ? m.burstcount : 1;
    }
    const uint64_t be = m.byteenable;
    bool last = b.left == 1;
    int t = b.target;
    if (t == 0 || t == 1) {
        if ((b.addr & kChanMask) + 64 > (1ull << 32) || (b.addr >> 32) != uint64_t(t)) ++bus_errors_;
        else {
            ddr_[t].schedule(c, 1, true, nullptr);
            ddr_[t].mem.write(b.addr & kChanMask, m.writedata, 64, be);
        }
    } else if (t == 2) {
        uint8_t* p = host.translate(b.addr & ~kHostBit, 64);
        if (!p) ++bus_errors_;
        else {
            const auto* src = reinterpret_cast<const uint8_t*>(m.writedata);
            if (be == ~0ull) std::memcpy(p, src, 64);
            else for (int i = 0; i < 64; ++i) if ((be >> i) & 1) p[i] = src[i];
            pcie_.write_beat(c, unsigned(__builtin_popcountll(be)), last);
        }
    } else if (t == 3) {
        // Only the enabled bytes need to lie in the buffer (a partial last beat).
        const unsigned lo = be ? unsigned(__builtin_ctzll(be)) : 0, hi = be ? 64 - unsigned(__builtin_clzll(be)) : 0;
        auto* src = reinterpret_cast<uint8_t*>(m.writedata);
        if (!be || !peer.access((b.addr & ~kHostBit) + lo, src + lo, hi - lo, true, nullptr, be >> lo))
            ++bus_errors_;
        else pcie_.write_beat(c, unsigned(__builtin_popcountll(be)), last);
    } else {
        ++bus_errors_;
    }
    b.addr += 64;
    --b.left;
}

// A 64-byte beat of peer memory: the part inside the buffer is read, the rest is zeros
// (the engines discard bytes beyond the transfer).
void Card::peer_read_beat(uint64_t addr, uint64_t* data) {
    const uint64_t bus = addr & ~kHostBit;
    std::memset(data, 0, 64);
    uint64_t n = 64;
    while (n >= 4 && !peer.contains(bus, n)) n -= 4;
    if (!n || !peer.access(bus, data, n, false, nullptr)) ++bus_errors_;
}

void Card::cycle() {
    const uint64_t c = cycle_.load(std::memory_order_relaxed);
    bool activity = false;
    pins_.mmio_wr_valid = 0;
    pins_.mmio_rd_valid = 0;
    if (!mmio_local_.empty() && mmio_local_.front().at <= c) {
        const MmioOp& op = mmio_local_.front();
        if (op.write) {
            pins_.mmio_wr_valid = 1;
            pins_.mmio_wr_addr = op.addr;
            pins_.mmio_wr_data = op.data;
            mmio_local_.pop_front();
        } else if (!rd_outstanding_) {
            pins_.mmio_rd_valid = 1;
            pins_.mmio_rd_addr = op.addr;
            rd_outstanding_ = true;
            rd_id_ = op.id;
            rd_issue_ = c;
            mmio_local_.pop_front();
        }
        activity = true;
    }
    auto feed = [c](spg_rd_master& m, std::deque<Beat>& q) {
        if (!q.empty() && q.front().ready <= c) {
            m.readdatavalid = 1;
            std::memcpy(m.readdata, q.front().data, 64);
            q.pop_front();
        } else {
            m.readdatavalid = 0;
        }
    };
    feed(pins_.tx_rd, tx_q_);
    feed(pins_.dsc_rd, dsc_q_);
    lib_->eval(afu_, &pins_, 0);

    uint8_t w_tx = pins_.tx_rd.read ? !rd_can_accept(pins_.tx_rd) : 0;
    uint8_t w_dsc = pins_.dsc_rd.read ? !rd_can_accept(pins_.dsc_rd) : 0;
    uint8_t w_rx = pins_.rx_wr.write ? !wr_can_accept(pins_.rx_wr, rx_burst_) : 0;
    if (w_tx != pins_.tx_rd.waitrequest || w_dsc != pins_.dsc_rd.waitrequest ||
        w_rx != pins_.rx_wr.waitrequest) {
        pins_.tx_rd.waitrequest = w_tx;
        pins_.dsc_rd.waitrequest = w_dsc;
        pins_.rx_wr.waitrequest = w_rx;
        lib_->eval(afu_, &pins_, 0);
    }
    if (pins_.tx_rd.read) { activity = true; if (!w_tx) rd_accept(pins_.tx_rd, tx_q_); }
    if (pins_.dsc_rd.read) { activity = true; if (!w_dsc) rd_accept(pins_.dsc_rd, dsc_q_); }
    if (pins_.rx_wr.write) { activity = true; if (!w_rx) wr_accept(pins_.rx_wr, rx_burst_); }

    if (rd_outstanding_ && (pins_.mmio_rd_resp_valid || c - rd_issue_ > kMmioTimeout)) {
        uint64_t v = pins_.mmio_rd_resp_valid ? pins_.mmio_rd_resp_data : ~0ull;
        rd_done_local_.emplace_back(c + uint64_t(p_.cycles(p_.mmio_read_latency_ns / 2)),
                                    MmioOp{0, false, 0, v, rd_id_});
        rd_outstanding_ = false;
    }
    uint8_t rise = uint8_t(pins_.irq & ~irq_prev_);
    irq_prev_ = pins_.irq;
    for (unsigned v = 0; v < 3; ++v)
        if ((rise >> v) & 1) {
            uint64_t at = pcie_.msi(c) + uint64_t(p_.cycles(p_.irq_latency_ns));
            auto it = irq_pending_.end();
            while (it != irq_pending_.begin() && std::prev(it)->first > at) --it;
            irq_pending_.insert(it, {at, v});
            activity = true;
        }
    lib_->eval(afu_, &pins_, 1);
    idle_ = activity ? 0 : idle_ + 1;
    cycle_.store(c + 1, std::memory_order_release);
}

}  // namespace spgsim
