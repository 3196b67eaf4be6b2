// A cluster of complete simulated cards (each a card library built with `spgen build
// --links N`: shell, cores, DDR and PCIe models, RDMA block) whose serial-link ports are
// joined by cables with latency and faults, advanced cycle by cycle by one cluster clock,
// so every run is repeatable. The host side drives each card's RDMA block through its
// CSRs only (MMIO writes and reads with the card's modelled costs, completion
// interrupts), as a driver on a real card would.
#pragma once
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "card.hpp"
#include "cluster_desc.hpp"

namespace spgsim {

/// The resolved cluster description (runtime/rdma/cluster_desc.hpp: the one parser of it).
using ClusterDesc = rdma::ClusterDesc;

/// Status codes as RDMA_STATUS.CODE (the C API returns AFU_ERR_RDMA(code), afushell.h).
enum { RTL_OK = 0, RTL_NO_ROUTE = 1, RTL_REMOTE_RANGE = 2, RTL_TIMEOUT = 3, RTL_LOCAL_RANGE = 4,
       RTL_ALIGN = 5, RTL_BAD_CARD = 6, RTL_PENDING = 100 };

class RtlCluster {
public:
    struct Op {
        int card = 0, peer = 0, get = 0, code = RTL_PENDING;
        uint64_t local = 0, remote = 0, len = 0, block = 0, count = 0, lstride = 0, rstride = 0;
        uint32_t packet_bytes = 0;  // DATA payload (RDMA_CMD.PKT); set by issue() from the cluster's
        uint64_t issued = 0, started = 0, done = 0;  // host call, CMD write reaching the card, completion seen
        uint64_t card_done = 0;  // the completion on the card: its interrupt's MSI (the host sees it irq_latency later)
    };
    struct Event { int kind, peer; uint64_t addr, len, cycle; };
    struct Channel {  // one direction of a cable, by its sending (card, port)
        int to_card = -1, to_port = -1, link = -1;
        uint64_t latency = 0;
        double cycles_per_byte = 0;  // the link's line rate, in card cycles per wire byte
        double wire_free = 0;        // when the wire has sent everything handed to it (cycles)
        // (arrival, the beat's units + {its words on the wire, last})
        std::deque<std::pair<uint64_t, std::array<uint32_t, SPG_LINK_WORDS + 1>>> q;
        bool in_pkt = false, drop = false;
        int flip_word = -1, flip_bit = 0, widx = 0;  // flip_word, widx: beats of the packet
        int pkt_words = 0;                            // header + payload + CRC of the packet being sent
        uint64_t packets = 0, dropped = 0, corrupted = 0, delivered_words = 0, last_sent = 0, last_delivered = 0;
        ClusterDesc::Fault fault;
        std::mt19937_64 rng;
    };

    /// `local`: the cards this process simulates (MPI ranks, each a block of cards; empty:
    /// all). With all cards local the constructor also runs the set-up to its end; else
    /// the caller steps until ready() everywhere.
    RtlCluster(const ClusterDesc& d, const Params& card_params, const std::vector<char>& local = {});
    ~RtlCluster();
    int size() const { return n_; }
    /// Card c is simulated here (and not absent).
    bool present(int c) const { return c >= 0 && c < n_ && cards_[size_t(c)] != nullptr; }
    /// Card c is a card of the cluster (not absent), simulated here or by another process.
    bool member(int c) const { return c >= 0 && c < n_ && !d_.absent[size_t(c)]; }
    /// Every local card's driver has finished the set-up (card id, ports, routes, INFO).
    bool ready() const;
    /// The shortest cable latency in cycles: the look-ahead of a split over processes.
    uint64_t min_latency() const;
    /// Words on cables whose receiving card is simulated elsewhere: taken out here
    /// (channel, arrival cycle, units + last) to be shipped; put_incoming() adds them
    /// on the receiving side. Arrival is at least min_latency() after sending.
    struct Word { uint32_t ch; uint64_t at; std::array<uint32_t, SPG_LINK_WORDS + 1> w; };
    void take_outgoing(std::vector<Word>& out);
    void put_incoming(const Word& w);
    int units() const { return units_; }
    int channel_to(int ch) const { return ch_[size_t(ch)].to_card; }
    const std::vector<Channel>& channels() const { return ch_; }
    uint64_t now() const { return cyc_; }
    double clock_mhz() const { return prm_.clock_mhz; }
    uint64_t mem_bytes() const { return 2ull << 32; }
    /// The host's last reduction number (REDUCE_CFG.SID, cluster_reduce.cpp): each new
    /// reduction takes the next, so no card needs to be asked which are in use.
    uint64_t reduce_sid = 0;
    /// A card's completion record of reductions (REDUCE_CPL, cluster_reduce.cpp): the 64-byte
    /// line of host memory its reduction unit writes when its part ends.
    struct ReduceRecord {
        alignas(64) uint64_t w[8] = {};
        uint64_t iova = 0;   // the line as the card addresses it (host bit set)
        uint64_t wsid = 0;   // its registration in the card's host memory
        uint64_t seen = 0;   // the cycle the host first found it written (0: not yet)
    };
    std::map<int, ReduceRecord> reduce_records;  // by card, from its first reduction on
    bool mem(int c, uint64_t addr, void* buf, uint64_t n, bool write);

