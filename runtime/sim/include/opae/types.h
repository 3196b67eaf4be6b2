/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/types.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_TYPES_H__
#define __FPGA_TYPES_H__

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <opae/types_enum.h>

typedef void *fpga_properties;
typedef void *fpga_token;
typedef void *fpga_handle;
typedef uint8_t fpga_guid[16];
typedef void *fpga_event_handle;
#endif /* __FPGA_TYPES_H__ */
