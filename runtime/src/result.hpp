// The C API's one error scheme: an afu_result returned, the calling thread's message
// (afuShellLastError) set -- for the DMA calls (capi.cpp) and the RDMA calls (rdma_capi.cpp).
#pragma once
#include <new>
#include <type_traits>
#include <stdexcept>
#include <string>

#include "afushell/afushell.h"

namespace afushell {

/// What a call refuses or fails with: its code and message.
class Error : public std::runtime_error {
public:
    Error(afu_result code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
    afu_result code() const { return code_; }
private:
    afu_result code_;
};

/// Sets the calling thread's message (empty: clears it) and returns `code`.
afu_result fail(afu_result code, const std::string& msg);

/// Runs f, which returns nothing or an afu_result: FPGA_OK (the message cleared), its result,
/// or the code of what it threw (the message set).
template <class F>
afu_result guarded(F&& f) {
    try {
        if constexpr (std::is_same_v<decltype(f()), void>) {
            f();
            return fail(FPGA_OK, "");
        } else {
            return f();
        }
    } catch (const Error& e) {
        return fail(e.code(), e.what());
    } catch (const std::bad_alloc&) {
        return fail(FPGA_NO_MEMORY, "out of memory");
    } catch (const std::exception& e) {
        return fail(FPGA_EXCEPTION, e.what());
    }
}

}  // namespace afushell
