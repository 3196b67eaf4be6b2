// RTL cards (spgsim::RtlCluster: simulated card libraries built with `spgen build --links N`,
// driven through their CSRs) behind the cluster interface.
#include <cstdlib>
#include <deque>

#include "cluster.hpp"
#include "cluster_backend.hpp"
#include "cluster_pipeline.hpp"
#include "cluster_reduce.hpp"
#include "rdma_sim.hpp"
#include "result.hpp"

namespace rdma {

using afushell::Error;

namespace {
// handles of reductions carry this bit (those of the engines' operations do not)
constexpr uint64_t kReduction = 1ull << 63;

spgsim::Params card_params() {
  spgsim::Params p;
  if (const char* env = std::getenv("SPGEN_SIM_PARAMS")) {
    const std::string e = p.apply(env);
    if (!e.empty()) throw Error(AFU_ERR_BAD_ARG, "SPGEN_SIM_PARAMS: " + e);
  }
  return p;
}

class RtlCards final : public ClusterBackend {
 public:
  explicit RtlCards(const ClusterDesc& d)
      : own_(std::make_unique<spgsim::RtlCluster>(d, card_params())), cl_(*own_) {}
  explicit RtlCards(spgsim::RtlCluster& cl) : cl_(cl) {}
  int size() const override { return cl_.size(); }
  bool present(int card) const override { return cl_.present(card); }
  bool rtl() const override { return true; }
  uint64_t mem_bytes(int) const override { return cl_.mem_bytes(); }
  void mem(int card, uint64_t addr, void* buf, uint64_t n, bool write) override {
    if (!cl_.mem(card, addr, buf, n, write))
      throw Error(AFU_ERR_OUT_OF_RANGE, "card " + std::to_string(card) + ": memory refused the access");
  }
  // the request goes to the card's driver, which programs the engine's CSRs
  afu_result transfer(const TransferReq& r, afu_rdma_handle* h) override {
    spgsim::RtlCluster::Op op;
    op.card = r.card, op.peer = r.peer, op.get = !r.put, op.local = r.local, op.remote = r.remote;
    op.len = r.block * r.count;
    if (r.strided) {
      op.block = r.block, op.count = r.count, op.lstride = r.local_stride, op.rstride = r.remote_stride;
      if (!r.block || !r.count) op.block = op.count = 0, op.len = 0;  // the engine answers ALIGN
    }
    *h = cl_.issue(op);
    const int code = cl_.op(*h).code;
    return code == spgsim::RTL_PENDING ? FPGA_OK : engine_result(code);
  }
  afu_result reduce(const ReduceReq& r, afu_rdma_handle* h) override {
    spgsim::ReduceSpec s;
    s.chain = r.chain, s.src = r.src, s.dst = r.dst, s.len = r.len, s.f32 = r.f32, s.all = r.all;
    try {
      reductions_.push_back(spgsim::start_reduce(cl_, s));
    } catch (const std::exception& e) {
      throw Error(AFU_ERR_BAD_ARG, e.what());
    }
    *h = kReduction | (reductions_.size() - 1);
    const spgsim::Reduction& red = reductions_.back();
    return red.code == spgsim::RTL_PENDING ? FPGA_OK : result(red);
  }
  afu_result test(afu_rdma_handle h) override {
    if (h & kReduction) {
      spgsim::Reduction& r = reduction(h);
      return spgsim::poll_reduce(cl_, r) == spgsim::RTL_PENDING ? afu_result(AFU_ERR_TIMEOUT) : result(r);
    }
    const int code = op(h).code;
    return code == spgsim::RTL_PENDING ? afu_result(AFU_ERR_TIMEOUT) : engine_result(code);
  }
  afu_result wait(afu_rdma_handle h, uint64_t max_cycles) override {
    afu_result r = test(h);
    if (r != AFU_ERR_TIMEOUT) return r;
    if (h & kReduction) {
      spgsim::Reduction& red = reduction(h);
      return spgsim::wait_reduce(cl_, red, max_cycles) == spgsim::RTL_PENDING ? afu_result(AFU_ERR_TIMEOUT) : result(red);
    }
    // the engine fails an operation after its own timeout; the host gives it that long plus
    // the MMIO round trips of its driver
    cl_.wait(h, max_cycles ? max_cycles : cl_.op_timeout_cycles() + 100000);
    r = test(h);
    if (r == AFU_ERR_TIMEOUT || r == AFU_ERR_RDMA_TIMEOUT) last_dump = cl_.dump(h);
    return r;
  }
  void op_cycles(afu_rdma_handle h, uint64_t* issued, uint64_t* done) override {
    if (h & kReduction) {
      const spgsim::Reduction& r = reduction(h);
      *issued = r.issued, *done = r.code == spgsim::RTL_PENDING ? 0 : r.done;
      return;
    }
    const spgsim::RtlCluster::Op o = op(h);
    *issued = o.issued, *done = o.code == spgsim::RTL_PENDING ? 0 : o.done;
  }
  void run(uint64_t cycles) override { cl_.run(cycles); }
  void set_packet_bytes(uint32_t bytes) override {
    try {
      cl_.set_packet_bytes(bytes);
    } catch (const std::exception& e) {
      throw Error(AFU_ERR_BAD_ARG, e.what());
    }
  }
  uint32_t packet_bytes() const override { return cl_.packet_bytes(); }
  uint64_t cycles() const override { return cl_.now(); }
  double clock_mhz() const override { return cl_.clock_mhz(); }
  std::string card_uri(int card) override { return "sim:" + cl_.card_name(card); }
  std::string dump(afu_rdma_handle h) override { return cl_.dump(h); }
  void run_chains(const std::vector<ChainReq>& chains, const afu_rdma_pipeline_opts* opts,
                  afu_rdma_pipeline_stats* stats, uint64_t* cycles) override {
    std::vector<spgsim::PipelineSpec> specs(chains.size());
    std::vector<const void*> in;
    std::vector<void*> out;
    for (size_t i = 0; i < chains.size(); ++i) {
      spgsim::PipelineSpec& s = specs[i];
      s.chain = chains[i].chain, s.record_bytes = chains[i].record_bytes;
      s.out_record_bytes = chains[i].out_record_bytes, s.records = chains[i].records, s.passes = chains[i].passes;
      if (opts) s.max_chunk = opts->max_chunk, s.max_gap = opts->max_gap, s.seed = opts->seed, s.max_cycles = opts->max_cycles;
      in.push_back(chains[i].in), out.push_back(chains[i].out);
    }
    spgsim::PipelineResult r;
    try {
      r = spgsim::run_pipelines(cl_, specs, in, out);
    } catch (const std::exception& e) {
      throw Error(AFU_ERR_BAD_ARG, e.what());
    }
    if (r.code == spgsim::RTL_TIMEOUT) {
      last_dump = r.error;
      throw Error(AFU_ERR_RDMA_TIMEOUT, "a pass did not end in time (afuShellRDMALastDump: every card's stream and link state)");
    }
    if (r.code) throw Error(r.code == spgsim::RTL_BAD_CARD ? AFU_ERR_RDMA_BAD_CARD : AFU_ERR_BAD_ARG, r.error);
    for (size_t k = 0; stats && k < r.cards.size(); ++k) {
      const auto& x = r.cards[k];
      stats[k] = afu_rdma_pipeline_stats{x.in_total, x.in_moved, x.out_total, x.out_moved,
                                         x.tx_words, x.rx_words, x.tx_stalls, x.link_words, x.in_first};
    }
    if (cycles) *cycles = r.cycles;
  }
  uint64_t csr(int card, uint32_t offset, uint64_t value, bool write) override {
    if (!cl_.present(card)) throw Error(AFU_ERR_RDMA_BAD_CARD, "card " + std::to_string(card) + " is not in the cluster");
    if (!write) return cl_.csr_read(card, offset);
    cl_.card(card)->mmio_write(offset, value);
    return value;
  }

