// The resolved cluster description (docs/rdma.md "Cluster file"): the text form that
// spgen.runtime.rdma.resolve and afuShellRDMAClusterOpenFile make of a cluster file, read
// by one parser for both back ends (the network model, rdma::Cluster, and the RTL cards,
// spgsim::RtlCluster).
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace rdma {

/// A description the parser refuses: "cluster description line N: what".
struct DescError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct ClusterDesc {
  struct Link { int a = 0, pa = 0, b = 0, pb = 0, dim = -1; double gbps = 40, latency_ns = 200; bool dateline = false; };
  struct Fault { double ber = 0, per = 0, drop = 0; std::vector<std::pair<double, double>> down; };  // down: [from, to) ns
  int cards = 0, ports = 0;
  uint64_t seed = 1;
  std::string cardlib;                        // every card's build; empty (and no builds): the model
  std::map<int, std::string> builds;          // per-card builds (cluster file "builds"), over cardlib
  std::vector<std::pair<int, int>> branches;  // (from, to): a core's Brch_Out to a core's Brch_In
  std::vector<Link> links;
  std::vector<Fault> faults;                  // per channel: 2 i = link i a -> b, 2 i + 1 = b -> a
  std::vector<char> absent;
  std::vector<std::vector<int>> route;        // [card][dst]: port, -1 itself, -2 none
  std::map<std::string, double> params;       // the model's parameters (param_names())
  bool rtl() const { return !cardlib.empty() || !builds.empty(); }
  const std::string& lib_of(int c) const {
    auto it = builds.find(c);
    return it != builds.end() ? it->second : cardlib;
  }
  /// Throws DescError naming the line and what is wrong with it.
  static ClusterDesc parse(const std::string& text);
};

/// The parameters a description (and a cluster file's "params") may set.
const std::vector<std::string>& param_names();

}  // namespace rdma
