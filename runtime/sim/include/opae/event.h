/* The afushell runtime's subset of the OPAE C API, file for file as Intel's opae-sdk
 * lays it out (include/opae/event.h), with the same names, values and signatures, so
 * the runtime compiles unchanged against the real libopae-c. The simulation library
 * implements these calls over the Verilated AFU. */
#ifndef __FPGA_EVENT_H__
#define __FPGA_EVENT_H__

#include <opae/types.h>

#ifdef __cplusplus
extern "C" {
#endif

fpga_result fpgaCreateEventHandle(fpga_event_handle *event_handle);
fpga_result fpgaDestroyEventHandle(fpga_event_handle *event_handle);
fpga_result fpgaGetOSObjectFromEventHandle(const fpga_event_handle eh, int *fd);
fpga_result fpgaRegisterEvent(fpga_handle handle, fpga_event_type event_type,
                              fpga_event_handle event_handle, uint32_t flags);
fpga_result fpgaUnregisterEvent(fpga_handle handle, fpga_event_type event_type,
                                fpga_event_handle event_handle);

#ifdef __cplusplus
}
#endif
#endif /* __FPGA_EVENT_H__ */
