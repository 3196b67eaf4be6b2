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

#ifdef __cplusplus
}
#endif
#endif
