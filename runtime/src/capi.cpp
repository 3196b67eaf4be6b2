// The C API: handles, the current shell, error codes and per-thread messages.
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "shell.hpp"

using afushell::Error;
using afushell::Request;
using afushell::Shell;
using afushell::fail;
using afushell::guarded;

struct afu_shell_s {
    std::mutex m;
    std::shared_ptr<Shell> impl;  // null once closed
};

struct afu_shell_request_s {
    std::shared_ptr<Request> req;
    std::shared_ptr<Shell> shell;
};

namespace {

thread_local std::string t_error;
std::mutex g_m;
// Handles are never freed, so a closed handle stays safe to pass (AFU_ERR_CLOSED).
std::vector<std::unique_ptr<afu_shell_s>> g_handles;
afu_shell_s* g_current = nullptr;
std::set<afu_shell_request> g_requests;

std::shared_ptr<Shell> shell_of(afu_shell_handle h) {
    if (!h) throw Error(AFU_ERR_NULL_POINTER, "handle is NULL");
    {
        std::lock_guard<std::mutex> g(g_m);
        bool known = false;
        for (auto& p : g_handles) known = known || p.get() == h;
        if (!known) throw Error(AFU_ERR_CLOSED, "not a handle from afuShellOpen");
    }
    std::lock_guard<std::mutex> g(h->m);
    if (!h->impl) throw Error(AFU_ERR_CLOSED, "the shell handle is closed");
    return h->impl;
}

// The C API's queries: the NULL checks, then *out = what the handle's shell answers.
template <class T, class F>
afu_result answer(afu_shell_handle h, T* out, const char* what, F&& ask) {
    return guarded([&] {
        if (!out) throw Error(AFU_ERR_NULL_POINTER, std::string(what) + " is NULL");
        *out = ask(*shell_of(h));
    });
}

// ... of a register or core parameter `name`
template <class T, class F>
afu_result answer_named(afu_shell_handle h, const char* name, T* out, const char* what, F&& ask) {
    return guarded([&] {
        if (!name || !out) throw Error(AFU_ERR_NULL_POINTER, std::string("name and ") + what + " must not be NULL");
        *out = ask(*shell_of(h), name);
    });
}

afu_shell_handle current() {
    std::lock_guard<std::mutex> g(g_m);
    if (!g_current) throw Error(AFU_ERR_NO_SHELL, "no shell is open (call afuShellOpen first)");
    return g_current;
}

}  // namespace

afu_result afushell::fail(afu_result code, const std::string& msg) {
    t_error = msg;
    return code;
}

