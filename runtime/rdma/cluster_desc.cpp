// The one parser of the resolved cluster description (cluster_desc.hpp).
#include "cluster_desc.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace rdma {

const std::vector<std::string>& param_names() {
  static const std::vector<std::string> names = {
      "clock_mhz", "ctrl_interval", "engine_latency", "keepalive", "local_queue", "mem_bytes", "mem_read_latency",
      "mem_write_latency", "op_timeout", "retry_timeout", "router_latency", "vc_buffer", "window"};
  return names;
}

ClusterDesc ClusterDesc::parse(const std::string& text) {
  ClusterDesc d;
  std::istringstream in(text);
  std::string line;
  int ln = 0;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) throw DescError("cluster description line " + std::to_string(ln) + ": " + what);
  };
  // the sizes first (cards, ports), then what refers to cards, ports and channels
  std::vector<std::pair<int, std::string>> later;
  while (std::getline(in, line)) {
    ++ln;
    std::istringstream ls(line);
    std::string key;
    if (!(ls >> key) || key[0] == '#') continue;
    if (key == "cards") {
      need(bool(ls >> d.cards) && d.cards >= 1 && d.cards <= 64, "cards N (1..64)");
    } else if (key == "ports") {
      need(bool(ls >> d.ports) && d.ports >= 1 && d.ports <= 64, "ports P (1..64)");
    } else if (key == "seed") {
      need(bool(ls >> d.seed), "seed N");
    } else if (key == "param") {
      std::string k;
      double v;
      need(bool(ls >> k >> v), "param NAME VALUE");
      const auto& names = param_names();
      need(std::find(names.begin(), names.end(), k) != names.end(), "unknown param " + k);
      d.params[k] = v;
    } else {
      later.push_back({ln, line});
    }
  }
  ln = 0;
  if (d.cards == 0 || d.ports == 0) need(false, "the description needs 'cards' and 'ports'");
  const size_t n = size_t(d.cards);
  d.absent.assign(n, 0);
  d.route.assign(n, std::vector<int>(n, -2));
  for (size_t c = 0; c < n; ++c) d.route[c][c] = -1;
  std::set<std::pair<int, int>> used;  // (card, port) of the links' ends
  auto card = [&](int c) { need(c >= 0 && c < d.cards, "card " + std::to_string(c) + " outside the cluster"); };
  auto port = [&](int p) { need(p >= 0 && p < d.ports, "port " + std::to_string(p) + " out of range"); };
  for (auto& [at, text_line] : later) {
    ln = at;
    std::istringstream ls(text_line);
    std::string key;
    ls >> key;
    if (key == "cardlib") {
      std::getline(ls >> std::ws, d.cardlib);
    } else if (key == "build") {
      int c;
      need(bool(ls >> c), "build CARD PATH");
      card(c);
      std::getline(ls >> std::ws, d.builds[c]);
    } else if (key == "branch") {
      int a, b;
      need(bool(ls >> a >> b), "branch FROM TO");
      card(a), card(b);
      need(a != b, "a branch stream runs between two cards");
      d.branches.push_back({a, b});
    } else if (key == "link") {
      Link l;
      int dl = 0;
      need(bool(ls >> l.a >> l.pa >> l.b >> l.pb >> l.gbps >> l.latency_ns >> l.dim >> dl),
           "link A PA B PB GBPS LAT_NS DIM DATELINE");
      card(l.a), card(l.b), port(l.pa), port(l.pb);
      need(l.gbps > 0 && l.latency_ns >= 0, "line rate must be > 0 and latency >= 0");
      need(used.insert({l.a, l.pa}).second && used.insert({l.b, l.pb}).second, "port used by two links");
      l.dateline = dl != 0;
      d.links.push_back(l);
      d.faults.resize(2 * d.links.size());
    } else if (key == "fault" || key == "down") {
      size_t ch;
      need(bool(ls >> ch) && ch < d.faults.size(), key == "fault" ? "fault CHANNEL BER PER DROP" : "down CHANNEL FROM_NS TO_NS");
      Fault& f = d.faults[ch];
      if (key == "fault") {
        need(bool(ls >> f.ber >> f.per >> f.drop), "fault CHANNEL BER PER DROP");
      } else {
        double a, b;
        need(bool(ls >> a >> b), "down CHANNEL FROM_NS TO_NS");
        f.down.push_back({a, b});
      }
    } else if (key == "absent") {
      int c;
      need(bool(ls >> c), "absent CARD");
      card(c);
      d.absent[size_t(c)] = 1;
    } else if (key == "route") {
      int c, t, p;
      need(bool(ls >> c >> t >> p), "route CARD DST PORT");
      card(c), card(t);
      if (p != -2) port(p);
      if (c != t) d.route[size_t(c)][size_t(t)] = p;
    } else {
      need(false, "unknown keyword " + key);
    }
  }
  for (int c = 0; c < d.cards; ++c)
    for (int t = 0; t < d.cards; ++t) {
      const int p = d.route[size_t(c)][size_t(t)];
      if (p >= 0 && !used.count({c, p}))
        throw DescError("cluster description: the route from card " + std::to_string(c) + " to " + std::to_string(t) +
                        " uses unconnected port " + std::to_string(p));
    }
  return d;
}

}  // namespace rdma
