// The one interface of a simulated cluster behind the RDMA C API (afushell/rdma.h), with
// two implementations: the C++ network model (cluster_model.cpp) and RTL cards, complete
// simulated cards driven through their CSRs (cluster_rtl.cpp over spgsim::RtlCluster).
// Calls report failures by throwing afushell::Error (its afu_result and message);
// operations end with an afu_result.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "afushell/afushell.h"
#include "afushell/rdma.h"
#include "cluster_desc.hpp"

namespace spgsim {
class RtlCluster;
}

namespace rdma {

class Cluster;

/// A put or get: one block of `block` bytes, or (strided) `count` blocks, each side at its stride.
struct TransferReq {
  bool put = true;
  int card = 0, peer = 0;
  uint64_t local = 0, remote = 0, block = 0, count = 1, local_stride = 0, remote_stride = 0;
  bool strided = false;
};

/// A reduction (all: an allreduce) of the `len`-byte vectors at `src` along `chain` into `dst`.
struct ReduceReq {
  std::vector<int> chain;
  uint64_t src = 0, dst = 0, len = 0;
  bool f32 = false, all = false;
};

/// Records streamed through a chain of cards' cores (one card: its cores alone), host to host.
struct ChainReq {
  std::vector<int> chain;
  uint64_t record_bytes = 0, out_record_bytes = 0, records = 0, passes = 1;
  const void* in = nullptr;
  void* out = nullptr;
};

class ClusterBackend {
 public:
  virtual ~ClusterBackend() = default;
  /// Card numbers 0..size()-1; present(): a card of the cluster (not absent).
  virtual int size() const = 0;
  virtual bool present(int card) const = 0;
  virtual bool rtl() const = 0;
  /// Bytes of FPGA memory of each card, and host bytes into (write) or out of it.
  virtual uint64_t mem_bytes(int card) const = 0;
  virtual void mem(int card, uint64_t addr, void* buf, uint64_t n, bool write) = 0;
  /// Starts an operation, its handle in *h: FPGA_OK, or the code of a request refused at once.
  virtual afu_result transfer(const TransferReq& r, afu_rdma_handle* h) = 0;
  virtual afu_result reduce(const ReduceReq& r, afu_rdma_handle* h) = 0;
  /// The operation's result without simulating: AFU_ERR_TIMEOUT while it is in flight.
  virtual afu_result test(afu_rdma_handle h) = 0;
  /// Simulates until the operation ends or max_cycles (0: the operation's own timeout) pass.
  virtual afu_result wait(afu_rdma_handle h, uint64_t max_cycles) = 0;
  /// The cluster cycles at which the operation was issued and ended (ended: 0 while in flight).
  virtual void op_cycles(afu_rdma_handle h, uint64_t* issued, uint64_t* done) = 0;
  virtual void run(uint64_t cycles) = 0;
  virtual void set_packet_bytes(uint32_t bytes) = 0;
  virtual uint32_t packet_bytes() const = 0;
  virtual uint64_t cycles() const = 0;
  virtual double clock_mhz() const = 0;

  // RTL cards only; the model refuses them (FPGA_NOT_SUPPORTED, saying why).
  /// The URI under which afuShellOpen opens card `card` as an ordinary card.
  virtual std::string card_uri(int card);
  /// Every card's engine and link state, naming where operation h is stuck.
  virtual std::string dump(afu_rdma_handle h);
  /// Every chain at once on one clock; stats: per card of every chain in turn (may be NULL).
  virtual void run_chains(const std::vector<ChainReq>& chains, const afu_rdma_pipeline_opts* opts,
                          afu_rdma_pipeline_stats* stats, uint64_t* cycles);
  /// A 64-bit CSR of a card through MMIO: write `value`, or read it.
  virtual uint64_t csr(int card, uint32_t offset, uint64_t value, bool write);

  /// The state dump taken when an operation last ended in AFU_ERR_RDMA_TIMEOUT.
  std::string last_dump;
};

/// The back end a description names: RTL cards when it names builds, else the model.
std::unique_ptr<ClusterBackend> open_cluster(const ClusterDesc& d);
std::unique_ptr<ClusterBackend> open_model(const ClusterDesc& d);
std::unique_ptr<ClusterBackend> open_rtl_cards(const ClusterDesc& d);
/// The interface over a cluster its caller owns and keeps open for longer (the model or RTL
/// cards of spgen.runtime.rdma.Cluster, for the C++ sort driven from Python).
std::unique_ptr<ClusterBackend> view_model(Cluster& sim);
std::unique_ptr<ClusterBackend> view_rtl_cards(spgsim::RtlCluster& cl);
/// A C API handle over back end b (afuShellRDMAClusterClose frees it, and b with it).
afu_rdma_cluster wrap_cluster(std::unique_ptr<ClusterBackend> b);

/// The afu_result of an engine's status code (RDMA_STATUS.CODE, rdma::ErrCode; 0: FPGA_OK).
inline afu_result engine_result(int code) { return code ? afu_result(AFU_ERR_RDMA_BASE + code) : FPGA_OK; }

}  // namespace rdma
