// The DMA engine of the runtime: descriptor queues, TX/RX workers, interrupts, recovery.
#include "shell.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "afushell_csr.h"
#include "afushell_csr_names.h"  // every register by name, generated from csr_map.json
#ifdef AFUSHELL_SIM
#include <opae/spgen_sim.h>
#endif

namespace afushell {

namespace {

constexpr uint64_t kHost = 1ull << AFUSHELL_HOST_ADDR_BIT;
constexpr uint64_t kMemEnd = AFUSHELL_MEM_B_BASE + AFUSHELL_MEM_BYTES;
constexpr unsigned kSlotDescs = 1024;  // chained descriptors per in-flight request
constexpr uint64_t kBase[2] = {AFUSHELL_TX_BASE, AFUSHELL_RX_BASE};
constexpr uint32_t kGo = AFUSHELL_DMA_DESC_CTRL_GO_MASK, kSop = AFUSHELL_DMA_DESC_CTRL_SOP_MASK,
                   kEop = AFUSHELL_DMA_DESC_CTRL_EOP_MASK, kIrq = AFUSHELL_DMA_DESC_CTRL_IRQ_MASK,
                   kChain = AFUSHELL_DMA_DESC_CTRL_CHAIN_MASK;

const char* const kErrNames[] = {"ERR_NONE", "ERR_BAD_LENGTH", "ERR_BAD_ALIGN", "ERR_ADDR_RANGE",
                                 "ERR_RECORD_WIDTH", "ERR_FIFO_OVERFLOW", "ERR_LAST_MISMATCH",
                                 "ERR_PARTIAL_RECORD"};

}  // namespace

void check(fpga_result r, const char* what) {
    if (r != FPGA_OK) throw Error(r, std::string(what) + ": " + fpgaErrStr(r));
}

bool parse_guid(const std::string& s, fpga_guid out) {
    std::string hex;
    for (char c : s)
        if (c != '-') hex += c;
    if (hex.size() != 32) return false;
    for (int i = 0; i < 16; ++i) {
        char b[3] = {hex[2 * i], hex[2 * i + 1], 0};
        char* end;
        long v = std::strtol(b, &end, 16);
        if (*end) return false;
        out[i] = uint8_t(v);
    }
    return true;
}

static std::string hex(uint64_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

// Finds the simulated card library a sim: URI names.
#ifdef AFUSHELL_SIM  // a real card's runtime has no simulated card libraries
std::string card_library(const std::string& target) {
    if (target == "loopback") {
        if (const char* p = std::getenv("SPGEN_LOOPBACK_CARD")) return p;
        const char* py = std::getenv("SPGEN_PYTHON");
        std::string cmd = std::string(py ? py : "python3") + " -m spgen.runtime card-path loopback 2>&1";
        FILE* f = popen(cmd.c_str(), "r");
        if (!f) throw Error(AFU_ERR_BAD_URI, "cannot run " + cmd);
        std::string out;
        char buf[512];
        while (fgets(buf, sizeof buf, f)) out += buf;
        int rc = pclose(f);
        while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
        if (rc != 0 || out.empty())
            throw Error(AFU_ERR_BAD_URI,
                        "building the loop-back card failed (" + cmd + "): " + out);
        auto nl = out.rfind('\n');
        return nl == std::string::npos ? out : out.substr(nl + 1);
    }
    std::string lib = target;
    const bool folder = lib.size() < 3 || lib.compare(lib.size() - 3, 3, ".so") != 0;
    if (access(target.c_str(), F_OK) != 0)
        throw Error(AFU_ERR_BAD_URI, std::string(folder ? "no such directory: " : "no such file: ") + target);
    if (folder) lib += "/sim/libafucard.so";
    if (access(lib.c_str(), R_OK) != 0)
        throw Error(AFU_ERR_BAD_URI,
                    "no simulated card at " + lib + " (run `spgen build` for that directory)");
    return lib;
}
#endif

std::shared_ptr<Shell> Shell::open(const std::string& uri) {
    std::shared_ptr<Shell> s(new Shell);
    s->init(uri);
    return s;
}

void Shell::init(const std::string& uri) {
    fpga_guid guid{};
    std::string target = uri, query;
    auto q = uri.find('?');
    if (q != std::string::npos) {
        target = uri.substr(0, q);
        query = uri.substr(q + 1);
    }
    if (target.rfind("sim:", 0) == 0) {
#ifdef AFUSHELL_SIM
        // a card of an RTL cluster, by the name the cluster gave it, or a card library
        if (spgenSimFindCard(target.substr(4).c_str(), guid) != FPGA_OK) {
            std::string lib = card_library(target.substr(4));
            char err[512] = {0};
            fpga_result r = spgenSimRegisterCard(lib.c_str(), query.c_str(), guid, err, sizeof err);
            if (r != FPGA_OK) throw Error(AFU_ERR_BAD_URI, err);
        }
        simulated_ = true;
#else
        throw Error(AFU_ERR_BAD_URI,
                    "this runtime drives a real card through OPAE; link libafushell-sim for " + uri);
#endif
    } else {
        std::string id = target.rfind("afu:", 0) == 0 ? target.substr(4) : target;
        if (!parse_guid(id, guid))
            throw Error(AFU_ERR_BAD_URI,
                        access(id.c_str(), F_OK) == 0
                            ? "'" + id + "' is a build directory: open it as sim:" + id
                            : "no such directory: " + id + " (a target is sim:<build dir>, sim:loopback or an AFU ID)");
        std::stringstream ss(query);
        std::string item;
        while (std::getline(ss, item, ','))
            if (item.rfind("regs=", 0) == 0) {
                std::stringstream rs(item.substr(5));
                std::string n;
                unsigned i = 0;
                while (std::getline(rs, n, ':')) {
                    // NAME or NAME/TYPE (the type from the build's core.json: f32, i32, ...)
                    auto slash = n.find('/');
                    if (slash != std::string::npos) core_reg_types_[n.substr(0, slash)] = n.substr(slash + 1);
                    core_regs_[n.substr(0, slash)] = i++;
                }
            } else if (item.rfind("param.", 0) == 0 && item.find('=') != std::string::npos) {
                // a hardware card's core Params, as the user knows them from its build.json
                core_params_[item.substr(6, item.find('=') - 6)] = item.substr(item.find('=') + 1);
            }
    }
    fpga_properties filter = nullptr;
    check(fpgaGetProperties(nullptr, &filter), "fpgaGetProperties");
    fpgaPropertiesSetObjectType(filter, FPGA_ACCELERATOR);
    fpgaPropertiesSetGUID(filter, guid);
    fpga_token tok = nullptr;
    uint32_t n = 0;
    fpga_result r = fpgaEnumerate(&filter, 1, &tok, 1, &n);
    fpgaDestroyProperties(&filter);
    check(r, "fpgaEnumerate");
    if (n == 0) throw Error(FPGA_NOT_FOUND, "no accelerator with AFU ID " + target);
    r = fpgaOpen(tok, &h_, 0);
    fpgaDestroyToken(&tok);
    check(r, "fpgaOpen");
    check(fpgaMapMMIO(h_, 0, nullptr), "fpgaMapMMIO");
#ifdef AFUSHELL_SIM
    if (simulated_) poll_ns_ = spgenSimHostPollNs(h_), deterministic_ = poll_ns_ != 0;
#endif
    // A build directory's afu.json says which AFU the program expects there.
    read_afu(expected_afu(target.rfind("sim:", 0) == 0 ? target.substr(4) : ""), uri);
    slots_ = pool_slots_ = fifo_slots();
    uint64_t pool_bytes = uint64_t(2) * slots_ * kSlotDescs * AFUSHELL_DESC_BYTES;
    void* pool = nullptr;
    check(fpgaPrepareBuffer(h_, pool_bytes, &pool, &pool_wsid_, 0), "fpgaPrepareBuffer (descriptors)");
    pool_ = static_cast<uint8_t*>(pool);
    check(fpgaGetIOAddress(h_, pool_wsid_, &pool_iova_), "fpgaGetIOAddress");
    for (int e = 0; e < 2; ++e) {
        check(fpgaCreateEventHandle(&ev_[e]), "fpgaCreateEventHandle");
        check(fpgaRegisterEvent(h_, FPGA_EVENT_INTERRUPT, ev_[e], uint32_t(e)), "fpgaRegisterEvent");
        check(fpgaGetOSObjectFromEventHandle(ev_[e], &fd_[e]), "fpgaGetOSObjectFromEventHandle");
        for (unsigned s = 0; s < slots_; ++s) eng_[e].free_slots.push_back(int(s));
    }
    mmio_w(AFUSHELL_SHELL_CTRL, AFUSHELL_SHELL_CTRL_SOFT_RESET_MASK);
    mmio_w(AFUSHELL_IRQ_ENABLE, 3);
    mmio_w(AFUSHELL_IRQ_STATUS, 3);
    for (int e = 0; e < 2; ++e) eng_[e].thread = std::thread([this, e] { worker(e); });
}

Shell::~Shell() {
    {
        std::lock_guard<std::mutex> g(m_);
        stop_ = true;
    }
    cv_.notify_all();
    for (auto& e : eng_)
        if (e.thread.joinable()) e.thread.join();
    fail_all(AFU_ERR_CLOSED, "the shell was closed before the request completed");
    if (!h_) return;
    for (int e = 0; e < 2; ++e)
        if (ev_[e]) {
            fpgaUnregisterEvent(h_, FPGA_EVENT_INTERRUPT, ev_[e]);
            fpgaDestroyEventHandle(&ev_[e]);
        }
    for (auto& kv : buffers_) fpgaReleaseBuffer(h_, kv.second.wsid);
    if (pool_) fpgaReleaseBuffer(h_, pool_wsid_);
    fpgaClose(h_);
}

void Shell::mmio_w(uint64_t off, uint64_t v) { check(fpgaWriteMMIO64(h_, 0, off, v), "fpgaWriteMMIO64"); }

uint64_t Shell::mmio_r(uint64_t off) {
    uint64_t v = 0;
    check(fpgaReadMMIO64(h_, 0, off, &v), "fpgaReadMMIO64");
    return v;
}

uint64_t Shell::now_ns() const {
#ifdef AFUSHELL_SIM
    if (simulated_) return spgenSimNowNs(h_);
#endif
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now().time_since_epoch()).count());
}

