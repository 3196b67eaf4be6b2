/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/properties.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_PROPERTIES_H__
#define __FPGA_PROPERTIES_H__

#include <opae/types.h>

#ifdef __cplusplus
extern "C" {
#endif

fpga_result fpgaGetProperties(fpga_token token, fpga_properties *prop);
fpga_result fpgaDestroyProperties(fpga_properties *prop);
fpga_result fpgaPropertiesSetObjectType(fpga_properties prop, fpga_objtype objtype);
fpga_result fpgaPropertiesSetGUID(fpga_properties prop, fpga_guid guid);

#ifdef __cplusplus
}
#endif
#endif /* __FPGA_PROPERTIES_H__ */