    /// Queue an operation on card c's driver; returns its handle (a code at once in
    /// op(h).code when the host-side checks refuse it).
    uint64_t issue(const Op& op);
    Op op(uint64_t h);
    /// DATA payload of the operations issued from now on: 64..1024 bytes in steps of 64 (cut
    /// to each card's largest, RDMA_INFO.MAX_PKT_WORDS), 0 the largest (the default). Throws
    /// std::runtime_error for other values.
    void set_packet_bytes(uint32_t bytes);
    uint32_t packet_bytes() const { return packet_bytes_; }
    /// Steps until the operation ends or max_cycles pass; true when it ended.
    bool wait(uint64_t h, uint64_t max_cycles);
    void step();
    void run(uint64_t cycles);
    /// Target events (an operation of another card completed on this card's memory) so far.
    std::vector<Event> events(int c);
    /// Counters: per channel and totals (packets, dropped, corrupted, replays).
    std::map<std::string, uint64_t> stats();
    /// Every card's RDMA CSRs and every channel's state, naming where an operation's
    /// traffic is stuck (handle given) -- what a timeout prints.
    std::string dump(uint64_t h = ~0ull);
    /// A CSR of card c read through MMIO (steps the cluster until the answer arrives).
    uint64_t csr_read(int c, uint32_t addr);
    uint64_t op_timeout_cycles() const { return op_timeout_; }
    /// Card c itself (present cards only): its CSRs and host memory, for host-side drivers
    /// of other kinds (run_pipeline in cluster_pipeline.hpp).
    Card* card(int c) { return present(c) ? cards_[size_t(c)].get() : nullptr; }
    /// Card c's STREAM_CFG as the cluster file's "branches" bind it (0: no branch stream).
    uint64_t branch_cfg(int c) const { return c >= 0 && c < n_ ? brch_cfg_[size_t(c)] : 0; }
    /// The channels (indices into channels()) a packet from card `from` to card `to` takes.
    std::vector<int> route(int from, int to) const { return path(from, to); }

    /// Card c as an ordinary card (docs/rdma.md "Cards of a cluster"): the name under which
    /// the simulation's OPAE layer enumerates it, so afuShellOpen("sim:" + name) gives the
    /// DMA / core / register API of a single card. Once a card is open, a clock thread
    /// advances the whole cluster while any host thread waits on any of its cards, an RDMA
    /// operation is under way or wait() is called; it stands still while a host thread is
    /// writing a request's descriptors (as a single card's clock does). Card cycles and
    /// cluster cycles are then one clock. Throws std::out_of_range for an absent card.
    std::string card_name(int c);
    /// Called by the OPAE layer when a handle on card c opens / closes.
    std::shared_ptr<Card> attach(int c);
    void detach(int c);

private:
    struct Driver;
    void drive(int c);
    void tick();                    // one cycle of everything; the caller holds clk_m_
    void send(uint64_t c0, const spg_afu_pins& pins, int p, int chi);  // a beat onto a cable
    bool wants_clock();             // the clock thread's test; the caller holds clk_m_
    void clock_loop();
    uint64_t csr_read_locked(int c, uint32_t addr);
    void complete(int c, uint32_t id, int code);
    std::vector<int> path(int from, int to) const;  // channel indices along the route

    ClusterDesc d_;
    Params prm_;
    int n_ = 0, units_ = 1;
    std::atomic<uint64_t> cyc_{0};  // read by now() without the lock
    uint64_t op_timeout_ = 0;
    uint32_t packet_bytes_ = 0;
    std::vector<std::shared_ptr<Card>> cards_;
    std::vector<uint64_t> brch_cfg_;            // per card: the branch binding in STREAM_CFG
    std::vector<std::unique_ptr<Driver>> drv_;
    std::vector<Channel> ch_;                   // 2 per link
    std::map<std::pair<int, int>, int> out_ch_;  // (card, port) -> channel it sends on
    std::map<std::pair<int, int>, int> in_ch_;   // (card, port) -> channel it receives from
    std::deque<Op> ops_;  // a deque: op() references stay valid while others are issued
    // The clock shared with card handles: every public call takes clk_m_; the clock
    // thread (started by the first attach) steps while wants_clock().
    std::mutex clk_m_;
    std::atomic<bool> woken_{false};
    std::atomic<int> queued_{0};  // callers waiting at the Gate
    class Gate;  // a host thread gave a card work (set without clk_m_)
    std::condition_variable clk_cv_;
    std::thread clk_thread_;
    bool clk_stop_ = false;
    // RDMA waits of host threads while the clock thread runs: a thread that waits on a card
    // it opened (home) holds no clock back; the tick that ends its wait hands it that cycle
    struct Waiter { uint64_t h, until; std::shared_ptr<HostThread> home; bool ended; };
    std::vector<Waiter> waited_;
    int64_t held_since_ = 0;        // steady-clock ticks since the clock waits for a running thread
    bool waited_due() const;
    void end_waits();               // in tick(): waits whose operation ended or time ran out
    uint64_t host_limit();          // the clock may not reach this cycle (host threads running)
    std::vector<int> attached_;
    struct Anchor;  // what card handles hold of the cluster, cleared when it goes
    std::shared_ptr<Anchor> anchor_;
    // SPGEN_SIM_THREADS > 1: the cards' models step on that many threads in each tick
    class StepPool;
    std::unique_ptr<StepPool> pool_;
    std::vector<int> stepped_;  // the present cards, in order
};

}  // namespace spgsim
