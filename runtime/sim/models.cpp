// Timing and storage models of the simulated card.
#include "models.hpp"

#include "peer.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace spgsim {

namespace {
struct Field { const char* name; double Params::*ptr; };
const Field kFields[] = {
    {"clock_mhz", &Params::clock_mhz},
    {"ddr_read_latency", &Params::ddr_read_latency},
    {"ddr_refresh_interval_ns", &Params::ddr_refresh_interval_ns},
    {"ddr_refresh_ns", &Params::ddr_refresh_ns},
    {"ddr_turnaround", &Params::ddr_turnaround},
    {"ddr_queue_beats", &Params::ddr_queue_beats},
    {"pcie_gbytes_per_s", &Params::pcie_gbytes_per_s},
    {"pcie_mps", &Params::pcie_mps},
    {"pcie_mrrs", &Params::pcie_mrrs},
    {"pcie_tlp_overhead", &Params::pcie_tlp_overhead},
    {"pcie_dllp_bytes", &Params::pcie_dllp_bytes},
    {"pcie_read_latency_ns", &Params::pcie_read_latency_ns},
    {"pcie_max_reads", &Params::pcie_max_reads},
    {"pcie_posted_credit", &Params::pcie_posted_credit},
    {"mmio_write_latency_ns", &Params::mmio_write_latency_ns},
    {"mmio_write_issue_ns", &Params::mmio_write_issue_ns},
    {"mmio_read_latency_ns", &Params::mmio_read_latency_ns},
    {"irq_latency_ns", &Params::irq_latency_ns},
    {"host_write_latency_ns", &Params::host_write_latency_ns},
    {"idle_cycles", &Params::idle_cycles},
    {"host_poll_ns", &Params::host_poll_ns},
    {"realtime", &Params::realtime},
    {"reconf_s", &Params::reconf_s},
    {"peer_pcie_gen", &Params::peer_pcie_gen},
    {"peer_pcie_lanes", &Params::peer_pcie_lanes},
    {"peer_read_latency_ns", &Params::peer_read_latency_ns},
    {"peer_p2p_latency_ns", &Params::peer_p2p_latency_ns},
    {"peer_read_gbytes_per_s", &Params::peer_read_gbytes_per_s},
    {"peer_copy_latency_ns", &Params::peer_copy_latency_ns},
    {"peer_copy_gbytes_per_s", &Params::peer_copy_gbytes_per_s},
};
}  // namespace

std::string Params::apply(const std::string& spec) {
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, spec.find('&') != std::string::npos ? '&' : ',')) {
        if (item.empty()) continue;
        auto eq = item.find('=');
        if (eq == std::string::npos) return "simulation parameter '" + item + "' has no '=value'";
        std::string key = item.substr(0, eq), val = item.substr(eq + 1);
        const Field* f = nullptr;
        for (const auto& k : kFields)
            if (key == k.name) f = &k;
        if (!f) return "unknown simulation parameter '" + key + "'";
        char* end = nullptr;
        double v = std::strtod(val.c_str(), &end);
        if (val.empty() || *end || !std::isfinite(v) || v < 0)
            return "simulation parameter '" + key + "' needs a number >= 0, got '" + val + "'";
        this->*(f->ptr) = v;
    }
    if (clock_mhz <= 0 || pcie_gbytes_per_s <= 0 || pcie_mps < 4 || pcie_mrrs < 64 ||
        pcie_max_reads < 1 || ddr_refresh_ns >= ddr_refresh_interval_ns ||
        peer_read_gbytes_per_s <= 0 || peer_copy_gbytes_per_s <= 0)
        return "simulation parameters out of range";
    if (peer_pcie_gen < 1 || peer_pcie_gen > 5 || peer_pcie_gen != std::floor(peer_pcie_gen) ||
        peer_pcie_lanes < 1 || peer_pcie_lanes > 32 || peer_pcie_lanes != std::floor(peer_pcie_lanes))
        return "peer_pcie_gen must be a whole number 1..5 and peer_pcie_lanes 1..32";
    return "";
}

