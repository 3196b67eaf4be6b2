// One simulated card: the Verilated AFU from a card library, clocked by its own
// thread, its masters wired to the DDR and PCIe/host models.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "afu_pins.h"
#include "models.hpp"
#include "peer.hpp"

namespace spgsim {

/// A loaded card library (dlopen'd once per path, shared by its instances).
struct CardLib {
    std::string path, info;
    void* dl = nullptr;
    spg_afu_new_fn make = nullptr;
    spg_afu_free_fn destroy = nullptr;
    spg_afu_eval_fn eval = nullptr;
    static std::shared_ptr<CardLib> load(const std::string& path, std::string* err);
};

/// A host thread's time on the cards of one cluster (deterministic host time): one cursor
/// whichever of the cluster's cards it calls, and whether it waits (holds no clock back).
struct HostThread {
    std::atomic<uint64_t> cursor{0};
    std::atomic<int> blocked{0};
    std::atomic<bool> gone{false}, left{false};
};

class Card {
public:
    /// own_clock: a clock thread of its own advances the card while the host waits on it
    /// (a single card). Without, the card only moves in step_model() (a cluster clock advancing
    /// every card of a cluster in lock-step, deterministically).
    Card(std::shared_ptr<CardLib> lib, const Params& p, bool own_clock = true);
    ~Card();
    Card(const Card&) = delete;
    Card& operator=(const Card&) = delete;

    void mmio_write(uint32_t addr, uint64_t value);
    uint64_t mmio_read(uint32_t addr);
    void set_event(unsigned vector, int fd);  // fd < 0 clears
    void wait_begin();
    void wait_end();

    // Deterministic host timing (own clock, realtime=0; docs/runtime.md "Host time"): every
    // host thread is a lane (0 the program's threads, 1 and 2 the runtime's TX and RX
    // workers) with a host-time cursor in cycles. A lane's MMIO accesses enter the card at
    // its cursor plus their modelled costs, never at the cycle the card has reached when they
    // arrive, and the card only advances past a running lane's cursor when that lane blocks
    // on it: a lane woken by the card (interrupt, read result) resumes at that event's cycle.
    void lane_enter(int lane);          // the calling thread is worker lane 1 or 2, running
    void lane_idle(bool idle);          // a worker blocks on (or returns from) its work queue
    void wait_irq_begin(unsigned vector);
    void wait_irq_end(unsigned vector, bool fired);
    void user_block();                  // a program thread waits for a request to complete
    void user_wake();                   // a worker completed it: the program resumes at its cursor
    void user_unblock();                // the wait ended another way (failure, close)
    /// a program thread's wait ended by an event at `cycle` (handed over by the thread or the
    /// clock that saw it, while the clock stands at or before it)
    void user_wake_at(uint64_t cycle);
    uint64_t host_now();                // the calling lane's cursor (cycles)
    uint64_t host_arrival();            // the cycle the calling lane's latest MMIO access reaches the card
    /// the calling lane's cursor is at least `cycle` plus the issue cost of `writes` MMIO writes
    void host_sync(uint64_t cycle, unsigned writes = 0);
    void host_sleep(uint64_t cycles);   // the calling lane spends `cycles` while the card runs
    bool deterministic() const { return det_; }
    /// A card of a cluster opened through a handle: deterministic host time from now on
    /// (unless realtime=1), its program lane at `at` (docs/rdma.md "Cards of a cluster").
    void enable_host_time(uint64_t at, int domain);
    /// The calling thread's host time in a cluster's domain (nullptr: it has called none of
    /// its cards yet).
    static std::shared_ptr<HostThread> thread_host(int domain);
    /// The calling thread leaves the cluster's host time (holds no clock back) until its
    /// next call on one of its cards.
    void leave();
    /// Threads holding the clock at or before `cycle` leave (the cluster's fallback for a
    /// thread that waits on something it did not declare); true if there was one.
    bool release_holders(uint64_t cycle);
    /// The cycle the clock may not reach while a lane is running (deterministic host time;
    /// UINT64_MAX otherwise): the earliest cursor of a running lane.
    uint64_t host_limit();
    /// The lane of the calling thread from now on (the previous one returned): a cluster's
    /// clock and drivers use the driver lane, which never holds the clock back.
    static int swap_thread_lane(int lane);
    static constexpr int kDriverLane = 3;

