// The OPAE C API subset over simulated cards (the role Intel's ASE plays).
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "card.hpp"
#include "opae/fpga.h"
#include "opae/spgen_sim.h"

using spgsim::Card;
using spgsim::CardLib;
using spgsim::HostRegion;
using spgsim::Params;

namespace {

struct Registration {
    fpga_guid guid;
    std::shared_ptr<CardLib> lib;
    Params params;
    // A card of a cluster (runtime/sim/cluster.hpp): opened by attaching to it, not built.
    std::string name;
    std::function<std::shared_ptr<Card>()> attach;
    std::function<void()> detach;
};

struct Props {
    uint32_t magic = 0x50524f50;
    bool has_guid = false;
    fpga_guid guid{};
};

struct Token {
    uint32_t magic = 0x544f4b4e;
    size_t index;
};

struct Handle {
    uint32_t magic = 0x48414e44;
    std::shared_ptr<Card> card;
    std::string info;
    std::function<void()> detach;  // a cluster's card: hand it back on close
    uint64_t reconf_ns = 0;        // its latest reconfiguration
};

struct Event {
    uint32_t magic = 0x45564e54;
    int fd;
};

std::mutex g_m;
thread_local std::string t_reconf_error;  // fpgaReconfigureSlot's latest failure
std::vector<Registration> g_regs;
std::set<Handle*> g_handles;

Handle* live(fpga_handle h) {
    std::lock_guard<std::mutex> g(g_m);
    auto* p = static_cast<Handle*>(h);
    return g_handles.count(p) ? p : nullptr;
}

fpga_guid* new_guid(Registration& r) {  // caller holds g_m
    std::memcpy(r.guid, "SPGENSIM", 8);
    uint64_t idx = g_regs.size();
    std::memcpy(r.guid + 8, &idx, 8);
    return &r.guid;
}

}  // namespace

namespace spgsim {
void register_external_card(const std::string& name, std::function<std::shared_ptr<Card>()> attach,
                            std::function<void()> detach) {
    std::lock_guard<std::mutex> g(g_m);
    for (auto& r : g_regs)
        if (r.name == name) return;
    Registration r;
    new_guid(r);
    r.name = name;
    r.attach = std::move(attach);
    r.detach = std::move(detach);
    g_regs.push_back(std::move(r));
}
}  // namespace spgsim

