// A GPU-like peer device on the simulated PCIe: its memory behind a BAR on the same root
// complex as the card, reached by the card's masters through the host window. Buffers are
// simulated device memory, or real GPU memory through the CUDA driver when one is given.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "models.hpp"

namespace spgsim {

/// Bus address of the peer's BAR (a 64-bit prefetchable BAR, as a GPU's BAR1) and its size.
/// The card reaches it as host-window address HOST_ADDR_BIT | bus.
constexpr uint64_t kPeerBarBase = 0x0000380000000000ull;
constexpr uint64_t kPeerBarBytes = 64ull << 30;

class CudaDriver;

/// The peer's memory: buffers registered in its BAR, each simulated (zeroed bytes of our
/// own) or a CUDA device allocation the simulated BAR reads and writes with cuMemcpy.
class PeerDevice {
public:
    PeerDevice();
    ~PeerDevice();
    PeerDevice(const PeerDevice&) = delete;
    PeerDevice& operator=(const PeerDevice&) = delete;

    static bool claims(uint64_t bus) { return bus >= kPeerBarBase && bus - kPeerBarBase < kPeerBarBytes; }
    /// Registers `len` bytes: simulated memory when cuda_ptr is 0, else the CUDA device
    /// allocation at cuda_ptr. Returns the bus address, or 0 with a message in err.
    uint64_t add(uint64_t len, uint64_t cuda_ptr, std::string* err);
    bool remove(uint64_t bus);
    /// Copies between [bus, bus+n) and buf; false where the range is not inside one buffer
    /// (err says why). byteenable: bit i of each 64-byte beat writes byte i (writes only).
    bool access(uint64_t bus, void* buf, uint64_t n, bool write, std::string* err,
                uint64_t byteenable = ~0ull);
    /// True when [bus, bus+n) lies inside one registered buffer.
    bool contains(uint64_t bus, uint64_t n) const;
    uint64_t bytes_read = 0, bytes_written = 0;

private:
    struct Buffer {
        uint64_t len;
        uint64_t cuda_ptr;                  // 0: simulated
        std::unique_ptr<uint8_t[]> bytes;   // simulated memory
    };
    const Buffer* find(uint64_t bus, uint64_t n, uint64_t* off) const;
    mutable std::mutex m_;
    std::map<uint64_t, Buffer> bufs_;
    uint64_t next_ = kPeerBarBase;
    std::unique_ptr<CudaDriver> cuda_;
};

/// Card-side timing of peer reads: the request crosses the root complex to the peer, the
/// peer answers after its read latency at its own service rate, and the completions cross
/// back (the extra round trip a peer read pays over a read of host memory).
struct PeerTiming {
    double read_latency_cycles;   // request leaving the card -> first completion byte
    double cycles_per_byte;       // the peer's completion rate (slower of its link and its BAR reads)
    double free = 0;              // cycle the peer is free to produce the next completion
    explicit PeerTiming(const Params& p);
};

}  // namespace spgsim
