/**
 * @file afushell.h
 * @brief C API of the AFU shell runtime: DMA between host and FPGA memories, core
 *        control and registers, on a real Intel PAC (OPAE) or on the simulated card.
 *
 * FPGA memory A is addressed from 0x0 and memory B from 0x1_0000_0000 (4 GiB each);
 * FPGA addresses are passed where the published API takes pointers
 * (`(void*)0x100000000` is the start of memory B). Host buffers must come from
 * afuShellAlloc() (pinned and mapped for the card). Every call returns FPGA_OK or
 * an error code (afu_result), the RDMA calls of afushell/rdma.h too; afuShellLastError()
 * gives the calling thread's message of its latest failed call, afuShellErrStr() the
 * code's name. Timing
 * figures are simulated time on the simulated card.
 */
#ifndef AFUSHELL_AFUSHELL_H
#define AFUSHELL_AFUSHELL_H

#include <stddef.h>
#include <stdint.h>

#include <opae/fpga.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Direction of a DMA transfer: Host or FPGA memory to Host or FPGA memory; P2F and F2P
 *  between a peer device's memory (a GPU's, afuShellPeerRegister: pass its bus address)
 *  and FPGA memory, moved by the card over PCIe peer-to-peer, no host memory involved. */
typedef enum {
    H2F = 0, F2H = 1, F2F = 2, H2H = 3, P2F = 4, F2P = 5,
    DMA_TRANSFER_TYPE_RANGE_ = 0x7FFFFFFF /**< not a type: lets C++ callers pass any int */
} dma_transfer_type_t;

/** What every call returns: FPGA_OK (0), one of OPAE's fpga_result values passed
 *  through (FPGA_INVALID_PARAM, FPGA_NOT_FOUND, ...), or one of the runtime's own codes
 *  below (0x100 and up). A type of its own: OPAE's enumeration ends at
 *  FPGA_RECONF_ERROR, so the runtime's codes are never cast into an fpga_result. */
typedef int32_t afu_result;

/** The runtime's own error codes, distinct from every fpga_result value. */
enum afu_shell_error {
    AFU_ERR_NULL_POINTER = 0x100, /**< a host pointer or out-parameter is NULL */
    AFU_ERR_ZERO_COUNT,           /**< byte count 0 */
    AFU_ERR_BAD_COUNT,            /**< byte count not a multiple of 4 */
    AFU_ERR_ALIGNMENT,            /**< an address not a multiple of 4 */
    AFU_ERR_OUT_OF_RANGE,         /**< an FPGA range past the end of memory A or B */
    AFU_ERR_NOT_PREPARED,         /**< a host range not inside one buffer from afuShellAlloc */
    AFU_ERR_CLOSED,               /**< the handle was closed (or never opened) */
    AFU_ERR_TIMEOUT,              /**< a wait ran out before the request completed */
    AFU_ERR_BAD_TYPE,             /**< not one of H2F, F2H, F2F, H2H, P2F, F2P */
    AFU_ERR_DEVICE,               /**< the shell reported an error (see the message) */
    AFU_ERR_NO_SHELL,             /**< no shell is open for the handle-less calls */
    AFU_ERR_BAD_URI,              /**< the target URI names nothing usable */
    AFU_ERR_UNKNOWN_REG,          /**< no register of that name or offset */
    AFU_ERR_RECORD_WIDTH,         /**< element count / record size does not fit the core */
    AFU_ERR_BAD_REQUEST,          /**< the request was already waited for, or is unknown */
    AFU_ERR_REG_VALUE,            /**< a value the register's type cannot hold */
    AFU_ERR_AFU_ID,               /**< the card's AFU is not the one the program expects */
    AFU_ERR_BAD_ARG,              /**< an argument outside its domain: a cluster description, a
                                       data type, a chain of cards, ... (see the message) */
    /* RDMA between cards (afushell/rdma.h): the status an operation ended with on the cards,
     * RDMA_STATUS.CODE c of the engine as AFU_ERR_RDMA_BASE + c */
    AFU_ERR_RDMA_BASE = 0x200,
    AFU_ERR_RDMA_NO_ROUTE = 0x201,     /**< the destination card is absent from the cluster */
    AFU_ERR_RDMA_REMOTE_RANGE = 0x202, /**< past the end of the remote card's memory */
    AFU_ERR_RDMA_TIMEOUT = 0x203,      /**< the destination did not answer in time */
    AFU_ERR_RDMA_LOCAL_RANGE = 0x204,  /**< past the end of the local card's memory */
    AFU_ERR_RDMA_ALIGN = 0x205,        /**< a size or address not a positive multiple of 4 */
    AFU_ERR_RDMA_BAD_CARD = 0x206      /**< no such card number, or a chain of too few cards */
};