extern "C" {

fpga_result spgenSimFindCard(const char* name, fpga_guid guid_out) {
    if (!name || !guid_out) return FPGA_INVALID_PARAM;
    std::lock_guard<std::mutex> g(g_m);
    for (auto& r : g_regs)
        if (!r.name.empty() && r.name == name) {
            std::memcpy(guid_out, r.guid, 16);
            return FPGA_OK;
        }
    return FPGA_NOT_FOUND;
}

fpga_result spgenSimRegisterCard(const char* lib_path, const char* params, fpga_guid guid_out,
                                 char* err, size_t errlen) {
    auto fail = [&](const std::string& msg, fpga_result r) {
        if (err && errlen) std::snprintf(err, errlen, "%s", msg.c_str());
        return r;
    };
    if (!lib_path || !guid_out) return fail("null argument", FPGA_INVALID_PARAM);
    Params p;
    if (const char* env = std::getenv("SPGEN_SIM_PARAMS")) {
        std::string e = p.apply(env);
        if (!e.empty()) return fail("SPGEN_SIM_PARAMS: " + e, FPGA_INVALID_PARAM);
    }
    if (params) {
        std::string e = p.apply(params);
        if (!e.empty()) return fail(e, FPGA_INVALID_PARAM);
    }
    std::string e;
    auto lib = CardLib::load(lib_path, &e);
    if (!lib) return fail(e, FPGA_NOT_FOUND);
    std::lock_guard<std::mutex> g(g_m);
    Registration r;
    new_guid(r);
    r.lib = lib;
    r.params = p;
    std::memcpy(guid_out, r.guid, 16);
    g_regs.push_back(std::move(r));
    return FPGA_OK;
}

fpga_result fpgaGetProperties(fpga_token token, fpga_properties* prop) {
    if (!prop) return FPGA_INVALID_PARAM;
    auto* p = new Props;
    if (token) {
        auto* t = static_cast<Token*>(token);
        if (t->magic != 0x544f4b4e) { delete p; return FPGA_INVALID_PARAM; }
        std::lock_guard<std::mutex> g(g_m);
        p->has_guid = true;
        std::memcpy(p->guid, g_regs[t->index].guid, 16);
    }
    *prop = p;
    return FPGA_OK;
}

fpga_result fpgaDestroyProperties(fpga_properties* prop) {
    if (!prop || !*prop) return FPGA_INVALID_PARAM;
    delete static_cast<Props*>(*prop);
    *prop = nullptr;
    return FPGA_OK;
}

fpga_result fpgaPropertiesSetObjectType(fpga_properties prop, fpga_objtype objtype) {
    if (!prop) return FPGA_INVALID_PARAM;
    return objtype == FPGA_ACCELERATOR ? FPGA_OK : FPGA_NOT_SUPPORTED;
}

fpga_result fpgaPropertiesSetGUID(fpga_properties prop, fpga_guid guid) {
    if (!prop) return FPGA_INVALID_PARAM;
    auto* p = static_cast<Props*>(prop);
    p->has_guid = true;
    std::memcpy(p->guid, guid, 16);
    return FPGA_OK;
}

fpga_result fpgaEnumerate(const fpga_properties* filters, uint32_t num_filters, fpga_token* tokens,
                          uint32_t max_tokens, uint32_t* num_matches) {
    if (!num_matches || (num_filters && !filters) || (max_tokens && !tokens)) return FPGA_INVALID_PARAM;
    std::lock_guard<std::mutex> g(g_m);
    uint32_t n = 0;
    for (size_t i = 0; i < g_regs.size(); ++i) {
        bool match = num_filters == 0;
        for (uint32_t f = 0; f < num_filters; ++f) {
            auto* p = static_cast<Props*>(filters[f]);
            if (!p->has_guid || std::memcmp(p->guid, g_regs[i].guid, 16) == 0) match = true;
        }
        if (!match) continue;
        if (n < max_tokens) tokens[n] = new Token{0x544f4b4e, i};
        ++n;
    }
    *num_matches = n;
    return FPGA_OK;
}

fpga_result fpgaDestroyToken(fpga_token* token) {
    if (!token || !*token) return FPGA_INVALID_PARAM;
    delete static_cast<Token*>(*token);
    *token = nullptr;
    return FPGA_OK;
}

fpga_result fpgaOpen(fpga_token token, fpga_handle* handle, int flags) {
    (void)flags;
    if (!token || !handle) return FPGA_INVALID_PARAM;
    auto* t = static_cast<Token*>(token);
    if (t->magic != 0x544f4b4e) return FPGA_INVALID_PARAM;
    std::shared_ptr<CardLib> lib;
    Params p;
    std::function<std::shared_ptr<Card>()> attach;
    std::function<void()> detach;
    {
        std::lock_guard<std::mutex> g(g_m);
        if (t->index >= g_regs.size()) return FPGA_NOT_FOUND;
        lib = g_regs[t->index].lib;
        p = g_regs[t->index].params;
        attach = g_regs[t->index].attach;
        detach = g_regs[t->index].detach;
    }
    auto* h = new Handle;
    if (attach) {
        h->card = attach();
        if (!h->card) {  // the cluster was closed
            delete h;
            return FPGA_NOT_FOUND;
        }
        h->detach = detach;
        h->info = h->card->info() + h->card->params().describe();
    } else {
        h->card = std::make_shared<Card>(lib, p);
        h->info = lib->info + p.describe();
    }
    std::lock_guard<std::mutex> g(g_m);
    g_handles.insert(h);
    *handle = h;
    return FPGA_OK;
}

fpga_result fpgaClose(fpga_handle handle) {
    Handle* h;
    {
        std::lock_guard<std::mutex> g(g_m);
        h = static_cast<Handle*>(handle);
        if (!g_handles.erase(h)) return FPGA_INVALID_PARAM;
    }
    auto regions = h->card->host.all();
    if (h->detach) {  // the card lives on in its cluster: forget this handle's buffers
        HostRegion gone;
        for (auto& r : regions) h->card->host.remove(r.wsid, &gone);
        h->detach();
    }
    h->card.reset();
    for (auto& r : regions)
        if (r.owned) munmap(r.ptr, r.len);
    delete h;
    return FPGA_OK;
}

fpga_result fpgaMapMMIO(fpga_handle handle, uint32_t mmio_num, uint64_t** mmio_ptr) {
    if (!live(handle) || mmio_num != 0) return FPGA_INVALID_PARAM;
    // A simulated BAR cannot be dereferenced: use fpgaRead/WriteMMIO64.
    return mmio_ptr ? FPGA_NOT_SUPPORTED : FPGA_OK;
}

fpga_result fpgaUnmapMMIO(fpga_handle handle, uint32_t mmio_num) {
    return live(handle) && mmio_num == 0 ? FPGA_OK : FPGA_INVALID_PARAM;
}

fpga_result fpgaReadMMIO64(fpga_handle handle, uint32_t mmio_num, uint64_t offset, uint64_t* value) {
    Handle* h = live(handle);
    if (!h || mmio_num != 0 || !value || offset % 8 || offset >= (256u << 10)) return FPGA_INVALID_PARAM;
    *value = h->card->mmio_read(uint32_t(offset));
    return FPGA_OK;
}

fpga_result fpgaWriteMMIO64(fpga_handle handle, uint32_t mmio_num, uint64_t offset, uint64_t value) {
    Handle* h = live(handle);
    if (!h || mmio_num != 0 || offset % 8 || offset >= (256u << 10)) return FPGA_INVALID_PARAM;
    h->card->mmio_write(uint32_t(offset), value);
    return FPGA_OK;
}

fpga_result fpgaPrepareBuffer(fpga_handle handle, uint64_t len, void** buf_addr, uint64_t* wsid,
                              int flags) {
    Handle* h = live(handle);
    if (!h || !buf_addr || !wsid) return FPGA_INVALID_PARAM;
    if (flags & FPGA_BUF_PREALLOCATED) {
        if (!*buf_addr || !len || reinterpret_cast<uintptr_t>(*buf_addr) % 4096) return FPGA_INVALID_PARAM;
        h->card->host.add(static_cast<uint8_t*>(*buf_addr), len, false, wsid);
        return FPGA_OK;
    }
    if (!len) return FPGA_INVALID_PARAM;
    uint64_t rounded = (len + 4095) & ~uint64_t(4095);
    void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return FPGA_NO_MEMORY;
    h->card->host.add(static_cast<uint8_t*>(p), rounded, true, wsid);
    *buf_addr = p;
    return FPGA_OK;
}

fpga_result fpgaReleaseBuffer(fpga_handle handle, uint64_t wsid) {
    Handle* h = live(handle);
    if (!h) return FPGA_INVALID_PARAM;
    HostRegion r;
    if (!h->card->host.remove(wsid, &r)) return FPGA_INVALID_PARAM;
    if (r.owned) munmap(r.ptr, r.len);
    return FPGA_OK;
}

fpga_result fpgaGetIOAddress(fpga_handle handle, uint64_t wsid, uint64_t* ioaddr) {
    Handle* h = live(handle);
    if (!h || !ioaddr) return FPGA_INVALID_PARAM;
    return h->card->host.iova(wsid, ioaddr) ? FPGA_OK : FPGA_NOT_FOUND;
}

fpga_result fpgaCreateEventHandle(fpga_event_handle* event_handle) {
    if (!event_handle) return FPGA_INVALID_PARAM;
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) return FPGA_EXCEPTION;
    *event_handle = new Event{0x45564e54, fd};
    return FPGA_OK;
}