bool Shell::sim_stats(afu_shell_sim_stats* s) const {
#ifdef AFUSHELL_SIM
    if (simulated_) {
        s->now_ns = spgenSimNowNs(h_);
        s->cycles = spgenSimCycles(h_);
        s->wall_s = spgenSimWallSeconds(h_);
        s->bus_errors = spgenSimBusErrors(h_);
        return true;
    }
#endif
    (void)s;
    return false;
}

bool Shell::sim_host_time(int op, uint64_t cycle, uint64_t* now) {
#ifdef AFUSHELL_SIM
    if (deterministic_) {
        if (op == AFU_SIM_HOST_BLOCK) spgenSimUserBlock(h_);
        if (op == AFU_SIM_HOST_LEAVE) {  // a look at the host time would take the thread back
            spgenSimHostLeave(h_);
            *now = 0;
            return true;
        }
        if (op == AFU_SIM_HOST_SYNC) spgenSimHostSync(h_, cycle, 0);
        if (op == AFU_SIM_HOST_WAKE) {  // the program lane, whichever thread hands it over
            spgenSimUserWakeAt(h_, cycle);
            *now = cycle;
            return true;
        }
        *now = spgenSimHostCycle(h_);
        return true;
    }
#endif
    (void)op, (void)cycle, (void)now;
    return false;
}

