// spgen.runtime._afushell's sort functions: the distributed sort of
// runtime/sort/include/afushell/sort.hpp (its sequence of phases and its planning) run by
// spgen.sort over the simulator of a Python cluster (the model or RTL cards).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <afushell/sort.hpp>
#include <functional>
#include <memory>
#include <tuple>

#include "cluster.hpp"
#include "cluster_backend.hpp"
#include "rdma_sim.hpp"

namespace py = pybind11;
namespace sd = afushell::sort_detail;

namespace {
// The sort of an array spread over the cards of a Python cluster (spgen.sort._sort_spread):
// afushell::sort_spread over the C API's interface on the cluster's own simulator, `sim`
// (an RtlCluster of this module, or the model's Cluster of _spgen_rdma), which stays the
// caller's. Returns (failed, the engine's status code of a failed transfer (100: still in
// flight; 0: not a transfer), the message, counts per card, phases as (name, where,
// seconds, cycles, bytes, operations), shift, local passes, the dump of a timeout).
using ClusterView = std::unique_ptr<afu_rdma_cluster_s, void (*)(afu_rdma_cluster)>;

// The C API's cluster over a Python cluster's own simulator, `sim` (an RtlCluster of this
// module, or the model's Cluster of _spgen_rdma), which stays the caller's.
ClusterView view(py::object sim) {
  std::unique_ptr<rdma::ClusterBackend> b;
  if (py::isinstance<spgsim::RtlCluster>(sim)) {
    b = rdma::view_rtl_cards(sim.cast<spgsim::RtlCluster&>());
  } else {
    // The model's Cluster comes from _spgen_rdma, which compiles the same rdma_sim.hpp and
    // registers the type with pybind11 for every module built by the same compiler and
    // pybind11 (both are built from this environment), so this module may take it.
    try {
      b = rdma::view_model(sim.cast<rdma::Cluster&>());
    } catch (const py::cast_error&) {
      throw std::runtime_error("the cluster is neither RTL cards nor the network model of "
                               "_spgen_rdma built with this module's compiler and pybind11");
    }
  }
  return ClusterView(rdma::wrap_cluster(std::move(b)), afuShellRDMAClusterClose);
}

// The progress callback of a sort, called with the GIL held.
std::function<void(const std::string&)> progress_of(py::object& progress) {
  if (progress.is_none()) return {};
  return [&progress](const std::string& name) {  // by reference: no Python object is copied without the GIL
    py::gil_scoped_acquire gil;
    progress(name);
  };
}

// A sort's result as (failed, the engine's status code of a failed transfer (100: still in
// flight; 0: not a transfer), the message, counts per card, phases as (name, where,
// seconds, cycles, bytes, operations), shift, local passes, the dump of a timeout).
py::tuple result(const afushell::SortResult& r, afu_rdma_cluster cl) {
  py::list phases;
  for (const afushell::SortPhase& p : r.phases)
    phases.append(py::make_tuple(p.name, p.where, p.seconds, p.cycles, p.bytes, p.operations));
  const bool engine = r.code > AFU_ERR_RDMA_BASE && r.code <= AFU_ERR_RDMA_BAD_CARD;
  const int rdma_code = engine ? int(r.code - AFU_ERR_RDMA_BASE) : r.code == AFU_ERR_TIMEOUT ? 100 : 0;
  return py::make_tuple(r.code != FPGA_OK, rdma_code, r.error, r.counts, phases, r.shift, r.local_passes,
                        std::string(afuShellRDMALastDump(cl)));
}

// The sort of an array spread over the cards of a Python cluster (spgen.sort._sort_spread):
// afushell::sort_spread over the C API's interface on the cluster's own simulator.
py::tuple sort_spread(py::object sim, const std::vector<int>& cards, const std::vector<uint64_t>& counts,
                      int key_bytes, bool payloads, int partition_bits, int digit_bits, bool count_on_cards,
                      py::object progress) {
  if (key_bytes != 4 && key_bytes != 8) throw std::invalid_argument("sort_spread: keys of 4 or 8 bytes");
  ClusterView cl = view(sim);
  afushell::SortOptions o;
  o.partition_bits = partition_bits, o.digit_bits = digit_bits, o.count_on_cards = count_on_cards;
  o.progress = progress_of(progress);
  const afushell::SortSpread s{cards, counts, payloads};
  afushell::SortResult r;
  {
    py::gil_scoped_release nogil;
    r = key_bytes == 8 ? afushell::sort_spread<uint64_t>(cl.get(), s, o) : afushell::sort_spread<uint32_t>(cl.get(), s, o);
  }
  return result(r, cl.get());
}

// The sort on cards with the scatter writer (spgen.sort._sort_on_cards): afushell::sort_on_cards
// over the cluster's own simulator; result()'s tuple and the writer's figures as a dict
// (fused, by_dest, copy, digit_bits, first_digit_bits, writer_bytes, banks, card_passes,
// per_card).
py::tuple sort_on_cards(py::object sim, const std::vector<int>& cards, const std::vector<uint64_t>& counts,
                        bool pairs, int digit_bits, py::object key_range, py::object progress, int key_bytes,
                        uint64_t bin_capacity, bool single_pass) {
  ClusterView cl = view(sim);
  afushell::SortWriterOptions o;
  o.digit_bits = digit_bits, o.progress = progress_of(progress), o.key_bytes = key_bytes;
  o.bin_capacity = bin_capacity, o.single_pass = single_pass;
  if (!key_range.is_none()) o.known_range = true, o.key_range = key_range.cast<std::pair<uint64_t, uint64_t>>();
  const afushell::SortSpread s{cards, counts, pairs};
  afushell::SortWriterResult r;
  {
    py::gil_scoped_release nogil;
    r = afushell::sort_on_cards(cl.get(), s, o);
  }
  py::list per_card;
  for (const afushell::SortCardFigures& f : r.per_card) {
    py::dict d;
    d["card"] = f.card, d["ddr_read"] = f.ddr_read, d["ddr_write"] = f.ddr_write, d["pass_ns"] = f.pass_ns;
    d["passes"] = f.passes, d["link_sent"] = f.link_sent, d["link_received"] = f.link_received;
    if (f.stage_cycles) {  // a single pass: where its cycles went
      d["stage_cycles"] = f.stage_cycles, d["writer_waits"] = f.writer_waits;
      d["engine_reads"] = f.engine_reads, d["engine_gaps"] = f.engine_gaps;
    }
    per_card.append(d);
  }
  py::dict extra;  // none where there were no keys
  if (!r.per_card.empty()) {
    extra["fused"] = r.fused, extra["card_passes"] = r.card_passes, extra["moved_by"] = "cards";
    extra["digit_bits"] = r.digit_bits, extra["copy"] = r.copy, extra["writer_bytes"] = r.writer_bytes;
    extra["banks"] = r.banks, extra["by_dest"] = r.by_dest, extra["per_card"] = per_card;
    extra["binned"] = r.binned, extra["regrouped"] = r.regrouped;
    extra["single_pass"] = r.single_pass, extra["spilled"] = r.spilled;
    // the single pass ran from the cards' sequencers; the host saw it take host_ns
    extra["sequenced"] = r.sequenced, extra["host_ns"] = r.sequencer_host_ns;
    extra["card_puts"] = r.card_puts;  // the network phases' puts, issued by the cards' sequencers
  }
  if (r.single_pass) {  // per card of the spread: its result's (address, elements) segments in order
    py::list segs;
    for (const auto& card : r.segments) {
      py::list l;
      for (const afushell::SortSegment& g : card) l.append(py::make_tuple(g.address, g.elements));
      segs.append(l);
    }
    extra["segments"] = segs;
  }
  if (r.by_dest) extra["first_digit_bits"] = r.first_digit_bits;
  return py::make_tuple(result(r, cl.get()), extra);
}

// One pass of the scatter writer on a card of a Python cluster (sort_writer.hpp's ScatterWriter),
// for tests of the writer itself: the cluster's simulator is kept alive with it.
class WriterPasses {
 public:
  WriterPasses(py::object sim, const std::vector<int>& cards, bool pairs, bool u64)
      : sim_(sim), cl_(view(sim)), w_(std::make_unique<sd::ScatterWriter>(cl_.get(), pairs, u64)) {
    if (std::string e = w_->open(cards); !e.empty()) throw std::runtime_error(e);
  }
  uint64_t run(int card, uint64_t src, uint64_t n, std::pair<uint64_t, int> count, py::object scatter,
               py::object dump, int bits, int count_bits, py::object dests, bool load) {
    sd::ScatterWriter::Scatter sc;
    if (!scatter.is_none()) {
      const auto t = scatter.cast<std::tuple<uint64_t, int, uint64_t>>();
      sc = {true, std::get<0>(t), std::get<1>(t), std::get<2>(t)};
    }
    const uint64_t d = dests.is_none() ? 0 : dests.cast<uint64_t>(), at = dump.is_none() ? 0 : dump.cast<uint64_t>();
    const bool by_dest = !dests.is_none();
    uint64_t ns = 0;
    std::string e;
    {
      py::gil_scoped_release nogil;
      e = w_->run(card, src, n, count.first, count.second, sc, at, ns, bits, count_bits, by_dest ? &d : nullptr, load);
    }
    if (!e.empty()) throw std::runtime_error(e);
    return ns;
  }
  int passes(int card) const { return w_->passes.at(size_t(card)); }
  void close() { w_.reset(); }

