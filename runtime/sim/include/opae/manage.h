/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/manage.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_MANAGE_H__
#define __FPGA_MANAGE_H__

#include <opae/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Partial reconfiguration of an AFU slot with a bitstream (a .gbs file's bytes). On the
 * simulated card the handle is the accelerator's, slot 0 its one AFU slot, and the
 * bitstream a `spgen build` directory's path or its card library's (sim/libafucard.so);
 * flags may add SPGEN_SIM_RECONF_KEEP_DDR (opae/spgen_sim.h). docs/reconf.md. */
fpga_result fpgaReconfigureSlot(fpga_handle fpga, uint32_t slot, const uint8_t *bitstream,
                                size_t bitstream_len, int flags);

#ifdef __cplusplus
}
#endif
#endif /* __FPGA_MANAGE_H__ */