void* Shell::alloc(size_t bytes) {
    if (!bytes) throw Error(AFU_ERR_ZERO_COUNT, "cannot allocate 0 bytes");
    void* p = nullptr;
    uint64_t wsid = 0, iova = 0;
    check(fpgaPrepareBuffer(h_, bytes, &p, &wsid, 0), "fpgaPrepareBuffer");
    fpga_result r = fpgaGetIOAddress(h_, wsid, &iova);
    if (r != FPGA_OK) {
        fpgaReleaseBuffer(h_, wsid);
        check(r, "fpgaGetIOAddress");
    }
    std::memset(p, 0, bytes);
    std::lock_guard<std::mutex> g(buf_m_);
    buffers_[reinterpret_cast<uintptr_t>(p)] = Buffer{static_cast<uint8_t*>(p), bytes, wsid, iova};
    return p;
}

void Shell::free(void* ptr) {
    if (!ptr) throw Error(AFU_ERR_NULL_POINTER, "free of a NULL buffer");
    Buffer b;
    {
        std::lock_guard<std::mutex> g(buf_m_);
        auto it = buffers_.find(reinterpret_cast<uintptr_t>(ptr));
        if (it == buffers_.end())
            throw Error(AFU_ERR_NOT_PREPARED, "pointer was not returned by afuShellAlloc");
        b = it->second;
        buffers_.erase(it);
    }
    check(fpgaReleaseBuffer(h_, b.wsid), "fpgaReleaseBuffer");
}

uint64_t Shell::card_addr(const void* p, uint64_t n, bool host, const char* what) const {
    uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (!checks_) {
        if (!host) return a;
        std::lock_guard<std::mutex> g(buf_m_);
        auto it = buffers_.upper_bound(a);
        if (it == buffers_.begin()) return kHost | a;
        --it;
        return kHost | (it->second.iova + (a - it->first));
    }
    if (host && !p) throw Error(AFU_ERR_NULL_POINTER, std::string(what) + " is a NULL host pointer");
    if (a % 4)
        throw Error(AFU_ERR_ALIGNMENT, std::string(what) + " " + hex(a) + " is not 4-byte aligned");
    if (!host) {
        uint64_t end = a + n;
        if (a >= kMemEnd || end > kMemEnd || end < a || (a < AFUSHELL_MEM_B_BASE && end > AFUSHELL_MEM_B_BASE))
            throw Error(AFU_ERR_OUT_OF_RANGE,
                        std::string(what) + " FPGA range " + hex(a) + "+" + std::to_string(n) +
                            " runs past the end of memory " + (a < AFUSHELL_MEM_B_BASE ? "A" : "B"));
        return a;
    }
    std::lock_guard<std::mutex> g(buf_m_);
    auto it = buffers_.upper_bound(a);
    if (it != buffers_.begin()) {
        --it;
        const Buffer& b = it->second;
        if (a >= it->first && a + n <= it->first + b.len) return kHost | (b.iova + (a - it->first));
    }
    throw Error(AFU_ERR_NOT_PREPARED,
                std::string(what) + " host range " + hex(a) + "+" + std::to_string(n) +
                    " is not inside one buffer from afuShellAlloc");
}