    void hold();
    void release();

    // Cluster clock (own_clock = false), a cycle in two halves so that a cluster may step
    // its cards on several threads. step_model(): one cycle of the card; it touches only
    // this card (its model, memories and queues) and may run beside other cards'.
    // step_host(): the interrupts and MMIO read results due by now delivered to host
    // threads, whose time may span several cards, so on one thread, card after card (true
    // when one reached the host). The link pins are read after step_model() (outputs of
    // that cycle) and written before the next (inputs).
    void step_model();
    bool step_host();
    spg_afu_pins& pins() { return pins_; }
    /// What the card asks of an external clock: nothing to do, cycles wanted (the host
    /// waits on it, MMIO or DMA traffic is under way, interrupts are due), or held (a host
    /// thread is writing a request's descriptors: simulated time must stand still).
    enum class ClockNeed { idle, active, held };
    ClockNeed clock_need();
    /// Called (outside the card's lock) whenever a host thread gives the card work, so an
    /// external clock that sleeps while the card is idle wakes up.
    void set_wake(std::function<void()> wake);
    /// From now on a clock thread of its own advances the card (its cluster is gone).
    void start_own_clock();
    /// A host MMIO read without blocking: its id; read_result() has the value once the
    /// cluster clock has advanced to the cycle it reaches the host.
    uint64_t post_read(uint32_t addr);
    bool read_result(uint64_t id, uint64_t* value);
    /// Interrupts delivered so far on `vector` (0 TX, 1 RX, 2 RDMA).
    uint64_t irq_count(unsigned vector) const { return irq_count_[vector % 3].load(); }
    /// The card's FPGA memory directly (cluster set-up and checks): memory A at 0, B at 2^32;
    /// false for a range outside both.
    bool mem_access(uint64_t addr, void* buf, uint64_t n, bool write);
    /// Simulated cycle at which the calling thread's latest MMIO write was issued.
    uint64_t host_cycle();

    uint64_t now_cycles() const { return cycle_.load(std::memory_order_acquire); }
    double to_ns(uint64_t cycles) const { return double(cycles) * 1000.0 / p_.clock_mhz; }
    uint64_t irq_cycle(unsigned vector) const { return irq_at_[vector % 3].load(); }
    uint64_t bus_errors() const { return bus_errors_.load(); }
    double busy_wall_s() const { return busy_wall_ns_.load() * 1e-9; }
    uint64_t busy_cycles() const { return busy_cycles_.load(); }
    const Params& params() const { return p_; }
    const std::string& info() const { return lib_->info; }
    /// Partial reconfiguration (reconf.cpp, docs/reconf.md): the card's traffic completes,
    /// then the AFU is torn down and one from `lib` loaded and reset; the DDR kept or cleared;
    /// the card's and the host's time move on by reconf_s. "" and the cycles charged, or why
    /// not (a card of a cluster; host threads still using the card).
    std::string reconfigure(std::shared_ptr<CardLib> lib, bool keep_ddr, uint64_t* cycles);
    HostMemory host;
    PeerDevice peer;  // a GPU-like device beside host memory (docs/p2p.md)

private:
    struct Beat { uint64_t ready; uint64_t data[8]; };
    struct WriteBurst { int target = -1; uint64_t addr = 0; unsigned left = 0; };
    struct MmioOp { uint64_t at; bool write; uint32_t addr; uint64_t data; uint64_t id; int lane = 0; uint64_t seq = 0; };
    struct Lane {
        bool entered = false, idle = false;
        int wait_irq = -1;      // blocked waiting for this interrupt vector
        uint64_t read_id = 0;   // blocked on this MMIO read
        uint64_t cursor = 0;    // host time (cycles)
        uint64_t last_at = 0;   // arrival of its latest MMIO access (PCIe keeps a lane's order)
    };
    Lane& lane_locked();
    void push_locked();  // a program lane's cursor back to its thread (cluster cards)
    std::shared_ptr<HostThread> host_locked();  // the calling thread's, registered as a user
    void wake_waiter_locked(uint64_t cycle);
    bool running_locked(int lane) const;
    uint64_t limit_locked() const;  // the card may run while cycle_ < this
    void account_locked(std::vector<std::pair<uint64_t, uint64_t>>& published, const int fds[3]);
    void insert_locked(const MmioOp& op);
    void drain_locked();
    void kick();

