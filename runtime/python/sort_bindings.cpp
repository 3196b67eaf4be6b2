// spgen.runtime._afushell's sort functions: the host side of the distributed sort
// (runtime/sort/include/afushell/sort.hpp) that spgen.sort drives over a Python cluster.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <afushell/sort.hpp>

namespace py = pybind11;
namespace sd = afushell::sort_detail;

namespace {
// Keys and their uint32 payloads (none: `payloads` is None), copied from Python's arrays.
template <class Key>
struct Keys {
  std::vector<Key> k;
  std::vector<uint32_t> p;
  bool with_pay;
  std::vector<uint32_t>* pays() { return with_pay ? &p : nullptr; }
};

template <class Key>
Keys<Key> take(py::array keys, py::object payloads, const char* who) {
  auto k = py::array_t<Key, py::array::c_style>::ensure(keys);
  Keys<Key> out{std::vector<Key>(k.data(), k.data() + k.size()), {}, !payloads.is_none()};
  if (out.with_pay) {
    auto p = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(payloads);
    if (!p || p.size() != k.size()) throw std::invalid_argument(std::string(who) + ": a uint32 payload per key");
    out.p.assign(p.data(), p.data() + p.size());
  }
  return out;
}

template <class Key>
py::tuple give(const Keys<Key>& x) {
  py::array_t<Key> ko(py::ssize_t(x.k.size()));
  std::copy(x.k.begin(), x.k.end(), ko.mutable_data());
  if (!x.with_pay) return py::make_tuple(ko, py::none());
  py::array_t<uint32_t> po(py::ssize_t(x.p.size()));
  std::copy(x.p.begin(), x.p.end(), po.mutable_data());
  return py::make_tuple(ko, po);
}

// Stable LSD counting passes over `bits` bits of key - lo, `digit_bits` at a time.
template <class Key>
py::tuple local_passes(py::array keys, py::object payloads, uint64_t lo, int bits, int digit_bits) {
  Keys<Key> x = take<Key>(keys, payloads, "sort_local_passes");
  {
    py::gil_scoped_release nogil;
    for (int sh = 0; sh < bits; sh += digit_bits) sd::counting_pass<Key>(x.k, x.pays(), Key(lo), sh, digit_bits);
  }
  return give(x);
}

// Keys (and payloads) grouped by bin ((key - lo) >> shift) & (2^bits - 1), stably, or, with
// the counting core's ranks, each to its bin's start plus its rank.
template <class Key>
py::tuple by_bins(py::array keys, py::object payloads, uint64_t lo, int shift, int bits, py::object hist,
                  py::object ranks) {
  Keys<Key> x = take<Key>(keys, payloads, "sort_by_bins");
  std::vector<uint64_t> h;
  std::vector<uint32_t> r;
  const bool by_rank = !ranks.is_none();
  if (by_rank) {
    auto ha = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(hist);
    auto ra = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(ranks);
    if (!ha || !ra || size_t(ra.size()) != x.k.size())
      throw std::invalid_argument("sort_by_bins: a histogram and a rank per key");
    h.assign(ha.data(), ha.data() + ha.size());
    r.assign(ra.data(), ra.data() + ra.size());
  }
  {
    py::gil_scoped_release nogil;
    if (!by_rank) {
      sd::counting_pass<Key>(x.k, x.pays(), Key(lo), shift, bits);
    } else {
      const Key mask = bits ? Key((uint64_t(1) << bits) - 1) : Key(0);
      std::vector<uint64_t> bins(x.k.size());
      for (size_t i = 0; i < x.k.size(); ++i) bins[i] = uint64_t((Key(x.k[i] - Key(lo)) >> shift) & mask);
      sd::move_by_rank<Key>(x.k, x.pays(), bins, h, r);
    }
  }
  return give(x);
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
  m.def(
      "sort_by_bins",
      [](py::array keys, py::object payloads, uint64_t lo, int shift, int bits, py::object hist, py::object ranks) {
        if (bits < 0 || bits > 16) throw std::invalid_argument("sort_by_bins: bins of 0..16 bits");
        if (keys.dtype().is(py::dtype::of<uint32_t>())) return by_bins<uint32_t>(keys, payloads, lo, shift, bits, hist, ranks);
        if (keys.dtype().is(py::dtype::of<uint64_t>())) return by_bins<uint64_t>(keys, payloads, lo, shift, bits, hist, ranks);
        throw std::invalid_argument("sort_by_bins: uint32 or uint64 keys");
      },
      py::arg("keys"), py::arg("payloads"), py::arg("lo"), py::arg("shift"), py::arg("bits"),
      py::arg("hist") = py::none(), py::arg("ranks") = py::none(),
      "Keys (and uint32 payloads, or None) in the order of their bins ((key - lo) >> shift) & "
      "(2**bits - 1): stably (sort.hpp's counting_pass), or with `hist` and the counting core's "
      "`ranks` at their bin's start plus their rank (move_by_rank).");
  m.def(
      "sort_dest_plan",
      [](int max_bits, int digit_bits, const std::vector<std::pair<uint64_t, uint64_t>>& bins,
         const std::vector<std::pair<uint64_t, uint64_t>>& keys) -> py::object {
        const sd::DestCount p = sd::dest_count_plan(max_bits, digit_bits, bins, keys);
        if (!p.first) return py::none();
        return py::make_tuple(p.first, p.bits, p.digits, p.dests, p.base);
      },
      py::arg("max_bits"), py::arg("digit_bits"), py::arg("bins"), py::arg("keys"),
      "The first local digit counted by destination (sort.hpp's dest_count_plan): None, or "
      "(first digit's bits, the other digits' bits, digits, SORT_DESTS, every card's base) from "
      "every card's first and last bin and smallest and largest key (first > last: none).");
  m.def("sort_aligned_shift", &sd::aligned_shift, py::arg("lo"), py::arg("hi"), py::arg("bits"),
        "The smallest shift that puts [lo, hi] into 2**bits bins (key >> shift) - (lo >> shift).");
}
