// The C API over the RDMA network model (include/afushell/rdma.h).
#include "afushell/rdma.h"

#include <cstring>
#include <string>

#include "rdma_sim.hpp"

struct afu_rdma_cluster_s {
  rdma::Cluster sim;
  explicit afu_rdma_cluster_s(const std::string& d) : sim(d) {}
};

static thread_local std::string g_last_error;

extern "C" {

int afuShellRDMAClusterOpen(const char* description, afu_rdma_cluster* out) {
  if (!description || !out) return AFU_RDMA_BAD_ARG;
  try {
    *out = new afu_rdma_cluster_s(description);
    return AFU_RDMA_OK;
  } catch (const std::exception& e) {
    g_last_error = e.what();
    *out = nullptr;
    return AFU_RDMA_BAD_ARG;
  }
}

void afuShellRDMAClusterClose(afu_rdma_cluster c) { delete c; }

static bool mem_ok(afu_rdma_cluster c, int card, uint64_t addr, uint64_t n) {
  if (!c || card < 0 || card >= int(c->sim.cards.size())) return false;
  const uint64_t size = c->sim.cards[card].mem.size;
  return addr <= size && n <= size - addr;
}

int afuShellRDMAWriteMem(afu_rdma_cluster c, int card, uint64_t addr, const void* src, uint64_t n) {
  if (!src || !mem_ok(c, card, addr, n)) return AFU_RDMA_BAD_ARG;
  c->sim.cards[card].mem.write(addr, static_cast<const uint8_t*>(src), n);
  return AFU_RDMA_OK;
}

int afuShellRDMAReadMem(afu_rdma_cluster c, int card, uint64_t addr, void* dst, uint64_t n) {
  if (!dst || !mem_ok(c, card, addr, n)) return AFU_RDMA_BAD_ARG;
  c->sim.cards[card].mem.read(addr, static_cast<uint8_t*>(dst), n);
  return AFU_RDMA_OK;
}

static int issue(afu_rdma_cluster c, bool put, int card, int peer, uint64_t local, uint64_t remote, uint64_t n,
                 afu_rdma_handle* h) {
  if (!c || !h) return AFU_RDMA_BAD_ARG;
  if (card < 0 || card >= int(c->sim.cards.size()) || !c->sim.cards[card].present) return AFU_RDMA_BAD_CARD;
  *h = put ? c->sim.put(card, peer, local, remote, n) : c->sim.get(card, peer, local, remote, n);
  const rdma::Op& op = c->sim.op(*h);
  return op.state == rdma::OP_ERROR ? op.code : AFU_RDMA_OK;
}

int afuShellRDMAPutAsync(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote, uint64_t n,
                         afu_rdma_handle* h) {
  return issue(c, true, card, dst, local, remote, n, h);
}

int afuShellRDMAGetAsync(afu_rdma_cluster c, int card, int src, uint64_t local, uint64_t remote, uint64_t n,
                         afu_rdma_handle* h) {
  return issue(c, false, card, src, local, remote, n, h);
}

int afuShellRDMAPutStridedAsync(afu_rdma_cluster c, int card, int dst, uint64_t local, uint64_t remote,
                                uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                afu_rdma_handle* h) {
  if (!c || !h) return AFU_RDMA_BAD_ARG;
  if (card < 0 || card >= int(c->sim.cards.size()) || !c->sim.cards[card].present) return AFU_RDMA_BAD_CARD;
  *h = c->sim.put_strided(card, dst, local, remote, block, count, local_stride, remote_stride);
  const rdma::Op& op = c->sim.op(*h);
  return op.state == rdma::OP_ERROR ? op.code : AFU_RDMA_OK;
}

int afuShellRDMATest(afu_rdma_cluster c, afu_rdma_handle h) {
  if (!c) return AFU_RDMA_BAD_ARG;
  try {
    const rdma::Op& op = c->sim.op(h);
    return op.state == rdma::OP_PENDING ? AFU_RDMA_PENDING : op.code;
  } catch (const std::exception&) {
    return AFU_RDMA_BAD_ARG;
  }
}

int afuShellRDMAWait(afu_rdma_cluster c, afu_rdma_handle h, uint64_t max_cycles) {
  int r = afuShellRDMATest(c, h);
  if (r != AFU_RDMA_PENDING) return r;
  c->sim.wait(h, max_cycles ? int64_t(max_cycles) : c->sim.prm.op_timeout + 1024);
  return afuShellRDMATest(c, h);
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

uint64_t afuShellRDMACycles(afu_rdma_cluster c) { return c ? uint64_t(c->sim.now) : 0; }
double afuShellRDMAClockMHz(afu_rdma_cluster c) { return c ? c->sim.prm.clock_mhz : 0.0; }

const char* afuShellRDMAErrorString(int code) {
  if (code == AFU_RDMA_PENDING) return "still in flight";
  if (code == AFU_RDMA_BAD_ARG) return g_last_error.empty() ? "bad argument" : g_last_error.c_str();
  return rdma::err_text(code);
}

}  // extern "C"