    void run();
    // true when something reached the host
    bool deliver(std::vector<std::pair<uint64_t, uint64_t>>& published, const int fds[3]);
    bool active_locked() const;
    // A host read of `addr` into the MMIO queue (m_ held): it reaches the AFU half a read
    // round trip from now, behind the accesses already queued. Its id.
    uint64_t queue_read_locked(uint32_t addr);
    // The value of read `id` if it has reached the host, taken out of rd_results_ (m_ held).
    bool take_result_locked(uint64_t id, uint64_t* value);
    void cycle();
    int target_of(uint64_t addr) const;
    bool rd_can_accept(const spg_rd_master& m) ;
    void rd_accept(spg_rd_master& m, std::deque<Beat>& q);
    bool wr_can_accept(const spg_wr_master& m, const WriteBurst& b);
    void wr_accept(spg_wr_master& m, WriteBurst& b);
    void peer_read_beat(uint64_t addr, uint64_t* data);
    void reset_afu();                       // a new model through its reset
    std::string busy_locked() const;        // what still uses the stopped card ("" if nothing)

    std::shared_ptr<CardLib> lib_;
    Params p_;
    void* afu_ = nullptr;
    spg_afu_pins pins_{};
    DdrChannel ddr_[2];
    PcieLink pcie_;
    PeerTiming peer_timing_;
    std::deque<Beat> tx_q_, dsc_q_;
    WriteBurst rx_burst_;
    std::vector<uint64_t> ready_;

    std::mutex m_;
    std::condition_variable cv_work_, cv_done_;
    std::deque<MmioOp> mmio_in_;       // from host threads, by arrival cycle
    std::deque<MmioOp> mmio_local_;    // taken by the clock thread
    bool rd_outstanding_ = false;
    uint64_t rd_id_ = 0, rd_issue_ = 0;
    std::deque<std::pair<uint64_t, MmioOp>> rd_done_local_;  // (host-visible cycle, result)
    std::vector<std::pair<uint64_t, uint64_t>> rd_results_;   // id -> value, guarded by m_
    uint64_t rd_visible_id_ = 0;
    uint64_t next_id_ = 1;
    uint64_t host_write_at_ = 0;
    int waiters_ = 0;
    int holds_ = 0;          // host threads mid-submission: the clock waits for them
    int pending_reads_ = 0;  // host threads blocked in mmio_read
    bool stop_ = false;
    int event_fd_[3] = {-1, -1, -1};
    std::deque<std::pair<uint64_t, unsigned>> irq_pending_;  // (delivery cycle, vector)
    uint8_t irq_prev_ = 0;
    uint64_t idle_ = 0;
    std::atomic<uint64_t> cycle_{0};
    std::atomic<uint64_t> irq_at_[3];
    std::atomic<uint64_t> irq_count_[3];
    std::atomic<uint64_t> bus_errors_{0}, busy_cycles_{0}, busy_wall_ns_{0};
    // between step_model() and step_host()
    std::vector<std::pair<uint64_t, uint64_t>> step_published_;
    int step_fds_[3] = {-1, -1, -1};
    bool step_det_ = false;
    std::function<void()> wake_;  // guarded by m_; called without it
    bool det_ = false;
    Lane lanes_[4];  // 0..2 host threads, kDriverLane a cluster's driver
    int user_blocked_ = 0;            // program threads blocked in a wait (lane 0 not running)
    int sleepers_ = 0;                // threads in host_sleep
    bool idle_parked_ = false;        // the clock thread waits with nothing to do (reconf.cpp)
    bool irq_host_[3] = {};           // an interrupt written to its eventfd, not yet taken
    uint64_t seq_ = 0;
    std::vector<unsigned> irq_new_;   // interrupts delivered since the last accounting (clock thread)
    std::vector<std::pair<uint64_t, int>> read_lane_;  // blocking reads in flight: id, lane
    // cluster cards: the program lane is every host thread that calls the card, each with its
    // own host time (HostThread), shared with the cluster's other cards
    bool shared_ = false;
    int domain_ = 0;
    std::vector<std::shared_ptr<HostThread>> users_;
    std::deque<std::shared_ptr<HostThread>> user_waiters_;      // blocked on a request
    std::map<uint64_t, std::shared_ptr<HostThread>> read_host_;  // blocked on a read, by id
    std::thread thread_;
};

}  // namespace spgsim
