// A cluster of simulated cards on one cluster clock: cables, fault model, the host-side
// RDMA driver (CSRs only), state dump.
#include "cluster.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <sched.h>

#include "afushell/rdma_packet.h"
#include "afushell_csr.h"

namespace spgsim {

namespace {
uint64_t info_value(const std::string& info, const std::string& key, uint64_t dflt) {
    std::istringstream in(info);
    std::string line;
    while (std::getline(in, line))
        if (line.compare(0, key.size() + 1, key + "=") == 0) return std::stoull(line.substr(key.size() + 1));
    return dflt;
}
constexpr uint64_t kValid = 1ull << 40, kEvtValid = 1ull << 16, kPending = 1u << 4;
constexpr int kNoRoute = 15;
constexpr uint64_t kBranchSid = 2;  // the stream id of branch streams (pipelines use 1)
constexpr int kClockBatch = 16;  // cycles the clock thread steps per look at the cards
// wall time a host thread may hold the cluster clock without a call before it is taken to
// wait on something undeclared
constexpr std::chrono::steady_clock::duration kHostSilence = std::chrono::seconds(2);
std::atomic<int> g_clusters{0};

// The calling thread acts as the cluster's driver (its MMIO accesses on the driver lane,
// which follows the cluster clock) while this lives.
class DriverLane {
public:
    DriverLane() : old_(Card::swap_thread_lane(Card::kDriverLane)) {}
    ~DriverLane() { Card::swap_thread_lane(old_); }

private:
    int old_;
};

// SPGEN_SIM_THREADS: how many threads step a cluster's cards (1, the default, or a number,
// or "auto": the cores this process may use); never more than the cards.
int sim_threads(int cards) {
    const char* env = std::getenv("SPGEN_SIM_THREADS");
    if (!env || !*env) return 1;
    int t = 0;
    if (std::string(env) == "auto") {
        cpu_set_t set;
        t = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : int(std::thread::hardware_concurrency());
    } else {
        char* end = nullptr;
        const long v = std::strtol(env, &end, 10);
        if (*end || v < 1 || v > 1024)
            throw std::runtime_error(std::string("SPGEN_SIM_THREADS=") + env +
                                     ": give the threads that step a cluster's cards (a number >= 1, or auto)");
        t = int(v);
    }
    return std::max(1, std::min(t, cards));
}
}  // namespace

// Steps the cards' models of one tick on several threads. Every thread, the caller's
// included, takes the next card not yet taken until none is left, so a worker that the
// machine has not scheduled holds nothing back: the caller steps the cards itself and
// waits only for cards already taken. A tick is short (tens of microseconds a card), so
// the workers spin between ticks and sleep only when the clock stands still.
class RtlCluster::StepPool {
public:
    StepPool(int threads, int items, std::function<void(int)> step) : n_(items), step_(std::move(step)) {
        for (int w = 1; w < threads; ++w) th_.emplace_back([this] { work(); });
    }
    ~StepPool() {
        {
            std::lock_guard<std::mutex> g(m_);
            stop_ = true;
            ++gen_;
        }
        cv_.notify_all();
        for (auto& t : th_) t.join();
    }
    /// step(i) for every i in [0, items); returns when all are done.
    void run() {
        // done_ first: a worker still in the last tick's loop finds next_ spent until the
        // reset, and counts any card it takes after it
        done_.store(0);
        next_.store(0);
        ++gen_;
        if (sleeping_.load()) {
            std::lock_guard<std::mutex> g(m_);
            cv_.notify_all();
        }
        take();
        for (int spins = 0; done_.load() != n_;) backoff(++spins);
    }

private:
    // a short spin, then yield: on a machine with fewer free cores than threads the thread
    // waited for needs this one's core
    static void backoff(int spins) {
        if (spins < 256) __builtin_ia32_pause();
        else std::this_thread::yield();
    }
    void take() {
        for (int i; (i = next_.fetch_add(1)) < n_;) {
            step_(i);
            done_.fetch_add(1);
        }
    }
    void work() {
        uint64_t seen = 0;
        for (;;) {
            for (int spins = 0; gen_.load() == seen;) {
                if (++spins < kSpins) {
                    backoff(spins);
                    continue;
                }
                std::unique_lock<std::mutex> lk(m_);  // the clock stands still: sleep
                ++sleeping_;
                cv_.wait(lk, [&] { return gen_.load() != seen; });
                --sleeping_;
            }
            seen = gen_.load();
            if (stop_) return;
            take();
        }
    }
    static constexpr int kSpins = 1 << 14;  // spins (yields after the first few) before sleeping
    const int n_;
    std::function<void(int)> step_;
    std::vector<std::thread> th_;
    std::atomic<uint64_t> gen_{0};
    std::atomic<int> next_{0}, done_{0}, sleeping_{0};
    std::atomic<bool> stop_{false};
    std::mutex m_;
    std::condition_variable cv_;
};

// The OPAE layer (opae_sim.cpp) enumerates a cluster's cards under these names.
void register_external_card(const std::string& name, std::function<std::shared_ptr<Card>()> open,
                            std::function<void()> close);

// Every public call holds the cluster lock through a Gate. The clock thread steps in
// batches and, between batches, lets every caller queued at the gate go first (a mutex
// alone is not fair: the clock thread would take it straight back).
class RtlCluster::Gate {
public:
    explicit Gate(RtlCluster& c) : c_(c) {
        ++c_.queued_;
        lk_ = std::unique_lock<std::mutex>(c_.clk_m_);
        --c_.queued_;
    }
    ~Gate() {
        if (lk_.owns_lock()) lk_.unlock();
        c_.clk_cv_.notify_all();
    }
    std::unique_lock<std::mutex>& lock() { return lk_; }

private:
    RtlCluster& c_;
    std::unique_lock<std::mutex> lk_;
};

struct RtlCluster::Anchor {
    std::mutex m;
    RtlCluster* cl = nullptr;
    int id = 0;
};

// The host side of one card: a driver thread's work, reduced to a state machine that the
// cluster clock advances. It only writes and reads the card's RDMA CSRs.
struct RtlCluster::Driver {
    enum State { SETUP, IDLE, STATUS, OP_ID, DONE_INFO, EVT_INFO, EVT_ADDR, EVT_LEN } st = SETUP;
    std::deque<uint64_t> queue;        // handles not yet started
    uint64_t rd = 0, cur = 0, irq_seen = 0, irq_msi = 0;  // irq_msi: the cycle of the last interrupt's MSI
    int inflight = 0, max_ops = 1, local_port = 0;
    std::map<uint32_t, uint64_t> by_id;  // engine op id -> handle
    std::map<uint32_t, int> early;       // completions read before their id
    Event evt{};
    std::vector<Event> events;
};

RtlCluster::RtlCluster(const ClusterDesc& d, const Params& card_params, const std::vector<char>& local)
    : d_(d), prm_(card_params), n_(d.cards) {
    // every card's build: enough link ports, one link width, branch streams that fit
    std::vector<std::shared_ptr<CardLib>> libs(static_cast<size_t>(n_));
    auto words = [](const CardLib& l, const char* k) { return info_value(l.info, k, 0); };
    int units_seen = 0;
    for (int c = 0; c < n_; ++c) {
        if (d.absent[size_t(c)]) continue;
        std::string err;
        libs[size_t(c)] = CardLib::load(d.lib_of(c), &err);
        if (!libs[size_t(c)]) throw std::runtime_error("card " + std::to_string(c) + ": " + err);
        const CardLib& l = *libs[size_t(c)];
        const int links = int(info_value(l.info, "links", 0));
        if (links < d.ports)
            throw std::runtime_error("card " + std::to_string(c) + " (" + l.path + "): the card has " +
                                     std::to_string(links) + " link ports, the cluster needs " + std::to_string(d.ports) +
                                     " (spgen build --links " + std::to_string(std::max(d.ports, 1)) + ")");
        const int units = int(info_value(l.info, "link_bits", 32) / 32);
        if (units_seen && units != units_seen)
            throw std::runtime_error("card " + std::to_string(c) + " (" + l.path + ") has " + std::to_string(32 * units) +
                                     "-bit links, the cards before it " + std::to_string(32 * units_seen) +
                                     "-bit ones: cables join cards of one link width (rebuild them with one spgen)");
        units_ = units_seen = units;
        op_timeout_ = std::max<uint64_t>(op_timeout_, info_value(l.info, "rdma_op_timeout", 2000000));
    }
    brch_cfg_.assign(size_t(n_), 0);
    std::vector<char> sends(static_cast<size_t>(n_), 0), takes(static_cast<size_t>(n_), 0);
    for (auto [a, b] : d.branches) {
        auto card = [&](int c) { return "card " + std::to_string(c) + " (" + libs[size_t(c)]->path + ")"; };
        if (!libs[size_t(a)] || !libs[size_t(b)]) throw std::runtime_error("cluster: a branch stream names an absent card");
        const uint64_t out = words(*libs[size_t(a)], "brch_out_words"), in = words(*libs[size_t(b)], "brch_in_words");
        if (!out) throw std::runtime_error("branches: " + card(a) + " has no core with a Brch_Out to send");
        if (!in) throw std::runtime_error("branches: " + card(b) + " has no core with a Brch_In to receive");
        if (in != out)
            throw std::runtime_error("branches: " + card(a) + " sends Brch_Out elements of " + std::to_string(out) +
                                     " words, " + card(b) + "'s Brch_In takes " + std::to_string(in) + " words");
        sends[size_t(a)] = takes[size_t(b)] = 1;
        brch_cfg_[size_t(a)] |= uint64_t(b) << AFUSHELL_STREAM_CFG_TX_DST_SHIFT | kBranchSid << AFUSHELL_STREAM_CFG_TX_SID_SHIFT |
                                AFUSHELL_STREAM_CFG_OUT_BRCH_MASK;
        brch_cfg_[size_t(b)] |= uint64_t(a) << AFUSHELL_STREAM_CFG_RX_PEER_SHIFT | kBranchSid << AFUSHELL_STREAM_CFG_RX_SID_SHIFT |
                                AFUSHELL_STREAM_CFG_IN_BRCH_MASK;
    }
    // a core's branch stream that nothing binds would hold it (Brch_Out) or starve it (Brch_In)
    for (int c = 0; c < n_; ++c) {
        if (!libs[size_t(c)]) continue;
        const CardLib& l = *libs[size_t(c)];
        for (auto [key, bound, what] : {std::tuple<const char*, char, const char*>{"brch_out_words", sends[size_t(c)], "Brch_Out"},
                                        {"brch_in_words", takes[size_t(c)], "Brch_In"}})
            if (words(l, key) && !bound)
                throw std::runtime_error("card " + std::to_string(c) + " (" + l.path + "): its core's " + what +
                                         " is not bound; name it in the cluster file's \"branches\" (e.g. {\"from\": " +
                                         (std::string(what) == "Brch_Out" ? std::to_string(c) + ", \"to\": N" : "N, \"to\": " + std::to_string(c)) + "})");
    }
    for (const auto& l : d.links)
        for (int p : {l.pa, l.pb})
            if (p < 0 || p >= d.ports) throw std::runtime_error("cluster: a link uses port " + std::to_string(p) +
                                                                "; the cards have " + std::to_string(d.ports));
    cards_.resize(size_t(n_));
    drv_.resize(size_t(n_));
    for (int c = 0; c < n_; ++c) {
        if (d.absent[size_t(c)] || (!local.empty() && !local[size_t(c)])) continue;
        cards_[size_t(c)] = std::make_shared<Card>(libs[size_t(c)], prm_, false);
        drv_[size_t(c)] = std::make_unique<Driver>();
        drv_[size_t(c)]->local_port = int(info_value(libs[size_t(c)]->info, "links", 0));
        stepped_.push_back(c);
    }
    if (const int t = sim_threads(int(stepped_.size())); t > 1)
        pool_ = std::make_unique<StepPool>(t, int(stepped_.size()), [this](int i) { cards_[size_t(stepped_[size_t(i)])]->step_model(); });
    ch_.resize(2 * d.links.size());
    for (size_t i = 0; i < d.links.size(); ++i) {
        const auto& l = d.links[i];
        for (int dir = 0; dir < 2; ++dir) {
            Channel& ch = ch_[2 * i + size_t(dir)];
            int from = dir ? l.b : l.a, fp = dir ? l.pb : l.pa, to = dir ? l.a : l.b, tp = dir ? l.pa : l.pb;
            ch.to_card = to, ch.to_port = tp, ch.link = int(i);
            ch.latency = std::max<uint64_t>(1, uint64_t(std::llround(prm_.cycles(l.latency_ns))));
            ch.cycles_per_byte = 8.0 * prm_.clock_mhz / (1000.0 * l.gbps);
            ch.fault = d.faults[2 * i + size_t(dir)];
            ch.rng.seed(d.seed * 0x9E3779B97F4A7C15ull + 2 * i + size_t(dir));
            if (out_ch_.count({from, fp}) || in_ch_.count({to, tp}))
                throw std::runtime_error("cluster: port " + std::to_string(fp) + " of card " + std::to_string(from) +
                                         " or port " + std::to_string(tp) + " of card " + std::to_string(to) +
                                         " carries two links");
            out_ch_[{from, fp}] = int(2 * i) + dir;
            in_ch_[{to, tp}] = int(2 * i) + dir;
        }
    }
    // Set-up through the CSRs, as a driver does at start: card id, port topology, routes.
    for (int c = 0; c < n_; ++c) {
        if (!present(c)) continue;
        Card& k = *cards_[size_t(c)];
        k.mmio_write(AFUSHELL_RDMA_CARD_ID, uint64_t(c));
        uint64_t dims = 0xFFFF, datelines = 0;
        for (size_t i = 0; i < d.links.size(); ++i) {
            const auto& l = d.links[i];
            for (int dir = 0; dir < 2; ++dir) {
                if ((dir ? l.b : l.a) != c) continue;
                int p = dir ? l.pb : l.pa;
                uint64_t dim = l.dim >= 0 && l.dim < 3 ? uint64_t(l.dim) : 3;
                dims = (dims & ~(3ull << (2 * p))) | dim << (2 * p);
                // a packet changes VC when it leaves over the wrap-around link (either direction)
                if (l.dateline) datelines |= 1ull << p;
            }
        }
        k.mmio_write(AFUSHELL_RDMA_PORT_CFG, dims | datelines << 16);
        for (int t = 0; t < 64; ++t) {
            int port = kNoRoute;
            if (t < n_) {
                int r = d.route[size_t(c)][size_t(t)];
                port = r == -1 ? drv_[size_t(c)]->local_port : r >= 0 ? r : kNoRoute;
            }
            k.mmio_write(AFUSHELL_RDMA_ROUTE(t), uint64_t(port));
        }
        if (brch_cfg_[size_t(c)]) k.mmio_write(AFUSHELL_STREAM_CFG, brch_cfg_[size_t(c)]);
        drv_[size_t(c)]->rd = k.post_read(AFUSHELL_RDMA_INFO);  // the driver's SETUP state takes it
    }
    attached_.assign(size_t(n_), 0);
    anchor_ = std::make_shared<Anchor>();
    anchor_->cl = this;
    anchor_->id = ++g_clusters;
    if (local.empty())
        while (!ready()) tick();
}

bool RtlCluster::ready() const {
    for (int c = 0; c < n_; ++c)
        if (present(c) && drv_[size_t(c)]->st == Driver::SETUP) return false;
    return true;
}

uint64_t RtlCluster::min_latency() const {
    uint64_t l = ~0ull;
    for (const Channel& ch : ch_) l = std::min(l, ch.latency);
    return ch_.empty() ? 1 : l;
}

void RtlCluster::take_outgoing(std::vector<Word>& out) {
    Gate g(*this);
    for (size_t i = 0; i < ch_.size(); ++i) {
        Channel& ch = ch_[i];
        if (present(ch.to_card)) continue;
        for (auto& e : ch.q) out.push_back(Word{uint32_t(i), e.first, e.second});
        ch.q.clear();
    }
}

void RtlCluster::put_incoming(const Word& w) {
    Gate g(*this);
    ch_.at(w.ch).q.push_back({w.at, w.w});
}

RtlCluster::~RtlCluster() {
    {
        std::lock_guard<std::mutex> g(anchor_->m);  // no handle attaches or detaches from now on
        anchor_->cl = nullptr;
    }
    {
        Gate g(*this);
        clk_stop_ = true;
    }
    clk_cv_.notify_all();
    if (clk_thread_.joinable()) clk_thread_.join();
    // the reductions' completion records are this cluster's memory: no card writes there any more
    for (auto& [c, r] : reduce_records) {
        HostRegion gone;
        cards_[size_t(c)]->host.remove(r.wsid, &gone);
    }
    // Cards still open through a handle carry on as single cards, on clocks of their own; their
    // wake-up call named this cluster, which is gone.
    for (int c = 0; c < n_; ++c)
        if (present(c) && attached_[size_t(c)] > 0) {
            cards_[size_t(c)]->set_wake(nullptr);
            cards_[size_t(c)]->start_own_clock();
        }
}

std::string RtlCluster::card_name(int c) {
    if (!present(c))
        throw std::out_of_range("card " + std::to_string(c) + " is not a card of this cluster (cards 0.." +
                                std::to_string(n_ - 1) + (c >= 0 && c < n_ ? ", it is absent)" : ")"));
    const std::string name = "cluster" + std::to_string(anchor_->id) + ".card" + std::to_string(c);
    std::shared_ptr<Anchor> a = anchor_;
    register_external_card(
        name,
        [a, c]() -> std::shared_ptr<Card> {
            std::lock_guard<std::mutex> g(a->m);
            return a->cl ? a->cl->attach(c) : nullptr;
        },
        [a, c]() {
            std::lock_guard<std::mutex> g(a->m);
            if (a->cl) a->cl->detach(c);
        });
    return name;
}

std::shared_ptr<Card> RtlCluster::attach(int c) {
    Gate g(*this);
    if (!present(c)) return nullptr;
    if (attached_[size_t(c)]++ == 0) {
        cards_[size_t(c)]->set_wake([this] {
            woken_ = true;
            clk_cv_.notify_all();
        });
        // the program's threads start at the cycle the card is opened, which the clock
        // cannot pass until they wait on something (docs/rdma.md "Cards of a cluster")
        cards_[size_t(c)]->enable_host_time(cyc_, anchor_->id);
    }
    if (!clk_thread_.joinable()) clk_thread_ = std::thread([this] { clock_loop(); });
    return cards_[size_t(c)];
}

void RtlCluster::detach(int c) {
    Gate g(*this);
    if (present(c) && attached_[size_t(c)] > 0 && --attached_[size_t(c)] == 0) cards_[size_t(c)]->set_wake(nullptr);
}

// Whether the clock thread should step: some host thread waits on a card or on an RDMA
// operation, or traffic is under way, and no host thread is mid-way through a request.
bool RtlCluster::waited_due() const {
    for (const auto& w : waited_)
        if (ops_.at(size_t(w.h)).code != RTL_PENDING || cyc_ >= w.until) return true;
    return false;
}

void RtlCluster::end_waits() {
    for (auto& w : waited_) {
        if (w.ended || (ops_.at(size_t(w.h)).code == RTL_PENDING && cyc_ < w.until)) continue;
        w.ended = true;
        if (w.home) {
            w.home->cursor = std::max<uint64_t>(w.home->cursor, cyc_);
            --w.home->blocked;
        }
    }
}

bool RtlCluster::wants_clock() {
    bool active = !waited_.empty(), held = false;
    for (int c = 0; c < n_; ++c) {
        if (!present(c)) continue;
        const Card::ClockNeed need = cards_[size_t(c)]->clock_need();
        held = held || need == Card::ClockNeed::held;
        active = active || need == Card::ClockNeed::active;
        const Driver& dv = *drv_[size_t(c)];
        active = active || !dv.queue.empty() || dv.inflight > 0 || dv.st != Driver::IDLE ||
                 cards_[size_t(c)]->irq_count(2) != dv.irq_seen;
    }
    for (const Channel& ch : ch_) active = active || !ch.q.empty();
    return active && !held;
}

uint64_t RtlCluster::host_limit() {
    uint64_t lim = UINT64_MAX;
    for (int c = 0; c < n_; ++c)
        if (present(c) && attached_[size_t(c)] > 0) lim = std::min(lim, cards_[size_t(c)]->host_limit());
    return lim;
}

void RtlCluster::clock_loop() {
    Card::swap_thread_lane(Card::kDriverLane);
    std::unique_lock<std::mutex> lk(clk_m_);
    while (!clk_stop_) {
        woken_ = false;
        // never past the host time of a thread that is running: it may still act then
        const bool want = wants_clock();
        if (want && cyc_ >= host_limit()) {
            // A thread that holds the clock and makes no call for kHostSilence waits on
            // something it did not declare (another thread, a join): it leaves the cluster's
            // host time until its next call, so the program does not hang (the run's timing
            // then depends on the machine; docs/runtime.md "Host time").
            const auto t = std::chrono::steady_clock::now();
            if (!held_since_) held_since_ = t.time_since_epoch().count();
            else if (t.time_since_epoch().count() - held_since_ > kHostSilence.count())
                for (int c = 0; c < n_; ++c)
                    if (present(c) && attached_[size_t(c)] > 0) cards_[size_t(c)]->release_holders(cyc_);
        } else {
            held_since_ = 0;
        }
        if (!want || cyc_ >= host_limit()) {
            // woken_ set after the test above is seen here, so no wake-up is lost; the
            // timeout only bounds the cost of a missed one
            clk_cv_.wait_for(lk, std::chrono::milliseconds(20), [&] { return clk_stop_ || woken_.load(); });
            continue;
        }
        for (int i = 0; i < kClockBatch && (i == 0 || cyc_ < host_limit()); ++i) tick();
        // Callers queued at the gate go first; an RDMA wait whose operation has ended (or
        // whose cycles ran out) returns before the clock moves on, as on a single card.
        clk_cv_.notify_all();
        clk_cv_.wait(lk, [&] { return clk_stop_ || (queued_ == 0 && !waited_due()); });
    }
}

bool RtlCluster::mem(int c, uint64_t addr, void* buf, uint64_t n, bool write) {
    Gate g(*this);
    return present(c) && cards_[size_t(c)]->mem_access(addr, buf, n, write);
}

uint64_t RtlCluster::csr_read(int c, uint32_t addr) {
    Gate g(*this);
    return csr_read_locked(c, addr);
}

uint64_t RtlCluster::csr_read_locked(int c, uint32_t addr) {
    DriverLane lane;
    Card& k = *cards_[size_t(c)];
    uint64_t id = k.post_read(addr), v = 0;
    while (!k.read_result(id, &v)) tick();
    return v;
}

RtlCluster::Op RtlCluster::op(uint64_t h) {
    Gate g(*this);
    return ops_.at(size_t(h));
}

uint64_t RtlCluster::issue(const Op& o) {
    Gate g(*this);
    Op op = o;
    op.issued = cyc_;
    // deterministic host time: at the host time of the calling thread on the card it opened
    if (auto home = Card::thread_host(anchor_->id)) op.issued = std::max<uint64_t>(op.issued, home->cursor);
    op.packet_bytes = packet_bytes_;
    op.code = RTL_PENDING;
    if (!present(op.card)) op.code = RTL_BAD_CARD;
    // a peer outside the cluster has no route, as an absent one (its number does not fit
    // RDMA_CMD.DST either, which would wrap it onto another card)
    else if (op.peer < 0 || op.peer >= n_) op.code = RTL_NO_ROUTE;
    ops_.push_back(op);
    const uint64_t h = ops_.size() - 1;
    if (op.code == RTL_PENDING) {  // the driver's queue in (host time, issue) order
        auto& q = drv_[size_t(op.card)]->queue;
        auto it = q.end();
        while (it != q.begin() && ops_[size_t(*std::prev(it))].issued > op.issued) --it;
        q.insert(it, h);
    }
    woken_ = true;
    return h;
}

void RtlCluster::set_packet_bytes(uint32_t bytes) {
    if (bytes % 64 || bytes > 1024)
        throw std::runtime_error("packet size " + std::to_string(bytes) +
                                    " B: DATA packets carry 64..1024 bytes in steps of 64 (0: the card's largest)");
    Gate g(*this);
    packet_bytes_ = bytes;
}

bool RtlCluster::wait(uint64_t h, uint64_t max_cycles) {
    Gate g(*this);
    if (clk_thread_.joinable()) {  // cards are open: the clock thread steps, this waits
        // a thread that opened a card holds the clock at its host time until it waits; the
        // wait starts there, and the tick that ends it hands the thread that cycle
        std::shared_ptr<HostThread> home = Card::thread_host(anchor_->id);
        uint64_t from = cyc_;
        if (home) from = std::max<uint64_t>(from, home->cursor);
        waited_.push_back(Waiter{h, from + max_cycles, home, false});
        const uint64_t until = waited_.back().until;
        if (home) ++home->blocked;
        woken_ = true;
        clk_cv_.notify_all();
        clk_cv_.wait(g.lock(), [&] { return ops_.at(size_t(h)).code != RTL_PENDING || cyc_ >= until || clk_stop_; });
        auto it = std::find_if(waited_.begin(), waited_.end(), [&](const Waiter& w) { return w.h == h && w.until == until; });
        if (!it->ended && home) {  // ended at once, or the cluster stops
            home->cursor = std::max<uint64_t>(home->cursor, cyc_);
            --home->blocked;
        }
        waited_.erase(it);
    } else {
        for (uint64_t i = 0; ops_.at(size_t(h)).code == RTL_PENDING && i < max_cycles; ++i) tick();
    }
    return ops_[size_t(h)].code != RTL_PENDING;
}

void RtlCluster::step() {
    Gate g(*this);
    tick();
}

void RtlCluster::run(uint64_t cycles) {
    Gate g(*this);
    for (uint64_t i = 0; i < cycles; ++i) tick();
}

std::vector<RtlCluster::Event> RtlCluster::events(int c) {
    Gate g(*this);
    return present(c) ? drv_[size_t(c)]->events : std::vector<Event>();
}

void RtlCluster::complete(int c, uint32_t id, int code) {
    Driver& dv = *drv_[size_t(c)];
    auto it = dv.by_id.find(id);
    if (it == dv.by_id.end()) {
        dv.early[id] = code;
        return;
    }
    Op& op = ops_[size_t(it->second)];
    op.code = code;
    op.done = cyc_;
    op.card_done = std::max(op.started, dv.irq_msi);
    dv.by_id.erase(it);
    --dv.inflight;
}

// One step of card c's driver: look at a read result, or start the next CSR access.
void RtlCluster::drive(int c) {
    Driver& dv = *drv_[size_t(c)];
    Card& k = *cards_[size_t(c)];
    uint64_t v = 0;
    if (dv.st != Driver::IDLE && !k.read_result(dv.rd, &v)) return;
    auto read = [&](uint32_t addr, Driver::State next) { dv.rd = k.post_read(addr), dv.st = next; };
    switch (dv.st) {
        case Driver::SETUP:
            if (((v >> 16) & 0xFF) == 0 || (v & 0xFF) < uint64_t(d_.ports))
                throw std::runtime_error("card " + std::to_string(c) + ": RDMA_INFO 0x" + std::to_string(v) +
                                         " -- no RDMA block with enough ports answers");
            dv.max_ops = std::max(1, int((v >> 24) & 0xFF));
            dv.st = Driver::IDLE;
            break;
        case Driver::STATUS:
            if (v & kPending) return read(AFUSHELL_RDMA_STATUS, Driver::STATUS);
            return read(AFUSHELL_RDMA_OP_ID, Driver::OP_ID);
        case Driver::OP_ID: {
            const uint32_t id = uint32_t(v);
            dv.by_id[id] = dv.cur;
            ++dv.inflight;
            auto e = dv.early.find(id);
            if (e != dv.early.end()) {
                complete(c, id, e->second);
                dv.early.erase(e);
            }
            dv.st = Driver::IDLE;
            break;
        }
        case Driver::DONE_INFO:
            if (v & kValid) {
                k.mmio_write(AFUSHELL_RDMA_DONE_POP, 1);
                complete(c, uint32_t(v), int((v >> 32) & 0xFF));
                return read(AFUSHELL_RDMA_DONE_INFO, Driver::DONE_INFO);
            }
            return read(AFUSHELL_RDMA_EVT_INFO, Driver::EVT_INFO);
        case Driver::EVT_INFO:
            if (!(v & kEvtValid)) {
                dv.st = Driver::IDLE;
                break;
            }
            dv.evt = Event{int(v & 0xF), int((v >> 4) & 0x3F), 0, 0, 0};
            return read(AFUSHELL_RDMA_EVT_ADDR, Driver::EVT_ADDR);
        case Driver::EVT_ADDR:
            dv.evt.addr = v;
            return read(AFUSHELL_RDMA_EVT_LEN, Driver::EVT_LEN);
        case Driver::EVT_LEN:
            dv.evt.len = v;
            dv.evt.cycle = cyc_;
            dv.events.push_back(dv.evt);
            k.mmio_write(AFUSHELL_RDMA_EVT_POP, 1);
            return read(AFUSHELL_RDMA_EVT_INFO, Driver::EVT_INFO);
        case Driver::IDLE:
            break;
    }
    // Idle: an interrupt first (clear, then drain, so no completion slips between), else
    // start the next queued operation while the engine has a free slot.
    if (k.irq_count(2) != dv.irq_seen) {
        dv.irq_seen = k.irq_count(2);
        dv.irq_msi = cyc_ - std::min<uint64_t>(cyc_, uint64_t(prm_.cycles(prm_.irq_latency_ns)));
        k.mmio_write(AFUSHELL_RDMA_IRQ_STATUS, 3);
        return read(AFUSHELL_RDMA_DONE_INFO, Driver::DONE_INFO);
    }
    // An operation issued at host time I starts at the end of the tick from I to I + 1: by
    // then it is queued whatever the clock thread's progress when it was issued (the clock
    // cannot run that tick before the issuing thread acts at I or waits).
    if (dv.queue.empty() || dv.inflight >= dv.max_ops || ops_[size_t(dv.queue.front())].issued >= cyc_) return;
    dv.cur = dv.queue.front();
    dv.queue.pop_front();
    Op& op = ops_[size_t(dv.cur)];
    k.mmio_write(AFUSHELL_RDMA_LOCAL, op.local);
    k.mmio_write(AFUSHELL_RDMA_REMOTE, op.remote);
    k.mmio_write(AFUSHELL_RDMA_LEN, op.len);
    k.mmio_write(AFUSHELL_RDMA_BLOCK, op.block | op.count << 32);
    k.mmio_write(AFUSHELL_RDMA_STRIDES, op.lstride | op.rstride << 32);
    k.mmio_write(AFUSHELL_RDMA_CMD, uint64_t(op.peer & 0x3F) << AFUSHELL_RDMA_CMD_DST_SHIFT |
                                        uint64_t(op.get) << AFUSHELL_RDMA_CMD_GET_SHIFT |
                                        uint64_t(op.packet_bytes / 4) << AFUSHELL_RDMA_CMD_PKT_SHIFT |
                                        AFUSHELL_RDMA_CMD_GO_MASK);
    op.started = k.host_cycle() + uint64_t(prm_.cycles(prm_.mmio_write_latency_ns));
    read(AFUSHELL_RDMA_STATUS, Driver::STATUS);
}

// Port p's beat onto channel `chi` (-1: an unconnected port, whose beats are lost), with
// the channel's faults decided per packet.
void RtlCluster::send(uint64_t c0, const spg_afu_pins& pins, int p, int chi) {
    if (chi < 0) return;
    Channel& ch = ch_[size_t(chi)];
    std::uniform_real_distribution<double> u(0, 1);
    const double on_wire = std::max(double(c0), ch.wire_free);
    if (!ch.in_pkt) {
        // header, payload and CRC words: what the wire carries of this packet
        const uint32_t hdr = pins.link_out_data[p][0];
        ch.in_pkt = true, ch.widx = 0, ++ch.packets;
        ch.pkt_words = 2 + int(rdma_packet::payload_words(rdma_packet::extract(hdr, rdma_packet::kHdrWords)));
        const double ns = on_wire * 1000.0 / prm_.clock_mhz;  // a link down then loses it
        bool down = false;
        for (const auto& iv : ch.fault.down) down = down || (ns >= iv.first && ns < iv.second);
        ch.drop = down || (ch.fault.drop > 0 && u(ch.rng) < ch.fault.drop);
        ch.flip_word = -1;
        if (!ch.drop && ((ch.fault.per > 0 && u(ch.rng) < ch.fault.per) ||
                         (ch.fault.ber > 0 && u(ch.rng) < 1.0 - std::pow(1.0 - ch.fault.ber, 32.0 * ch.pkt_words)))) {
            // a random bit of the packet's words (a beat index and a bit within its words)
            const int bit = int(ch.rng() % uint64_t(32 * ch.pkt_words));
            ch.flip_word = bit / 32 / units_, ch.flip_bit = bit % (32 * units_);
            ++ch.corrupted;
        }
        ch.dropped += ch.drop;
    }
    const int words = std::max(1, std::min(units_, ch.pkt_words - ch.widx * units_));
    ch.wire_free = on_wire + 4.0 * words * ch.cycles_per_byte;
    std::array<uint32_t, SPG_LINK_WORDS + 1> w{};
    std::copy(pins.link_out_data[p], pins.link_out_data[p] + units_, w.begin());
    const bool last = (pins.link_out_last >> p) & 1;
    w[SPG_LINK_WORDS] = uint32_t(last) | uint32_t(words) << 1;  // last, and the beat's words on the wire
    if (ch.widx++ == ch.flip_word) w[size_t(ch.flip_bit / 32)] ^= 1u << (ch.flip_bit % 32);
    const uint64_t leaves = std::max<uint64_t>(c0, uint64_t(std::ceil(ch.wire_free)) - 1);
    if (!ch.drop) ch.q.push_back({leaves + ch.latency, w});
    ch.last_sent = c0;
    if (last) ch.in_pkt = false;
}

void RtlCluster::tick() {
    DriverLane lane;
    const uint64_t c0 = cyc_;
    // link inputs of this cycle
    for (int c = 0; c < n_; ++c) {
        if (!present(c)) continue;
        spg_afu_pins& pins = cards_[size_t(c)]->pins();
        pins.link_in_valid = pins.link_in_last = 0;
        for (int p = 0; p < d_.ports; ++p) {
            auto it = in_ch_.find({c, p});
            if (it == in_ch_.end()) continue;
            Channel& ch = ch_[size_t(it->second)];
            if (ch.q.empty() || ch.q.front().first > c0) continue;
            const auto& w = ch.q.front().second;
            pins.link_in_valid |= uint8_t(1u << p);
            if (w[SPG_LINK_WORDS] & 1) pins.link_in_last |= uint8_t(1u << p);
            std::copy(w.begin(), w.begin() + units_, pins.link_in_data[p]);
            ch.delivered_words += w[SPG_LINK_WORDS] >> 1;
            ch.last_delivered = c0;
            ch.q.pop_front();
        }
    }
    // The PHYs: a port's beat (the card's outputs since its last step) leaves in this cycle
    // when its PHY is ready, i.e. has put the beats before it on the wire by the end of the
    // cycle; the wire sends the beat's words (4 bytes each, header and CRC included, idle
    // lanes not) at the line rate, so a port wider than its line is held to the line.
    for (int c = 0; c < n_; ++c) {
        if (!present(c)) continue;
        spg_afu_pins& pins = cards_[size_t(c)]->pins();
        uint8_t ready = 0;
        for (int p = 0; p < d_.ports; ++p) {
            auto it = out_ch_.find({c, p});
            const bool free = it == out_ch_.end() || ch_[size_t(it->second)].wire_free <= double(c0) + 1.0;
            if (!free) continue;
            ready = uint8_t(ready | 1u << p);
            if ((pins.link_out_valid >> p) & 1) send(c0, pins, p, it == out_ch_.end() ? -1 : it->second);
        }
        pins.link_out_ready = ready;
        pins.link_out_valid = 0;  // taken or held: the card presents it again after its step
    }
    // Each card's cycle touches only that card, so the models may step on several threads;
    // what reaches host threads then goes card after card, as from one thread.
    if (pool_) pool_->run();
    else for (int c : stepped_) cards_[size_t(c)]->step_model();
    for (int c : stepped_) cards_[size_t(c)]->step_host();
    ++cyc_;
    for (int c = 0; c < n_; ++c)
        if (present(c)) drive(c);
    end_waits();
}

std::vector<int> RtlCluster::path(int from, int to) const {
    std::vector<int> out;
    for (int c = from, hops = 0; c != to && hops < n_; ++hops) {
        int p = d_.route[size_t(c)][size_t(to)];
        auto it = out_ch_.find({c, p});
        if (p < 0 || it == out_ch_.end()) break;
        out.push_back(it->second);
        c = ch_[size_t(it->second)].to_card;
    }
    return out;
}

std::map<std::string, uint64_t> RtlCluster::stats() {
    Gate g(*this);
    std::map<std::string, uint64_t> s{{"cycles", cyc_}, {"packets", 0}, {"dropped", 0}, {"corrupted", 0}};
    for (const Channel& ch : ch_) {
        s["packets"] += ch.packets;
        s["dropped"] += ch.dropped;
        s["corrupted"] += ch.corrupted;
    }
    return s;
}

std::string RtlCluster::dump(uint64_t h) {
    Gate g(*this);
    auto csr_read = [this](int c, uint32_t addr) { return csr_read_locked(c, addr); };
    std::ostringstream o;
    const uint64_t at = cyc_;
    for (int c = 0; c < n_; ++c) {
        if (!present(c)) {
            o << "  card " << c << ": absent\n";
            continue;
        }
        const uint64_t st = csr_read(c, AFUSHELL_RDMA_STATUS), eng = csr_read(c, AFUSHELL_RDMA_ENG_STATE);
        o << "  card " << c << ": engine " << ((st & 1) ? "busy" : "idle") << ", " << drv_[size_t(c)]->inflight
          << " op(s) in flight, " << drv_[size_t(c)]->queue.size() << " queued, ops done " << (st >> 32)
          << ", last code " << ((st >> 8) & 0xFF) << ((st & 8) ? ", LINK BUFFER OVERFLOW" : "")
          << ", gets queued " << ((eng >> 26) & 0x3FF) << ", replies queued " << ((eng >> 16) & 0x3FF) << "\n";
        // the link counters of the card's RDMA CSRs (docs/shell_csr.md, RDMA_LINK_*)
        for (int p = 0; p < d_.ports; ++p) {
            if (!out_ch_.count({c, p})) continue;
            const uint64_t pk = csr_read(c, AFUSHELL_RDMA_LINK_PKTS(p)), er = csr_read(c, AFUSHELL_RDMA_LINK_ERRS(p)),
                           sl = csr_read(c, AFUSHELL_RDMA_LINK_STALLS(p)), ls = csr_read(c, AFUSHELL_RDMA_LINK_STATE(p));
            o << "    port " << p << ": tx " << (pk & 0xFFFFFFFF) << " rx " << (pk >> 32) << " packets, replays "
              << (er & 0xFFFF) << ", crc errors " << ((er >> 16) & 0xFFFF) << ", credit stalls " << (sl & 0xFFFFFFFF)
              << " cycles, unacked " << (ls & 0x3FF) << "\n";
        }
    }
    auto chname = [&](int i) {
        const Channel& ch = ch_[size_t(i)];
        const auto& l = d_.links[size_t(ch.link)];
        const bool ba = i % 2;
        return "link " + std::to_string(ch.link) + " card " + std::to_string(ba ? l.b : l.a) + " port " +
               std::to_string(ba ? l.pb : l.pa) + " -> card " + std::to_string(ch.to_card) + " port " +
               std::to_string(ch.to_port);
    };
    const double ns = double(cyc_) * 1000.0 / prm_.clock_mhz;
    auto is_down = [&](const Channel& ch) {
        for (const auto& iv : ch.fault.down)
            if (ns >= iv.first && ns < iv.second) return true;
        return false;
    };
    o.str("cluster state at cycle " + std::to_string(at) + " (CSRs read until " + std::to_string(cyc_.load()) + "):\n" +
          o.str());
    o.seekp(0, std::ios_base::end);
    for (size_t i = 0; i < ch_.size(); ++i) {
        const Channel& ch = ch_[i];
        if (!ch.packets) continue;
        o << "  " << chname(int(i)) << ": " << ch.packets << " packets, " << ch.dropped << " dropped, " << ch.corrupted
          << " corrupted, last sent @" << ch.last_sent << ", last delivered @" << ch.last_delivered
          << (is_down(ch) ? ", DOWN now" : "") << "\n";
    }
    if (h < ops_.size()) {
        const Op& op = ops_[size_t(h)];
        o << "  operation " << h << " (card " << op.card << (op.get ? " get from " : " put to ") << "card " << op.peer
          << ", " << op.len << " B, started @" << op.started << "): ";
        if (d_.route[size_t(op.card)][size_t(op.peer)] == -2) {
            o << "no route from card " << op.card << " to card " << op.peer << "\n";
        } else {
            // the way as the cards' routing tables (RDMA_ROUTE CSRs) have it now: the host
            // may have rewritten them since the cluster file set them up
            int loop_at = -1;
            auto hw_path = [&](int from, int to) {
                std::vector<int> out;
                std::set<int> seen;
                for (int c = from; c != to && loop_at < 0;) {
                    seen.insert(c);
                    auto it = out_ch_.find({c, int(csr_read(c, AFUSHELL_RDMA_ROUTE(to)) & AFUSHELL_RDMA_ROUTE_PORT_MASK)});
                    if (it == out_ch_.end()) break;
                    out.push_back(it->second);
                    c = ch_[size_t(it->second)].to_card;
                    if (seen.count(c)) loop_at = it->second;
                }
                return out;
            };
            // the first channel on the way (there, and back for the answer) that lost
            // everything it sent since the operation started is where traffic is stuck
            std::vector<int> way = hw_path(op.card, op.peer), back = hw_path(op.peer, op.card);
            way.insert(way.end(), back.begin(), back.end());
            int stuck = -1;
            for (int i : way) {
                const Channel& ch = ch_[size_t(i)];
                if (is_down(ch) || (ch.last_sent > op.started && ch.last_delivered < op.started)) {
                    stuck = i;
                    break;
                }
            }
            if (loop_at >= 0)
                o << "the routing tables loop: stuck at " << chname(loop_at) << ", which leads back to a card the "
                  << "route already crossed (check RDMA_ROUTE(" << op.peer << ") along the way)\n";
            else if (stuck >= 0)
                o << "stuck at " << chname(stuck) << (is_down(ch_[size_t(stuck)]) ? " (down)" : " (nothing delivered)")
                  << "\n";
            else
                o << "every channel on its route delivers; the target's engine or memory holds it\n";
        }
    }
    return o.str();
}

}  // namespace spgsim
