// Python bindings (spgen.runtime._afushell): thin wrappers over the C API. Calls return
// (code, message, value); spgen.runtime turns non-zero codes into exceptions.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <afushell/afushell.h>

namespace py = pybind11;

namespace {

afu_shell_handle H(uintptr_t h) { return reinterpret_cast<afu_shell_handle>(h); }

py::tuple res(afu_result r, py::object value = py::none()) {
    return py::make_tuple(int(r), r == FPGA_OK ? std::string() : std::string(afuShellLastError()), value);
}

struct BufCtx {
    uintptr_t h;
    void* p;
    PyObject* owner;
};

}  // namespace

// A run's counters as spgen.runtime.RunResult's fields (also lbm_bindings.cpp's run_card).
py::dict run_dict(const afu_shell_run_result& r) {
    py::dict d;
    d["total_cycles"] = r.total_cycles;
    d["moved_cycles"] = r.moved_cycles;
    d["stall_rate"] = r.stall_rate;
    d["elapsed_ns"] = r.elapsed_ns;
    d["in_total_cycles"] = r.in_total_cycles;
    d["in_moved_cycles"] = r.in_moved_cycles;
    d["prime_cycles"] = r.prime_cycles;
    d["out_stall_rate"] = r.out_stall_rate;
    d["in_first_cycles"] = r.in_first_cycles;
    d["flowing_stall_rate"] = r.flowing_stall_rate;
    return d;
}

void bind_rdma(py::module& m);  // rdma_bindings.cpp
void bind_sort(py::module& m);  // sort_bindings.cpp
void bind_lbm(py::module& m);   // lbm_bindings.cpp

