// The C API of RDMA between cards (include/afushell/rdma.h), over either backend of a
// cluster: the C++ network model, or RTL cards (simulated card libraries built with
// `spgen build --links N`, a "cardlib" line in the description) driven through their CSRs.
#include "afushell/rdma.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>
#include <memory>
#include <string>
#include <vector>

#include <fstream>
#include <sstream>

#include "cluster_file.hpp"
#include "rdma_sim.hpp"
#ifdef AFUSHELL_RDMA_RTL
#include "afushell/afushell.h"
#include "cluster.hpp"
#include "cluster_pipeline.hpp"
#include "cluster_reduce.hpp"
#endif

struct afu_rdma_cluster_s {
  std::unique_ptr<rdma::Cluster> sim;
#ifdef AFUSHELL_RDMA_RTL
  std::unique_ptr<spgsim::RtlCluster> rtl;
  std::deque<spgsim::Reduction> reductions;  // handles kReduction | index
#endif
  std::string dump;
  int size() const {
#ifdef AFUSHELL_RDMA_RTL
    if (rtl) return rtl->size();
#endif
    return int(sim->cards.size());
  }
  bool present(int card) const {
    if (card < 0 || card >= size()) return false;
#ifdef AFUSHELL_RDMA_RTL
    if (rtl) return rtl->present(card);
#endif
    return sim->cards[size_t(card)].present;
  }
};

static thread_local std::string g_last_error;
// RTL cards: handles of reductions carry this bit (engine operations' handles do not)
static constexpr uint64_t kReduction = 1ull << 63;

static bool is_rtl(afu_rdma_cluster c) {
#ifdef AFUSHELL_RDMA_RTL
  return c && c->rtl;
#else
  (void)c;
  return false;
#endif
}

extern "C" {

int afuShellRDMAClusterOpen(const char* description, afu_rdma_cluster* out) {
  if (!description || !out) return AFU_RDMA_BAD_ARG;
  *out = nullptr;
  try {
    auto c = std::make_unique<afu_rdma_cluster_s>();
    if (std::strstr(description, "cardlib ") || std::strstr(description, "\nbuild ")) {  // RTL cards
#ifdef AFUSHELL_RDMA_RTL
      spgsim::Params p;
      if (const char* env = std::getenv("SPGEN_SIM_PARAMS")) {
        std::string e = p.apply(env);
        if (!e.empty()) throw std::runtime_error("SPGEN_SIM_PARAMS: " + e);
      }
      c->rtl = std::make_unique<spgsim::RtlCluster>(spgsim::ClusterDesc::parse(description), p);
#else
      throw std::runtime_error("a cluster of RTL cards needs the runtime library (libafushell), not the model module");
#endif
    } else {
      c->sim = std::make_unique<rdma::Cluster>(description);
    }
    *out = c.release();
    return AFU_RDMA_OK;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return AFU_RDMA_BAD_ARG;
  }
}

int afuShellRDMAClusterOpenFile(const char* path, afu_rdma_cluster* out) {
  if (!path || !out) return AFU_RDMA_BAD_ARG;
  *out = nullptr;
  std::ifstream in(path);
  if (!in) {
    g_last_error = std::string("cannot read cluster file ") + path;
    return AFU_RDMA_BAD_ARG;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string p(path), desc;
  const size_t slash = p.rfind('/');
  try {
    desc = rdma::resolve_cluster_file(text.str(), slash == std::string::npos ? "." : p.substr(0, slash));
  } catch (const std::exception& e) {
    g_last_error = std::string(path) + ": " + e.what();
    return AFU_RDMA_BAD_ARG;
  }
  return afuShellRDMAClusterOpen(desc.c_str(), out);
}

void afuShellRDMAClusterClose(afu_rdma_cluster c) { delete c; }

int afuShellRDMAClusterCards(afu_rdma_cluster c) { return c ? c->size() : 0; }
int afuShellRDMAClusterIsRTL(afu_rdma_cluster c) { return is_rtl(c) ? 1 : 0; }

int afuShellRDMAClusterCardOpen(afu_rdma_cluster c, int card, struct afu_shell_s** handle) {
  if (!c || !handle) return AFU_RDMA_BAD_ARG;
  *handle = nullptr;
  if (!c->present(card)) return AFU_RDMA_BAD_CARD;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    const std::string uri = "sim:" + c->rtl->card_name(card);
    afu_result r = afuShellOpen(uri.c_str(), handle);
    if (r == FPGA_OK) return AFU_RDMA_OK;
    g_last_error = "opening card " + std::to_string(card) + " of the cluster: " + afuShellLastError();
    return AFU_RDMA_BAD_ARG;
  }
#endif
  g_last_error = "the network model has no cards to open: a cluster file naming a \"card\" (spgen build --links N) "
                 "gives RTL cards";
  return AFU_RDMA_BAD_ARG;
}

static bool mem_ok(afu_rdma_cluster c, int card, uint64_t addr, uint64_t n) {
  if (!c || !c->present(card)) return false;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) return addr <= c->rtl->mem_bytes() && n <= c->rtl->mem_bytes() - addr;
#endif
  const uint64_t size = c->sim->cards[size_t(card)].mem.size;
  return addr <= size && n <= size - addr;
}

