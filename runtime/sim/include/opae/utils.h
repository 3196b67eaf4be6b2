/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/utils.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_UTILS_H__
#define __FPGA_UTILS_H__

#include <opae/types.h>

#ifdef __cplusplus
extern "C" {
#endif

const char *fpgaErrStr(fpga_result e);

#ifdef __cplusplus
}
#endif
#endif /* __FPGA_UTILS_H__ */