std::vector<Span> Shell::split(uint64_t addr, uint64_t len, uint64_t unit) const {
    uint64_t chunk = std::max<uint64_t>(max_desc_.load(), unit);
    uint64_t need = (len + chunk - 1) / chunk;
    if (need > kSlotDescs + 1) chunk = (len + kSlotDescs) / (kSlotDescs + 1);
    chunk = std::max<uint64_t>(unit, chunk / unit * unit);
    while ((len + chunk - 1) / chunk > kSlotDescs + 1) chunk += unit;
    std::vector<Span> v;
    for (uint64_t off = 0; off < len; off += chunk) v.push_back(Span{addr + off, std::min(chunk, len - off)});
    // Unchecked zero-length requests still reach the shell, which rejects them.
    if (v.empty()) v.push_back(Span{addr, 0});
    return v;
}

void Shell::paired(Request& r, uint64_t s, uint64_t d, uint64_t n, uint64_t in_b, uint64_t out_b) const {
    // Chunks hold whole records on both sides and the same number of them.
    uint64_t rec_per = std::max<uint64_t>(1, max_desc_.load() / std::max(in_b, out_b));
    if ((n + rec_per - 1) / rec_per > kSlotDescs + 1) rec_per = (n + kSlotDescs) / (kSlotDescs + 1);
    for (uint64_t i = 0; i < n; i += rec_per) {
        uint64_t m = std::min(rec_per, n - i);
        r.part[0].push_back(Span{s + i * in_b, m * in_b});
        r.part[1].push_back(Span{d + i * out_b, m * out_b});
    }
    if (r.part[0].empty()) {
        r.part[0].push_back(Span{s, 0});
        r.part[1].push_back(Span{d, 0});
    }
}

void Shell::set_max_descriptor(uint64_t bytes) {
    if (bytes < 64 || bytes > 0xFFFFFFC0ull)
        throw Error(FPGA_INVALID_PARAM, "descriptor size must be 64 B .. 4 GiB - 64");
    max_desc_ = bytes / 64 * 64;
}

std::shared_ptr<Request> Shell::dma(uint64_t dst, uint64_t src, uint64_t count, int type) {
    uint64_t t0 = now_ns();
    if (type < H2F || type > F2P)
        throw Error(AFU_ERR_BAD_TYPE, "transfer type " + std::to_string(type) + " is not H2F, F2H, F2F, H2H, P2F or F2P");
    bool src_host = type == H2F || type == H2H, dst_host = type == F2H || type == H2H;
    if (checks_) {
        if (src_host && !src) throw Error(AFU_ERR_NULL_POINTER, "src is a NULL host pointer");
        if (dst_host && !dst) throw Error(AFU_ERR_NULL_POINTER, "dst is a NULL host pointer");
        if (count == 0) throw Error(AFU_ERR_ZERO_COUNT, "count is 0 bytes");
        if (count % 4) throw Error(AFU_ERR_BAD_COUNT, "count " + std::to_string(count) + " is not a multiple of 4 bytes");
    }
    auto r = std::make_shared<Request>();
    afu_shell_info info;
    {
        // the AFU's record widths as one reconfiguration left them; submit() checks it is still loaded
        std::lock_guard<std::mutex> g(m_);
        usable_locked();
        info = info_;
        r->afu_gen = afu_gen_;
    }
    const uint64_t in_b = uint64_t(info.in_record_words) * 4, out_b = uint64_t(info.out_record_words) * 4;
    if (info.n_cores && (in_b != out_b || in_b % 64)) {
        // With cores every transfer streams through them: count bytes of input records
        // leave as count / in_b output records.
        if (checks_ && count % in_b)
            throw Error(AFU_ERR_RECORD_WIDTH, "count " + std::to_string(count) +
                        " is not a whole number of " + std::to_string(in_b) + "-byte input records");
        uint64_t n = count / in_b, s = 0, d = 0;
        side_addrs(type, dst, src, count, n * out_b, &d, &s);
        paired(*r, s, d, n, in_b, out_b);
    } else {
        uint64_t s = 0, d = 0;
        side_addrs(type, dst, src, count, count, &d, &s);
        // Chunks stay multiples of 64 bytes so both engines split at the same byte.
        r->part[0] = split(s, count, 64);
        r->part[1] = split(d, count, 64);
    }
    r->start_ns = t0;
    submit(r);
    return r;
}

void Shell::submit(const std::shared_ptr<Request>& r) {
    {
        std::lock_guard<std::mutex> g(m_);
        if (stop_) throw Error(AFU_ERR_CLOSED, "the shell is closed");
        usable_locked(r.get());
#ifdef AFUSHELL_SIM
        if (simulated_)
            for (int e = 0; e < 2; ++e) {
                spgenSimHold(h_);
                r->held[e] = true;
            }
#endif
#ifdef AFUSHELL_SIM
        if (simulated_) r->host_cycle = spgenSimHostCycle(h_);
#endif
        // Both queues get requests in one order: the loop-back pairs TX and RX bytes in order.
        eng_[0].queue.push_back(r);
        eng_[1].queue.push_back(r);
    }
    cv_.notify_all();
}

