/* afushell RDMA between cards: put/get between the FPGA memories of the cards of a
 * (simulated) cluster. See docs/rdma.md.
 *
 * Every call that can fail returns an afu_result (afushell.h): FPGA_OK, or an error code --
 * AFU_ERR_RDMA_* for the status an operation ended with on the cards (no route, remote or
 * local range, timeout, alignment, bad card), AFU_ERR_TIMEOUT when a wait ran out (or a
 * test found the operation in flight), AFU_ERR_NULL_POINTER, AFU_ERR_BAD_ARG (a bad
 * description, data type, ...), AFU_ERR_BAD_REQUEST (an unknown handle), FPGA_NOT_SUPPORTED
 * (what only RTL cards have, on the network model). afuShellLastError() says what went wrong,
 * as for every call of afushell.h. */
#ifndef AFUSHELL_RDMA_H
#define AFUSHELL_RDMA_H
#include <stdint.h>

#include "afushell/afushell.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afu_rdma_cluster_s *afu_rdma_cluster;
typedef uint64_t afu_rdma_handle;

/** Opens a simulated cluster from its cluster file (JSON, docs/rdma.md). With "card": a
 *  `spgen build --links N` folder (or its sim/libafucard.so), every card is a complete
 *  simulated card driven through its CSRs (RTL cards); without, the C++ network model.
 *  AFU_ERR_BAD_ARG for a file or description it refuses (afuShellLastError names the key). */
afu_result afuShellRDMAClusterOpenFile(const char *path, afu_rdma_cluster *out);
/** The same from the resolved text form (spgen.runtime.rdma.resolve, rdma-resolve). */
afu_result afuShellRDMAClusterOpen(const char *description, afu_rdma_cluster *out);
void afuShellRDMAClusterClose(afu_rdma_cluster c);
/** Card numbers 0..n-1 of the cluster (absent cards included), and whether they are RTL cards. */
int afuShellRDMAClusterCards(afu_rdma_cluster c);
int afuShellRDMAClusterIsRTL(afu_rdma_cluster c);
/** 1 when card `card` is a card of the cluster, 0 when it is absent (the description's
 *  "absent") or out of range. */
int afuShellRDMAClusterCardPresent(afu_rdma_cluster c, int card);
/** Card `card` of a cluster of RTL cards as an ordinary card (afushell.h: afuShellDMATransferH,
 *  afuShellRun, registers, ...; close it with afuShellClose before the cluster). The card
 *  advances on the cluster clock, so its DMA times and the cluster's cycles are one clock:
 *  while a host thread waits on a card or an RDMA operation, the whole cluster runs
 *  (docs/rdma.md "Cards of a cluster"). AFU_ERR_RDMA_BAD_CARD for an absent card or one
 *  outside the cluster, FPGA_NOT_SUPPORTED on the network model, afuShellOpen's code for a
 *  card that does not open. */
afu_result afuShellRDMAClusterCardOpen(afu_rdma_cluster c, int card, afu_shell_handle *handle);
/** Copies host bytes into / out of a card's FPGA memory (set-up and checking);
 *  AFU_ERR_OUT_OF_RANGE past its end. */
afu_result afuShellRDMAWriteMem(afu_rdma_cluster c, int card, uint64_t addr, const void *src, uint64_t n);
afu_result afuShellRDMAReadMem(afu_rdma_cluster c, int card, uint64_t addr, void *dst, uint64_t n);

/** Put: card's memory [local, local+n) -> dst_card's memory [remote, remote+n). Blocking. */
afu_result afuShellRDMAPut(afu_rdma_cluster c, int card, int dst_card, uint64_t local, uint64_t remote, uint64_t n);
/** Get: src_card's memory [remote, remote+n) -> card's memory [local, local+n). Blocking. */
afu_result afuShellRDMAGet(afu_rdma_cluster c, int card, int src_card, uint64_t local, uint64_t remote, uint64_t n);
/** Asynchronous forms: *handle identifies the transfer for afuShellRDMAWait/Test. */
afu_result afuShellRDMAPutAsync(afu_rdma_cluster c, int card, int dst_card, uint64_t local, uint64_t remote,
                                uint64_t n, afu_rdma_handle *handle);
afu_result afuShellRDMAGetAsync(afu_rdma_cluster c, int card, int src_card, uint64_t local, uint64_t remote,
                                uint64_t n, afu_rdma_handle *handle);
/** Block-stride put (halo exchange): `count` blocks of `block` bytes, taken every
 *  local_stride bytes from `local` and written every remote_stride bytes from `remote`. */
afu_result afuShellRDMAPutStridedAsync(afu_rdma_cluster c, int card, int dst_card, uint64_t local, uint64_t remote,
                                       uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                       afu_rdma_handle *handle);
/** Block-stride get (RTL cards): `count` blocks of `block` bytes read every remote_stride bytes
 *  from src_card's `remote` and written every local_stride bytes from `local`. */
