/**
 * @file afushell.hpp
 * @brief C++ RAII layer over the afushell C API: exceptions instead of codes,
 *        handles closed and buffers released by destructors.
 */
#ifndef AFUSHELL_AFUSHELL_HPP
#define AFUSHELL_AFUSHELL_HPP

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "afushell.h"

namespace afushell {

/** A failed runtime call: its code (afu_result) and message. */
class Failure : public std::runtime_error {
public:
    Failure(afu_result code, const std::string& msg)
        : std::runtime_error(msg + " [" + afuShellErrStr(code) + "]"), code_(code) {}
    afu_result code() const { return code_; }
private:
    afu_result code_;
};

inline void ok(afu_result r) {
    if (r != FPGA_OK) throw Failure(r, afuShellLastError());
}

class Card;

/** Host memory shared with the card; released when the last owner goes. */
class HostBuffer {
public:
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer() { afuShellFreeH(h_, ptr_); }
    void* data() const { return ptr_; }
    size_t size() const { return size_; }
    template <class T> T* as() const { return static_cast<T*>(ptr_); }
private:
    friend class Card;
    HostBuffer(afu_shell_handle h, size_t n) : h_(h), size_(n) { ok(afuShellAllocH(h, n, &ptr_)); }
    afu_shell_handle h_;
    void* ptr_ = nullptr;
    size_t size_;
};

/** An asynchronous transfer; the destructor waits for it. */
class Transfer {
public:
    Transfer(const Transfer&) = delete;
    Transfer& operator=(const Transfer&) = delete;
    ~Transfer() { if (req_) afuShellWait(req_, UINT64_MAX, nullptr); }
    /** Waits up to timeout_ns (simulated ns in simulation); false on timeout. */
    bool wait(uint64_t timeout_ns = UINT64_MAX) {
        if (!req_) return true;
        afu_result r = afuShellWait(req_, timeout_ns, &elapsed_);
        if (r == AFU_ERR_TIMEOUT) return false;
        req_ = nullptr;
        ok(r);
        return true;
    }
    bool done() const { return !req_ || afuShellRequestDone(req_) == 1; }
    uint64_t elapsed_ns() const { return elapsed_; }
private:
    friend class Card;
    explicit Transfer(afu_shell_request r) : req_(r) {}
    afu_shell_request req_;
    uint64_t elapsed_ = 0;
};

/** An open shell (simulated or real card). */
class Card {
public:
    static std::shared_ptr<Card> open(const std::string& uri) {
        afu_shell_handle h = nullptr;
        ok(afuShellOpen(uri.c_str(), &h));
        return std::shared_ptr<Card>(new Card(h));
    }
    Card(const Card&) = delete;
    Card& operator=(const Card&) = delete;
    ~Card() { afuShellClose(h_); }