afu_result Shell::wait(const std::shared_ptr<Request>& r, uint64_t timeout_ns, std::string* msg) {
    uint64_t t0 = now_ns();
    std::unique_lock<std::mutex> lk(r->m);
#ifdef AFUSHELL_SIM
    if (deterministic_ && !r->done) {
        if (timeout_ns == UINT64_MAX) {
            // blocked: the card runs until the worker that completes the request wakes us
            r->user_blocked = true;
            spgenSimUserBlock(h_);
        } else {
            // a bounded wait is host time spent in polls of host_poll_ns each
            for (uint64_t waited = 0; !r->done; waited += poll_ns_) {
                if (waited >= timeout_ns) {
                    *msg = "request not complete after " + std::to_string(timeout_ns) + " ns";
                    return AFU_ERR_TIMEOUT;
                }
                lk.unlock();
                spgenSimHostSleep(h_, std::min(poll_ns_, timeout_ns - waited));
                lk.lock();
            }
        }
    }
#endif
    while (!r->done) {
        if (timeout_ns != UINT64_MAX && now_ns() - t0 >= timeout_ns) {
            *msg = "request not complete after " + std::to_string(timeout_ns) + " ns";
            return AFU_ERR_TIMEOUT;
        }
        r->cv.wait_for(lk, std::chrono::microseconds(500));
    }
    *msg = r->message;
    return r->result;
}

void Shell::worker(int e) {
    Engine& E = eng_[e];
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimLaneEnter(h_, 1 + e);
#endif
    std::unique_lock<std::mutex> lk(m_);
    int quiet = 0;
    while (!stop_) {
        if (!E.queue.empty() && !E.free_slots.empty()) {
            lk.unlock();
            {
                std::lock_guard<std::mutex> pg(E.push_m);
                std::shared_ptr<Request> r;
                {
                    std::lock_guard<std::mutex> g(m_);
                    if (!E.queue.empty() && !E.free_slots.empty()) {
                        r = E.queue.front();
                        E.queue.pop_front();
                        r->slot[e] = E.free_slots.back();
                        E.free_slots.pop_back();
                        E.pushed += r->part[e].size();
                        r->seq_end[e] = E.pushed;
                        E.inflight.push_back(r);
                    }
                }
                if (r) {
                    push(e, r);
                    std::lock_guard<std::mutex> g(m_);
                    release_locked(*r, e);
                }
            }
            lk.lock();
            continue;
        }
        if (E.inflight.empty()) {
#ifdef AFUSHELL_SIM
            if (simulated_) spgenSimLaneIdle(h_, 1);
            cv_.wait(lk);
            if (simulated_) spgenSimLaneIdle(h_, 0);
#else
            cv_.wait(lk);
#endif
            continue;
        }
        // Requests that must wait for a FIFO slot cannot keep the clock stopped.
        for (auto& q : E.queue) release_locked(*q, e);
        lk.unlock();
        bool fired = wait_irq(e, 2);
        // A lost interrupt would stall a real card: look at the status now and then anyway
        // (a simulated card with deterministic host time loses none, and a look at a
        // wall-clock moment would make its timing depend on the machine's load).
        quiet = fired ? 0 : quiet + 1;
        if (fired || (quiet >= 250 && !deterministic_)) {
            quiet = 0;
            service(e);
        }
        lk.lock();
    }
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimLaneIdle(h_, 1);
#endif
}

void Shell::push(int e, const std::shared_ptr<Request>& r) {
    const auto& spans = r->part[e];
    const uint64_t base = kBase[e];
    const size_t k = spans.size();
    uint8_t* table = pool_ + (uint64_t(e) * slots_ + unsigned(r->slot[e])) * kSlotDescs * AFUSHELL_DESC_BYTES;
    uint64_t table_io = kHost | (pool_iova_ + uint64_t(table - pool_));
    for (size_t i = 1; i < k; ++i) {
        afushell_desc_t d{};
        (e == 0 ? d.src : d.dst) = spans[i].addr;
        d.len = uint32_t(spans[i].len);
        d.ctrl = i + 1 < k ? kChain : (kEop | kIrq);
        d.next = i + 1 < k ? table_io + i * AFUSHELL_DESC_BYTES : 0;
        std::memcpy(table + (i - 1) * AFUSHELL_DESC_BYTES, &d, sizeof d);
    }
    uint32_t ctrl = kGo | kSop | (k > 1 ? kChain : (kEop | kIrq));
#ifdef AFUSHELL_SIM
    // From the program's submission on, the TX descriptor's six writes first, then the RX
    // one's: the host's posted writes go out one after the other, whichever worker runs first.
    if (simulated_) spgenSimHostSync(h_, r->host_cycle, e == 1 ? 6 : 0);
#endif
    mmio_w(base + AFUSHELL_DMA_DESC_SRC, e == 0 ? spans[0].addr : 0);
    mmio_w(base + AFUSHELL_DMA_DESC_DST, e == 1 ? spans[0].addr : 0);
    mmio_w(base + AFUSHELL_DMA_DESC_LEN, spans[0].len);
    mmio_w(base + AFUSHELL_DMA_DESC_STRIDE, 0);
    mmio_w(base + AFUSHELL_DMA_DESC_NEXT, k > 1 ? table_io : 0);
    mmio_w(base + AFUSHELL_DMA_DESC_CTRL, ctrl);
}