int afuShellRDMAWriteMem(afu_rdma_cluster c, int card, uint64_t addr, const void* src, uint64_t n) {
  if (!src || !mem_ok(c, card, addr, n)) return AFU_RDMA_BAD_ARG;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) return c->rtl->mem(card, addr, const_cast<void*>(src), n, true) ? AFU_RDMA_OK : AFU_RDMA_BAD_ARG;
#endif
  c->sim->cards[size_t(card)].mem.write(addr, static_cast<const uint8_t*>(src), n);
  return AFU_RDMA_OK;
}

int afuShellRDMAReadMem(afu_rdma_cluster c, int card, uint64_t addr, void* dst, uint64_t n) {
  if (!dst || !mem_ok(c, card, addr, n)) return AFU_RDMA_BAD_ARG;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) return c->rtl->mem(card, addr, dst, n, false) ? AFU_RDMA_OK : AFU_RDMA_BAD_ARG;
#endif
  c->sim->cards[size_t(card)].mem.read(addr, static_cast<uint8_t*>(dst), n);
  return AFU_RDMA_OK;
}

#ifdef AFUSHELL_RDMA_RTL
// RTL cards: the request goes to the card's driver, which programs the engine's CSRs.
static int rtl_issue(afu_rdma_cluster c, const spgsim::RtlCluster::Op& op, afu_rdma_handle* h) {
  *h = c->rtl->issue(op);
  const int code = c->rtl->op(*h).code;
  return code == spgsim::RTL_PENDING ? AFU_RDMA_OK : code;
}
#endif

// One request of the asynchronous entry points; a plain transfer is one block of n bytes.
struct Request {
  bool put;
  int card, peer;
  uint64_t local, remote, block, count = 1, local_stride = 0, remote_stride = 0;
  bool strided = false;
};

static int issue(afu_rdma_cluster c, const Request& r, afu_rdma_handle* h) {
  if (!c || !h) return AFU_RDMA_BAD_ARG;
  if (!c->present(r.card)) return AFU_RDMA_BAD_CARD;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    spgsim::RtlCluster::Op op;
    op.card = r.card, op.peer = r.peer, op.get = !r.put, op.local = r.local, op.remote = r.remote;
    op.len = r.block * r.count;
    if (r.strided) {
      op.block = r.block, op.count = r.count, op.lstride = r.local_stride, op.rstride = r.remote_stride;
      if (!r.block || !r.count) op.block = op.count = 0, op.len = 0;  // the engine answers ALIGN
    }
    return rtl_issue(c, op, h);
  }
#endif
  if (r.strided)
    *h = r.put ? c->sim->put_strided(r.card, r.peer, r.local, r.remote, r.block, r.count, r.local_stride,
                                     r.remote_stride)
               : c->sim->get_strided(r.card, r.peer, r.local, r.remote, r.block, r.count, r.local_stride,
                                     r.remote_stride);
  else
    *h = r.put ? c->sim->put(r.card, r.peer, r.local, r.remote, r.block)
               : c->sim->get(r.card, r.peer, r.local, r.remote, r.block);
  const rdma::Op& op = c->sim->op(*h);
  return op.state == rdma::OP_ERROR ? op.code : AFU_RDMA_OK;
}

int afuShellRDMAPutAsync(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote, uint64_t n,
                         afu_rdma_handle* h) {
  return issue(c, {true, card, dst, local, remote, n}, h);
}

int afuShellRDMAGetAsync(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote, uint64_t n,
                         afu_rdma_handle* h) {
  return issue(c, {false, card, src, local, remote, n}, h);
}

int afuShellRDMAPutStridedAsync(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote,
                                uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                afu_rdma_handle* h) {
  return issue(c, {true, card, dst, local, remote, block, count, local_stride, remote_stride, true}, h);
}

