// Timing and storage models of the simulated card: DDR4 channels and the PCIe/host link.
#pragma once
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "afushell_csr.h"

namespace spgsim {

struct PeerTiming;  // peer.hpp

/// Every timing figure of the simulated card; each one can be overridden by name
/// ("key=value,key=value" in SPGEN_SIM_PARAMS or after '?' in a sim: URI).
struct Params {
    double clock_mhz = AFUSHELL_CLOCK_MHZ;  // shell and core clock (shell/csr_map.json)
    // DDR4-2133 channel behind a 512-bit Avalon-MM port at the shell clock
    double ddr_read_latency = 30;         // cycles from command to first read beat
    double ddr_refresh_interval_ns = 7800;  // tREFI
    double ddr_refresh_ns = 350;          // tRFC: channel blocked
    double ddr_turnaround = 6;            // cycles lost on a read<->write switch
    double ddr_queue_beats = 64;          // command backlog before waitrequest
    // PCIe Gen3 x8 between host memory and the card
    double pcie_gbytes_per_s = 7.877;     // raw per direction (8 GT/s x 8 lanes, 128b/130b)
    double pcie_mps = 256;                // max payload per TLP, bytes
    double pcie_mrrs = 512;               // max read request size, bytes
    double pcie_tlp_overhead = 26;        // STP framing 4 + seq 2 + 4DW header 16 + LCRC 4
    double pcie_dllp_bytes = 4;           // ACK / flow-control DLLPs, amortised per TLP
    double pcie_read_latency_ns = 800;    // read request sent -> first completion byte
    double pcie_max_reads = 64;           // outstanding read requests (tags)
    double pcie_posted_credit = 4096;     // posted-write bytes queued before waitrequest
    double mmio_write_latency_ns = 200;   // posted host write -> AFU port
    double mmio_write_issue_ns = 10;      // host CPU cost per posted 64-bit write
    double mmio_read_latency_ns = 1000;   // host-visible round trip of a 64-bit read
    double irq_latency_ns = 1000;         // MSI -> host thread woken
    double host_write_latency_ns = 400;   // a card's posted write -> seen by a host thread polling it
    double idle_cycles = 64;              // keep clocking this long after the last activity
    double host_poll_ns = 1000;           // a done() poll that finds the request running: one status read
    double realtime = 0;                  // 1: host calls enter at the cycle they arrive (wall clock)
    double reconf_s = 1.39;               // reprogramming the AFU slot (fpgaconf, DDR cleared): docs/reconf.md
    // A GPU-like peer on the same root complex (docs/p2p.md: values and their sources)
    double peer_pcie_gen = 3;             // peer's link generation (1..5)
    double peer_pcie_lanes = 16;          // ... and width: Gen3 x16, the published node's GPU
    double peer_read_latency_ns = 650;    // read request at the peer -> its first completion
    double peer_p2p_latency_ns = 150;     // root complex forwarding one peer-to-peer TLP, one way
    double peer_read_gbytes_per_s = 4.2;  // rate the peer answers reads of its BAR
    double peer_copy_latency_ns = 8000;   // the peer's own copy to/from host memory: call to done
    double peer_copy_gbytes_per_s = 12.0; // ... and its bandwidth (CPU-staged path)