PYBIND11_MODULE(_afushell, m) {
    bind_rdma(m);
    bind_sort(m);
    bind_lbm(m);
    m.doc() = "afushell runtime C API";
    m.def("error_name", [](int code) { return std::string(afuShellErrStr(code)); });
    py::dict codes;
    codes["NULL_POINTER"] = int(AFU_ERR_NULL_POINTER);
    codes["ZERO_COUNT"] = int(AFU_ERR_ZERO_COUNT);
    codes["BAD_COUNT"] = int(AFU_ERR_BAD_COUNT);
    codes["ALIGNMENT"] = int(AFU_ERR_ALIGNMENT);
    codes["OUT_OF_RANGE"] = int(AFU_ERR_OUT_OF_RANGE);
    codes["NOT_PREPARED"] = int(AFU_ERR_NOT_PREPARED);
    codes["CLOSED"] = int(AFU_ERR_CLOSED);
    codes["TIMEOUT"] = int(AFU_ERR_TIMEOUT);
    codes["BAD_TYPE"] = int(AFU_ERR_BAD_TYPE);
    codes["DEVICE"] = int(AFU_ERR_DEVICE);
    codes["NO_SHELL"] = int(AFU_ERR_NO_SHELL);
    codes["BAD_URI"] = int(AFU_ERR_BAD_URI);
    codes["UNKNOWN_REG"] = int(AFU_ERR_UNKNOWN_REG);
    codes["RECORD_WIDTH"] = int(AFU_ERR_RECORD_WIDTH);
    codes["BAD_REQUEST"] = int(AFU_ERR_BAD_REQUEST);
    codes["REG_VALUE"] = int(AFU_ERR_REG_VALUE);
    codes["AFU_ID"] = int(AFU_ERR_AFU_ID);
    codes["BUSY"] = int(FPGA_BUSY);
    codes["INVALID_PARAM"] = int(FPGA_INVALID_PARAM);
    codes["NOT_FOUND"] = int(FPGA_NOT_FOUND);
    codes["NOT_SUPPORTED"] = int(FPGA_NOT_SUPPORTED);
    m.attr("CODES") = codes;

    m.def("open", [](const std::string& uri) {
        afu_shell_handle h = nullptr;
        afu_result r;
        {
            py::gil_scoped_release nogil;
            r = afuShellOpen(uri.c_str(), &h);
        }
        return res(r, py::int_(reinterpret_cast<uintptr_t>(h)));
    });
    m.def("close", [](uintptr_t h) {
        afu_result r;
        {
            py::gil_scoped_release nogil;
            r = afuShellClose(H(h));
        }
        return res(r);
    });
    m.def("alloc", [](py::object owner, uintptr_t h, size_t n) {
        void* p = nullptr;
        afu_result r = afuShellAllocH(H(h), n, &p);
        if (r != FPGA_OK) return res(r);
        owner.inc_ref();
        py::capsule cap(new BufCtx{h, p, owner.ptr()}, [](void* c) {
            auto* b = static_cast<BufCtx*>(c);
            afuShellFreeH(H(b->h), b->p);
            py::handle(b->owner).dec_ref();
            delete b;
        });
        return res(r, py::array_t<uint8_t>({py::ssize_t(n)}, {py::ssize_t(1)}, static_cast<uint8_t*>(p), cap));
    });
    m.def("dma", [](uintptr_t h, uintptr_t dst, uintptr_t src, size_t n, int type) {
        afu_result r;
        uint64_t ns = 0;
        {
            py::gil_scoped_release nogil;
            r = afuShellDMATransferH(H(h), reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
                                     dma_transfer_type_t(type));
            if (r == FPGA_OK) afuShellElapsedNs(H(h), &ns);
        }
        return res(r, py::int_(ns));
    });
    m.def("dma_async", [](uintptr_t h, uintptr_t dst, uintptr_t src, size_t n, int type) {
        afu_shell_request q = nullptr;
        afu_result r = afuShellDMATransferAsyncH(H(h), reinterpret_cast<void*>(dst),
                                                  reinterpret_cast<const void*>(src), n,
                                                  dma_transfer_type_t(type), &q);
        return res(r, py::int_(reinterpret_cast<uintptr_t>(q)));
    });
    m.def("wait", [](uintptr_t q, uint64_t timeout_ns) {
        afu_result r;
        uint64_t ns = 0;
        {
            py::gil_scoped_release nogil;
            r = afuShellWait(reinterpret_cast<afu_shell_request>(q), timeout_ns, &ns);
        }
        return res(r, py::int_(ns));
    });
    m.def("reconfigure", [](uintptr_t h, const std::string& build, bool keep_ddr, const std::string& afu_id) {
        afu_result r;
        uint64_t ns = 0;
        {
            py::gil_scoped_release nogil;
            r = afuShellReconfigure(H(h), build.c_str(), keep_ddr ? AFU_RECONF_KEEP_DDR : 0u,
                                    afu_id.empty() ? nullptr : afu_id.c_str(), &ns);
        }
        return res(r, py::int_(ns));
    });
    m.def("sim_info", [](uintptr_t h) {
        const char* text = "";
        afu_result r = afuShellSimInfo(H(h), &text);
        return res(r, py::str(text));
    });
    m.def("peer_register", [](uintptr_t h, uint64_t cuda_ptr, size_t n) {
        uint64_t bus = 0;
        afu_result r = afuShellPeerRegister(H(h), cuda_ptr, n, &bus);
        return res(r, py::int_(bus));
    });
    m.def("peer_unregister", [](uintptr_t h, uint64_t bus) { return res(afuShellPeerUnregister(H(h), bus)); });
    m.def("peer_write", [](uintptr_t h, uint64_t bus, py::buffer b) {
        py::buffer_info info = b.request();
        size_t n = size_t(info.size * info.itemsize);
        return res(afuShellPeerWrite(H(h), bus, info.ptr, n));
    });
    m.def("peer_read", [](uintptr_t h, uint64_t bus, size_t n) {
        py::array_t<uint8_t> out({py::ssize_t(n)});
        afu_result r = afuShellPeerRead(H(h), out.mutable_data(), bus, n);
        return res(r, out);
    });
    m.def("peer_staged", [](uintptr_t h, uintptr_t dst, uintptr_t src, size_t n, int type) {
        afu_result r;
        uint64_t ns = 0;
        {
            py::gil_scoped_release nogil;
            r = afuShellPeerStaged(H(h), reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
                                   dma_transfer_type_t(type), &ns);
        }
        return res(r, py::int_(ns));
    });
    m.def("card_dma", [](uintptr_t h, uintptr_t dst, uintptr_t src, size_t n, int type, uint32_t repeat,
                         uint32_t src_step, uint32_t dst_step) {
        afu_result r;
        afu_shell_card_dma_result c{};
        {
            py::gil_scoped_release nogil;
            r = afuShellCardDMA(H(h), reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
                                dma_transfer_type_t(type), repeat, src_step, dst_step, &c);
        }
        py::dict d;
        d["transfers"] = c.transfers;
        d["last_cycles"] = c.last_cycles;
        d["seq_cycles"] = c.seq_cycles;
        d["wait_cycles"] = c.wait_cycles;
        d["elapsed_ns"] = c.elapsed_ns;
        return res(r, d);
    });
    // a poll of a simulated card spends host time while the card runs: without the GIL
    m.def("done", [](uintptr_t q) { return afuShellRequestDone(reinterpret_cast<afu_shell_request>(q)); },
          py::call_guard<py::gil_scoped_release>());
    m.def("reg_offset", [](uintptr_t h, const std::string& name) {
        uint64_t off = 0;
        afu_result r = afuShellRegOffset(H(h), name.c_str(), &off);
        return res(r, py::int_(off));
    });
    m.def("read_reg", [](uintptr_t h, uint64_t off) {
        uint64_t v = 0;
        afu_result r;
        {
            py::gil_scoped_release nogil;
            r = afuShellReadRegAt(H(h), off, &v);
        }
        return res(r, py::int_(v));
    });
    m.def("write_reg", [](uintptr_t h, uint64_t off, uint64_t v) {
        return res(afuShellWriteRegAt(H(h), off, v));
    });
    m.def("reg_type", [](uintptr_t h, const std::string& name) {
        const char* t = "";
        afu_result r = afuShellRegType(H(h), name.c_str(), &t);
        return res(r, py::str(t));
    });
    m.def("write_reg_value", [](uintptr_t h, const std::string& name, double v) {
        return res(afuShellWriteRegValue(H(h), name.c_str(), v));
    });
    m.def("read_reg_value", [](uintptr_t h, const std::string& name) {
        double v = 0;
        afu_result r = afuShellReadRegValue(H(h), name.c_str(), &v);
        return res(r, py::float_(v));
    });
    m.def("run", [](uintptr_t h, uint64_t src, uint64_t dst, uint64_t n) {
        afu_shell_run_result out{};
        afu_result r;
        {
            py::gil_scoped_release nogil;
            r = afuShellRun(H(h), src, dst, n, &out);
        }
        return res(r, run_dict(out));
    });
    m.def("counters", [](uintptr_t h) {
        afu_shell_run_result out{};
        afu_result r = afuShellCounters(H(h), &out);
        return res(r, run_dict(out));
    });
    m.def("elapsed_ns", [](uintptr_t h) {
        uint64_t ns = 0;
        afu_result r = afuShellElapsedNs(H(h), &ns);
        return res(r, py::int_(ns));
    });
    m.def("core_param", [](uintptr_t h, const std::string& name) {
        int64_t v = 0;
        afu_result r = afuShellCoreParam(H(h), name.c_str(), &v);
        return res(r, py::int_(v));
    });
    m.def("info", [](uintptr_t h) {
        afu_shell_info i{};
        afu_result r = afuShellInfo(H(h), &i);
        py::dict d;
        d["n_cores"] = i.n_cores;
        d["in_record_words"] = i.in_record_words;
        d["out_record_words"] = i.out_record_words;
        d["n_regs"] = i.n_regs;
        d["desc_fifo_depth"] = i.desc_fifo_depth;
        d["simulated"] = bool(i.simulated);
        return res(r, d);
    });
    m.def("sim_stats", [](uintptr_t h) {
        afu_shell_sim_stats s{};
        afu_result r = afuShellSimStats(H(h), &s);
        py::dict d;
        d["now_ns"] = s.now_ns;
        d["cycles"] = s.cycles;
        d["wall_s"] = s.wall_s;
        d["bus_errors"] = s.bus_errors;
        return res(r, d);
    });
    m.def("sim_host_time", [](uintptr_t h, int op, uint64_t cycle) {
        uint64_t now = 0;
        afu_result r = afuShellSimHostTime(H(h), op, cycle, &now);
        return res(r, py::int_(now));
    });
    m.def("set_max_descriptor", [](uintptr_t h, uint64_t b) { return res(afuShellSetMaxDescriptor(H(h), b)); });
    m.def("set_checks", [](uintptr_t h, bool on) { return res(afuShellSetChecks(H(h), on ? 1 : 0)); });
}
