// pybind11 module _spgen_rdma: the RDMA network model for spgen.runtime.rdma.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cluster_file.hpp"
#include "rdma_sim.hpp"

namespace py = pybind11;
using rdma::Cluster;

// Hardware ping-pong: a's put lands at b; once it is visible in b's memory, b's engine
// starts the put back to a. Returns the cycle at which each round trip ended (from the start).
static std::vector<int64_t> pingpong(Cluster& c, int a, int b, uint64_t addr, uint64_t n, int iters,
                                     int64_t max_cycles) {
  std::vector<int64_t> ends;
  std::vector<std::pair<int64_t, int>> bounce;  // (cycle, card that puts next)
  int left = iters;
  int64_t start = c.now;
  c.on_event = [&](int card, const rdma::Event& e) {
    if (e.kind != rdma::P_PUT) return;
    if (card == b && e.peer == a) bounce.push_back({e.cycle, b});
    if (card == a && e.peer == b) {
      ends.push_back(e.cycle - start);
      if (--left > 0) bounce.push_back({e.cycle, a});
    }
  };
  c.put(a, b, addr, addr, n);
  int64_t end = c.now + max_cycles;
  while ((left > 0 || !bounce.empty()) && c.now < end) {
    c.step();
    for (size_t i = 0; i < bounce.size();) {
      if (bounce[i].first <= c.now) {
        int from = bounce[i].second;
        c.put(from, from == a ? b : a, addr, addr, n);
        bounce.erase(bounce.begin() + long(i));
      } else {
        ++i;
      }
    }
  }
  c.on_event = nullptr;
  return ends;
}

PYBIND11_MODULE(_spgen_rdma, m) {
  m.doc() = "Cycle-accurate model of card-to-card RDMA (links, routers, engines)";
  m.def("error_text", &rdma::err_text);
  m.def("resolve_cluster_file", &rdma::resolve_cluster_file, py::arg("json"), py::arg("base_dir"));
  m.def("crc32", [](py::bytes b) {
    std::string s = b;
    return rdma::crc32(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  });
  m.attr("PAYLOAD") = rdma::kPayload;
  m.attr("HEADER") = rdma::kHeader;
  m.attr("CRC") = rdma::kCrc;
  // Local: only this module's functions raise ModelError. A global translator would also turn
  // every std::invalid_argument of the other extensions (spgen.runtime._afushell) into it once
  // this module is loaded, so their ValueErrors would depend on import order.
  py::register_local_exception<std::logic_error>(m, "ModelError");
  py::class_<Cluster>(m, "Cluster")
      .def(py::init<const std::string&>())
      .def("put", &Cluster::put)
      .def("put_strided", &Cluster::put_strided)
      .def("get", &Cluster::get)
      .def("get_strided", &Cluster::get_strided)
      .def("reduce", &Cluster::reduce, py::arg("chain"), py::arg("addr"), py::arg("len"), py::arg("f32") = false,
           py::arg("all") = false, py::arg("dst") = rdma::kInPlace)
      .def("status", [](const Cluster& c, uint64_t h) {
        const rdma::Op& o = c.op(h);
        return py::make_tuple(o.state, o.code, o.issued, o.done);
      })
      .def("wait", &Cluster::wait, py::call_guard<py::gil_scoped_release>())
      .def("wait_all", &Cluster::wait_all, py::call_guard<py::gil_scoped_release>())
      .def("run", &Cluster::run, py::call_guard<py::gil_scoped_release>())
      .def("quiet", &Cluster::quiet)
      .def_property_readonly("now", [](const Cluster& c) { return c.now; })
      .def_property_readonly("clock_mhz", [](const Cluster& c) { return c.prm.clock_mhz; })
      .def_property_readonly("op_timeout", [](const Cluster& c) { return c.prm.op_timeout; })
      .def_property_readonly("ncards", [](const Cluster& c) { return int(c.cards.size()); })
      .def_property_readonly("mem_bytes", [](const Cluster& c) { return c.prm.mem_bytes; })
      .def("ns", &Cluster::ns)
      .def("write", [](Cluster& c, int card, uint64_t addr, py::bytes b) {
        std::string s = b;
        c.cards.at(card).mem.write(addr, reinterpret_cast<const uint8_t*>(s.data()), s.size());
      })
      .def("read", [](Cluster& c, int card, uint64_t addr, uint64_t n) {
        std::string s(n, '\0');
        c.cards.at(card).mem.read(addr, reinterpret_cast<uint8_t*>(&s[0]), n);
        return py::bytes(s);
      })
      .def("events", [](const Cluster& c, int card) {
        py::list out;
        for (auto& e : c.cards.at(card).events) out.append(py::make_tuple(e.kind, e.peer, e.addr, e.len, e.cycle));
        return out;
      })
      .def("pingpong", &pingpong, py::arg("a"), py::arg("b"), py::arg("addr"), py::arg("n"), py::arg("iters"),
           py::arg("max_cycles"))
      .def("params", [](const Cluster& c) {
        py::dict d;
        d["clock_mhz"] = c.prm.clock_mhz;
        d["router_latency"] = c.prm.router_latency;
        d["engine_latency"] = c.prm.engine_latency;
        d["mem_read_latency"] = c.prm.mem_read_latency;
        d["mem_write_latency"] = c.prm.mem_write_latency;
        d["vc_buffer"] = c.prm.vc_buffer;
        d["window"] = c.prm.window;
        d["ctrl_interval"] = c.prm.ctrl_interval;
        d["retry_timeout"] = c.prm.retry_timeout;
        d["op_timeout"] = c.prm.op_timeout;
        d["link_latency_cycles"] = c.channels.empty() ? 0 : c.channels[0].latency;
        return d;
      })
      .def("stats", [](const Cluster& c) {
        py::dict d;
        uint64_t sent = 0, corrupted = 0, dropped = 0, ctrl = 0, replays = 0, bytes = 0;
        for (auto& ch : c.channels) {
          sent += ch.sent, corrupted += ch.corrupted, dropped += ch.dropped, ctrl += ch.ctrl_sent;
          bytes += ch.bytes_on_wire;
        }
        for (auto& card : c.cards)
          for (auto& p : card.ports) replays += p.tx.replays;
        d["packets_sent"] = sent;
        d["packets_corrupted"] = corrupted;
        d["packets_dropped"] = dropped;
        d["ctrl_packets"] = ctrl;
        d["replays"] = replays;
        d["bytes_on_wire"] = bytes;
        d["buffer_checks"] = c.overflow_checks;
        d["delivered_packets"] = c.delivered_packets;
        return d;
      });
}
