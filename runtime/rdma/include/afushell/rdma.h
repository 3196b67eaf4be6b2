/* afushell RDMA between cards: put/get between the FPGA memories of the cards of a
 * (simulated) cluster. See docs/rdma.md. */
#ifndef AFUSHELL_RDMA_H
#define AFUSHELL_RDMA_H
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afu_rdma_cluster_s *afu_rdma_cluster;
typedef uint64_t afu_rdma_handle;

/** Results: 0 ok, else one of these (afuShellRDMAErrorString gives the message). */
enum afu_rdma_error {
    AFU_RDMA_OK = 0,
    AFU_RDMA_NO_ROUTE = 1,      /**< destination card absent from the cluster */
    AFU_RDMA_REMOTE_RANGE = 2,  /**< past the end of the remote card's memory */
    AFU_RDMA_TIMEOUT = 3,       /**< the destination did not answer in time */
    AFU_RDMA_LOCAL_RANGE = 4,   /**< past the end of the local card's memory */
    AFU_RDMA_ALIGN = 5,         /**< size / address not a positive multiple of 4 */
    AFU_RDMA_BAD_CARD = 6,      /**< no such card number */
    AFU_RDMA_PENDING = 100,     /**< a wait ran out before completion */
    AFU_RDMA_BAD_ARG = 101      /**< bad handle, NULL pointer or bad cluster description */
};

/** Opens a simulated cluster from its cluster file (JSON, docs/rdma.md). With "card": a
 *  `spgen build --links N` folder (or its sim/libafucard.so), every card is a complete
 *  simulated card driven through its CSRs (RTL cards); without, the C++ network model.
 *  On AFU_RDMA_BAD_ARG, afuShellRDMAErrorString(AFU_RDMA_BAD_ARG) says what is wrong. */
int afuShellRDMAClusterOpenFile(const char *path, afu_rdma_cluster *out);
/** The same from the resolved text form (spgen.runtime.rdma.resolve, rdma-resolve). */
int afuShellRDMAClusterOpen(const char *description, afu_rdma_cluster *out);
void afuShellRDMAClusterClose(afu_rdma_cluster c);
/** Card numbers 0..n-1 of the cluster (absent cards included), and whether they are RTL cards. */
int afuShellRDMAClusterCards(afu_rdma_cluster c);
int afuShellRDMAClusterIsRTL(afu_rdma_cluster c);
/** Card `card` of a cluster of RTL cards as an ordinary card (afushell.h: afuShellDMATransferH,
 *  afuShellRun, registers, ...; close it with afuShellClose before the cluster). The card
 *  advances on the cluster clock, so its DMA times and the cluster's cycles are one clock:
 *  while a host thread waits on a card or an RDMA operation, the whole cluster runs
 *  (docs/rdma.md "Cards of a cluster"). AFU_RDMA_BAD_CARD for an absent card or one outside
 *  the cluster, AFU_RDMA_BAD_ARG (message in afuShellRDMAErrorString) for the model cluster
 *  or a card that does not open. */
struct afu_shell_s; /* afu_shell_handle of afushell.h */
int afuShellRDMAClusterCardOpen(afu_rdma_cluster c, int card, struct afu_shell_s **handle);
/** Copies host bytes into / out of a card's FPGA memory (set-up and checking). */
int afuShellRDMAWriteMem(afu_rdma_cluster c, int card, uint64_t addr, const void *src, uint64_t n);
int afuShellRDMAReadMem(afu_rdma_cluster c, int card, uint64_t addr, void *dst, uint64_t n);

/** Put: card's memory [local, local+n) -> dst_card's memory [remote, remote+n). Blocking. */
int afuShellRDMAPut(afu_rdma_cluster c, int card, int dst_card, uint64_t local, uint64_t remote, uint64_t n);
/** Get: src_card's memory [remote, remote+n) -> card's memory [local, local+n). Blocking. */
int afuShellRDMAGet(afu_rdma_cluster c, int card, int src_card, uint64_t local, uint64_t remote, uint64_t n);
/** Asynchronous forms: *handle identifies the transfer for afuShellRDMAWait/Test. */
int afuShellRDMAPutAsync(afu_rdma_cluster c, int card, int dst_card, uint64_t local, uint64_t remote,
                         uint64_t n, afu_rdma_handle *handle);
int afuShellRDMAGetAsync(afu_rdma_cluster c, int card, int src_card, uint64_t local, uint64_t remote,
                         uint64_t n, afu_rdma_handle *handle);
/** Block-stride put (halo exchange): `count` blocks of `block` bytes, taken every
 *  local_stride bytes from `local` and written every remote_stride bytes from `remote`. */
int afuShellRDMAPutStridedAsync(afu_rdma_cluster c, int card, int dst_card, uint64_t local, uint64_t remote,
                                uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                afu_rdma_handle *handle);
/** Block-stride get (RTL cards): `count` blocks of `block` bytes read every remote_stride bytes
 *  from src_card's `remote` and written every local_stride bytes from `local`. */
int afuShellRDMAGetStridedAsync(afu_rdma_cluster c, int card, int src_card, uint64_t local, uint64_t remote,
                                uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                afu_rdma_handle *handle);
/** Runs the simulation up to max_cycles (0: the op timeout) until the transfer ends;
 *  returns its result, or AFU_RDMA_PENDING. */
int afuShellRDMAWait(afu_rdma_cluster c, afu_rdma_handle handle, uint64_t max_cycles);
/** Result without simulating: AFU_RDMA_PENDING while in flight. */
int afuShellRDMATest(afu_rdma_cluster c, afu_rdma_handle handle);
/** Advances the whole cluster by `cycles` cycles of its clock. */
int afuShellRDMARun(afu_rdma_cluster c, uint64_t cycles);
/** RTL cards: the state of every card's engine and every link (counters through the CSRs),
 *  naming where the traffic of operation `handle` is stuck (any other value: none). The
 *  text stays valid until the next call on `c`. afuShellRDMALastDump: the dump taken when
 *  the last wait ended in TIMEOUT. */
const char *afuShellRDMAClusterDump(afu_rdma_cluster c, afu_rdma_handle handle);
const char *afuShellRDMALastDump(afu_rdma_cluster c);
/** Simulated cycles so far, and the clock in MHz. */
uint64_t afuShellRDMACycles(afu_rdma_cluster c);
double afuShellRDMAClockMHz(afu_rdma_cluster c);
const char *afuShellRDMAErrorString(int code);

#ifdef __cplusplus
}
#endif
#endif