 private:
  spgsim::RtlCluster::Op op(afu_rdma_handle h) {
    try {
      return cl_.op(h);
    } catch (const std::exception&) {
      throw Error(AFU_ERR_BAD_REQUEST, "no RDMA operation with handle " + std::to_string(h));
    }
  }
  spgsim::Reduction& reduction(afu_rdma_handle h) {
    if ((h & ~kReduction) >= reductions_.size())
      throw Error(AFU_ERR_BAD_REQUEST, "no reduction with handle " + std::to_string(h));
    return reductions_[size_t(h & ~kReduction)];
  }
  // a finished reduction's result; its message (or dump) where the code alone says too little
  afu_result result(const spgsim::Reduction& r) {
    if (r.code == spgsim::RTL_TIMEOUT) last_dump = r.error;
    if (r.code < 0) throw Error(AFU_ERR_BAD_ARG, r.error);
    return engine_result(r.code);
  }

  std::unique_ptr<spgsim::RtlCluster> own_;  // none where the caller owns the cluster (view_rtl_cards)
  spgsim::RtlCluster& cl_;
  std::deque<spgsim::Reduction> reductions_;  // a deque: references stay valid as it grows
};
}  // namespace

std::unique_ptr<ClusterBackend> open_rtl_cards(const ClusterDesc& d) { return std::make_unique<RtlCards>(d); }
std::unique_ptr<ClusterBackend> view_rtl_cards(spgsim::RtlCluster& cl) { return std::make_unique<RtlCards>(cl); }

}  // namespace rdma