afu_result afuShellRDMAGetStridedAsync(afu_rdma_cluster c, int card, int src_card, uint64_t local, uint64_t remote,
                                       uint64_t block, uint64_t count, uint64_t local_stride, uint64_t remote_stride,
                                       afu_rdma_handle *handle);
/** Runs the simulation up to max_cycles (0: the op timeout) until the transfer ends;
 *  returns its result, or AFU_ERR_TIMEOUT when max_cycles ran out first. */
afu_result afuShellRDMAWait(afu_rdma_cluster c, afu_rdma_handle handle, uint64_t max_cycles);
/** DATA payload of the operations started from now on (RDMA_CMD.PKT on RTL cards): 64..1024
 *  bytes in steps of 64, cut to each card's largest (RDMA_INFO.MAX_PKT_WORDS: 1 KiB on
 *  cards whose link port is 512 or 1024 bits wide, 64 B on a 32-bit port); 0 = the largest,
 *  the default. The model sends 64-byte packets only (0 or 64). AFU_ERR_BAD_ARG otherwise. */
afu_result afuShellRDMASetPacketBytes(afu_rdma_cluster c, uint32_t bytes);
/** The DATA payload set by afuShellRDMASetPacketBytes (0: the largest), as RDMA_CMD.PKT takes it in bytes. */
uint32_t afuShellRDMAPacketBytes(afu_rdma_cluster c);
/** Result without simulating: AFU_ERR_TIMEOUT while in flight. */
afu_result afuShellRDMATest(afu_rdma_cluster c, afu_rdma_handle handle);
/** The cluster cycles at which the operation was issued (the host's call) and ended (its
 *  completion seen by the host; 0 while in flight). */
afu_result afuShellRDMAOpCycles(afu_rdma_cluster c, afu_rdma_handle handle, uint64_t *issued, uint64_t *done);
/** Advances the whole cluster by `cycles` cycles of its clock. */
afu_result afuShellRDMARun(afu_rdma_cluster c, uint64_t cycles);
/** RTL cards: the state of every card's engine and every link (counters through the CSRs),
 *  naming where the traffic of operation `handle` is stuck (any other value: none). The
 *  text stays valid until the next call on `c`. afuShellRDMALastDump: the dump taken when
 *  the last wait ended in TIMEOUT. */
const char *afuShellRDMAClusterDump(afu_rdma_cluster c, afu_rdma_handle handle);
const char *afuShellRDMALastDump(afu_rdma_cluster c);
/** Simulated cycles so far, and the clock in MHz. */
uint64_t afuShellRDMACycles(afu_rdma_cluster c);
double afuShellRDMAClockMHz(afu_rdma_cluster c);

/* ---- Reductions (docs/rdma.md, "Reductions"): a pipelined sum of one vector per card
 * along a chain of cards; the last card of the chain holds the result (an allreduce: every
 * card of the chain). */

/** Element types of a reduction. */
enum afu_reduce_dtype {
    AFU_REDUCE_U32 = 0,  /**< unsigned 32-bit sums, wrapping around */
    AFU_REDUCE_F32 = 1   /**< IEEE-754 single sums in chain order: ((v0 + v1) + v2) + ... */
};
/** Sums the `n`-byte vectors at `src` on cards chain[0..cards-1] (in that order) into
 *  `dst` on chain[cards-1] (`dst` = `src`: in place). RTL cards: every card's reduction
 *  unit (REDUCE_* CSRs). Errors: AFU_ERR_RDMA_BAD_CARD (fewer than 2
 *  cards, a card twice or not in the cluster), AFU_ERR_RDMA_ALIGN (n, src or dst not a
 *  multiple of 4, n = 0), AFU_ERR_RDMA_LOCAL_RANGE (past the end of a card's memory),
 *  AFU_ERR_RDMA_TIMEOUT (RTL: the reduction was aborted on every card; afuShellRDMALastDump
 *  says where it stood), AFU_ERR_BAD_ARG (a dtype other than AFU_REDUCE_U32/F32, ...). The
 *  handle works with afuShellRDMAWait/Test (on RTL cards Test reads the cards' REDUCE_STATUS
 *  through MMIO, which simulates its round trips). */
afu_result afuShellRDMAReduceAsync(afu_rdma_cluster c, const int *chain, int cards, uint64_t src, uint64_t dst,
                                   uint64_t n, int dtype, afu_rdma_handle *handle);
/** Blocking: afuShellRDMAReduceAsync + afuShellRDMAWait. */
afu_result afuShellRDMAReduce(afu_rdma_cluster c, const int *chain, int cards, uint64_t src, uint64_t dst, uint64_t n,
                              int dtype);
/** Allreduce: as afuShellRDMAReduceAsync, the same sums in the same order; the last card
 *  streams the result back along the chain as it writes it (to chain[cards-2], on to
 *  chain[cards-3], ... chain[0]) while the sums still flow, each card writing it to `dst`, so
 *  every card of the chain ends with it. The same errors; a timeout also names the result's
 *  hops. */
