/* Subset of the OPAE C API (opae/fpga.h, OPAE 2.x) used by the afushell runtime.
 * Same names, types and signatures as Intel's headers, so the runtime compiles
 * unchanged against the real libopae-c; the simulation library implements it
 * over the Verilated AFU. Used only when the real OPAE headers are absent. */
#ifndef __FPGA_FPGA_H__
#define __FPGA_FPGA_H__

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

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
    FPGA_RECONF_ERROR,
    /* Not an OPAE value: widens the enumeration's range so the runtime's own codes
     * (0x100...) are valid fpga_result values in C++ as well as in C. */
    FPGA_RESULT_RANGE_ = 0x7FFFFFFF
} fpga_result;

typedef void *fpga_handle;
typedef void *fpga_token;
typedef void *fpga_properties;
typedef void *fpga_event_handle;
typedef uint8_t fpga_guid[16];

typedef enum { FPGA_DEVICE = 0, FPGA_ACCELERATOR } fpga_objtype;
typedef enum { FPGA_EVENT_INTERRUPT = 0, FPGA_EVENT_ERROR, FPGA_EVENT_POWER_THERMAL } fpga_event_type;

enum fpga_open_flags { FPGA_OPEN_SHARED = (1u << 0) };
enum fpga_buffer_flags {
    FPGA_BUF_PREALLOCATED = (1u << 0),
    FPGA_BUF_QUIET = (1u << 1),
    FPGA_BUF_READ_ONLY = (1u << 2)
};

fpga_result fpgaGetProperties(fpga_token token, fpga_properties *prop);
fpga_result fpgaDestroyProperties(fpga_properties *prop);
fpga_result fpgaPropertiesSetObjectType(fpga_properties prop, fpga_objtype objtype);
fpga_result fpgaPropertiesSetGUID(fpga_properties prop, fpga_guid guid);

fpga_result fpgaEnumerate(const fpga_properties *filters, uint32_t num_filters,
                          fpga_token *tokens, uint32_t max_tokens, uint32_t *num_matches);
fpga_result fpgaDestroyToken(fpga_token *token);

fpga_result fpgaOpen(fpga_token token, fpga_handle *handle, int flags);
fpga_result fpgaClose(fpga_handle handle);

fpga_result fpgaMapMMIO(fpga_handle handle, uint32_t mmio_num, uint64_t **mmio_ptr);
fpga_result fpgaUnmapMMIO(fpga_handle handle, uint32_t mmio_num);
fpga_result fpgaReadMMIO64(fpga_handle handle, uint32_t mmio_num, uint64_t offset, uint64_t *value);
fpga_result fpgaWriteMMIO64(fpga_handle handle, uint32_t mmio_num, uint64_t offset, uint64_t value);

fpga_result fpgaPrepareBuffer(fpga_handle handle, uint64_t len, void **buf_addr,
                              uint64_t *wsid, int flags);
fpga_result fpgaReleaseBuffer(fpga_handle handle, uint64_t wsid);
fpga_result fpgaGetIOAddress(fpga_handle handle, uint64_t wsid, uint64_t *ioaddr);

fpga_result fpgaCreateEventHandle(fpga_event_handle *event_handle);
fpga_result fpgaDestroyEventHandle(fpga_event_handle *event_handle);
fpga_result fpgaGetOSObjectFromEventHandle(const fpga_event_handle eh, int *fd);
fpga_result fpgaRegisterEvent(fpga_handle handle, fpga_event_type event_type,
                              fpga_event_handle event_handle, uint32_t flags);
fpga_result fpgaUnregisterEvent(fpga_handle handle, fpga_event_type event_type,
                                fpga_event_handle event_handle);

const char *fpgaErrStr(fpga_result e);

#ifdef __cplusplus
}
#endif
#endif
