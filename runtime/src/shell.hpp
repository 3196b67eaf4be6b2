// The runtime's engine behind the C API: one open shell, its DMA workers and buffers.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <opae/fpga.h>

#include "afushell/afushell.h"
#include "result.hpp"
#include "afushell_csr.h"

namespace afushell {

/// An error with its C API code; thrown inside the runtime, turned into a code at the API.
class Shell;

void check(fpga_result r, const char* what);  // throws Error(r) unless FPGA_OK
bool parse_guid(const std::string& s, fpga_guid out);
#ifdef AFUSHELL_SIM
std::string card_library(const std::string& target);  // the card library a sim: target names
#endif

/// What a program expects of the AFU it opens or loads (reconf.cpp): the AFU ID (afu.json's
/// accelerator-type-uuid) and, where a build's afu.json says them, its cores and record widths.
struct ExpectedAfu {
    std::string afu_id;  // lower case, with dashes
    std::string source;  // where the expectation comes from, for messages
    std::string json;    // the afu.json giving the shape
    long n_cores = -1, in_words = -1, out_words = -1;  // -1: not said
};
/// From a build directory's hw/afu.json; anything else (a card library, "loopback", a
/// hardware card) expects the shell's own AFU ID.
ExpectedAfu expected_afu(const std::string& target);

struct Span { uint64_t addr; uint64_t len; };

/// One asynchronous request: a DMA transfer or a core run, TX and RX halves.
struct Request {
    std::vector<Span> part[2];   // [0] TX reads, [1] RX writes (card addresses)
    uint64_t start_ns = 0, end_ns = 0;
    uint64_t seq_end[2] = {0, 0};
    int slot[2] = {-1, -1};
    bool half_done[2] = {false, false};
    bool held[2] = {false, false};  // simulated clock held until this engine pushed it (guarded by Shell::m_)
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    bool user_blocked = false;   // a program thread waits on it (simulated host time; guarded by m)
    uint64_t host_cycle = 0;     // simulated host time of its submission
    afu_result result = FPGA_OK;
    std::string message;
    uint64_t afu_gen = UINT64_MAX;  // the AFU it was prepared for (Shell::afu_gen_), if it matters
};

class Shell : public std::enable_shared_from_this<Shell> {
public:
    static std::shared_ptr<Shell> open(const std::string& uri);
    ~Shell();
    Shell(const Shell&) = delete;
    Shell& operator=(const Shell&) = delete;

    void* alloc(size_t bytes);
    void free(void* ptr);

    std::shared_ptr<Request> dma(uint64_t dst, uint64_t src, uint64_t count, int type);
    afu_result wait(const std::shared_ptr<Request>& r, uint64_t timeout_ns, std::string* msg);
    afu_shell_run_result run(uint64_t src, uint64_t dst, uint64_t n);
    afu_shell_run_result counters();

    uint64_t reg_offset(const std::string& name) const;
    /// "f32", "i32", "u32" or "bool" for a core Reg; "" for a shell register (static strings).
    const char* reg_type(const std::string& name) const;
    /// The bits of value in the Reg's type; AFU_ERR_REG_VALUE where it does not fit.
    uint64_t reg_bits(const std::string& name, double value) const;
    /// The Reg's bits as a number of its type.
    double reg_value(const std::string& name, uint64_t bits) const;
    void write_reg(uint64_t offset, uint64_t value);
    uint64_t read_reg(uint64_t offset);

    uint64_t now_ns() const;
    uint64_t last_elapsed_ns() const { return last_elapsed_ns_.load(); }
    afu_shell_info info() const { return info_; }
    /** A Param of the core as built (`param.NAME=VALUE` build facts); throws FPGA_NOT_FOUND. */
    int64_t core_param(const std::string& name) const;
    void set_max_descriptor(uint64_t bytes);
    void set_checks(bool on) { checks_ = on; }
    bool sim_stats(afu_shell_sim_stats* s) const;
    /// Deterministic host time of the calling program thread (afuShellSimHostTime): its
    /// cycle; false where the card has none (real card, realtime=1).
    bool sim_host_time(int op, uint64_t cycle, uint64_t* now);
    /// "key=value" lines of the simulated card (build facts, model parameters).
    const char* sim_info() const;