afu_result afuShellRDMAAllreduceAsync(afu_rdma_cluster c, const int *chain, int cards, uint64_t src, uint64_t dst,
                                      uint64_t n, int dtype, afu_rdma_handle *handle);
/** Blocking: afuShellRDMAAllreduceAsync + afuShellRDMAWait. */
afu_result afuShellRDMAAllreduce(afu_rdma_cluster c, const int *chain, int cards, uint64_t src, uint64_t dst,
                                 uint64_t n, int dtype);

/* ---- RTL cards: a pipeline of core cascades across cards (docs/rdma.md, "Streams over
 * links"). Every card of the cluster is a `spgen build PROG.spd --cascade C --links N`
 * card; the chain's first card streams host records into its cascade (TX DMA), each
 * cascade's output goes over a link into the next card's cascade, the last card writes
 * the records back to host memory (RX DMA). Back-pressure is carried end to end by the
 * stream endpoints' credits. */

/** Per card of the chain (CSRs of the card; cycles summed over the passes). */
typedef struct {
    uint64_t in_total_cycles, in_moved_cycles;   /**< at the first core's input: stall rate = 1 - moved/total */
    uint64_t out_total_cycles, out_moved_cycles; /**< at the last core's output */
    uint64_t stream_tx_words, stream_rx_words;   /**< words into / out of the link (STREAM_TX/RX_WORDS) */
    uint64_t stream_tx_stalls;                   /**< cycles the outgoing stream waited for credit or room */
    uint64_t link_words;                         /**< words on the cable to the next card (first hop), every packet */
    uint64_t in_first_cycles;                    /**< of in_total_cycles, those before the pass's first record came:
                                                      stall once records flow = 1 - moved/(total - first) */
} afu_rdma_pipeline_stats;

/** Options (NULL: one descriptor per pass at each end, no gaps). With max_chunk > 0 the
 *  host feeds the first card's TX and the last card's RX in descriptors of 1..max_chunk
 *  records, each 0..max_gap cycles after the previous one completed (random, seeded):
 *  back-pressure and gaps at both ends of the chain. max_cycles bounds a pass (0: 200
 *  cycles per record + 1,000,000). */
typedef struct {
    uint64_t max_chunk, max_gap, seed, max_cycles;
} afu_rdma_pipeline_opts;

/** Runs `passes` passes of `records` records of `record_bytes` bytes (the cascade's record)
 *  from `in` through the cards chain[0..cards-1]; the last pass's output lands in `out`.
 *  `stats` (NULL or `cards` entries) and `cycles` (NULL or the cluster cycles taken) are
 *  filled on success. Errors: AFU_ERR_RDMA_BAD_CARD, AFU_ERR_RDMA_TIMEOUT (a pass did not
 *  end; afuShellRDMALastDump has every card's stream and link state), FPGA_NOT_SUPPORTED
 *  (the network model), AFU_ERR_BAD_ARG (records of another size, ...). */
afu_result afuShellRDMAPipeline(afu_rdma_cluster c, const int *chain, int cards, const void *in, void *out,
                                uint64_t record_bytes, uint64_t records, uint64_t passes,
                                const afu_rdma_pipeline_opts *opts, afu_rdma_pipeline_stats *stats, uint64_t *cycles);
/** Runs the cores of `n` cards at once, each fed by its own host (TX DMA) and drained into
 *  host memory (RX DMA): card cards[i] takes records[i] records of in_record_bytes[i] bytes
 *  from in[i] and writes as many of out_record_bytes[i] bytes to out[i]. Cores joined by the
 *  cluster file's "branches" exchange their branch streams meanwhile, over links (docs/rdma.md,
 *  "Branch streams across cards"). `opts` as for afuShellRDMAPipeline (the chunks and gaps
 *  apply to every card's both ends); stats (NULL or n entries): per card, its stream's words
 *  and send stalls are its branch stream's. Errors as afuShellRDMAPipeline's. */
afu_result afuShellRDMARunCores(afu_rdma_cluster c, int n, const int *cards, const void *const *in,
                                const uint64_t *in_record_bytes, void *const *out, const uint64_t *out_record_bytes,
                                const uint64_t *records, const afu_rdma_pipeline_opts *opts,
                                afu_rdma_pipeline_stats *stats, uint64_t *cycles);
/** A 64-bit CSR of an RTL card through MMIO (e.g. AFUSHELL_CORE_REG(i) of afushell_csr.h
 *  to set a Reg of the card's cores); the read simulates until its answer arrives. */
afu_result afuShellRDMACardWriteCSR(afu_rdma_cluster c, int card, uint32_t offset, uint64_t value);
afu_result afuShellRDMACardReadCSR(afu_rdma_cluster c, int card, uint32_t offset, uint64_t *value);

#ifdef __cplusplus
}
#endif
#endif
