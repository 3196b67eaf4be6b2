// The peer device's memory (simulated, or real GPU memory through the CUDA driver API).
#include "peer.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace spgsim {

// The few CUDA driver calls the simulated BAR needs, loaded from libcuda at run time so the
// simulation builds and runs without CUDA; their signatures are the driver API's (cuda.h).
class CudaDriver {
public:
    static std::unique_ptr<CudaDriver> load(std::string* err) {
        void* dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!dl) {
            *err = "CUDA driver (libcuda.so.1) not found: " + std::string(dlerror());
            return nullptr;
        }
        std::unique_ptr<CudaDriver> d(new CudaDriver);
        d->dl_ = dl;
        bool ok = d->sym(d->init_, "cuInit") && d->sym(d->attr_, "cuPointerGetAttribute") &&
                  d->sym(d->push_, "cuCtxPushCurrent_v2") && d->sym(d->pop_, "cuCtxPopCurrent_v2") &&
                  d->sym(d->htod_, "cuMemcpyHtoD_v2") && d->sym(d->dtoh_, "cuMemcpyDtoH_v2") &&
                  d->sym(d->range_, "cuMemGetAddressRange_v2");
        if (!ok || d->init_(0) != 0) {
            *err = "CUDA driver present but unusable (cuInit failed or symbols missing)";
            return nullptr;
        }
        return d;
    }
    ~CudaDriver() = default;  // libcuda stays loaded: other users in the process share it

    /// The device allocation's context; false when ptr is not CUDA device memory.
    bool context_of(uint64_t ptr, void** ctx) {
        unsigned type = 0;
        if (attr_(&type, kAttrMemoryType, ptr) != 0 || type != kMemoryTypeDevice) return false;
        return attr_(ctx, kAttrContext, ptr) == 0;
    }
    /// Bytes of the allocation holding ptr from ptr on (0 when unknown).
    uint64_t bytes_from(void* ctx, uint64_t ptr) {
        uint64_t base = 0;
        size_t size = 0;
        if (push_(ctx) != 0) return 0;
        int r = range_(&base, &size, ptr);
        void* prev = nullptr;
        pop_(&prev);
        return r == 0 && ptr >= base && ptr - base <= size ? base + size - ptr : 0;
    }
    bool copy(void* ctx, uint64_t dptr, void* host, uint64_t n, bool to_device) {
        if (push_(ctx) != 0) return false;
        int r = to_device ? htod_(dptr, host, n) : dtoh_(host, dptr, n);
        void* prev = nullptr;
        pop_(&prev);
        return r == 0;
    }

private:
    // CUpointer_attribute and CUmemorytype values of cuda.h
    static constexpr int kAttrContext = 1, kAttrMemoryType = 2;
    static constexpr unsigned kMemoryTypeDevice = 2;
    template <class F> bool sym(F& f, const char* name) {
        f = reinterpret_cast<F>(dlsym(dl_, name));
        return f != nullptr;
    }
    void* dl_ = nullptr;
    int (*init_)(unsigned) = nullptr;
    int (*attr_)(void*, int, uint64_t) = nullptr;
    int (*push_)(void*) = nullptr;
    int (*pop_)(void**) = nullptr;
    int (*htod_)(uint64_t, const void*, size_t) = nullptr;
    int (*dtoh_)(void*, uint64_t, size_t) = nullptr;
    int (*range_)(uint64_t*, size_t*, uint64_t) = nullptr;
};

PeerDevice::PeerDevice() = default;
PeerDevice::~PeerDevice() = default;