int afuShellRDMAGetStridedAsync(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote,
                                uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                afu_rdma_handle* h) {
  return issue(c, {false, card, src, local, remote, block, count, local_stride, remote_stride, true}, h);
}

#ifdef AFUSHELL_RDMA_RTL
static spgsim::Reduction* reduction(afu_rdma_cluster c, afu_rdma_handle h) {
  if (!(h & kReduction) || (h & ~kReduction) >= c->reductions.size()) return nullptr;
  return &c->reductions[size_t(h & ~kReduction)];
}

// A reduction's result code; its message (or dump) where the code alone says too little.
static int reduction_result(afu_rdma_cluster c, const spgsim::Reduction& r) {
  if (r.code == spgsim::RTL_TIMEOUT) c->dump = r.error;
  if (r.code < 0) {
    g_last_error = r.error;
    return AFU_RDMA_BAD_ARG;
  }
  return r.code;
}
#endif

// A reduction (all: an allreduce) on RTL cards or the model.
static int reduce_async(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                        int dtype, bool all, afu_rdma_handle* h) {
  g_last_error.clear();
  if (!c || !chain || !h || cards < 0) return AFU_RDMA_BAD_ARG;
  if (dtype != AFU_RDMA_U32 && dtype != AFU_RDMA_F32) {
    g_last_error = "dtype must be AFU_RDMA_U32 or AFU_RDMA_F32";
    return AFU_RDMA_BAD_ARG;
  }
  std::vector<int> ch(chain, chain + cards);
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    spgsim::ReduceSpec s;
    s.chain = ch, s.src = src, s.dst = dst, s.len = n, s.f32 = dtype == AFU_RDMA_F32, s.all = all;
    try {
      c->reductions.push_back(spgsim::start_reduce(*c->rtl, s));
    } catch (const std::exception& e) {
      g_last_error = e.what();
      return AFU_RDMA_BAD_ARG;
    }
    *h = kReduction | (c->reductions.size() - 1);
    const spgsim::Reduction& r = c->reductions.back();
    return r.code == spgsim::RTL_PENDING ? AFU_RDMA_OK : reduction_result(c, r);
  }
#endif
  if (cards < 2) return AFU_RDMA_BAD_CARD;
  for (size_t i = 0; i < ch.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (ch[i] == ch[j]) return AFU_RDMA_BAD_CARD;
  try {
    *h = c->sim->reduce(ch, src, n, dtype == AFU_RDMA_F32, all, dst);
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return AFU_RDMA_BAD_ARG;
  }
  const rdma::Op& op = c->sim->op(*h);
  return op.state == rdma::OP_ERROR ? op.code : AFU_RDMA_OK;
}

int afuShellRDMAReduceAsync(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                            int dtype, afu_rdma_handle* h) {
  return reduce_async(c, chain, cards, src, dst, n, dtype, false, h);
}

int afuShellRDMAAllreduceAsync(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst,
                               uint64_t n, int dtype, afu_rdma_handle* h) {
  return reduce_async(c, chain, cards, src, dst, n, dtype, true, h);
}

int afuShellRDMAReduce(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                       int dtype) {
  afu_rdma_handle h;
  int r = afuShellRDMAReduceAsync(c, chain, cards, src, dst, n, dtype, &h);
  return r ? r : afuShellRDMAWait(c, h, 0);
}

int afuShellRDMAAllreduce(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                          int dtype) {
  afu_rdma_handle h;
  int r = afuShellRDMAAllreduceAsync(c, chain, cards, src, dst, n, dtype, &h);
  return r ? r : afuShellRDMAWait(c, h, 0);
}

int afuShellRDMATest(afu_rdma_cluster c, afu_rdma_handle h) {
  if (!c) return AFU_RDMA_BAD_ARG;
  try {
#ifdef AFUSHELL_RDMA_RTL
    if (c->rtl && (h & kReduction)) {
      spgsim::Reduction* r = reduction(c, h);
      if (!r) return AFU_RDMA_BAD_ARG;
      const int code = spgsim::poll_reduce(*c->rtl, *r);
      return code == spgsim::RTL_PENDING ? AFU_RDMA_PENDING : reduction_result(c, *r);
    }
    if (c->rtl) return c->rtl->op(h).code;
#endif
    const rdma::Op& op = c->sim->op(h);
    return op.state == rdma::OP_PENDING ? AFU_RDMA_PENDING : op.code;
  } catch (const std::exception&) {
    return AFU_RDMA_BAD_ARG;
  }
}