    /// Applies "k=v,k=v"; returns an error message or "".
    std::string apply(const std::string& spec);
    std::string describe() const;
    double cycles(double ns) const { return ns * clock_mhz / 1000.0; }
    /// Raw rate per direction of the peer's link, GB/s: lanes x transfer rate x encoding.
    double peer_link_gbytes_per_s() const;
};

/// Lazily allocated byte store (4 GiB address space per channel).
class SparseMemory {
public:
    static constexpr uint64_t kPage = 1u << 20;
    void read(uint64_t addr, void* dst, size_t n) const;
    void write(uint64_t addr, const void* src, size_t n, uint64_t byteenable = ~0ull);
    size_t allocated_bytes() const { return pages_.size() * kPage; }
private:
    std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

/// One DDR channel: a single data bus shared by every master, one 64-byte beat per
/// cycle, read latency, refresh blackouts, read/write turnaround, bounded backlog.
class DdrChannel {
public:
    explicit DdrChannel(const Params& p);
    bool can_accept(uint64_t now) const { return bus_free_ < now + queue_; }
    /// Reserves the bus for `beats`; fills `ready` with the cycle each beat's data is
    /// on the bus (+ read latency for reads).
    void schedule(uint64_t now, unsigned beats, bool write, std::vector<uint64_t>* ready);
    bool busy(uint64_t now) const { return bus_free_ > now; }
    SparseMemory mem;
    uint64_t beats_read = 0, beats_written = 0, refresh_stalls = 0;
private:
    uint64_t skip_refresh(uint64_t t);
    uint64_t period_, blackout_, lat_, turn_, queue_;
    uint64_t bus_free_ = 0;
    int last_dir_ = -1;
};

/// A prepared host buffer as the card sees it.
struct HostRegion {
    uint8_t* ptr;
    uint64_t len;
    uint64_t wsid;
    bool owned;
};

/// Host memory behind the IOMMU: IO virtual address -> process memory.
class HostMemory {
public:
    uint64_t add(uint8_t* ptr, uint64_t len, bool owned, uint64_t* wsid);
    bool remove(uint64_t wsid, HostRegion* out);
    bool iova(uint64_t wsid, uint64_t* out) const;
    /// Process pointer of [iova, iova+n) if inside one buffer, else nullptr.
    uint8_t* translate(uint64_t iova, uint64_t n) const;
    std::vector<HostRegion> all() const;
private:
    mutable std::mutex m_;
    std::map<uint64_t, HostRegion> by_iova_;
    std::map<uint64_t, uint64_t> wsid_to_iova_;
    uint64_t next_iova_ = 1ull << 30, next_wsid_ = 1;
};

/// PCIe Gen3 link: upstream (card -> host: writes, read requests, MSIs) and
/// downstream (host -> card: completions, MMIO) serialised at the raw rate with
/// per-TLP overhead; host read latency; a tag limit on outstanding reads.
class PcieLink {
public:
    explicit PcieLink(const Params& p);
    bool can_read(uint64_t now, uint64_t bytes);
    bool can_write(uint64_t now) const { return up_free_ < double(now) + credit_; }
    /// A card read of host memory; fills the cycle each 64-byte beat arrives. With `peer`,
    /// a read of a peer device's BAR: its latency and completion rate instead of the host's.
    void read(uint64_t now, uint64_t addr, uint64_t bytes, std::vector<uint64_t>* ready,
              PeerTiming* peer = nullptr);
    /// One beat of a card write into host memory (TLPs of up to MPS bytes).
    void write_beat(uint64_t now, unsigned bytes, bool last_of_burst);
    /// Cycle an MSI sent now reaches the host, after every earlier posted write.
    uint64_t msi(uint64_t now);
    /// A host MMIO TLP going downstream.
    uint64_t downstream(uint64_t now, unsigned payload);
    /// Traffic under way: a TLP on either direction or a read request still outstanding
    /// (tags release in order; released ones are dropped only by the next can_read, so a
    /// leftover tag must not keep an idle card's clock running).
    bool busy(uint64_t now) const {
        return up_free_ > now || down_free_ > now || (!tags_.empty() && tags_.back() > now);
    }
    uint64_t bytes_up = 0, bytes_down = 0;
private:
    double tlp_cycles(double payload) const { return (payload + ovh_) / bpc_; }
    double bpc_, ovh_, mps_, mrrs_, lat_, credit_;
    unsigned max_tags_;
    double up_free_ = 0, down_free_ = 0;
    std::deque<uint64_t> tags_;  // release cycle of each outstanding read request
    unsigned pending_ = 0;       // bytes of the write TLP being assembled
};

}  // namespace spgsim