fpga_result fpgaDestroyEventHandle(fpga_event_handle* event_handle) {
    if (!event_handle || !*event_handle) return FPGA_INVALID_PARAM;
    auto* e = static_cast<Event*>(*event_handle);
    close(e->fd);
    delete e;
    *event_handle = nullptr;
    return FPGA_OK;
}

fpga_result fpgaGetOSObjectFromEventHandle(const fpga_event_handle eh, int* fd) {
    if (!eh || !fd) return FPGA_INVALID_PARAM;
    *fd = static_cast<Event*>(eh)->fd;
    return FPGA_OK;
}

fpga_result fpgaRegisterEvent(fpga_handle handle, fpga_event_type event_type,
                              fpga_event_handle event_handle, uint32_t flags) {
    Handle* h = live(handle);
    if (!h || !event_handle || flags > 1) return FPGA_INVALID_PARAM;
    if (event_type != FPGA_EVENT_INTERRUPT) return FPGA_NOT_SUPPORTED;
    h->card->set_event(flags, static_cast<Event*>(event_handle)->fd);
    return FPGA_OK;
}

fpga_result fpgaUnregisterEvent(fpga_handle handle, fpga_event_type event_type,
                                fpga_event_handle event_handle) {
    Handle* h = live(handle);
    if (!h || !event_handle || event_type != FPGA_EVENT_INTERRUPT) return FPGA_INVALID_PARAM;
    // Only the vectors this event handle was registered on are cleared.
    (void)event_handle;
    return FPGA_OK;
}