int afuShellRDMAWait(afu_rdma_cluster c, afu_rdma_handle h, uint64_t max_cycles) {
  int r = afuShellRDMATest(c, h);
  if (r != AFU_RDMA_PENDING) return r;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl && (h & kReduction)) {
    spgsim::Reduction* red = reduction(c, h);
    const int code = spgsim::wait_reduce(*c->rtl, *red, max_cycles);
    return code == spgsim::RTL_PENDING ? AFU_RDMA_PENDING : reduction_result(c, *red);
  }
  if (c->rtl) {
    // the engine fails an operation after its own timeout; the host gives it that long
    // plus the MMIO round trips of its driver
    c->rtl->wait(h, max_cycles ? max_cycles : c->rtl->op_timeout_cycles() + 100000);
    r = afuShellRDMATest(c, h);
    if (r != AFU_RDMA_OK && r != AFU_RDMA_NO_ROUTE && r != AFU_RDMA_ALIGN && r != AFU_RDMA_LOCAL_RANGE &&
        r != AFU_RDMA_REMOTE_RANGE)
      c->dump = c->rtl->dump(h);
    return r;
  }
#endif
  c->sim->wait(h, max_cycles ? int64_t(max_cycles) : c->sim->prm.op_timeout + 1024);
  return afuShellRDMATest(c, h);
}

const char* afuShellRDMALastDump(afu_rdma_cluster c) { return c ? c->dump.c_str() : ""; }

const char* afuShellRDMAClusterDump(afu_rdma_cluster c, afu_rdma_handle h) {
  if (!c) return "";
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) c->dump = c->rtl->dump(h);
#else
  (void)h;
#endif
  return c->dump.c_str();
}

int afuShellRDMARun(afu_rdma_cluster c, uint64_t cycles) {
  if (!c) return AFU_RDMA_BAD_ARG;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    c->rtl->run(cycles);
    return AFU_RDMA_OK;
  }
#endif
  c->sim->run(int64_t(cycles));
  return AFU_RDMA_OK;
}

int afuShellRDMASetPacketBytes(afu_rdma_cluster c, uint32_t bytes) {
  if (!c) return AFU_RDMA_BAD_ARG;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    try {
      c->rtl->set_packet_bytes(bytes);
    } catch (const std::exception& e) {
      g_last_error = e.what();
      return AFU_RDMA_BAD_ARG;
    }
    return AFU_RDMA_OK;
  }
#endif
  if (bytes != 0 && bytes != uint32_t(rdma::kPayload)) {
    g_last_error = "packet size " + std::to_string(bytes) + " B: the network model sends 64-byte packets only";
    return AFU_RDMA_BAD_ARG;
  }
  return AFU_RDMA_OK;
}

int afuShellRDMAPut(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote, uint64_t n) {
  afu_rdma_handle h;
  int r = afuShellRDMAPutAsync(c, card, dst, local, remote, n, &h);
  return r ? r : afuShellRDMAWait(c, h, 0);
}

int afuShellRDMAGet(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote, uint64_t n) {
  afu_rdma_handle h;
  int r = afuShellRDMAGetAsync(c, card, src, local, remote, n, &h);
  return r ? r : afuShellRDMAWait(c, h, 0);
}

uint64_t afuShellRDMACycles(afu_rdma_cluster c) {
  if (!c) return 0;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) return c->rtl->now();
#endif
  return uint64_t(c->sim->now);
}

double afuShellRDMAClockMHz(afu_rdma_cluster c) {
  if (!c) return 0.0;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) return c->rtl->clock_mhz();
#endif
  return c->sim->prm.clock_mhz;
}

#ifdef AFUSHELL_RDMA_RTL
namespace {
// run_pipelines with the C API's options, codes and figures
int run_chains(afu_rdma_cluster c, std::vector<spgsim::PipelineSpec>& specs, const std::vector<const void*>& in,
               const std::vector<void*>& out, const afu_rdma_pipeline_opts* opts, afu_rdma_pipeline_stats* stats,
               uint64_t* cycles) {
  for (auto& s : specs)
    if (opts) s.max_chunk = opts->max_chunk, s.max_gap = opts->max_gap, s.seed = opts->seed, s.max_cycles = opts->max_cycles;
  spgsim::PipelineResult r;
  try {
    r = spgsim::run_pipelines(*c->rtl, specs, in, out);
  } catch (const std::exception& e) {
    g_last_error = e.what();
    return AFU_RDMA_BAD_ARG;
  }
  if (r.code == spgsim::RTL_TIMEOUT) {
    c->dump = r.error;
    return AFU_RDMA_TIMEOUT;
  }
  g_last_error = r.error;
  if (r.code == spgsim::RTL_BAD_CARD) return AFU_RDMA_BAD_CARD;
  if (r.code) return AFU_RDMA_BAD_ARG;
  for (size_t k = 0; stats && k < r.cards.size(); ++k) {
    const auto& x = r.cards[k];
    stats[k] = afu_rdma_pipeline_stats{x.in_total, x.in_moved, x.out_total, x.out_moved,
                                       x.tx_words, x.rx_words, x.tx_stalls, x.link_words};
  }
  if (cycles) *cycles = r.cycles;
  return AFU_RDMA_OK;
}
}  // namespace
#endif