bool Shell::wait_irq(int e, int wall_ms) {
    struct pollfd p{fd_[e], POLLIN, 0};
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimWaitIrqBegin(h_, uint32_t(e));
#endif
    int n = poll(&p, 1, wall_ms);
    const bool fired = n > 0 && (p.revents & POLLIN);
#ifdef AFUSHELL_SIM
    if (simulated_) {
        // the card takes the interrupt from the eventfd itself, so that one written while
        // this thread goes on is never taken unnoticed
        spgenSimWaitIrqEnd(h_, uint32_t(e), fired);
        return fired;
    }
#endif
    if (fired) {
        uint64_t v;
        ssize_t got = read(fd_[e], &v, sizeof v);
        (void)got;
        return true;
    }
    return false;
}

void Shell::service(int e) {
    uint64_t end_ns = now_ns();
#ifdef AFUSHELL_SIM
    if (simulated_) end_ns = spgenSimIrqNs(h_, uint32_t(e));
#endif
    Engine& E = eng_[e];
    std::unique_lock<std::mutex> pg(E.push_m);
    uint64_t epoch;
    {
        std::lock_guard<std::mutex> g(m_);
        epoch = epoch_;
    }
    // Clear first, then read: a completion after the read raises the interrupt again.
    mmio_w(AFUSHELL_IRQ_STATUS, 1ull << e);
    uint64_t st = mmio_r(kBase[e] + AFUSHELL_DMA_STATUS);
    if (st & AFUSHELL_DMA_STATUS_ERROR_MASK) {
        uint64_t err = mmio_r(kBase[e] + AFUSHELL_DMA_ERROR);
        pg.unlock();
        recover(e, err, epoch);
        return;
    }
    uint32_t done = uint32_t(st >> AFUSHELL_DMA_STATUS_DONE_COUNT_SHIFT);
    std::vector<std::shared_ptr<Request>> finished;
    {
        std::lock_guard<std::mutex> g(m_);
        // A reset since the status read makes its DONE_COUNT meaningless now.
        while (epoch == epoch_ && !E.inflight.empty()) {
            auto& r = E.inflight.front();
            if (int32_t(done - uint32_t(r->seq_end[e])) < 0) break;
            // Simulated time: DONE_COUNT can show a completion whose interrupt is still on
            // its way (end_ns is an earlier one's); that interrupt brings us back here.
            if (e == 1 && end_ns < r->start_ns) break;
            E.free_slots.push_back(r->slot[e]);
            finished.push_back(r);
            E.inflight.pop_front();
        }
    }
    for (auto& r : finished) finish(r, e, end_ns);
    if (!finished.empty()) cv_.notify_all();
}

void Shell::finish(const std::shared_ptr<Request>& r, int e, uint64_t end_ns) {
    std::lock_guard<std::mutex> g(r->m);
    r->half_done[e] = true;
    if (e == 1) r->end_ns = end_ns;
    if (r->half_done[0] && r->half_done[1] && !r->done) {
        if (r->end_ns < r->start_ns) r->end_ns = r->start_ns;
        last_elapsed_ns_ = r->end_ns - r->start_ns;
        r->done = true;
        wake_waiter(*r);
        r->cv.notify_all();
    }
}

void Shell::recover(int e, uint64_t err, uint64_t epoch) {
    unsigned code = unsigned(err & AFUSHELL_DMA_ERROR_CODE_MASK);
    std::string msg = std::string(e == 0 ? "TX" : "RX") + " engine reported " +
                      (code < 8 ? kErrNames[code] : "an unknown error") + " (" + std::to_string(code) +
                      ") for descriptor " + std::to_string(err >> AFUSHELL_DMA_ERROR_SEQ_SHIFT) +
                      "; the shell's datapath was reset and requests in flight failed";
#ifdef AFUSHELL_SIM
    // waiting for the other worker, which may need the card to run to finish a read
    if (simulated_) spgenSimLaneIdle(h_, 1);
#endif
    std::lock_guard<std::mutex> p0(eng_[0].push_m);
    std::lock_guard<std::mutex> p1(eng_[1].push_m);
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimLaneIdle(h_, 0);
#endif
    {
        // Another worker already reset the shell for this error (or a later one).
        std::lock_guard<std::mutex> g(m_);
        if (epoch != epoch_) return;
        ++epoch_;
    }
    // A failed descriptor leaves the other engine waiting on a stream that never comes.
    mmio_w(AFUSHELL_SHELL_CTRL, AFUSHELL_SHELL_CTRL_SOFT_RESET_MASK);
    for (int i = 0; i < 2; ++i) {
        mmio_w(kBase[i] + AFUSHELL_DMA_CONTROL, AFUSHELL_DMA_CONTROL_RESET_MASK);
        mmio_w(kBase[i] + AFUSHELL_DMA_ERROR, 0);
    }
    mmio_w(AFUSHELL_IRQ_STATUS, 3);
    std::vector<std::shared_ptr<Request>> failed;
    {
        std::lock_guard<std::mutex> g(m_);
        for (int i = 0; i < 2; ++i) {
            for (auto& r : eng_[i].inflight) {
                eng_[i].free_slots.push_back(r->slot[i]);
                failed.push_back(r);
            }
            eng_[i].inflight.clear();
            eng_[i].pushed = 0;
        }
        // A request half pushed on the other engine must not run alone: drop it from both.
        for (auto& r : failed)
            for (int i = 0; i < 2; ++i) {
                release_locked(*r, i);
                auto& q = eng_[i].queue;
                q.erase(std::remove(q.begin(), q.end(), r), q.end());
            }
    }
    for (auto& r : failed) {
        std::lock_guard<std::mutex> g(r->m);
        if (r->done) continue;
        r->result = AFU_ERR_DEVICE;
        r->message = msg;
        r->end_ns = now_ns();
        r->done = true;
        r->cv.notify_all();
    }
    cv_.notify_all();
}