    // peer devices (peer.cpp)
    uint64_t peer_register(uint64_t cuda_ptr, uint64_t bytes);
    void peer_unregister(uint64_t bus);
    void peer_access(uint64_t bus, void* buf, uint64_t bytes, bool write);
    uint64_t peer_staged(uint64_t dst, uint64_t src, uint64_t count, int type);
    /// Reprograms the card's AFU slot with a build (reconf.cpp, docs/reconf.md), refused while
    /// requests are in flight; checks the loaded AFU against afu_id (empty: the build's
    /// afu.json). The simulated time it took, in ns.
    uint64_t reconfigure(const std::string& build, bool keep_ddr, const std::string& afu_id);
    afu_shell_card_dma_result card_dma(uint64_t dst, uint64_t src, uint64_t count, int type,
                                       uint32_t repeat, uint32_t src_step, uint32_t dst_step);

private:
    struct Buffer { uint8_t* ptr; uint64_t len; uint64_t wsid; uint64_t iova; };
    struct Engine {
        std::deque<std::shared_ptr<Request>> queue, inflight;
        std::mutex push_m;
        std::thread thread;
        uint64_t pushed = 0;
        std::vector<int> free_slots;
    };

    Shell() = default;
    void init(const std::string& uri);
    /// The loaded AFU's ID and shape against `x` (AFU_ERR_AFU_ID), then its build facts:
    /// SHELL_INFO and the simulated card's Regs, Params and clock (reconf.cpp).
    void read_afu(const ExpectedAfu& x, const std::string& where);
    unsigned fifo_slots() const;  // request slots per engine for the AFU's descriptor FIFO
    /// Throws while the card is reconfigured or holds a wrong AFU, or when it was reconfigured
    /// since r was prepared (m_ held).
    void usable_locked(const Request* r = nullptr) const;
    uint64_t card_addr(const void* p, uint64_t n, bool host, const char* what) const;
    /// The master address of [bus, bus+n) in one registered peer buffer (peer.cpp).
    uint64_t peer_addr(uint64_t bus, uint64_t n, const char* what) const;
    void peer_check(uint64_t bus, uint64_t n, const char* what) const;
    /// Both sides of a transfer of `type` as master addresses (P2F/F2P included).
    void side_addrs(int type, uint64_t dst, uint64_t src, uint64_t count, uint64_t dst_count,
                    uint64_t* d, uint64_t* s) const;
    std::vector<Span> split(uint64_t addr, uint64_t len, uint64_t unit) const;
    void paired(Request& r, uint64_t s, uint64_t d, uint64_t n, uint64_t in_b, uint64_t out_b) const;
    void submit(const std::shared_ptr<Request>& r);
    void worker(int e);
    void push(int e, const std::shared_ptr<Request>& r);
    bool wait_irq(int e, int wall_ms);
    void service(int e);
    void recover(int e, uint64_t err, uint64_t epoch);
    void finish(const std::shared_ptr<Request>& r, int e, uint64_t end_ns);
    void fail_all(afu_result code, const std::string& msg);
    void release_locked(Request& r, int e);
public:
    /// A poll of a request that found it running: with deterministic host time, host_poll_ns
    /// of host time in which the card runs; else nothing.
    void poll_pause();
private:
    void wake_waiter(Request& r);  // r.m held
    void mmio_w(uint64_t off, uint64_t v);
    uint64_t mmio_r(uint64_t off);

    fpga_handle h_ = nullptr;
    fpga_event_handle ev_[2] = {nullptr, nullptr};
    int fd_[2] = {-1, -1};
    bool simulated_ = false;
    bool deterministic_ = false;  // simulated card with deterministic host time
    uint64_t poll_ns_ = 0;        // ... and the host time of one poll of a request (host_poll_ns)
    afu_shell_info info_{};
    std::map<std::string, unsigned> core_regs_;
    std::map<std::string, std::string> core_reg_types_;  // Reg name -> f32, i32, u32, bool
    std::map<std::string, std::string> core_params_;  // Param name -> value as built

    mutable std::mutex buf_m_;
    std::map<uintptr_t, Buffer> buffers_;

    std::mutex m_;  // engines' queues, request state
    std::condition_variable cv_;
    bool stop_ = false;
    uint64_t epoch_ = 0;  // datapath resets so far
    Engine eng_[2];
    uint8_t* pool_ = nullptr;
    uint64_t pool_wsid_ = 0, pool_iova_ = 0;
    unsigned slots_ = 1, pool_slots_ = 1;  // in use; room in the descriptor pool
    bool reconfiguring_ = false;           // guarded by m_
    std::string afu_wrong_;                // guarded by m_: why the loaded AFU is refused
    uint64_t afu_gen_ = 0;                 // guarded by m_: reconfigurations so far
    std::atomic<uint64_t> max_desc_{256ull << 20};
    std::atomic<bool> checks_{true};
    std::atomic<uint64_t> last_elapsed_ns_{0};
    std::mutex run_m_;
    mutable std::mutex peer_m_;
    std::map<uint64_t, uint64_t> peer_bufs_;  // bus address -> bytes
    std::mutex p2p_m_;                          // the card's one P2P controller
    double clock_mhz_ = AFUSHELL_CLOCK_MHZ;  // until the card says (its info clock_mhz=)
    std::atomic<uint64_t> last_run_ns_{0};
};

}  // namespace afushell
