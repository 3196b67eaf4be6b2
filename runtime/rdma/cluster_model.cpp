// The C++ network model (rdma::Cluster) behind the cluster interface, and the interface's
// refusals of what only RTL cards have.
#include <algorithm>

#include "cluster_backend.hpp"
#include "rdma_sim.hpp"
#include "result.hpp"

namespace rdma {

using afushell::Error;

namespace {
[[noreturn]] void rtl_only(const std::string& what) {
  throw Error(FPGA_NOT_SUPPORTED, what + " exist on RTL cards only: a cluster file naming a \"card\" or \"builds\" "
                                          "(spgen build --links N) gives them; this cluster is the network model");
}

class ModelCluster final : public ClusterBackend {
 public:
  explicit ModelCluster(const ClusterDesc& d) : own_(std::make_unique<Cluster>(d)), sim_(*own_) {}
  explicit ModelCluster(Cluster& sim) : sim_(sim) {}
  int size() const override { return int(sim_.cards.size()); }
  bool present(int card) const override { return card >= 0 && card < size() && sim_.cards[size_t(card)].present; }
  bool rtl() const override { return false; }
  uint64_t mem_bytes(int card) const override { return sim_.cards[size_t(card)].mem.size; }
  void mem(int card, uint64_t addr, void* buf, uint64_t n, bool write) override {
    Memory& m = sim_.cards[size_t(card)].mem;
    if (write) m.write(addr, static_cast<const uint8_t*>(buf), n);
    else m.read(addr, static_cast<uint8_t*>(buf), n);
  }
  afu_result transfer(const TransferReq& r, afu_rdma_handle* h) override {
    if (r.strided)
      *h = r.put ? sim_.put_strided(r.card, r.peer, r.local, r.remote, r.block, r.count, r.local_stride, r.remote_stride)
                 : sim_.get_strided(r.card, r.peer, r.local, r.remote, r.block, r.count, r.local_stride, r.remote_stride);
    else
      *h = r.put ? sim_.put(r.card, r.peer, r.local, r.remote, r.block)
                 : sim_.get(r.card, r.peer, r.local, r.remote, r.block);
    return started(*h);
  }
  afu_result reduce(const ReduceReq& r, afu_rdma_handle* h) override {
    std::vector<int> sorted(r.chain);
    std::sort(sorted.begin(), sorted.end());
    if (sorted.size() < 2 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      throw Error(AFU_ERR_RDMA_BAD_CARD, "a reduction chain needs 2 or more distinct cards");
    try {
      *h = sim_.reduce(r.chain, r.src, r.len, r.f32, r.all, r.dst);
    } catch (const std::exception& e) {
      throw Error(AFU_ERR_BAD_ARG, e.what());
    }
    return started(*h);
  }
  afu_result test(afu_rdma_handle h) override {
    const Op& o = op(h);
    return o.state == OP_PENDING ? afu_result(AFU_ERR_TIMEOUT) : engine_result(o.code);
  }
  afu_result wait(afu_rdma_handle h, uint64_t max_cycles) override {
    op(h);
    sim_.wait(h, max_cycles ? int64_t(max_cycles) : sim_.prm.op_timeout + 1024);
    return test(h);
  }
  void op_cycles(afu_rdma_handle h, uint64_t* issued, uint64_t* done) override {
    const Op& o = op(h);
    *issued = uint64_t(o.issued), *done = o.done < 0 ? 0 : uint64_t(o.done);
  }
  void run(uint64_t cycles) override { sim_.run(int64_t(cycles)); }
  void set_packet_bytes(uint32_t bytes) override {
    if (bytes != 0 && bytes != uint32_t(kPayload))
      throw Error(AFU_ERR_BAD_ARG,
                  "packet size " + std::to_string(bytes) + " B: the network model sends 64-byte packets only");
  }
  uint32_t packet_bytes() const override { return 0; }
  uint64_t cycles() const override { return uint64_t(sim_.now); }
  double clock_mhz() const override { return sim_.prm.clock_mhz; }

 private:
  const Op& op(afu_rdma_handle h) const {
    try {
      return sim_.op(h);
    } catch (const std::exception&) {
      throw Error(AFU_ERR_BAD_REQUEST, "no RDMA operation with handle " + std::to_string(h));
    }
  }
  afu_result started(afu_rdma_handle h) const {
    const Op& o = sim_.op(h);
    return o.state == OP_ERROR ? engine_result(o.code) : FPGA_OK;
  }
  std::unique_ptr<Cluster> own_;  // none where the caller owns the cluster (view_model)
  Cluster& sim_;
};
}  // namespace

std::string ClusterBackend::card_uri(int) { rtl_only("cards to open as ordinary cards"); }
std::string ClusterBackend::dump(afu_rdma_handle) { return ""; }
void ClusterBackend::run_chains(const std::vector<ChainReq>&, const afu_rdma_pipeline_opts*, afu_rdma_pipeline_stats*,
                                uint64_t*) {
  rtl_only("pipelines and cores across cards");
}
uint64_t ClusterBackend::csr(int, uint32_t, uint64_t, bool) { rtl_only("CSRs"); }

std::unique_ptr<ClusterBackend> open_model(const ClusterDesc& d) { return std::make_unique<ModelCluster>(d); }
std::unique_ptr<ClusterBackend> view_model(Cluster& sim) { return std::make_unique<ModelCluster>(sim); }

std::unique_ptr<ClusterBackend> open_cluster(const ClusterDesc& d) {
  return d.rtl() ? open_rtl_cards(d) : open_model(d);
}

}  // namespace rdma