void Shell::poll_pause() {
#ifdef AFUSHELL_SIM
    if (deterministic_) spgenSimHostSleep(h_, poll_ns_);
#endif
}

void Shell::wake_waiter(Request& r) {
    if (!r.user_blocked) return;
    r.user_blocked = false;
#ifdef AFUSHELL_SIM
    spgenSimUserWake(h_);  // the program resumes at this thread's host time
#endif
}

void Shell::release_locked(Request& r, int e) {
    if (!r.held[e]) return;
    r.held[e] = false;
#ifdef AFUSHELL_SIM
    if (simulated_) spgenSimRelease(h_);
#endif
}

void Shell::fail_all(afu_result code, const std::string& msg) {
    std::vector<std::shared_ptr<Request>> all;
    {
        std::lock_guard<std::mutex> g(m_);
        for (auto& E : eng_) {
            for (auto& r : E.queue) release_locked(*r, 0), release_locked(*r, 1);
            for (auto& r : E.inflight) release_locked(*r, 0), release_locked(*r, 1);
            all.insert(all.end(), E.queue.begin(), E.queue.end());
            all.insert(all.end(), E.inflight.begin(), E.inflight.end());
            E.queue.clear();
            E.inflight.clear();
        }
    }
    for (auto& r : all) {
        std::lock_guard<std::mutex> g(r->m);
        if (r->done) continue;
        r->result = code;
        r->message = msg;
        r->done = true;
        wake_waiter(*r);
        r->cv.notify_all();
    }
}

afu_shell_run_result Shell::run(uint64_t src, uint64_t dst, uint64_t n) {
    std::lock_guard<std::mutex> one(run_m_);
    std::lock_guard<std::mutex> stream(p2p_m_);  // a run owns the stream: card-initiated sequences wait
    uint64_t t0 = now_ns();
    if (n == 0) throw Error(AFU_ERR_ZERO_COUNT, "a run needs at least one element");
    uint64_t in_b = uint64_t(info_.in_record_words) * 4, out_b = uint64_t(info_.out_record_words) * 4;
    if (n > 0xFFFFFFFFull / in_b * 64)
        throw Error(AFU_ERR_RECORD_WIDTH, "element count too large");
    uint64_t s = card_addr(reinterpret_cast<const void*>(src), n * in_b, false, "src");
    uint64_t d = card_addr(reinterpret_cast<const void*>(dst), n * out_b, false, "dst");
    auto r = std::make_shared<Request>();
    paired(*r, s, d, n, in_b, out_b);
    // Loop-back counts 512-bit beats, not records: there the run ends at the stream's last flag.
    mmio_w(AFUSHELL_CORE_ELEMENTS, info_.n_cores ? n : 0);
    // Armed: the shell holds the stream at the cores until the TX engine has read ahead,
    // so descriptor checks and the first memory reads are not counted as core stalls.
    mmio_w(AFUSHELL_CORE_CTRL, AFUSHELL_CORE_CTRL_ARM_MASK);
    r->start_ns = t0;
    submit(r);
    std::string msg;
    afu_result res = wait(r, UINT64_MAX, &msg);
    if (res != FPGA_OK) throw Error(res, msg);
    afu_shell_run_result out = counters();
    out.elapsed_ns = r->end_ns - r->start_ns;
    last_elapsed_ns_ = out.elapsed_ns;
    last_run_ns_ = out.elapsed_ns;
    return out;
}

afu_shell_run_result Shell::counters() {
    afu_shell_run_result out{};
    out.total_cycles = mmio_r(AFUSHELL_CORE_OUT_TOTAL_CYCLES);
    out.moved_cycles = mmio_r(AFUSHELL_CORE_OUT_MOVED_CYCLES);
    out.in_total_cycles = mmio_r(AFUSHELL_CORE_IN_TOTAL_CYCLES);
    out.in_moved_cycles = mmio_r(AFUSHELL_CORE_IN_MOVED_CYCLES);
    out.prime_cycles = mmio_r(AFUSHELL_CORE_PRIME_CYCLES);
    out.in_first_cycles = mmio_r(AFUSHELL_CORE_IN_FIRST_CYCLES);
    auto rate = [](uint64_t total, uint64_t moved) {
        return total ? double(total - std::min(moved, total)) / double(total) : 0.0;
    };
    out.stall_rate = rate(out.in_total_cycles, out.in_moved_cycles);
    out.out_stall_rate = rate(out.total_cycles, out.moved_cycles);
    out.flowing_stall_rate = rate(out.in_total_cycles - std::min(out.in_first_cycles, out.in_total_cycles),
                                  out.in_moved_cycles);
    out.elapsed_ns = last_run_ns_.load();
    return out;
}