double Params::peer_link_gbytes_per_s() const {
    // GT/s per lane and line encoding of PCIe generations 1..5 (8b/10b, then 128b/130b)
    static const double kGts[] = {2.5, 5.0, 8.0, 16.0, 32.0};
    const int g = int(peer_pcie_gen);
    return peer_pcie_lanes * kGts[g - 1] * (g <= 2 ? 8.0 / 10.0 : 128.0 / 130.0) / 8.0;
}

std::string Params::describe() const {
    std::ostringstream o;
    for (const auto& k : kFields) o << k.name << "=" << this->*(k.ptr) << "\n";
    return o.str();
}

void SparseMemory::read(uint64_t addr, void* dst, size_t n) const {
    auto* out = static_cast<uint8_t*>(dst);
    while (n) {
        uint64_t page = addr / kPage, off = addr % kPage;
        size_t take = std::min<uint64_t>(n, kPage - off);
        auto it = pages_.find(page);
        if (it == pages_.end()) std::memset(out, 0, take);
        else std::memcpy(out, it->second.get() + off, take);
        out += take; addr += take; n -= take;
    }
}

void SparseMemory::write(uint64_t addr, const void* src, size_t n, uint64_t byteenable) {
    auto* in = static_cast<const uint8_t*>(src);
    size_t i = 0;
    while (i < n) {
        uint64_t page = (addr + i) / kPage, off = (addr + i) % kPage;
        size_t take = std::min<uint64_t>(n - i, kPage - off);
        auto& p = pages_[page];
        if (!p) p.reset(new uint8_t[kPage]());
        if (byteenable == ~0ull) {
            std::memcpy(p.get() + off, in + i, take);
        } else {
            for (size_t j = 0; j < take; ++j)
                if ((byteenable >> ((i + j) & 63)) & 1) p[off + j] = in[i + j];
        }
        i += take;
    }
}

DdrChannel::DdrChannel(const Params& p)
    : period_(uint64_t(std::llround(p.cycles(p.ddr_refresh_interval_ns)))),
      blackout_(uint64_t(std::llround(p.cycles(p.ddr_refresh_ns)))),
      lat_(uint64_t(p.ddr_read_latency)),
      turn_(uint64_t(p.ddr_turnaround)),
      queue_(uint64_t(std::max(1.0, p.ddr_queue_beats))) {
    if (period_ <= blackout_) period_ = blackout_ + 1;
}

uint64_t DdrChannel::skip_refresh(uint64_t t) {
    if (blackout_ && t % period_ < blackout_) {
        uint64_t nt = t - t % period_ + blackout_;
        ++refresh_stalls;
        return nt;
    }
    return t;
}

void DdrChannel::schedule(uint64_t now, unsigned beats, bool write, std::vector<uint64_t>* ready) {
    uint64_t t = std::max(now, bus_free_);
    int dir = write ? 1 : 0;
    if (last_dir_ >= 0 && dir != last_dir_) t += turn_;
    last_dir_ = dir;
    if (ready) ready->clear();
    for (unsigned i = 0; i < beats; ++i) {
        t = skip_refresh(t);
        if (ready) ready->push_back(write ? t : t + lat_);
        ++t;
    }
    bus_free_ = t;
    (write ? beats_written : beats_read) += beats;
}

uint64_t HostMemory::add(uint8_t* ptr, uint64_t len, bool owned, uint64_t* wsid) {
    std::lock_guard<std::mutex> g(m_);
    uint64_t iova = next_iova_;
    // A 2 MiB guard gap keeps a transfer running past one buffer from landing in the next.
    next_iova_ += ((len + (2ull << 20) - 1) & ~((2ull << 20) - 1)) + (2ull << 20);
    *wsid = next_wsid_++;
    by_iova_[iova] = HostRegion{ptr, len, *wsid, owned};
    wsid_to_iova_[*wsid] = iova;
    return iova;
}

bool HostMemory::remove(uint64_t wsid, HostRegion* out) {
    std::lock_guard<std::mutex> g(m_);
    auto it = wsid_to_iova_.find(wsid);
    if (it == wsid_to_iova_.end()) return false;
    *out = by_iova_[it->second];
    by_iova_.erase(it->second);
    wsid_to_iova_.erase(it);
    return true;
}