typedef struct afu_shell_s *afu_shell_handle;
typedef struct afu_shell_request_s *afu_shell_request;

/** Counters of one core run (afuShellRun). The run is armed: it starts when the TX
 *  engine has read ahead (CORE_CTRL.ARM), and prime_cycles says how long that took. */
typedef struct {
    uint64_t total_cycles;  /**< run start until the last record left the last core */
    uint64_t moved_cycles;  /**< cycles in which a record left the last core */
    double stall_rate;      /**< at the first core's input: (in_total - in_moved) / in_total */
    uint64_t elapsed_ns;    /**< request to completion interrupt */
    uint64_t in_total_cycles; /**< run start until the last record entered the first core */
    uint64_t in_moved_cycles; /**< cycles in which a record entered the first core */
    uint64_t prime_cycles;  /**< ARM to the run's start: the TX engine's read-ahead */
    double out_stall_rate;  /**< at the last core's output (includes the pipeline fill) */
    uint64_t in_first_cycles; /**< run start until the first record entered the first core */
    double flowing_stall_rate; /**< stall_rate once records flow: the in_first_cycles left out */
} afu_shell_run_result;

/** Opens a target: "sim:<spgen build dir>[?k=v,...]", "sim:loopback", or an AFU ID
 *  ("afu:<guid>" or the bare GUID) on a real card. The new shell becomes current. */
afu_result afuShellOpen(const char *uri, afu_shell_handle *handle);
afu_result afuShellClose(afu_shell_handle handle);
/** Message of the calling thread's latest error (every call of this header and of
 *  afushell/rdma.h sets it when it fails): what went wrong, with its arguments. */
const char *afuShellLastError(void);
/** A short fixed text for a code ("null pointer", "RDMA: remote range past the end", ...). */
const char *afuShellErrStr(afu_result code);

/** Host memory shared with the card (page aligned, zeroed). */
afu_result afuShellAllocH(afu_shell_handle h, size_t bytes, void **ptr);
afu_result afuShellFreeH(afu_shell_handle h, void *ptr);
afu_result afuShellAlloc(size_t bytes, void **ptr);
afu_result afuShellFree(void *ptr);

/** The published call: copies count bytes from src to dst on the current shell. */
afu_result afuShellDMATransfer(void *dst, const void *src, size_t count, dma_transfer_type_t type);
afu_result afuShellDMATransferH(afu_shell_handle h, void *dst, const void *src, size_t count,
                                 dma_transfer_type_t type);
/** Asynchronous form: returns at once with a request to wait for. */
afu_result afuShellDMATransferAsync(void *dst, const void *src, size_t count,
                                     dma_transfer_type_t type, afu_shell_request *req);
afu_result afuShellDMATransferAsyncH(afu_shell_handle h, void *dst, const void *src, size_t count,
                                      dma_transfer_type_t type, afu_shell_request *req);
/** Waits up to timeout_ns (runtime clock: simulated ns in simulation; UINT64_MAX =
 *  forever). On completion the request is freed and its result returned; on
 *  AFU_ERR_TIMEOUT it stays valid to wait again. elapsed_ns may be NULL. */
afu_result afuShellWait(afu_shell_request req, uint64_t timeout_ns, uint64_t *elapsed_ns);
/** 1 when done, 0 while in flight. */
int afuShellRequestDone(afu_shell_request req);
/** Request-to-completion time of the handle's latest finished transfer or run. */
afu_result afuShellElapsedNs(afu_shell_handle h, uint64_t *ns);

/** Registers by their raw bits: a shell register ("SCRATCH", "TX_STATUS", ...) or a core
 *  Reg by name. A core Reg holds 32 bits: a value of more is refused (AFU_ERR_REG_VALUE).
 *  For a float Reg write its binary32 pattern, or use afuShellWriteRegValue. */
afu_result afuShellWriteReg(afu_shell_handle h, const char *name, uint64_t value);
afu_result afuShellReadReg(afu_shell_handle h, const char *name, uint64_t *value);
/** A core Reg by value, converted by the type the build gave it: f32 takes the binary32
 *  pattern of value (rounded to nearest), i32 and u32 an integral value in their range,
 *  bool 0 or 1. A value that does not fit (1e39 for f32, 2.5 or 2^40 for i32, -1 for u32)
 *  is refused with AFU_ERR_REG_VALUE and nothing is written; a shell register (64 raw
 *  bits, no type) with AFU_ERR_UNKNOWN_REG: write those with afuShellWriteReg. */
