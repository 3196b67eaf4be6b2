// spgen.runtime._afushell.RtlCluster: a cluster of RTL cards (runtime/sim/cluster.hpp) with
// the methods of the model's cluster (_spgen_rdma.Cluster), so spgen.runtime.rdma.Cluster
// drives either through one API.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>

#include "cluster.hpp"
#include "cluster_pipeline.hpp"
#include "cluster_reduce.hpp"

namespace py = pybind11;
using spgsim::RtlCluster;

namespace {
// The cards' model parameters: the defaults with SPGEN_SIM_PARAMS applied, as every
// RtlCluster of this process takes them.
spgsim::Params env_params() {
  spgsim::Params p;
  if (const char* env = std::getenv("SPGEN_SIM_PARAMS")) {
    std::string e = p.apply(env);
    if (!e.empty()) throw std::runtime_error("SPGEN_SIM_PARAMS: " + e);
  }
  return p;
}

// Chains of cards run together (spgsim::run_pipelines), from Python's bytes.
py::tuple run_chains(RtlCluster& c, const std::vector<py::tuple>& chains, uint64_t passes, uint64_t max_chunk,
                     uint64_t max_gap, uint64_t seed, uint64_t max_cycles) {
  std::vector<spgsim::PipelineSpec> specs;
  std::vector<std::string> src, dst;
  for (const py::tuple& t : chains) {
    spgsim::PipelineSpec s;
    s.chain = t[0].cast<std::vector<int>>();
    src.push_back(t[1].cast<std::string>());
    s.record_bytes = t[2].cast<uint64_t>(), s.out_record_bytes = t[3].cast<uint64_t>();
    s.records = s.record_bytes ? src.back().size() / s.record_bytes : 0;
    s.passes = passes, s.max_chunk = max_chunk, s.max_gap = max_gap, s.seed = seed, s.max_cycles = max_cycles;
    dst.emplace_back(s.records * (s.out_record_bytes ? s.out_record_bytes : s.record_bytes), '\0');
    specs.push_back(s);
  }
  std::vector<const void*> ins;
  std::vector<void*> outs;
  for (size_t i = 0; i < specs.size(); ++i) ins.push_back(src[i].data()), outs.push_back(&dst[i][0]);
  spgsim::PipelineResult r;
  {
    py::gil_scoped_release nogil;
    r = spgsim::run_pipelines(c, specs, ins, outs);
  }
  py::list cards, out;
  for (const auto& x : r.cards) {
    py::dict d;
    d["in_total_cycles"] = x.in_total, d["in_moved_cycles"] = x.in_moved, d["in_first_cycles"] = x.in_first;
    d["out_total_cycles"] = x.out_total, d["out_moved_cycles"] = x.out_moved;
    d["stream_tx_words"] = x.tx_words, d["stream_rx_words"] = x.rx_words;
    d["stream_tx_stalls"] = x.tx_stalls, d["link_words"] = x.link_words;
    cards.append(d);
  }
  for (const std::string& b : dst) out.append(py::bytes(b));
  return py::make_tuple(r.code, r.error, out, r.cycles, cards);
}
}  // namespace