bool HostMemory::iova(uint64_t wsid, uint64_t* out) const {
    std::lock_guard<std::mutex> g(m_);
    auto it = wsid_to_iova_.find(wsid);
    if (it == wsid_to_iova_.end()) return false;
    *out = it->second;
    return true;
}

uint8_t* HostMemory::translate(uint64_t iova, uint64_t n) const {
    std::lock_guard<std::mutex> g(m_);
    auto it = by_iova_.upper_bound(iova);
    if (it == by_iova_.begin()) return nullptr;
    --it;
    if (iova + n > it->first + it->second.len) return nullptr;
    return it->second.ptr + (iova - it->first);
}

std::vector<HostRegion> HostMemory::all() const {
    std::lock_guard<std::mutex> g(m_);
    std::vector<HostRegion> v;
    for (auto& kv : by_iova_) v.push_back(kv.second);
    return v;
}

PcieLink::PcieLink(const Params& p)
    : bpc_(p.pcie_gbytes_per_s * 1e3 / p.clock_mhz),
      ovh_(p.pcie_tlp_overhead + p.pcie_dllp_bytes),
      mps_(p.pcie_mps), mrrs_(p.pcie_mrrs),
      lat_(p.cycles(p.pcie_read_latency_ns)),
      credit_(p.pcie_posted_credit / (p.pcie_gbytes_per_s * 1e3 / p.clock_mhz)),
      max_tags_(unsigned(p.pcie_max_reads)) {}

bool PcieLink::can_read(uint64_t now, uint64_t bytes) {
    while (!tags_.empty() && tags_.front() <= now) tags_.pop_front();
    uint64_t need = (bytes + uint64_t(mrrs_) - 1) / uint64_t(mrrs_);
    return tags_.size() + need <= std::max<uint64_t>(max_tags_, need);
}

void PcieLink::read(uint64_t now, uint64_t addr, uint64_t bytes, std::vector<uint64_t>* ready,
                    PeerTiming* peer) {
    ready->clear();
    uint64_t done = 0;
    const uint64_t mrrs = uint64_t(mrrs_), mps = uint64_t(mps_);
    while (done < bytes) {
        uint64_t a = addr + done;
        uint64_t req = std::min(bytes - done, mrrs - a % mrrs);
        double sent = std::max(double(now), up_free_) + tlp_cycles(0);
        up_free_ = sent;
        bytes_up += uint64_t(ovh_);
        double t = sent + (peer ? peer->read_latency_cycles : lat_);
        uint64_t got = 0;
        while (got < req) {
            uint64_t c = std::min(req - got, mps - (a + got) % mps);
            if (peer) {  // the peer produces each completion at its own rate
                peer->free = std::max(t, peer->free) + double(c) * peer->cycles_per_byte;
                t = peer->free;
            }
            double start = std::max(t, down_free_);
            down_free_ = start + tlp_cycles(double(c));
            bytes_down += c + uint64_t(ovh_);
            got += c;
            // Beats whose last byte has arrived are ready.
            uint64_t have = done + got;
            while (ready->size() * 64 + 64 <= have || (have == bytes && ready->size() * 64 < bytes))
                ready->push_back(uint64_t(std::ceil(down_free_)));
        }
        tags_.push_back(uint64_t(std::ceil(down_free_)));
        done += req;
    }
}

void PcieLink::write_beat(uint64_t now, unsigned bytes, bool last_of_burst) {
    pending_ += bytes;
    if (pending_ >= unsigned(mps_) || last_of_burst) {
        up_free_ = std::max(double(now), up_free_) + tlp_cycles(pending_);
        bytes_up += pending_ + uint64_t(ovh_);
        pending_ = 0;
    }
}

uint64_t PcieLink::msi(uint64_t now) {
    up_free_ = std::max(double(now), up_free_) + tlp_cycles(4);
    return uint64_t(std::ceil(up_free_));
}

uint64_t PcieLink::downstream(uint64_t now, unsigned payload) {
    down_free_ = std::max(double(now), down_free_) + tlp_cycles(payload);
    bytes_down += payload + uint64_t(ovh_);
    return uint64_t(std::ceil(down_free_));
}

}  // namespace spgsim