extern "C" {

afu_result afuShellOpen(const char* uri, afu_shell_handle* handle) {
    return guarded([&] {
        if (!uri || !handle) throw Error(AFU_ERR_NULL_POINTER, "uri and handle must not be NULL");
        auto s = Shell::open(uri);
        auto h = std::make_unique<afu_shell_s>();
        h->impl = std::move(s);
        std::lock_guard<std::mutex> g(g_m);
        g_current = h.get();
        *handle = h.get();
        g_handles.push_back(std::move(h));
    });
}

afu_result afuShellClose(afu_shell_handle h) {
    return guarded([&] {
        std::shared_ptr<Shell> s = shell_of(h);
        {
            std::lock_guard<std::mutex> g(h->m);
            h->impl.reset();
        }
        std::lock_guard<std::mutex> g(g_m);
        if (g_current == h) {
            g_current = nullptr;
            // The most recently opened shell still open becomes current again.
            for (auto it = g_handles.rbegin(); it != g_handles.rend(); ++it) {
                std::lock_guard<std::mutex> hg((*it)->m);
                if ((*it)->impl) { g_current = it->get(); break; }
            }
        }
    });
}

const char* afuShellLastError(void) { return t_error.c_str(); }

const char* afuShellErrStr(afu_result code) {
    switch (int(code)) {
        case AFU_ERR_NULL_POINTER: return "null pointer";
        case AFU_ERR_ZERO_COUNT: return "zero byte count";
        case AFU_ERR_BAD_COUNT: return "byte count not a multiple of 4";
        case AFU_ERR_ALIGNMENT: return "address not 4-byte aligned";
        case AFU_ERR_OUT_OF_RANGE: return "address past the end of FPGA memory";
        case AFU_ERR_NOT_PREPARED: return "host memory not from afuShellAlloc";
        case AFU_ERR_CLOSED: return "handle closed";
        case AFU_ERR_TIMEOUT: return "timed out";
        case AFU_ERR_BAD_TYPE: return "bad transfer type";
        case AFU_ERR_DEVICE: return "the shell reported an error";
        case AFU_ERR_NO_SHELL: return "no shell open";
        case AFU_ERR_BAD_URI: return "bad target URI";
        case AFU_ERR_UNKNOWN_REG: return "unknown register";
        case AFU_ERR_RECORD_WIDTH: return "element count does not fit the core";
        case AFU_ERR_BAD_REQUEST: return "unknown or finished request";
        case AFU_ERR_REG_VALUE: return "value does not fit the register's type";
        case AFU_ERR_AFU_ID: return "AFU ID mismatch";
        case AFU_ERR_BAD_ARG: return "bad argument";
        case AFU_ERR_RDMA_NO_ROUTE: return "RDMA: no route to the destination card";
        case AFU_ERR_RDMA_REMOTE_RANGE: return "RDMA: remote range past the end of memory";
        case AFU_ERR_RDMA_TIMEOUT: return "RDMA: the destination did not answer";
        case AFU_ERR_RDMA_LOCAL_RANGE: return "RDMA: local range past the end of memory";
        case AFU_ERR_RDMA_ALIGN: return "RDMA: size or address not a multiple of 4";
        case AFU_ERR_RDMA_BAD_CARD: return "RDMA: no such card";
        default:
            // only OPAE's own values may become an fpga_result (its enumeration ends there)
            return code >= FPGA_OK && code <= FPGA_RECONF_ERROR ? fpgaErrStr(fpga_result(code))
                                                                : "unknown error code";
    }
}

afu_result afuShellAllocH(afu_shell_handle h, size_t bytes, void** ptr) {
    return answer(h, ptr, "ptr", [&](Shell& s) { return s.alloc(bytes); });
}

afu_result afuShellFreeH(afu_shell_handle h, void* ptr) {
    return guarded([&] { shell_of(h)->free(ptr); });
}

afu_result afuShellAlloc(size_t bytes, void** ptr) {
    return guarded([&] {
        if (!ptr) throw Error(AFU_ERR_NULL_POINTER, "ptr is NULL");
        *ptr = shell_of(current())->alloc(bytes);
    });
}

afu_result afuShellFree(void* ptr) {
    return guarded([&] { shell_of(current())->free(ptr); });
}

afu_result afuShellDMATransferAsyncH(afu_shell_handle h, void* dst, const void* src, size_t count,
                                      dma_transfer_type_t type, afu_shell_request* req) {
    return guarded([&] {
        if (!req) throw Error(AFU_ERR_NULL_POINTER, "req is NULL");
        auto s = shell_of(h);
        auto r = s->dma(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), count, int(type));
        auto* out = new afu_shell_request_s{r, s};
        std::lock_guard<std::mutex> g(g_m);
        g_requests.insert(out);
        *req = out;
    });
}

afu_result afuShellDMATransferAsync(void* dst, const void* src, size_t count, dma_transfer_type_t type,
                                     afu_shell_request* req) {
    afu_shell_handle h = nullptr;
    afu_result r = guarded([&] { h = current(); });
    return r != FPGA_OK ? r : afuShellDMATransferAsyncH(h, dst, src, count, type, req);
}

afu_result afuShellWait(afu_shell_request req, uint64_t timeout_ns, uint64_t* elapsed_ns) {
    {
        std::lock_guard<std::mutex> g(g_m);
        if (!req || !g_requests.count(req))
            return fail(AFU_ERR_BAD_REQUEST, "not a pending request (already waited for?)");
    }
    std::string msg;
    afu_result r = req->shell->wait(req->req, timeout_ns, &msg);
    if (r == AFU_ERR_TIMEOUT) return fail(r, msg);
    if (elapsed_ns) *elapsed_ns = req->req->end_ns - req->req->start_ns;
    {
        std::lock_guard<std::mutex> g(g_m);
        g_requests.erase(req);
    }
    delete req;
    if (r != FPGA_OK) return fail(r, msg);
    t_error.clear();
    return FPGA_OK;
}