 private:
  py::object sim_;
  ClusterView cl_;
  std::unique_ptr<sd::ScatterWriter> w_;
};
}  // namespace

void bind_sort(py::module& m) {
  m.def("sort_spread", &sort_spread, py::arg("sim"), py::arg("cards"), py::arg("counts"), py::arg("key_bytes"),
        py::arg("payloads"), py::arg("partition_bits"), py::arg("digit_bits"), py::arg("count_on_cards"),
        py::arg("progress") = py::none(),
        "Sorts the array spread over `cards` (counts[i] keys of key_bytes bytes at address 0 of "
        "cards[i]) in place on the cluster simulator `sim` (sort.hpp's sort_spread).");
  m.def("sort_on_cards", &sort_on_cards, py::arg("sim"), py::arg("cards"), py::arg("counts"), py::arg("pairs"),
        py::arg("digit_bits"), py::arg("key_range") = py::none(), py::arg("progress") = py::none(),
        py::arg("key_bytes") = 4, py::arg("bin_capacity") = 0, py::arg("single_pass") = false,
        "Sorts the uint32 keys (with pairs: key-payload pairs; key_bytes 8: uint64 keys) spread "
        "over `cards` in place on the cluster simulator `sim` of RTL cards with the scatter "
        "writer (sort_writer.hpp's sort_on_cards); digit_bits 0: the fewest cycles; bin_capacity "
        "0: the single grouping pass's bins as large as fit; single_pass: OPTWEB's single pass "
        "where the keys span at most 64 values (the result in extra['segments']).");
  py::class_<WriterPasses>(m, "SortScatterWriter",
                           "The scatter writer of `cards` of the cluster simulator `sim`, pass by pass.")
      .def(py::init<py::object, const std::vector<int>&, bool, bool>(), py::arg("sim"), py::arg("cards"),
           py::arg("pairs") = false, py::arg("u64") = false)
      .def("run", &WriterPasses::run, py::arg("card"), py::arg("src"), py::arg("n"), py::kw_only(), py::arg("count"),
           py::arg("scatter") = py::none(), py::arg("dump") = py::none(), py::arg("bits") = 8,
           py::arg("count_bits") = 0, py::arg("dests") = py::none(), py::arg("load") = false,
           "One pass over n keys at src on `card`; its ns (ScatterWriter::run).")
      .def("passes", &WriterPasses::passes, py::arg("card"), "Passes over the keys of `card` so far.")
      .def("close", &WriterPasses::close, "Closes the cards.");
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
}
