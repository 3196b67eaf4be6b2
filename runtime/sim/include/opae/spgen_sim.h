/* Extensions of the simulation library beyond the OPAE API: choosing the card
 * library, simulated time, and keeping the clock running while the host waits.
 * The runtime uses them only when built against the simulation (AFUSHELL_SIM). */
#ifndef SPGEN_SIM_H
#define SPGEN_SIM_H
#include <stddef.h>
#include <stdint.h>
#include <opae/fpga.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the card library at lib_path enumerable; params "k=v,k=v" override the
 * model defaults (docs/runtime.md). Returns FPGA_OK and the token's GUID, or an
 * error with a message in err. */
fpga_result spgenSimRegisterCard(const char *lib_path, const char *params, fpga_guid guid_out,
                                 char *err, size_t errlen);
/* The GUID of a card registered under a name: a card of an RTL cluster
 * ("cluster<k>.card<c>", runtime/sim/cluster.hpp), opened as "sim:<name>". FPGA_NOT_FOUND
 * for other names. */
fpga_result spgenSimFindCard(const char *name, fpga_guid guid_out);
uint64_t spgenSimNowNs(fpga_handle handle);
/* Simulated time at which the latest interrupt on vector reached the host. */
uint64_t spgenSimIrqNs(fpga_handle handle, uint32_t vector);
void spgenSimWaitBegin(fpga_handle handle);
/* Deterministic host timing (docs/runtime.md "Host time"): the calling thread's host time
 * in cycles (spgenSimNowNs gives it in ns); raising it to at least `cycle` plus the issue
 * cost of `after_writes` MMIO writes; a host pause of `ns` in which the card runs; the host
 * time of one poll of a request (0: the card runs in real time); the runtime's worker
 * threads (lane 1 TX, 2 RX) entering, idling and waiting for interrupts; a program thread
 * blocking on a request, and the worker that completes it waking it. */
uint64_t spgenSimHostCycle(fpga_handle handle);
void spgenSimHostSync(fpga_handle handle, uint64_t cycle, uint32_t after_writes);
void spgenSimHostSleep(fpga_handle handle, uint64_t ns);
uint64_t spgenSimHostPollNs(fpga_handle handle);
void spgenSimLaneEnter(fpga_handle handle, int lane);
void spgenSimLaneIdle(fpga_handle handle, int idle);
void spgenSimWaitIrqBegin(fpga_handle handle, uint32_t vector);
void spgenSimWaitIrqEnd(fpga_handle handle, uint32_t vector, int fired);
void spgenSimUserBlock(fpga_handle handle);
void spgenSimUserWake(fpga_handle handle);
/* The program's wait on another host thread ended by an event at `cycle` (called by that thread). */
void spgenSimUserWakeAt(fpga_handle handle, uint64_t cycle);
/* A cluster card's program thread holds the clock back no more until its next call. */
void spgenSimHostLeave(fpga_handle handle);
void spgenSimWaitEnd(fpga_handle handle);
/* Stops the clock while the host prepares a request (its descriptor writes then all
 * land at the simulated instant of the request); every hold needs a release. */
void spgenSimHold(fpga_handle handle);
void spgenSimRelease(fpga_handle handle);
uint64_t spgenSimBusErrors(fpga_handle handle);
/* Clock cycles simulated and wall seconds spent simulating them. */
uint64_t spgenSimCycles(fpga_handle handle);
double spgenSimWallSeconds(fpga_handle handle);
/* "key=value" lines: the card library's build info, then every model parameter. */
const char *spgenSimInfo(fpga_handle handle);
/* fpgaReconfigureSlot flag of the simulation: the card's DDR keeps its contents (the
 * published flow clears it). */
#define SPGEN_SIM_RECONF_KEEP_DDR (1 << 16)
/* Simulated time the handle's latest fpgaReconfigureSlot took (the reconf_s parameter),
 * and the calling thread's message of its latest failed one. */
uint64_t spgenSimReconfNs(fpga_handle handle);
const char *spgenSimReconfError(void);

/* The peer device (a GPU) on the card's simulated PCIe (docs/p2p.md). Registers bytes of
 * peer memory in its BAR: simulated memory when cuda_ptr is 0, else the CUDA device
 * allocation at cuda_ptr, which the simulated BAR then reads and writes. *bus is the bus
 * address; the card's masters reach it at (1 << 63) | bus. */
fpga_result spgenSimPeerRegister(fpga_handle handle, uint64_t bytes, uint64_t cuda_ptr,
                                 uint64_t *bus, char *err, size_t errlen);
fpga_result spgenSimPeerUnregister(fpga_handle handle, uint64_t bus);
/* Host access to peer memory (what cudaMemcpy does for a GPU): write != 0 copies buf in. */
fpga_result spgenSimPeerAccess(fpga_handle handle, uint64_t bus, void *buf, uint64_t bytes,
                               int write);
/* Modelled time of the peer's own copy of bytes between its memory and host memory
 * (the GPU's copy engine: the first leg of a CPU-staged transfer). */
uint64_t spgenSimPeerCopyNs(fpga_handle handle, uint64_t bytes);

#ifdef __cplusplus
}
#endif
#endif