afu_result afuShellWriteRegValue(afu_shell_handle h, const char *name, double value);
/** A core Reg's bits read back as a number of its type. */
afu_result afuShellReadRegValue(afu_shell_handle h, const char *name, double *value);
/** A register's type: "f32", "i32", "u32" or "bool" for a core Reg, "" for a shell
 *  register (the string is static). */
afu_result afuShellRegType(afu_shell_handle h, const char *name, const char **type);
afu_result afuShellWriteRegAt(afu_shell_handle h, uint64_t offset, uint64_t value);
afu_result afuShellReadRegAt(afu_shell_handle h, uint64_t offset, uint64_t *value);
/** Offset of a register name (shell CSR or core Reg). */
afu_result afuShellRegOffset(afu_shell_handle h, const char *name, uint64_t *offset);

/** Streams n_elements records from FPGA address src through the core cascade to dst. */
afu_result afuShellRun(afu_shell_handle h, uint64_t src, uint64_t dst, uint64_t n_elements,
                        afu_shell_run_result *result);
/** The stall counters of the latest run. */
afu_result afuShellCounters(afu_shell_handle h, afu_shell_run_result *result);

/** Build facts: cores, record words in/out, descriptor FIFO depth. */
typedef struct {
    uint32_t n_cores, in_record_words, out_record_words, n_regs, desc_fifo_depth;
    uint32_t simulated;
} afu_shell_info;
afu_result afuShellInfo(afu_shell_handle h, afu_shell_info *info);
/** An integer Param of the card's core as `spgen build` resolved it (its -P value or the
 *  default), e.g. the grid width W a stencil core's line buffers were sized for.
 *  FPGA_NOT_FOUND where the card does not say (a loop-back card; a hardware card
 *  reports what its URI gives as param.NAME=VALUE), FPGA_INVALID_PARAM for a
 *  Param that is not an integer. */
afu_result afuShellCoreParam(afu_shell_handle h, const char *name, int64_t *value);

/** Largest descriptor the runtime writes; longer transfers are split into chained
 *  descriptors (default 256 MiB, rounded down to a multiple of 64). */
afu_result afuShellSetMaxDescriptor(afu_shell_handle h, uint64_t bytes);
/** Testing aid: 0 hands requests to the shell without the runtime's argument checks,
 *  so the shell's own error reporting can be observed. */
afu_result afuShellSetChecks(afu_shell_handle h, int enabled);

/** Simulation statistics (FPGA_NOT_SUPPORTED on a real card). */
typedef struct {
    uint64_t now_ns;       /**< simulated time */
    uint64_t cycles;       /**< clock cycles simulated */
    double wall_s;         /**< wall time spent simulating them */
    uint64_t bus_errors;   /**< master accesses outside every memory */
} afu_shell_sim_stats;
afu_result afuShellSimStats(afu_shell_handle h, afu_shell_sim_stats *stats);
/** The simulated card's build facts and every model parameter as "key=value" lines (the
 *  string lives as long as the handle; FPGA_NOT_SUPPORTED on a real card). */
afu_result afuShellSimInfo(afu_shell_handle h, const char **text);
/** Deterministic host time (docs/runtime.md "Host time"): a program thread that waits on
 *  another host thread (not on the card) says so, and the thread it waits for hands it the
 *  cycle of the event it waited for. op: AFU_SIM_HOST_NOW (the calling thread's host time in
 *  cycles), AFU_SIM_HOST_BLOCK (the program's threads wait: the clock may run on),
 *  AFU_SIM_HOST_SYNC (the program's host time raised to at least `cycle`), AFU_SIM_HOST_WAKE
 *  (the wait ended by an event at `cycle`; called by the thread that ends it),
 *  AFU_SIM_HOST_LEAVE (a card of a cluster: the calling thread holds the cluster's clock
 *  back no more until its next call on one of its cards). *now: the
 *  host time after it (now may be NULL for every op but AFU_SIM_HOST_NOW).
 *  FPGA_NOT_SUPPORTED without deterministic host time. */
