// spgen.runtime._afushell's sort functions: the host side of the distributed sort
// (runtime/sort/include/afushell/sort.hpp) that spgen.sort drives over a Python cluster.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <afushell/sort.hpp>

namespace py = pybind11;
namespace sd = afushell::sort_detail;

namespace {
// Stable LSD counting passes over `bits` bits of key - lo, `digit_bits` at a time.
template <class Key>
py::tuple local_passes(py::array keys, py::object payloads, uint64_t lo, int bits, int digit_bits) {
  auto k = py::array_t<Key, py::array::c_style>::ensure(keys);
  std::vector<Key> kv(k.data(), k.data() + k.size());
  std::vector<uint32_t> pv;
  const bool with_pay = !payloads.is_none();
  if (with_pay) {
    auto p = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(payloads);
    if (!p || p.size() != k.size()) throw std::invalid_argument("sort_local_passes: a uint32 payload per key");
    pv.assign(p.data(), p.data() + p.size());
  }
  {
    py::gil_scoped_release nogil;
    for (int sh = 0; sh < bits; sh += digit_bits) sd::counting_pass<Key>(kv, with_pay ? &pv : nullptr, Key(lo), sh, digit_bits);
  }
  py::array_t<Key> ko(py::ssize_t(kv.size()));
  std::copy(kv.begin(), kv.end(), ko.mutable_data());
  if (!with_pay) return py::make_tuple(ko, py::none());
  py::array_t<uint32_t> po(py::ssize_t(pv.size()));
  std::copy(pv.begin(), pv.end(), po.mutable_data());
  return py::make_tuple(ko, po);
}
}  // namespace

void bind_sort(py::module& m) {
  m.def(
      "sort_plan",
      [](py::array_t<uint32_t, py::array::c_style | py::array::forcecast> hists, int card, bool exact) {
        if (hists.ndim() != 2 || hists.shape(0) < 1 || card < 0 || card >= hists.shape(0))
          throw std::invalid_argument("sort_plan: counts [cards, bins] and a card among them");
        const int n = int(hists.shape(0));
        std::vector<uint32_t> h(hists.data(), hists.data() + hists.size());
        std::vector<sd::Put> pieces;
        std::pair<uint64_t, uint64_t> span;
        uint64_t received = sd::plan(h, n, card, exact, pieces, exact ? nullptr : &span);
        py::list out;
        for (const sd::Put& p : pieces) out.append(py::make_tuple(p.local, p.dst, p.remote, p.bytes));
        py::object bins = exact || span.first > span.second ? py::object(py::none())
                                                            : py::object(py::make_tuple(span.first, span.second));
        return py::make_tuple(out, received, bins);
      },
      py::arg("hists"), py::arg("card"), py::arg("exact"),
      "Card `card`'s pieces (offset in its send buffer, destination index, offset in the "
      "destination's receive buffer, keys), the keys it receives and its first and last bin "
      "(None: none, or exact), from every card's counts [source, bin].");
  m.def(
      "sort_issue_order",
      [](const std::vector<std::pair<int, int>>& pairs) {
        std::vector<sd::Put> puts;
        for (const auto& [c, d] : pairs) puts.push_back({c, d, 0, 0, 0});
        return sd::issue_order(puts);
      },
      py::arg("pairs"), "The order (indices) in which puts between (card, destination) pairs are issued.");
  m.def("sort_digit_bits", &sd::choose_digit_bits, py::arg("max_bits"), py::arg("pairs"), py::arg("sort_bits"),
        py::arg("elements"), py::arg("odd_penalty"), "The local passes' digit width on the scatter writers.");
  m.def(
      "sort_local_passes",
      [](py::array keys, py::object payloads, uint64_t lo, int bits, int digit_bits) {
        if (digit_bits < 1 || digit_bits > 16) throw std::invalid_argument("sort_local_passes: digits of 1..16 bits");
        if (keys.dtype().is(py::dtype::of<uint32_t>())) return local_passes<uint32_t>(keys, payloads, lo, bits, digit_bits);
        if (keys.dtype().is(py::dtype::of<uint64_t>())) return local_passes<uint64_t>(keys, payloads, lo, bits, digit_bits);
        throw std::invalid_argument("sort_local_passes: uint32 or uint64 keys");
      },
      py::arg("keys"), py::arg("payloads"), py::arg("lo"), py::arg("bits"), py::arg("digit_bits"),
      "Keys (and uint32 payloads, or None) stably sorted by the `bits` bits of key - lo, in "
      "counting passes of `digit_bits` bits (sort.hpp's counting_pass).");
  m.def("sort_aligned_shift", &sd::aligned_shift, py::arg("lo"), py::arg("hi"), py::arg("bits"),
        "The smallest shift that puts [lo, hi] into 2**bits bins (key >> shift) - (lo >> shift).");
}
