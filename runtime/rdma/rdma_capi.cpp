// The C API of RDMA between cards (include/afushell/rdma.h) over the cluster interface
// (cluster_backend.hpp): the network model or RTL cards, whichever the description names.
// Every call returns an afu_result and sets the calling thread's message (afuShellLastError)
// when it fails, as the calls of afushell.h do.
#include "afushell/rdma.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_backend.hpp"
#include "cluster_file.hpp"
#include "rdma_sim.hpp"
#include "result.hpp"

using afushell::Error;
using afushell::fail;
using afushell::guarded;

struct afu_rdma_cluster_s {
  std::unique_ptr<rdma::ClusterBackend> b;
  std::string dump;  // the text afuShellRDMAClusterDump returned last
};

namespace {

// The message of an operation's result: an engine's status code says what it means.
afu_result said(afu_result r) {
  if (r == AFU_ERR_TIMEOUT) return fail(r, "the RDMA operation is still in flight");
  if (r > AFU_ERR_RDMA_BASE && r <= AFU_ERR_RDMA_BAD_CARD) {
    std::string msg = std::string("RDMA: ") + rdma::err_text(r - AFU_ERR_RDMA_BASE);
    if (r == AFU_ERR_RDMA_TIMEOUT) msg += " (afuShellRDMALastDump says where its traffic stood)";
    return fail(r, msg);
  }
  return r == FPGA_OK ? fail(r, "") : r;
}

// A call on cluster c: f(back end) returns its afu_result or throws afushell::Error.
template <class F>
afu_result call(afu_rdma_cluster c, F&& f) {
  return guarded([&]() -> afu_result {
    if (!c) throw Error(AFU_ERR_NULL_POINTER, "the cluster is NULL");
    return said(f(*c->b));
  });
}

void need(bool ok, afu_result code, const std::string& what) {
  if (!ok) throw Error(code, what);
}

void card_of(const rdma::ClusterBackend& b, int card) {
  need(b.present(card), AFU_ERR_RDMA_BAD_CARD,
       "card " + std::to_string(card) + " is not a card of this cluster of " + std::to_string(b.size()) +
           " (or is absent)");
}

afu_result start(afu_rdma_cluster c, const rdma::TransferReq& r, afu_rdma_handle* h) {
  return call(c, [&](rdma::ClusterBackend& b) {
    need(h != nullptr, AFU_ERR_NULL_POINTER, "handle is NULL");
    card_of(b, r.card);
    return b.transfer(r, h);
  });
}

afu_result reduce_async(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                        int dtype, bool all, afu_rdma_handle* h) {
  return call(c, [&](rdma::ClusterBackend& b) {
    need(chain && h, AFU_ERR_NULL_POINTER, "chain and handle must not be NULL");
    need(cards >= 0, AFU_ERR_BAD_ARG, "a chain of " + std::to_string(cards) + " cards");
    need(dtype == AFU_REDUCE_U32 || dtype == AFU_REDUCE_F32, AFU_ERR_BAD_ARG,
         "dtype must be AFU_REDUCE_U32 or AFU_REDUCE_F32, not " + std::to_string(dtype));
    return b.reduce({std::vector<int>(chain, chain + cards), src, dst, n, dtype == AFU_REDUCE_F32, all}, h);
  });
}

// an asynchronous call, then the wait for it
template <class F>
afu_result blocking(afu_rdma_cluster c, F&& start_it) {
  afu_rdma_handle h;
  const afu_result r = start_it(&h);
  return r != FPGA_OK ? r : afuShellRDMAWait(c, h, 0);
}

afu_result chains(afu_rdma_cluster c, const std::vector<rdma::ChainReq>& reqs, const afu_rdma_pipeline_opts* opts,
                  afu_rdma_pipeline_stats* stats, uint64_t* cycles) {
  return call(c, [&](rdma::ClusterBackend& b) {
    b.run_chains(reqs, opts, stats, cycles);
    return afu_result(FPGA_OK);
  });
}

}  // namespace

namespace rdma {
afu_rdma_cluster wrap_cluster(std::unique_ptr<ClusterBackend> b) {
  auto c = new afu_rdma_cluster_s();
  c->b = std::move(b);
  return c;
}
}  // namespace rdma