enum { AFU_SIM_HOST_NOW = 0, AFU_SIM_HOST_BLOCK = 1, AFU_SIM_HOST_SYNC = 2, AFU_SIM_HOST_WAKE = 3,
       AFU_SIM_HOST_LEAVE = 4 };
afu_result afuShellSimHostTime(afu_shell_handle h, int op, uint64_t cycle, uint64_t *now);

/* ---- reconfiguration (docs/reconf.md) ----------------------------------------------- */

/** afuShellReconfigure flag: the card's DDR keeps its contents (fpgaconf clears it). */
#define AFU_RECONF_KEEP_DDR 1u
/** Reprograms the card's AFU slot with a `spgen build` directory (the simulated card's
 *  fpgaReconfigureSlot): refused with FPGA_BUSY while transfers, runs or card-initiated DMA
 *  of the handle are in flight. The loaded AFU's ID must be afu_id (NULL: the build's
 *  hw/afu.json accelerator-type-uuid) and its cores and record widths those afu.json gives,
 *  else AFU_ERR_AFU_ID: a wrong ID named is refused before loading; an AFU that turns out
 *  wrong stays loaded but refuses transfers and runs until a reconfiguration succeeds. The
 *  handle's buffers stay; Regs, Params and record widths become the new build's.
 *  reconf_ns (may be NULL): the simulated time it took (model parameter reconf_s, default
 *  1.39 s as published). FPGA_NOT_SUPPORTED on a real card (use fpgaconf). */
afu_result afuShellReconfigure(afu_shell_handle h, const char *build, uint32_t flags,
                               const char *afu_id, uint64_t *reconf_ns);

/* ---- peer devices (docs/p2p.md) ----------------------------------------------------- */

/** Registers bytes of peer-device memory in the peer's BAR and gives its bus address, to be
 *  passed (cast to a pointer) as the peer side of P2F/F2P transfers. cuda_ptr 0: simulated
 *  device memory (zeroed); else a CUDA device allocation (cudaMalloc, CuPy's .data.ptr)
 *  that the simulated card then reads and writes through the CUDA driver. Simulated cards
 *  only: FPGA_NOT_SUPPORTED on a real card (GPUDirect pinning is not implemented there). */
afu_result afuShellPeerRegister(afu_shell_handle h, uint64_t cuda_ptr, size_t bytes, uint64_t *bus);
afu_result afuShellPeerUnregister(afu_shell_handle h, uint64_t bus);
/** Host access to peer memory, as cudaMemcpy would: copies bytes to (PeerWrite) or from
 *  (PeerRead) the registered range at bus. */
afu_result afuShellPeerWrite(afu_shell_handle h, uint64_t bus, const void *src, size_t bytes);
afu_result afuShellPeerRead(afu_shell_handle h, void *dst, uint64_t bus, size_t bytes);
/** The CPU-staged path, for comparison: P2F copies peer -> a host bounce buffer (the
 *  peer's own copy, modelled time) then H2F by the card; F2P the reverse (F2H, then the
 *  copy). elapsed_ns (may be NULL): both legs, store and forward. */
afu_result afuShellPeerStaged(afu_shell_handle h, void *dst, const void *src, size_t count,
                              dma_transfer_type_t type, uint64_t *elapsed_ns);

/** Result of a card-initiated sequence (afuShellCardDMA). */
typedef struct {
    uint64_t transfers;     /**< transfers completed */
    uint64_t last_cycles;   /**< the last transfer: descriptors entering the engines -> last byte written */
    uint64_t seq_cycles;    /**< GO reaching the card -> the sequence's end */
    uint64_t wait_cycles;   /**< cycles the card's descriptors waited for host descriptors to drain */
    uint64_t elapsed_ns;    /**< the host's first register write -> the sequence's end on the card */
} afu_shell_card_dma_result;
/** Card-initiated DMA: the P2P controller on the card builds and issues `repeat` transfers of
 *  count bytes (transfer k from src + k*src_step to dst + k*dst_step), each when the previous
 *  completed, with no host in the loop; the host only stages the pattern (five register
 *  writes and GO) and polls for the end. repeat 1 is register-mode DMA. Any type, P2F/F2P
 *  included; addresses as afuShellDMATransfer takes them. */
afu_result afuShellCardDMA(afu_shell_handle h, void *dst, const void *src, size_t count,
                           dma_transfer_type_t type, uint32_t repeat, uint32_t src_step,
                           uint32_t dst_step, afu_shell_card_dma_result *result);

#ifdef __cplusplus
}
#endif
#endif