const char* fpgaErrStr(fpga_result e) {
    static const char* const kStr[] = {"success", "invalid parameter", "resource busy",
                                       "exception", "not found", "no memory", "not supported",
                                       "no driver", "no daemon", "no access", "reconfiguration error"};
    return unsigned(e) < sizeof kStr / sizeof *kStr ? kStr[e] : "unknown error";
}

uint64_t spgenSimNowNs(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? uint64_t(h->card->to_ns(h->card->host_now())) : 0;
}

uint64_t spgenSimHostCycle(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? h->card->host_now() : 0;
}

void spgenSimHostSync(fpga_handle handle, uint64_t cycle, uint32_t after_writes) {
    if (Handle* h = live(handle)) h->card->host_sync(cycle, after_writes);
}

void spgenSimHostSleep(fpga_handle handle, uint64_t ns) {
    if (Handle* h = live(handle)) h->card->host_sleep(uint64_t(h->card->params().cycles(double(ns))));
}

uint64_t spgenSimHostPollNs(fpga_handle handle) {
    Handle* h = live(handle);
    return h && h->card->deterministic() ? std::max<uint64_t>(1, uint64_t(h->card->params().host_poll_ns)) : 0;
}

void spgenSimLaneEnter(fpga_handle handle, int lane) {
    if (Handle* h = live(handle)) h->card->lane_enter(lane);
}

void spgenSimLaneIdle(fpga_handle handle, int idle) {
    if (Handle* h = live(handle)) h->card->lane_idle(idle != 0);
}

void spgenSimWaitIrqBegin(fpga_handle handle, uint32_t vector) {
    if (Handle* h = live(handle)) h->card->wait_irq_begin(vector);
}

void spgenSimWaitIrqEnd(fpga_handle handle, uint32_t vector, int fired) {
    if (Handle* h = live(handle)) h->card->wait_irq_end(vector, fired != 0);
}

void spgenSimUserBlock(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->user_block();
}

void spgenSimUserWake(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->user_wake();
}

void spgenSimUserWakeAt(fpga_handle handle, uint64_t cycle) {
    if (Handle* h = live(handle)) h->card->user_wake_at(cycle);
}

void spgenSimHostLeave(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->leave();
}

uint64_t spgenSimIrqNs(fpga_handle handle, uint32_t vector) {
    Handle* h = live(handle);
    return h ? uint64_t(h->card->to_ns(h->card->irq_cycle(vector))) : 0;
}

