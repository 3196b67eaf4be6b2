/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/fpga.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_FPGA_H__
#define __FPGA_FPGA_H__

#include <opae/types.h>
#include <opae/access.h>
#include <opae/buffer.h>
#include <opae/enum.h>
#include <opae/event.h>
#include <opae/manage.h>
#include <opae/mmio.h>
#include <opae/properties.h>
#include <opae/utils.h>

#endif /* __FPGA_FPGA_H__ */