void bind_rdma(py::module& m) {
  // a reduction under way on RTL cards (runtime/sim/cluster_reduce.hpp)
  py::class_<spgsim::Reduction>(m, "RtlReduction")
      .def_readonly("code", &spgsim::Reduction::code)
      .def_readonly("error", &spgsim::Reduction::error)
      .def_readonly("issued", &spgsim::Reduction::issued)
      .def_readonly("done", &spgsim::Reduction::done)
      .def_property_readonly("cards", [](const spgsim::Reduction& r) {
        py::list cards;
        for (const auto& x : r.cards) {
          py::dict d;
          d["words"] = x.words, d["in_stalls"] = x.in_stalls, d["out_stalls"] = x.out_stalls;
          cards.append(d);
        }
        return cards;
      });
  py::class_<RtlCluster>(m, "RtlCluster")
      .def(py::init([](const std::string& desc) {
        // DescError: ValueError; cards: RuntimeError
        return new RtlCluster(spgsim::ClusterDesc::parse(desc), env_params());
      }))
      // "name=value" lines (docs/runtime.md); a cluster's cards are built with these
      .def_static("sim_params", [] { return env_params().describe(); })
      .def("put", [](RtlCluster& c, int card, int dst, uint64_t local, uint64_t remote, uint64_t len) {
        RtlCluster::Op op;
        op.card = card, op.peer = dst, op.local = local, op.remote = remote, op.len = len;
        return c.issue(op);
      })
      .def("get", [](RtlCluster& c, int card, int src, uint64_t local, uint64_t remote, uint64_t len) {
        RtlCluster::Op op;
        op.card = card, op.peer = src, op.get = 1, op.local = local, op.remote = remote, op.len = len;
        return c.issue(op);
      })
      .def("put_strided", [](RtlCluster& c, int card, int dst, uint64_t local, uint64_t remote, uint64_t block,
                             uint64_t count, uint64_t ls, uint64_t rs) {
        RtlCluster::Op op;
        op.card = card, op.peer = dst, op.local = local, op.remote = remote, op.len = block * count;
        op.block = block, op.count = count, op.lstride = ls, op.rstride = rs;
        return c.issue(op);
      })
      .def("get_strided", [](RtlCluster& c, int card, int src, uint64_t local, uint64_t remote, uint64_t block,
                             uint64_t count, uint64_t ls, uint64_t rs) {
        RtlCluster::Op op;
        op.card = card, op.peer = src, op.get = 1, op.local = local, op.remote = remote, op.len = block * count;
        op.block = block, op.count = count, op.lstride = ls, op.rstride = rs;
        return c.issue(op);
      })
      .def("status", [](RtlCluster& c, uint64_t h) {
        const RtlCluster::Op o = c.op(h);
        int state = o.code == spgsim::RTL_PENDING ? 0 : o.code == 0 ? 1 : 2;
        return py::make_tuple(state, o.code == spgsim::RTL_PENDING ? 0 : o.code, o.issued, o.done);
      })
      .def("card_cycles", [](RtlCluster& c, uint64_t h) {  // CMD at the card to its completion interrupt
        const RtlCluster::Op o = c.op(h);
        return o.code == spgsim::RTL_PENDING ? 0 : o.card_done - o.started;
      })
      .def("wait", &RtlCluster::wait, py::call_guard<py::gil_scoped_release>())
      .def("run", &RtlCluster::run, py::call_guard<py::gil_scoped_release>())
      .def("dump", &RtlCluster::dump, py::arg("handle") = ~0ull, py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("now", &RtlCluster::now)
      .def_property_readonly("clock_mhz", &RtlCluster::clock_mhz)
      .def_property("packet_bytes", &RtlCluster::packet_bytes, &RtlCluster::set_packet_bytes)
      .def("line_gbps", [](const RtlCluster& c, int from, int to) {  // the first cable from `from` towards `to`
        const std::vector<int> way = c.route(from, to);
        return way.empty() ? 0.0 : 8.0 * c.clock_mhz() / (1000.0 * c.channels()[size_t(way.front())].cycles_per_byte);
      })
      .def_property_readonly("link_bits", [](const RtlCluster& c) { return 32 * c.units(); })  // per port and cycle
      .def_property_readonly("op_timeout", [](const RtlCluster& c) { return c.op_timeout_cycles() + 100000; })
      .def_property_readonly("ncards", &RtlCluster::size)
      .def_property_readonly("mem_bytes", &RtlCluster::mem_bytes)
      .def("ns", [](const RtlCluster& c, double cycles) { return cycles * 1000.0 / c.clock_mhz(); })
      .def("present", &RtlCluster::present)
      .def("write", [](RtlCluster& c, int card, uint64_t addr, py::bytes b) {
        std::string s = b;
        if (!c.mem(card, addr, &s[0], s.size(), true)) throw std::out_of_range("no such card or range");
      })
      .def("read", [](RtlCluster& c, int card, uint64_t addr, uint64_t n) {
        std::string s(n, '\0');
        if (!c.mem(card, addr, &s[0], n, false)) throw std::out_of_range("no such card or range");
        return py::bytes(s);
      })
      .def("events", [](RtlCluster& c, int card) {
        py::list out;
        for (auto& e : c.events(card)) out.append(py::make_tuple(e.kind, e.peer, e.addr, e.len, e.cycle));
        return out;
      })
      .def("card_uri", [](RtlCluster& c, int card) { return "sim:" + c.card_name(card); })
      .def("stats", &RtlCluster::stats, py::call_guard<py::gil_scoped_release>())
      .def("csr_write", [](RtlCluster& c, int card, uint32_t addr, uint64_t v) {
        if (!c.present(card)) throw std::out_of_range("no such card");
        c.card(card)->mmio_write(addr, v);
      })
      .def("csr_read", [](RtlCluster& c, int card, uint32_t addr) {
        if (!c.present(card)) throw std::out_of_range("no such card");
        return c.csr_read(card, addr);
      })
      .def("card_info", [](RtlCluster& c, int card) {
        if (!c.present(card)) throw std::out_of_range("no such card");
        return c.card(card)->info();
      })
      .def("reduce_start", [](RtlCluster& c, const std::vector<int>& chain, uint64_t src, uint64_t dst, uint64_t len,
                              bool f32, bool all) {
        spgsim::ReduceSpec s;
        s.chain = chain, s.src = src, s.dst = dst, s.len = len, s.f32 = f32, s.all = all;
        return spgsim::start_reduce(c, s);
      }, py::arg("chain"), py::arg("src"), py::arg("dst"), py::arg("len"), py::arg("f32"), py::arg("all") = false,
      py::call_guard<py::gil_scoped_release>())
      .def("reduce_poll", [](RtlCluster& c, spgsim::Reduction& r) { return spgsim::poll_reduce(c, r); },
           py::call_guard<py::gil_scoped_release>())
      .def("reduce_wait", [](RtlCluster& c, spgsim::Reduction& r, uint64_t max_cycles) {
        return spgsim::wait_reduce(c, r, max_cycles);
      }, py::call_guard<py::gil_scoped_release>())
      // (code, error, output bytes, cycles, per-card stats dicts)
      .def("pipeline", [](RtlCluster& c, const std::vector<int>& chain, py::bytes in, uint64_t record_bytes,
                          uint64_t passes, uint64_t max_chunk, uint64_t max_gap, uint64_t seed, uint64_t max_cycles) {
        py::tuple r = run_chains(c, {py::make_tuple(chain, in, record_bytes, record_bytes)}, passes, max_chunk, max_gap,
                                 seed, max_cycles);
        return py::make_tuple(r[0], r[1], r[2].cast<py::list>()[0], r[3], r[4]);
      })
      // chains (chain, input bytes, input record bytes, output record bytes) at once:
      // (code, error, [output bytes per chain], cycles, per-card stats dicts of every chain)
      .def("pipelines", &run_chains);
}
