/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/types_enum.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_TYPES_ENUM_H__
#define __FPGA_TYPES_ENUM_H__


/* Result of every OPAE call. The enumeration ends at FPGA_RECONF_ERROR, exactly as
 * Intel's: a value outside it is not an fpga_result (the afushell runtime returns its
 * own codes as afu_result). */
typedef enum {
    FPGA_OK = 0,
    FPGA_INVALID_PARAM,
    FPGA_BUSY,
    FPGA_EXCEPTION,
    FPGA_NOT_FOUND,
    FPGA_NO_MEMORY,
    FPGA_NOT_SUPPORTED,
    FPGA_NO_DRIVER,
    FPGA_NO_DAEMON,
    FPGA_NO_ACCESS,
    FPGA_RECONF_ERROR
} fpga_result;

typedef enum {
    FPGA_EVENT_INTERRUPT = 0,
    FPGA_EVENT_ERROR,
    FPGA_EVENT_POWER_THERMAL
} fpga_event_type;

typedef enum {
    FPGA_DEVICE = 0,
    FPGA_ACCELERATOR
} fpga_objtype;

enum fpga_buffer_flags {
    FPGA_BUF_PREALLOCATED = (1u << 0),
    FPGA_BUF_QUIET = (1u << 1),
    FPGA_BUF_READ_ONLY = (1u << 2)
};

enum fpga_open_flags {
    FPGA_OPEN_SHARED = (1u << 0)
};

enum fpga_reconf_flags {
    FPGA_RECONF_FORCE = (1u << 0),
    FPGA_RECONF_SKIP_USRCLK = (1u << 1)
};
#endif /* __FPGA_TYPES_ENUM_H__ */