    std::shared_ptr<HostBuffer> alloc(size_t bytes) {
        return std::shared_ptr<HostBuffer>(new HostBuffer(h_, bytes));
    }
    /** Blocking copy; returns the request-to-completion time in ns. */
    uint64_t dma(void* dst, const void* src, size_t n, dma_transfer_type_t t) {
        ok(afuShellDMATransferH(h_, dst, src, n, t));
        return elapsed_ns();
    }
    std::unique_ptr<Transfer> dma_async(void* dst, const void* src, size_t n, dma_transfer_type_t t) {
        afu_shell_request r = nullptr;
        ok(afuShellDMATransferAsyncH(h_, dst, src, n, t, &r));
        return std::unique_ptr<Transfer>(new Transfer(r));
    }
    /** Writes a register by value: a core Reg converted by its type (afuShellWriteRegValue:
     *  `write_reg("omega", 1.7)` writes the binary32 pattern of 1.7f), a shell register's 64
     *  bits from a non-negative integer. Refuses what does not fit, and bools at compile time. */
    template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
    void write_reg(const std::string& name, T v) {
        static_assert(!std::is_same<T, bool>::value,
                      "write_reg: a bool is not a register value; write 0 or 1");
        if (*reg_type(name)) return ok(afuShellWriteRegValue(h_, name.c_str(), double(v)));
        bool negative = false;
        if constexpr (std::is_signed<T>::value) negative = v < T(0);
        if (std::is_floating_point<T>::value || negative)
            throw Failure(AFU_ERR_REG_VALUE, name + " is a 64-bit shell register: it takes a "
                                             "non-negative integer (its raw bits)");
        ok(afuShellWriteReg(h_, name.c_str(), uint64_t(v)));
    }
    /** Writes a register's raw bits (a float Reg's binary32 pattern, a shell register's 64). */
    void write_reg_bits(const std::string& name, uint64_t bits) { ok(afuShellWriteReg(h_, name.c_str(), bits)); }
    /** A core Reg read back as a number of its type. */
    double read_reg_value(const std::string& name) {
        double v = 0;
        ok(afuShellReadRegValue(h_, name.c_str(), &v));
        return v;
    }
    /** "f32", "i32", "u32" or "bool" for a core Reg, "" for a shell register. */
    const char* reg_type(const std::string& name) {
        const char* t = "";
        ok(afuShellRegType(h_, name.c_str(), &t));
        return t;
    }
    /** A register's raw bits. */
    uint64_t read_reg(const std::string& name) {
        uint64_t v = 0;
        ok(afuShellReadReg(h_, name.c_str(), &v));
        return v;
    }
    void write_reg_at(uint64_t off, uint64_t v) { ok(afuShellWriteRegAt(h_, off, v)); }
    uint64_t read_reg_at(uint64_t off) {
        uint64_t v = 0;
        ok(afuShellReadRegAt(h_, off, &v));
        return v;
    }
    afu_shell_run_result run(uint64_t src, uint64_t dst, uint64_t n) {
        afu_shell_run_result r{};
        ok(afuShellRun(h_, src, dst, n, &r));
        return r;
    }
    afu_shell_info info() const {
        afu_shell_info i{};
        ok(afuShellInfo(h_, &i));
        return i;
    }
    /** For tools that compare what comes back with what went (round trips, bandwidth
     *  checks): on a card with cores every transfer streams through them, so refuse it
     *  with a message that says so (FPGA_NOT_SUPPORTED). */
    void require_plain_copy(const std::string& tool) const {
        const afu_shell_info i = info();
        if (i.n_cores)
            throw Failure(FPGA_NOT_SUPPORTED,
                          tool + ": the card has " + std::to_string(i.n_cores) + " core(s) and every "
                          "transfer streams through them, so data does not come back as it went; " +
                          tool + " needs a loop-back build (sim:loopback, or `spgen build --loopback -o DIR`)");
    }
    uint64_t elapsed_ns() const {
        uint64_t ns = 0;
        ok(afuShellElapsedNs(h_, &ns));
        return ns;
    }
    afu_shell_sim_stats sim_stats() const {
        afu_shell_sim_stats s{};
        ok(afuShellSimStats(h_, &s));
        return s;
    }
    /** Reprograms the card's AFU slot with a `spgen build` directory (afuShellReconfigure,
     *  docs/reconf.md); returns the simulated time it took in ns. */
    uint64_t reconfigure(const std::string& build, bool keep_ddr = false, const std::string& afu_id = "") {
        uint64_t ns = 0;
        ok(afuShellReconfigure(h_, build.c_str(), keep_ddr ? AFU_RECONF_KEEP_DDR : 0u,
                               afu_id.empty() ? nullptr : afu_id.c_str(), &ns));
        return ns;
    }
    void set_max_descriptor(uint64_t bytes) { ok(afuShellSetMaxDescriptor(h_, bytes)); }
    void set_checks(bool on) { ok(afuShellSetChecks(h_, on ? 1 : 0)); }
    afu_shell_handle handle() const { return h_; }

private:
    explicit Card(afu_shell_handle h) : h_(h) {}
    afu_shell_handle h_;
};

}  // namespace afushell
#endif
