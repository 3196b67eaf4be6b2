/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/mmio.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_MMIO_H__
#define __FPGA_MMIO_H__

#include <opae/types.h>

#ifdef __cplusplus
extern "C" {
#endif

fpga_result fpgaMapMMIO(fpga_handle handle, uint32_t mmio_num, uint64_t **mmio_ptr);
fpga_result fpgaUnmapMMIO(fpga_handle handle, uint32_t mmio_num);
fpga_result fpgaReadMMIO64(fpga_handle handle, uint32_t mmio_num, uint64_t offset, uint64_t *value);
fpga_result fpgaWriteMMIO64(fpga_handle handle, uint32_t mmio_num, uint64_t offset, uint64_t value);

#ifdef __cplusplus
}
#endif
#endif /* __FPGA_MMIO_H__ */
