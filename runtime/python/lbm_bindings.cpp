// spgen.runtime._afushell's LBM functions: the grid code of afushell/lbm.hpp over numpy
// arrays, which spgen.lbm wraps (one implementation for C++ programs, MPI ranks and Python).
// Arrays come in C order and go out as new arrays; bad input raises ValueError.
// lbm_run_card is lbm_card.hpp's run_card on an open card (spgen.lbm.run_card wraps it).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <afushell/lbm.hpp>
#include <afushell/lbm_card.hpp>

#include <cstring>

#include <limits>
#include <string>

namespace py = pybind11;
namespace lbm = afushell::lbm;

py::dict run_dict(const afu_shell_run_result& r);  // bindings.cpp

namespace {
template <class T>
using Arr = py::array_t<T, py::array::c_style | py::array::forcecast>;

std::string shape_of(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

// A grid's attr as (H, W) uint32, checked as lbm::check_grid checks a Grid.
Arr<uint32_t> checked_attr(const Arr<uint32_t>& attr) {
  if (attr.ndim() != 2 || attr.shape(0) < 3 || attr.shape(1) < 3)
    throw std::invalid_argument("attr must be a 2-D (H, W) grid of at least 3x3, got shape " + shape_of(attr));
  lbm::detail::check_cells(attr.data(), int(attr.shape(1)), int(attr.shape(0)));
  return attr;
}

Arr<uint32_t> as_array(const lbm::Grid& g) {
  Arr<uint32_t> out({py::ssize_t(g.height), py::ssize_t(g.width)});
  std::copy(g.attr.begin(), g.attr.end(), out.mutable_data());
  return out;
}

template <class T>
py::tuple moments(const Arr<T>& f, const py::object& attr_obj) {
  if (f.ndim() != 3 || f.shape(0) != lbm::Q)
    throw std::invalid_argument("f must have shape (9, H, W), got " + shape_of(f));
  const py::ssize_t h = f.shape(1), w = f.shape(2);
  const std::size_t n = std::size_t(h * w);
  Arr<uint32_t> attr;
  if (!attr_obj.is_none()) {
    attr = Arr<uint32_t>::ensure(attr_obj);
    if (!attr || attr.ndim() != 2 || attr.shape(0) != h || attr.shape(1) != w)
      throw std::invalid_argument("attr must have the shape (H, W) of f's grid, (" + std::to_string(h) + ", " +
                                  std::to_string(w) + ")");
  }
  Arr<double> rho({h, w}), ux({h, w}), uy({h, w});
  const T* fp = f.data();
  const uint32_t* ap = attr_obj.is_none() ? nullptr : attr.data();
  {
    py::gil_scoped_release nogil;
    lbm::detail::moments(
        n, [&](std::size_t k, int i) { return double(fp[std::size_t(i) * n + k]); },
        [&](std::size_t k) { return ap && (ap[k] & lbm::ATTR_MASK) != lbm::FLUID; }, rho.mutable_data(),
        ux.mutable_data(), uy.mutable_data());
  }
  return py::make_tuple(rho, ux, uy);
}
}  // namespace

void bind_lbm(py::module& m) {
  m.attr("lbm_record_bytes") = lbm::RECORD_BYTES;
  m.attr("lbm_record_descr") = std::string(lbm::RECORD_NPY_DESCR);
  m.def("lbm_closed_box", [](int w, int h) { return as_array(lbm::closed_box(w, h)); }, py::arg("width"),
        py::arg("height"), "attr (H, W) uint32: fluid inside, resting walls on the outermost layer.");
  m.def("lbm_cavity", [](int w, int h) { return as_array(lbm::cavity(w, h)); }, py::arg("width"),
        py::arg("height"), "attr (H, W) uint32 of a lid-driven cavity.");
  m.def(
      "lbm_channel",
      [](int w, int h, py::object radius, py::object center) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        double cx = nan, cy = nan;
        if (!center.is_none()) {
          auto c = center.cast<std::pair<double, double>>();
          cx = c.first, cy = c.second;
        }
        return as_array(lbm::channel(w, h, radius.is_none() ? -1.0 : radius.cast<double>(), cx, cy));
      },
      py::arg("width"), py::arg("height"), py::arg("radius") = py::none(), py::arg("center") = py::none(),
      "attr (H, W) uint32 of a channel along x with a circular obstacle.");
  m.def("lbm_check_grid", &checked_attr, py::arg("attr"),
        "The attr grid (H, W) as uint32, or ValueError: at least 3x3, non-fluid outermost layer.");
  m.def(
      "lbm_initial_f",
      [](py::ssize_t h, py::ssize_t w, double rho) {
        Arr<float> f({py::ssize_t(lbm::Q), h, w});
        lbm::detail::fill_initial(f.mutable_data(), std::size_t(h * w), rho);
        return f;
      },
      py::arg("height"), py::arg("width"), py::arg("rho"), "Equilibrium at rest, float32 (9, H, W).");
  m.def(
      "lbm_to_records",
      [](const Arr<float>& f, const Arr<uint32_t>& attr_in) {
        const Arr<uint32_t> attr = checked_attr(attr_in);
        const py::ssize_t h = attr.shape(0), w = attr.shape(1);
        if (f.ndim() != 3 || f.shape(0) != lbm::Q || f.shape(1) != h || f.shape(2) != w)
          throw std::invalid_argument("f must have shape (9, " + std::to_string(h) + ", " + std::to_string(w) +
                                      "), got " + shape_of(f));
        const std::size_t n = std::size_t(h * w);
        py::array_t<uint8_t> out(py::ssize_t(n * lbm::RECORD_BYTES));
        auto* rec = reinterpret_cast<lbm::Record*>(out.mutable_data());
        const float* fp = f.data();
        const uint32_t* ap = attr.data();
        {
          py::gil_scoped_release nogil;
          lbm::detail::fill_records(fp, ap, n, rec);
        }
        return out;
      },
      py::arg("f"), py::arg("attr"), "The record stream's bytes from f (9, H, W) and attr (H, W).");
  m.def(
      "lbm_from_records",
      [](const Arr<uint8_t>& bytes, int width) {
        if (bytes.ndim() != 1 || bytes.size() % lbm::RECORD_BYTES)
          throw std::invalid_argument("expected whole records of " + std::to_string(lbm::RECORD_BYTES) + " bytes");
        const std::size_t n = std::size_t(bytes.size()) / lbm::RECORD_BYTES;
        lbm::detail::check_stream(n, width);
        const py::ssize_t h = py::ssize_t(n / std::size_t(width));
        Arr<float> f({py::ssize_t(lbm::Q), h, py::ssize_t(width)});
        Arr<uint32_t> attr({h, py::ssize_t(width)});
        const auto* rec = reinterpret_cast<const lbm::Record*>(bytes.data());
        float* fp = f.mutable_data();
        uint32_t* ap = attr.mutable_data();
        {
          py::gil_scoped_release nogil;
          lbm::detail::split_records(rec, n, fp, ap);
        }
        return py::make_tuple(f, attr);
      },
      py::arg("records"), py::arg("width"), "(f (9, H, W), attr (H, W)) from a record stream's bytes.");
  m.def(
      "lbm_macroscopic",
      [](py::array f, py::object attr) {
        if (f.dtype().is(py::dtype::of<float>())) return moments<float>(Arr<float>::ensure(f), attr);
        return moments<double>(Arr<double>::ensure(f), attr);
      },
      py::arg("f"), py::arg("attr") = py::none(), "rho, ux, uy (H, W) float64; NaN on non-fluid cells if attr given.");
  m.def(
      "lbm_slab_layout",
      [](int height, int cards, int depth) {
        py::list out;
        for (const lbm::Slab& s : lbm::slab_layout(height, cards, depth))
          out.append(py::make_tuple(s.lo, s.hi, s.first, s.last));
        return out;
      },
      py::arg("height"), py::arg("cards"), py::arg("depth"),
      "(lo, hi, first, last) of each card's slab: own rows [lo, hi), stream rows [first, last).");
  m.def(
      "lbm_run_card",
      [](uintptr_t h, const Arr<uint8_t>& bytes, int width, uint64_t steps, double omega, double uw_x,
         double uw_y) -> py::tuple {
        if (bytes.ndim() != 1 || bytes.size() % lbm::RECORD_BYTES)
          throw std::invalid_argument("expected whole records of " + std::to_string(lbm::RECORD_BYTES) + " bytes");
        std::vector<lbm::Record> rec(std::size_t(bytes.size()) / lbm::RECORD_BYTES);
        std::memcpy(rec.data(), bytes.data(), std::size_t(bytes.size()));
        lbm::CardResult r;
        {
          py::gil_scoped_release nogil;
          r = lbm::run_card(reinterpret_cast<afu_shell_handle>(h), rec, width, steps, lbm::Params{omega, uw_x, uw_y});
        }
        if (!r.ok()) return py::make_tuple(int(r.code), r.message, py::none());
        py::array_t<uint8_t> out(bytes.size());
        std::memcpy(out.mutable_data(), rec.data(), std::size_t(bytes.size()));
        py::list runs;
        for (const auto& run : r.runs) runs.append(run_dict(run));
        return py::make_tuple(0, std::string(), py::make_tuple(out, runs));
      },
      py::arg("handle"), py::arg("records"), py::arg("width"), py::arg("steps"), py::arg("omega"),
      py::arg("uw_x"), py::arg("uw_y"),
      "(code, message, (records' bytes, [run counters])) of lbm_card.hpp's run_card on an open card.");
}