void spgenSimWaitBegin(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->wait_begin();
}

void spgenSimWaitEnd(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->wait_end();
}

void spgenSimHold(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->hold();
}

void spgenSimRelease(fpga_handle handle) {
    if (Handle* h = live(handle)) h->card->release();
}

uint64_t spgenSimBusErrors(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? h->card->bus_errors() : 0;
}

uint64_t spgenSimCycles(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? h->card->busy_cycles() : 0;
}

double spgenSimWallSeconds(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? h->card->busy_wall_s() : 0.0;
}

fpga_result fpgaReconfigureSlot(fpga_handle fpga, uint32_t slot, const uint8_t* bitstream,
                                size_t bitstream_len, int flags) {
    std::string& err = t_reconf_error;
    Handle* h = live(fpga);
    if (!h || slot != 0 || !bitstream || !bitstream_len) {
        err = "fpgaReconfigureSlot: a live handle, slot 0 and a bitstream are needed";
        return FPGA_INVALID_PARAM;
    }
    // the simulated bitstream: a build directory or its card library, by path
    std::string path(reinterpret_cast<const char*>(bitstream), bitstream_len);
    path.resize(std::strlen(path.c_str()));
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".so") != 0) path += "/sim/libafucard.so";
    if (h->detach) {
        err = "a card of a cluster cannot be reconfigured (its clock is the cluster's)";
        return FPGA_NOT_SUPPORTED;
    }
    auto lib = CardLib::load(path, &err);
    if (!lib) return FPGA_INVALID_PARAM;
    uint64_t cycles = 0;
    err = h->card->reconfigure(lib, (flags & SPGEN_SIM_RECONF_KEEP_DDR) != 0, &cycles);
    if (!err.empty()) return FPGA_BUSY;
    h->info = h->card->info() + h->card->params().describe();
    h->reconf_ns = uint64_t(h->card->to_ns(cycles));
    return FPGA_OK;
}

uint64_t spgenSimReconfNs(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? h->reconf_ns : 0;
}

const char* spgenSimReconfError(void) { return t_reconf_error.c_str(); }

const char* spgenSimInfo(fpga_handle handle) {
    Handle* h = live(handle);
    return h ? h->info.c_str() : "";
}

fpga_result spgenSimPeerRegister(fpga_handle handle, uint64_t bytes, uint64_t cuda_ptr,
                                 uint64_t* bus, char* err, size_t errlen) {
    Handle* h = live(handle);
    if (!h || !bus) return FPGA_INVALID_PARAM;
    std::string e;
    *bus = h->card->peer.add(bytes, cuda_ptr, &e);
    if (*bus) return FPGA_OK;
    if (err && errlen) std::snprintf(err, errlen, "%s", e.c_str());
    return e.find("CUDA") != std::string::npos && e.find("not found") != std::string::npos
               ? FPGA_NOT_SUPPORTED : (e.find("memory") == 0 ? FPGA_NO_MEMORY : FPGA_INVALID_PARAM);
}

fpga_result spgenSimPeerUnregister(fpga_handle handle, uint64_t bus) {
    Handle* h = live(handle);
    if (!h) return FPGA_INVALID_PARAM;
    return h->card->peer.remove(bus) ? FPGA_OK : FPGA_NOT_FOUND;
}

fpga_result spgenSimPeerAccess(fpga_handle handle, uint64_t bus, void* buf, uint64_t bytes, int write) {
    Handle* h = live(handle);
    if (!h || (!buf && bytes)) return FPGA_INVALID_PARAM;
    return h->card->peer.access(bus, buf, bytes, write != 0, nullptr) ? FPGA_OK : FPGA_INVALID_PARAM;
}

uint64_t spgenSimPeerCopyNs(fpga_handle handle, uint64_t bytes) {
    Handle* h = live(handle);
    if (!h) return 0;
    const Params& p = h->card->params();
    return uint64_t(p.peer_copy_latency_ns + double(bytes) / p.peer_copy_gbytes_per_s);
}

}  // extern "C"