int64_t Shell::core_param(const std::string& name) const {
    auto it = core_params_.find(name);
    if (it == core_params_.end())
        throw Error(FPGA_NOT_FOUND, "the card does not say its core's Param '" + name + "'" +
                                        (core_params_.empty() ? " (it reports no Params: a loop-back "
                                                                "card, or a hardware card opened "
                                                                "without param.NAME=VALUE)"
                                                              : ""));
    const std::string& v = it->second;
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end || errno)
        throw Error(FPGA_INVALID_PARAM, "the core's Param '" + name + "' is " + v + ", not an integer");
    return int64_t(x);
}

uint64_t Shell::reg_offset(const std::string& name) const {
    // A shell register by its name in the CSR map; an array element as NAME<index>
    // ("CORE_REG3", "RDMA_ROUTE5").
    for (const auto& r : afushell_csr_regs) {
        const size_t n = std::strlen(r.name);
        if (name.compare(0, n, r.name) != 0) continue;
        if (r.count == 1 && name.size() == n) return r.address;
        if (r.count > 1 && name.size() > n && name.size() <= n + 3 &&
            std::all_of(name.begin() + long(n), name.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
            const unsigned long i = std::strtoul(name.c_str() + n, nullptr, 10);
            if (i < r.count && (i == 0 || name[n] != '0')) return r.address + i * r.stride;
        }
    }
    auto it = core_regs_.find(name);
    if (it != core_regs_.end()) return AFUSHELL_CORE_REG(it->second);
    throw Error(AFU_ERR_UNKNOWN_REG, "no register named '" + name + "'");
}

const char* Shell::reg_type(const std::string& name) const {
    static const char* const kTypes[] = {"f32", "i32", "u32", "bool"};
    reg_offset(name);  // unknown names are errors, not untyped
    auto it = core_reg_types_.find(name);
    if (it == core_reg_types_.end()) return "";
    for (const char* t : kTypes)
        if (it->second == t) return t;
    throw Error(AFU_ERR_UNKNOWN_REG, "core Reg '" + name + "' has type '" + it->second +
                                                  "', not one of f32, i32, u32, bool");
}

uint64_t Shell::reg_bits(const std::string& name, double v) const {
    const std::string type = reg_type(name);
    if (type.empty())
        throw Error(AFU_ERR_UNKNOWN_REG, "'" + name + "' is a shell register of 64 raw bits, "
                    "not a typed core Reg: write its bits (afuShellWriteReg, write_reg_bits)");
    std::ostringstream shown;
    shown.precision(17);
    shown << v;
    auto refuse = [&](const std::string& why) {
        return Error(AFU_ERR_REG_VALUE, "core Reg '" + name + "' (" + type + "): " + shown.str() + " " + why);
    };
    if (type == "f32") {
        if (std::isfinite(v) && std::fabs(v) > double(FLT_MAX))
            throw refuse("is beyond the largest finite f32 (3.4028235e38)");
        float f = float(v);
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    if (!std::isfinite(v) || v != std::trunc(v)) throw refuse("is not an integer");
    if (type == "i32") {
        if (v < -2147483648.0 || v > 2147483647.0) throw refuse("is outside -2^31 .. 2^31-1");
        return uint32_t(int32_t(v));
    }
    if (type == "u32") {
        if (v < 0 || v > 4294967295.0) throw refuse("is outside 0 .. 2^32-1");
        return uint32_t(v);
    }
    if (v != 0 && v != 1) throw refuse("is not 0 or 1");
    return uint32_t(v);
}

double Shell::reg_value(const std::string& name, uint64_t bits) const {
    const std::string type = reg_type(name);
    if (type.empty())
        throw Error(AFU_ERR_UNKNOWN_REG, "'" + name + "' is a shell register of 64 raw bits, "
                    "not a typed core Reg: read its bits (afuShellReadReg, read_reg)");
    uint32_t b = uint32_t(bits);
    if (type == "f32") {
        float f;
        std::memcpy(&f, &b, sizeof f);
        return f;
    }
    if (type == "i32") return int32_t(b);
    if (type == "u32") return b;
    return b & 1u;
}

void Shell::write_reg(uint64_t offset, uint64_t value) {
    if (offset % 8 || offset >= AFUSHELL_MMIO_BYTES)
        throw Error(AFU_ERR_UNKNOWN_REG, "register offset " + hex(offset) + " is not an 8-byte aligned MMIO offset below 256 KiB");
    mmio_w(offset, value);
}

uint64_t Shell::read_reg(uint64_t offset) {
    if (offset % 8 || offset >= AFUSHELL_MMIO_BYTES)
        throw Error(AFU_ERR_UNKNOWN_REG, "register offset " + hex(offset) + " is not an 8-byte aligned MMIO offset below 256 KiB");
    return mmio_r(offset);
}

}  // namespace afushell