extern "C" {

afu_result afuShellRDMAClusterOpen(const char* description, afu_rdma_cluster* out) {
  return guarded([&] {
    if (!description || !out) throw Error(AFU_ERR_NULL_POINTER, "description and out must not be NULL");
    *out = nullptr;
    auto c = std::make_unique<afu_rdma_cluster_s>();
    try {
      c->b = rdma::open_cluster(rdma::ClusterDesc::parse(description));
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {  // the description, or the cards it names
      throw Error(AFU_ERR_BAD_ARG, e.what());
    }
    *out = c.release();
  });
}

afu_result afuShellRDMAClusterOpenFile(const char* path, afu_rdma_cluster* out) {
  std::string desc;
  const afu_result r = guarded([&] {
    if (!path || !out) throw Error(AFU_ERR_NULL_POINTER, "path and out must not be NULL");
    *out = nullptr;
    std::ifstream in(path);
    if (!in) throw Error(AFU_ERR_BAD_ARG, std::string("cannot read cluster file ") + path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string p(path);
    const size_t slash = p.rfind('/');
    try {
      desc = rdma::resolve_cluster_file(text.str(), slash == std::string::npos ? "." : p.substr(0, slash));
    } catch (const std::exception& e) {
      throw Error(AFU_ERR_BAD_ARG, p + ": " + e.what());
    }
  });
  return r != FPGA_OK ? r : afuShellRDMAClusterOpen(desc.c_str(), out);
}

void afuShellRDMAClusterClose(afu_rdma_cluster c) { delete c; }

int afuShellRDMAClusterCards(afu_rdma_cluster c) { return c ? c->b->size() : 0; }
int afuShellRDMAClusterIsRTL(afu_rdma_cluster c) { return c && c->b->rtl() ? 1 : 0; }
int afuShellRDMAClusterCardPresent(afu_rdma_cluster c, int card) { return c && c->b->present(card) ? 1 : 0; }

afu_result afuShellRDMAClusterCardOpen(afu_rdma_cluster c, int card, afu_shell_handle* handle) {
  std::string uri;
  const afu_result r = call(c, [&](rdma::ClusterBackend& b) {
    need(handle != nullptr, AFU_ERR_NULL_POINTER, "handle is NULL");
    *handle = nullptr;
    card_of(b, card);
    uri = b.card_uri(card);
    return afu_result(FPGA_OK);
  });
  if (r != FPGA_OK) return r;
  const afu_result o = afuShellOpen(uri.c_str(), handle);
  return o == FPGA_OK ? o : fail(o, "opening card " + std::to_string(card) + " of the cluster: " + afuShellLastError());
}

static afu_result card_mem(afu_rdma_cluster c, int card, uint64_t addr, void* buf, uint64_t n, bool write) {
  return call(c, [&](rdma::ClusterBackend& b) {
    need(buf != nullptr, AFU_ERR_NULL_POINTER, "the host buffer is NULL");
    card_of(b, card);
    const uint64_t size = b.mem_bytes(card);
    need(addr <= size && n <= size - addr, AFU_ERR_OUT_OF_RANGE,
         "card " + std::to_string(card) + ": " + std::to_string(n) + " bytes at " + std::to_string(addr) +
             " pass the end of its " + std::to_string(size) + "-byte memory");
    b.mem(card, addr, buf, n, write);
    return afu_result(FPGA_OK);
  });
}

afu_result afuShellRDMAWriteMem(afu_rdma_cluster c, int card, uint64_t addr, const void* src, uint64_t n) {
  return card_mem(c, card, addr, const_cast<void*>(src), n, true);
}

afu_result afuShellRDMAReadMem(afu_rdma_cluster c, int card, uint64_t addr, void* dst, uint64_t n) {
  return card_mem(c, card, addr, dst, n, false);
}

afu_result afuShellRDMAPutAsync(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote, uint64_t n,
                                afu_rdma_handle* h) {
  return start(c, {true, card, dst, local, remote, n}, h);
}

afu_result afuShellRDMAGetAsync(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote, uint64_t n,
                                afu_rdma_handle* h) {
  return start(c, {false, card, src, local, remote, n}, h);
}

afu_result afuShellRDMAPutStridedAsync(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote,
                                       uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                       afu_rdma_handle* h) {
  return start(c, {true, card, dst, local, remote, block, count, local_stride, remote_stride, true}, h);
}

afu_result afuShellRDMAGetStridedAsync(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote,
                                       uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                       afu_rdma_handle* h) {
  return start(c, {false, card, src, local, remote, block, count, local_stride, remote_stride, true}, h);
}

afu_result afuShellRDMAPut(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote, uint64_t n) {
  return blocking(c, [&](afu_rdma_handle* h) { return afuShellRDMAPutAsync(c, card, dst, local, remote, n, h); });
}

afu_result afuShellRDMAGet(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote, uint64_t n) {
  return blocking(c, [&](afu_rdma_handle* h) { return afuShellRDMAGetAsync(c, card, src, local, remote, n, h); });
}

afu_result afuShellRDMAReduceAsync(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst,
                                   uint64_t n, int dtype, afu_rdma_handle* h) {
  return reduce_async(c, chain, cards, src, dst, n, dtype, false, h);
}

afu_result afuShellRDMAAllreduceAsync(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst,
                                      uint64_t n, int dtype, afu_rdma_handle* h) {
  return reduce_async(c, chain, cards, src, dst, n, dtype, true, h);
}

afu_result afuShellRDMAReduce(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                              int dtype) {
  return blocking(c, [&](afu_rdma_handle* h) { return reduce_async(c, chain, cards, src, dst, n, dtype, false, h); });
}

afu_result afuShellRDMAAllreduce(afu_rdma_cluster c, const int* chain, int cards, uint64_t src, uint64_t dst,
                                 uint64_t n, int dtype) {
  return blocking(c, [&](afu_rdma_handle* h) { return reduce_async(c, chain, cards, src, dst, n, dtype, true, h); });
}

afu_result afuShellRDMATest(afu_rdma_cluster c, afu_rdma_handle h) {
  return call(c, [&](rdma::ClusterBackend& b) { return b.test(h); });
}

afu_result afuShellRDMAOpCycles(afu_rdma_cluster c, afu_rdma_handle h, uint64_t* issued, uint64_t* done) {
  return call(c, [&](rdma::ClusterBackend& b) {
    need(issued && done, AFU_ERR_NULL_POINTER, "issued and done must not be NULL");
    b.op_cycles(h, issued, done);
    return FPGA_OK;
  });
}

afu_result afuShellRDMAWait(afu_rdma_cluster c, afu_rdma_handle h, uint64_t max_cycles) {
  return call(c, [&](rdma::ClusterBackend& b) { return b.wait(h, max_cycles); });
}

const char* afuShellRDMALastDump(afu_rdma_cluster c) { return c ? c->b->last_dump.c_str() : ""; }

const char* afuShellRDMAClusterDump(afu_rdma_cluster c, afu_rdma_handle h) {
  if (!c) return "";
  c->dump = c->b->dump(h);
  return c->dump.c_str();
}

afu_result afuShellRDMARun(afu_rdma_cluster c, uint64_t cycles) {
  return call(c, [&](rdma::ClusterBackend& b) {
    b.run(cycles);
    return afu_result(FPGA_OK);
  });
}

afu_result afuShellRDMASetPacketBytes(afu_rdma_cluster c, uint32_t bytes) {
  return call(c, [&](rdma::ClusterBackend& b) {
    b.set_packet_bytes(bytes);
    return afu_result(FPGA_OK);
  });
}

uint32_t afuShellRDMAPacketBytes(afu_rdma_cluster c) { return c ? c->b->packet_bytes() : 0; }
uint64_t afuShellRDMACycles(afu_rdma_cluster c) { return c ? c->b->cycles() : 0; }
double afuShellRDMAClockMHz(afu_rdma_cluster c) { return c ? c->b->clock_mhz() : 0.0; }

afu_result afuShellRDMAPipeline(afu_rdma_cluster c, const int* chain, int cards, const void* in, void* out,
                                uint64_t record_bytes, uint64_t records, uint64_t passes,
                                const afu_rdma_pipeline_opts* opts, afu_rdma_pipeline_stats* stats, uint64_t* cycles) {
  if (!chain || !in || !out) return fail(AFU_ERR_NULL_POINTER, "chain, in and out must not be NULL");
  if (cards < 0) return fail(AFU_ERR_BAD_ARG, "a chain of " + std::to_string(cards) + " cards");
  rdma::ChainReq r;
  r.chain.assign(chain, chain + cards);
  r.record_bytes = record_bytes, r.records = records, r.passes = passes, r.in = in, r.out = out;
  return chains(c, {r}, opts, stats, cycles);
}

afu_result afuShellRDMARunCores(afu_rdma_cluster c, int n, const int* cards, const void* const* in,
                                const uint64_t* in_record_bytes, void* const* out, const uint64_t* out_record_bytes,
                                const uint64_t* records, const afu_rdma_pipeline_opts* opts,
                                afu_rdma_pipeline_stats* stats, uint64_t* cycles) {
  if (!cards || !in || !in_record_bytes || !out || !out_record_bytes || !records)
    return fail(AFU_ERR_NULL_POINTER, "cards, in, out and their record sizes and counts must not be NULL");
  if (n < 1) return fail(AFU_ERR_BAD_ARG, "running cores needs at least one card, not " + std::to_string(n));
  std::vector<rdma::ChainReq> reqs(static_cast<size_t>(n));
  for (size_t i = 0; i < reqs.size(); ++i) {
    reqs[i].chain = {cards[i]};
    reqs[i].record_bytes = in_record_bytes[i], reqs[i].out_record_bytes = out_record_bytes[i];
    reqs[i].records = records[i], reqs[i].in = in[i], reqs[i].out = out[i];
  }
  return chains(c, reqs, opts, stats, cycles);
}

afu_result afuShellRDMACardWriteCSR(afu_rdma_cluster c, int card, uint32_t offset, uint64_t value) {
  return call(c, [&](rdma::ClusterBackend& b) {
    b.csr(card, offset, value, true);
    return afu_result(FPGA_OK);
  });
}

afu_result afuShellRDMACardReadCSR(afu_rdma_cluster c, int card, uint32_t offset, uint64_t* value) {
  return call(c, [&](rdma::ClusterBackend& b) {
    need(value != nullptr, AFU_ERR_NULL_POINTER, "value is NULL");
    *value = b.csr(card, offset, 0, false);
    return afu_result(FPGA_OK);
  });
}

}  // extern "C"
