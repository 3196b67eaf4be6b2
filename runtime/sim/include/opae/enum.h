/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/enum.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_ENUM_H__
#define __FPGA_ENUM_H__

#include <opae/types.h>

#ifdef __cplusplus
extern "C" {
#endif

fpga_result fpgaEnumerate(const fpga_properties *filters, uint32_t num_filters,
                          fpga_token *tokens, uint32_t max_tokens, uint32_t *num_matches);
fpga_result fpgaDestroyToken(fpga_token *token);

#ifdef __cplusplus
}
#endif
#endif /* __FPGA_ENUM_H__ */