int afuShellRDMAPipeline(afu_rdma_cluster c, const int* chain, int cards, const void* in, void* out,
                         uint64_t record_bytes, uint64_t records, uint64_t passes,
                         const afu_rdma_pipeline_opts* opts, afu_rdma_pipeline_stats* stats, uint64_t* cycles) {
  g_last_error.clear();
  if (!c || !chain || cards < 0 || !in || !out) return AFU_RDMA_BAD_ARG;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    std::vector<spgsim::PipelineSpec> s(1);
    s[0].chain.assign(chain, chain + cards);
    s[0].record_bytes = record_bytes, s[0].records = records, s[0].passes = passes;
    return run_chains(c, s, {in}, {out}, opts, stats, cycles);
  }
#else
  (void)chain, (void)cards, (void)in, (void)out, (void)record_bytes, (void)records, (void)passes, (void)opts;
  (void)stats, (void)cycles;
#endif
  g_last_error = "a pipeline across cards needs RTL cards (a cluster file with \"card\")";
  return AFU_RDMA_BAD_ARG;
}

int afuShellRDMARunCores(afu_rdma_cluster c, int n, const int* cards, const void* const* in,
                         const uint64_t* in_record_bytes, void* const* out, const uint64_t* out_record_bytes,
                         const uint64_t* records, const afu_rdma_pipeline_opts* opts,
                         afu_rdma_pipeline_stats* stats, uint64_t* cycles) {
  g_last_error.clear();
  if (!c || n < 1 || !cards || !in || !in_record_bytes || !out || !out_record_bytes || !records) return AFU_RDMA_BAD_ARG;
#ifdef AFUSHELL_RDMA_RTL
  if (c->rtl) {
    std::vector<spgsim::PipelineSpec> s(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      s[size_t(i)].chain = {cards[i]};
      s[size_t(i)].record_bytes = in_record_bytes[i], s[size_t(i)].out_record_bytes = out_record_bytes[i];
      s[size_t(i)].records = records[i];
    }
    return run_chains(c, s, std::vector<const void*>(in, in + n), std::vector<void*>(out, out + n), opts, stats,
                      cycles);
  }
#else
  (void)cards, (void)in, (void)in_record_bytes, (void)out, (void)out_record_bytes, (void)records, (void)opts;
  (void)stats, (void)cycles;
#endif
  g_last_error = "running cores needs RTL cards (a cluster file with \"card\" or \"builds\")";
  return AFU_RDMA_BAD_ARG;
}

// The card's CSRs through MMIO: RTL cards only. write: a posted write; else a read that
// simulates until its answer arrives.
static int card_csr(afu_rdma_cluster c, int card, uint32_t offset, uint64_t* value, bool write) {
#ifdef AFUSHELL_RDMA_RTL
  if (c && c->rtl && value) {
    if (!c->rtl->present(card)) return AFU_RDMA_BAD_CARD;
    if (write) c->rtl->card(card)->mmio_write(offset, *value);
    else *value = c->rtl->csr_read(card, offset);
    return AFU_RDMA_OK;
  }
#else
  (void)card, (void)offset, (void)value, (void)write;
#endif
  g_last_error = c ? "CSRs exist on RTL cards only" : "no cluster";
  return AFU_RDMA_BAD_ARG;
}

int afuShellRDMACardWriteCSR(afu_rdma_cluster c, int card, uint32_t offset, uint64_t value) {
  return card_csr(c, card, offset, &value, true);
}

int afuShellRDMACardReadCSR(afu_rdma_cluster c, int card, uint32_t offset, uint64_t* value) {
  return card_csr(c, card, offset, value, false);
}

const char* afuShellRDMAErrorString(int code) {
  if (code == AFU_RDMA_PENDING) return "still in flight";
  if (code == AFU_RDMA_BAD_ARG) return g_last_error.empty() ? "bad argument" : g_last_error.c_str();
  return rdma::err_text(code);
}

}  // extern "C"