int afuShellRequestDone(afu_shell_request req) {
    {
        std::lock_guard<std::mutex> g(g_m);
        if (!req || !g_requests.count(req)) return -1;
    }
    {
        std::lock_guard<std::mutex> g(req->req->m);
        if (req->req->done) return 1;
    }
    req->shell->poll_pause();  // simulated: a poll costs host time, in which the card runs
    std::lock_guard<std::mutex> g(req->req->m);
    return req->req->done ? 1 : 0;
}

afu_result afuShellDMATransferH(afu_shell_handle h, void* dst, const void* src, size_t count,
                                 dma_transfer_type_t type) {
    afu_shell_request req = nullptr;
    afu_result r = afuShellDMATransferAsyncH(h, dst, src, count, type, &req);
    return r != FPGA_OK ? r : afuShellWait(req, UINT64_MAX, nullptr);
}

afu_result afuShellDMATransfer(void* dst, const void* src, size_t count, dma_transfer_type_t type) {
    afu_shell_handle h = nullptr;
    afu_result r = guarded([&] { h = current(); });
    return r != FPGA_OK ? r : afuShellDMATransferH(h, dst, src, count, type);
}

afu_result afuShellElapsedNs(afu_shell_handle h, uint64_t* ns) {
    return answer(h, ns, "ns", [](Shell& s) { return s.last_elapsed_ns(); });
}

afu_result afuShellRegOffset(afu_shell_handle h, const char* name, uint64_t* offset) {
    return answer_named(h, name, offset, "offset", [](Shell& s, const char* n) { return s.reg_offset(n); });
}

afu_result afuShellWriteReg(afu_shell_handle h, const char* name, uint64_t value) {
    return guarded([&] {
        if (!name) throw Error(AFU_ERR_NULL_POINTER, "name is NULL");
        auto s = shell_of(h);
        if (*s->reg_type(name) && value > 0xFFFFFFFFull)
            throw Error(AFU_ERR_REG_VALUE, std::string("core Reg ") + name +
                        " holds 32 bits; " + std::to_string(value) + " does not fit");
        s->write_reg(s->reg_offset(name), value);
    });
}

afu_result afuShellReadReg(afu_shell_handle h, const char* name, uint64_t* value) {
    return answer_named(h, name, value, "value",
                        [](Shell& s, const char* n) { return s.read_reg(s.reg_offset(n)); });
}

afu_result afuShellWriteRegValue(afu_shell_handle h, const char* name, double value) {
    return guarded([&] {
        if (!name) throw Error(AFU_ERR_NULL_POINTER, "name is NULL");
        auto s = shell_of(h);
        s->write_reg(s->reg_offset(name), s->reg_bits(name, value));
    });
}

afu_result afuShellReadRegValue(afu_shell_handle h, const char* name, double* value) {
    return answer_named(h, name, value, "value",
                        [](Shell& s, const char* n) { return s.reg_value(n, s.read_reg(s.reg_offset(n))); });
}

afu_result afuShellRegType(afu_shell_handle h, const char* name, const char** type) {
    return answer_named(h, name, type, "type", [](Shell& s, const char* n) { return s.reg_type(n); });
}

afu_result afuShellWriteRegAt(afu_shell_handle h, uint64_t offset, uint64_t value) {
    return guarded([&] { shell_of(h)->write_reg(offset, value); });
}

afu_result afuShellReadRegAt(afu_shell_handle h, uint64_t offset, uint64_t* value) {
    return answer(h, value, "value", [&](Shell& s) { return s.read_reg(offset); });
}

afu_result afuShellRun(afu_shell_handle h, uint64_t src, uint64_t dst, uint64_t n_elements,
                        afu_shell_run_result* result) {
    return answer(h, result, "result", [&](Shell& s) { return s.run(src, dst, n_elements); });
}

afu_result afuShellCounters(afu_shell_handle h, afu_shell_run_result* result) {
    return answer(h, result, "result", [](Shell& s) { return s.counters(); });
}

afu_result afuShellInfo(afu_shell_handle h, afu_shell_info* info) {
    return answer(h, info, "info", [](Shell& s) { return s.info(); });
}

afu_result afuShellCoreParam(afu_shell_handle h, const char* name, int64_t* value) {
    return answer_named(h, name, value, "value", [](Shell& s, const char* n) { return s.core_param(n); });
}

