/* afushell RDMA on the RTL: a cluster of Verilated rdma_node cards (shell/rdma/: engine,
 * router, link ports) on a ring or 2-D torus with cable models, built by
 * spgen.runtime.rdma.build_rtl_cluster() into librdma_rtl.so (runtime/rdma/rtl_cluster.cpp).
 * A test bench of the RDMA block alone, not the runtime's C API: its status codes are the
 * engine's RDMA_STATUS.CODE (0 ok, 1 NO_ROUTE, 2 REMOTE_RANGE, 3 TIMEOUT, 4 LOCAL_RANGE,
 * 5 ALIGN), which the runtime returns as the afu_result AFU_ERR_RDMA_BASE + code. See docs/rdma.md. */
#ifndef AFUSHELL_RDMA_RTL_H
#define AFUSHELL_RDMA_RTL_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** X x Y cards (Y = 1: a ring), mem_bytes per card (at most the build's, 4 MiB), cables of
 *  `latency` cycles, per-packet bit-flip and drop probabilities; NULL on bad arguments. */
void *rtl_cluster_create(int X, int Y, uint64_t mem_bytes, uint64_t latency, double pflip, double pdrop,
                         uint64_t seed);
void rtl_cluster_destroy(void *h);
int rtl_cluster_cards(void *h);
/** Cycles simulated so far. */
uint64_t rtl_cluster_now(void *h);
/** Bytes into / out of a card's memory; 0 ok, -1 out of range. */
int rtl_cluster_write(void *h, int card, uint64_t addr, const uint8_t *p, uint64_t n);
int rtl_cluster_read(void *h, int card, uint64_t addr, uint8_t *p, uint64_t n);
/** Queues a put (get = 0) or get (get = 1) of `len` bytes, or a block-stride put or get (block > 0:
 *  `count` blocks, local stride ls, remote stride rs); the engine keeps 4 in flight. Returns a handle, -1 for a
 *  bad card. */
int64_t rtl_cluster_issue(void *h, int card, int get, int dst, uint64_t local, uint64_t remote, uint64_t len,
                          uint32_t block, uint32_t count, uint32_t ls, uint32_t rs);
/** 0 in flight, 1 done, 2 failed (*code), -1 bad handle; *cycles from command to completion. */
int rtl_cluster_test(void *h, int64_t handle, int *code, uint64_t *cycles);
/** Simulates until the operation ends or max_cycles pass; returns its state as rtl_cluster_test. */
int rtl_cluster_wait(void *h, int64_t handle, uint64_t max_cycles, int *code, uint64_t *cycles);
/** Blocking: the status code (0 ok), -1 when it did not end within max_cycles. */
int rtl_cluster_op(void *h, int card, int get, int dst, uint64_t local, uint64_t remote, uint64_t len,
                   uint32_t block, uint32_t count, uint32_t ls, uint32_t rs, uint64_t max_cycles, uint64_t *cycles);
void rtl_cluster_run(void *h, uint64_t cycles);
/** Target events since the last call, up to max rows of (kind 1 put / 4 get, peer, addr, len, cycle). */
int rtl_cluster_events(void *h, int card, uint64_t *out, int max);
/** out4 = {replays, flipped packets, dropped packets, overflow flags}. */
void rtl_cluster_stats(void *h, uint64_t *out4);
/** The card's debug registers as the CSRs of docs/rdma.md would read them: ENG_SLOT(0..15),
 *  ENG_STATE, ROUTER_STATE, then LINK_PKTS, LINK_ERRS, LINK_STALLS, LINK_STATE per link port;
 *  up to max words; returns the words written (18 + 4 x ports), -1 for a bad card. */
int rtl_cluster_debug(void *h, int card, uint64_t *out, int max);

#ifdef __cplusplus
}
#endif
#endif