uint64_t PeerDevice::add(uint64_t len, uint64_t cuda_ptr, std::string* err) {
    std::lock_guard<std::mutex> g(m_);
    if (len == 0 || len % 4) {
        *err = "peer buffer of " + std::to_string(len) + " bytes: needs a positive multiple of 4";
        return 0;
    }
    // BAR space is handed out in 64 KiB pages, as GPUDirect maps GPU memory.
    const uint64_t span = (len + 0xFFFF) & ~0xFFFFull;
    if (next_ + span > kPeerBarBase + kPeerBarBytes) {
        *err = "peer BAR full (" + std::to_string(kPeerBarBytes >> 30) + " GiB)";
        return 0;
    }
    Buffer b{len, cuda_ptr, nullptr};
    if (cuda_ptr) {
        if (!cuda_) cuda_ = CudaDriver::load(err);
        void* ctx = nullptr;
        if (!cuda_) return 0;
        if (!cuda_->context_of(cuda_ptr, &ctx)) {
            char hex[32];
            std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(cuda_ptr));
            *err = std::string(hex) + " is not CUDA device memory";
            return 0;
        }
        if (cuda_->bytes_from(ctx, cuda_ptr) < len) {
            *err = std::to_string(len) + " bytes from the CUDA pointer run past the end of its allocation";
            return 0;
        }
    } else {
        b.bytes.reset(new (std::nothrow) uint8_t[len]());
        if (!b.bytes) {
            *err = "out of memory for a simulated peer buffer of " + std::to_string(len) + " bytes";
            return 0;
        }
    }
    uint64_t bus = next_;
    next_ += span;
    bufs_.emplace(bus, std::move(b));
    return bus;
}

bool PeerDevice::remove(uint64_t bus) {
    std::lock_guard<std::mutex> g(m_);
    return bufs_.erase(bus) > 0;
}

const PeerDevice::Buffer* PeerDevice::find(uint64_t bus, uint64_t n, uint64_t* off) const {
    auto it = bufs_.upper_bound(bus);
    if (it == bufs_.begin()) return nullptr;
    --it;
    if (bus - it->first > it->second.len || n > it->second.len - (bus - it->first)) return nullptr;
    *off = bus - it->first;
    return &it->second;
}

bool PeerDevice::contains(uint64_t bus, uint64_t n) const {
    std::lock_guard<std::mutex> g(m_);
    uint64_t off;
    return find(bus, n, &off) != nullptr;
}

bool PeerDevice::access(uint64_t bus, void* buf, uint64_t n, bool write, std::string* err,
                        uint64_t byteenable) {
    std::lock_guard<std::mutex> g(m_);
    uint64_t off = 0;
    const Buffer* b = find(bus, n, &off);
    if (!b) {
        if (err) *err = "peer range is not inside one registered peer buffer";
        return false;
    }
    auto* h = static_cast<uint8_t*>(buf);
    (write ? bytes_written : bytes_read) += n;
    if (!b->cuda_ptr) {
        uint8_t* mem = b->bytes.get() + off;
        if (!write) std::memcpy(h, mem, n);
        else if (byteenable == ~0ull) std::memcpy(mem, h, n);
        else for (uint64_t i = 0; i < n; ++i) if ((byteenable >> (i & 63)) & 1) mem[i] = h[i];
        return true;
    }
    void* ctx = nullptr;
    if (!cuda_->context_of(b->cuda_ptr, &ctx)) {
        if (err) *err = "the peer buffer's CUDA allocation is gone";
        return false;
    }
    if (!write || byteenable == ~0ull) return cuda_->copy(ctx, b->cuda_ptr + off, h, n, write);
    // A partial beat: each run of enabled bytes is its own copy, so bytes outside stay.
    for (uint64_t i = 0; i < n;) {
        if (!((byteenable >> (i & 63)) & 1)) { ++i; continue; }
        uint64_t j = i;
        while (j < n && ((byteenable >> (j & 63)) & 1)) ++j;
        if (!cuda_->copy(ctx, b->cuda_ptr + off + i, h + i, j - i, true)) return false;
        i = j;
    }
    return true;
}

PeerTiming::PeerTiming(const Params& p)
    : read_latency_cycles(p.cycles(p.peer_read_latency_ns + 2 * p.peer_p2p_latency_ns)),
      cycles_per_byte(p.clock_mhz / 1e3 / std::min(p.peer_link_gbytes_per_s(), p.peer_read_gbytes_per_s)) {}

}  // namespace spgsim