afu_result afuShellSetMaxDescriptor(afu_shell_handle h, uint64_t bytes) {
    return guarded([&] { shell_of(h)->set_max_descriptor(bytes); });
}

afu_result afuShellSetChecks(afu_shell_handle h, int enabled) {
    return guarded([&] { shell_of(h)->set_checks(enabled != 0); });
}

afu_result afuShellSimStats(afu_shell_handle h, afu_shell_sim_stats* stats) {
    return guarded([&] {
        if (!stats) throw Error(AFU_ERR_NULL_POINTER, "stats is NULL");
        if (!shell_of(h)->sim_stats(stats)) throw Error(FPGA_NOT_SUPPORTED, "not a simulated card");
    });
}

afu_result afuShellSimHostTime(afu_shell_handle h, int op, uint64_t cycle, uint64_t* now) {
    return guarded([&] {
        // only NOW needs somewhere to put its answer; the other operations act
        if (!now && op == AFU_SIM_HOST_NOW) throw Error(AFU_ERR_NULL_POINTER, "now is NULL");
        if (op < AFU_SIM_HOST_NOW || op > AFU_SIM_HOST_LEAVE) throw Error(FPGA_INVALID_PARAM, "unknown host-time operation");
        uint64_t ignored = 0;
        if (!shell_of(h)->sim_host_time(op, cycle, now ? now : &ignored))
            throw Error(FPGA_NOT_SUPPORTED, "not a simulated card with deterministic host time");
    });
}

afu_result afuShellPeerRegister(afu_shell_handle h, uint64_t cuda_ptr, size_t bytes, uint64_t* bus) {
    return guarded([&] {
        if (!bus) throw Error(AFU_ERR_NULL_POINTER, "bus is NULL");
        *bus = shell_of(h)->peer_register(cuda_ptr, bytes);
    });
}

afu_result afuShellPeerUnregister(afu_shell_handle h, uint64_t bus) {
    return guarded([&] { shell_of(h)->peer_unregister(bus); });
}

afu_result afuShellPeerWrite(afu_shell_handle h, uint64_t bus, const void* src, size_t bytes) {
    return guarded([&] { shell_of(h)->peer_access(bus, const_cast<void*>(src), bytes, true); });
}

afu_result afuShellPeerRead(afu_shell_handle h, void* dst, uint64_t bus, size_t bytes) {
    return guarded([&] { shell_of(h)->peer_access(bus, dst, bytes, false); });
}

afu_result afuShellPeerStaged(afu_shell_handle h, void* dst, const void* src, size_t count,
                              dma_transfer_type_t type, uint64_t* elapsed_ns) {
    return guarded([&] {
        uint64_t ns = shell_of(h)->peer_staged(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src),
                                               count, int(type));
        if (elapsed_ns) *elapsed_ns = ns;
    });
}

afu_result afuShellCardDMA(afu_shell_handle h, void* dst, const void* src, size_t count,
                           dma_transfer_type_t type, uint32_t repeat, uint32_t src_step,
                           uint32_t dst_step, afu_shell_card_dma_result* result) {
    return guarded([&] {
        if (!result) throw Error(AFU_ERR_NULL_POINTER, "result is NULL");
        *result = shell_of(h)->card_dma(reinterpret_cast<uint64_t>(dst), reinterpret_cast<uint64_t>(src), count,
                                        int(type), repeat, src_step, dst_step);
    });
}

afu_result afuShellReconfigure(afu_shell_handle h, const char* build, uint32_t flags,
                               const char* afu_id, uint64_t* reconf_ns) {
    return guarded([&] {
        if (!build) throw Error(AFU_ERR_NULL_POINTER, "build is NULL");
        if (flags & ~AFU_RECONF_KEEP_DDR) throw Error(FPGA_INVALID_PARAM, "unknown reconfiguration flags");
        uint64_t ns = shell_of(h)->reconfigure(build, (flags & AFU_RECONF_KEEP_DDR) != 0, afu_id ? afu_id : "");
        if (reconf_ns) *reconf_ns = ns;
    });
}

afu_result afuShellSimInfo(afu_shell_handle h, const char** text) {
    return guarded([&] {
        if (!text) throw Error(AFU_ERR_NULL_POINTER, "text is NULL");
        *text = shell_of(h)->sim_info();
    });
}

}  // extern "C"
