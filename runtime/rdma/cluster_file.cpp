// Cluster file (JSON) -> resolved description. The one reader of the format: the C API
// (afuShellRDMAClusterOpenFile) and spgen.runtime.rdma.resolve both use it.
#include "cluster_file.hpp"

#include "cluster_desc.hpp"
#include "ring_route.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace rdma {

namespace {
using nlohmann::json;

[[noreturn]] void fail(const std::string& msg) { throw std::runtime_error("cluster file: " + msg); }

void known_keys(const json& obj, const std::string& where, const std::set<std::string>& keys) {
  if (!obj.is_object()) fail(where + " must be an object");
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!keys.count(it.key())) {
      std::string k;
      for (const auto& s : keys) k += (k.empty() ? "" : ", ") + s;
      fail(where + ": unknown key '" + it.key() + "' (known: " + k + ")");
    }
}

long integer(const json& obj, const std::string& key, const std::string& where, long dflt, long lo, bool required) {
  if (!obj.contains(key)) {
    if (required) fail(where + " needs '" + key + "'");
    return dflt;
  }
  const json& v = obj[key];
  if (!v.is_number_integer() || v.get<long>() < lo)
    fail(where + "'" + key + "' must be an integer >= " + std::to_string(lo) + ", got " + v.dump());
  return v.get<long>();
}

double number(const json& obj, const std::string& key, const std::string& where, double dflt, double lo) {
  if (!obj.contains(key)) return dflt;
  const json& v = obj[key];
  if (!v.is_number() || v.get<double>() < lo)
    fail(where + "'" + key + "' must be a number >= " + std::to_string(lo) + ", got " + v.dump());
  return v.get<double>();
}

struct Link {
  int a, pa, b, pb, dim;
  bool dateline;
  json spec;  // custom links: their own rate / latency
};

std::vector<int> coords(int card, const std::vector<int>& dims) {
  std::vector<int> xs;
  for (int k : dims) xs.push_back(card % k), card /= k;
  return xs;
}

int card_of(const std::vector<int>& xs, const std::vector<int>& dims) {
  int c = 0, m = 1;
  for (size_t d = 0; d < dims.size(); ++d) c += xs[d] * m, m *= dims[d];
  return c;
}

}  // namespace

std::string resolve_cluster_file(const std::string& text, const std::string& base_dir) {
  json spec;
  try {
    spec = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(std::string("not JSON (") + e.what() + ")");
  }
  known_keys(spec, "the top level",
             {"topology", "cards", "dims", "ports", "links", "line_rate_gbps", "latency_ns", "virtual_channels",
              "absent", "seed", "faults", "link_faults", "params", "card", "builds", "branches"});
  const std::string topo = spec.value("topology", std::string("custom"));
  int n = 0, ports = 0;
  std::vector<Link> links;
  std::vector<std::vector<int>> table;  // [card][dst]: port, -1 itself, -2 none
  if (topo == "ring" || topo == "mesh" || topo == "torus") {
    std::vector<int> dims;
    if (spec.contains("dims")) {
      const json& d = spec["dims"];
      if (!d.is_array() || d.empty() || d.size() > 3) fail("'dims' must be a list of 1..3 positive integers");
      for (const json& k : d) {
        if (!k.is_number_integer() || k.get<int>() < 1) fail("'dims' must be a list of 1..3 positive integers");
        dims.push_back(k.get<int>());
      }
    } else if (topo == "ring") {
      dims.push_back(int(integer(spec, "cards", "", 0, 1, true)));
    } else {
      fail("a " + topo + " needs 'dims'");
    }
    n = 1;
    for (int k : dims) n *= k;
    if (n > 64) fail(std::to_string(n) + " cards; the routing table holds at most 64");
    const bool wrap = topo != "mesh";
    ports = int(2 * dims.size());
    for (int c = 0; c < n; ++c) {
      auto xs = coords(c, dims);
      for (size_t d = 0; d < dims.size(); ++d) {
        if (dims[d] == 1 || (!wrap && xs[d] == dims[d] - 1)) continue;
        auto ys = xs;
        ys[d] = (xs[d] + 1) % dims[d];
        links.push_back({c, int(2 * d), card_of(ys, dims), int(2 * d + 1), int(d), wrap && xs[d] == dims[d] - 1, {}});
      }
    }
    table.assign(size_t(n), std::vector<int>(size_t(n), -2));
    for (int c = 0; c < n; ++c) {
      auto xs = coords(c, dims);
      for (int t = 0; t < n; ++t) {
        if (t == c) {
          table[size_t(c)][size_t(t)] = -1;
          continue;
        }
        auto ts = coords(t, dims);
        for (size_t d = 0; d < dims.size(); ++d) {  // dimension order: the first that differs
          if (xs[d] == ts[d]) continue;
          const int k = dims[d];
          if (wrap) table[size_t(c)][size_t(t)] = rdma_route::ring_up(xs[d], ts[d], k) ? int(2 * d) : int(2 * d + 1);
          else table[size_t(c)][size_t(t)] = ts[d] > xs[d] ? int(2 * d) : int(2 * d + 1);
          break;
        }
      }
    }
  } else if (topo == "fullmesh") {
    n = int(integer(spec, "cards", "", 0, 2, true));
    if (n > 64) fail(std::to_string(n) + " cards; the routing table holds at most 64");
    ports = n - 1;
    auto port = [](int i, int j) { return j < i ? j : j - 1; };
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) links.push_back({i, port(i, j), j, port(j, i), -1, false, {}});
    table.assign(size_t(n), std::vector<int>(size_t(n), -1));
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) table[size_t(i)][size_t(j)] = port(i, j);
  } else if (topo == "custom") {
    n = int(integer(spec, "cards", "", 0, 1, true));
    if (n > 64) fail(std::to_string(n) + " cards; the routing table holds at most 64");
    ports = int(integer(spec, "ports", "", 0, 1, true));
    if (!spec.contains("links") || !spec["links"].is_array()) fail("a custom topology needs a 'links' list");
    std::vector<std::vector<std::pair<int, int>>> adj(static_cast<size_t>(n));
    std::set<std::pair<int, int>> used;
    for (size_t i = 0; i < spec["links"].size(); ++i) {
      const json& lk = spec["links"][i];
      const std::string where = "links[" + std::to_string(i) + "]";
      known_keys(lk, where, {"a", "b", "line_rate_gbps", "latency_ns"});
      int end[2][2];
      for (int e = 0; e < 2; ++e) {
        const char* key = e ? "b" : "a";
        const json& v = lk.contains(key) ? lk[key] : json();
        if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
          fail(where + " needs \"a\": [card, port], \"b\": [card, port]");
        end[e][0] = v[0].get<int>(), end[e][1] = v[1].get<int>();
        if (end[e][0] < 0 || end[e][0] >= n || end[e][1] < 0 || end[e][1] >= ports)
          fail(where + "." + key + ": card " + std::to_string(end[e][0]) + " port " + std::to_string(end[e][1]) +
               " is outside " + std::to_string(n) + " cards x " + std::to_string(ports) + " ports");
        if (!used.insert({end[e][0], end[e][1]}).second)
          fail(where + "." + key + ": port " + std::to_string(end[e][1]) + " of card " + std::to_string(end[e][0]) +
               " already carries a link");
      }
      links.push_back({end[0][0], end[0][1], end[1][0], end[1][1], -1, false, lk});
      adj[size_t(end[0][0])].push_back({end[0][1], end[1][0]});
      adj[size_t(end[1][0])].push_back({end[1][1], end[0][0]});
    }
    table.assign(size_t(n), std::vector<int>(size_t(n), -2));
    for (int t = 0; t < n; ++t) {  // shortest paths towards t, lowest port first
      table[size_t(t)][size_t(t)] = -1;
      std::vector<char> seen(size_t(n), 0);
      seen[size_t(t)] = 1;
      std::deque<int> q{t};
      while (!q.empty()) {
        int u = q.front();
        q.pop_front();
        for (int c = 0; c < n; ++c) {
          if (seen[size_t(c)]) continue;
          auto nb = adj[size_t(c)];
          std::sort(nb.begin(), nb.end());
          for (auto [p, v] : nb)
            if (v == u) {
              seen[size_t(c)] = 1, table[size_t(c)][size_t(t)] = p, q.push_back(c);
              break;
            }
        }
      }
    }
  } else {
    fail("topology '" + topo + "' is not one of ring, mesh, torus, fullmesh, custom");
  }

  std::vector<char> absent(size_t(n), 0);
  if (spec.contains("absent")) {
    if (!spec["absent"].is_array()) fail("'absent' must list card numbers");
    for (const json& a : spec["absent"]) {
      if (!a.is_number_integer() || a.get<int>() < 0 || a.get<int>() >= n)
        fail("'absent' must list card numbers below " + std::to_string(n) + ", got " + a.dump());
      absent[size_t(a.get<int>())] = 1;
    }
  }
  for (int c = 0; c < n; ++c)
    for (int a = 0; a < n; ++a)
      if (absent[size_t(a)] && a != c) table[size_t(c)][size_t(a)] = -2;
  // every pair of present cards must have a route that stays on present cards
  for (int c = 0; c < n; ++c) {
    if (absent[size_t(c)]) continue;
    for (int t = 0; t < n; ++t) {
      if (t == c || absent[size_t(t)]) continue;
      int at = c;
      for (int hops = 0; at != t; ++hops) {
        const int p = table[size_t(at)][size_t(t)];
        int next = -1;
        for (const Link& l : links) {
          if (l.a == at && l.pa == p) next = l.b;
          if (l.b == at && l.pb == p) next = l.a;
        }
        if (p < 0 || next < 0)
          fail("no route from card " + std::to_string(c) + " to card " + std::to_string(t) + " (the links do not join them)");
        if (absent[size_t(next)])
          fail("the route from card " + std::to_string(c) + " to card " + std::to_string(t) + " crosses absent card " +
               std::to_string(next) + " (routes are dimension order; choose other absent cards or a custom topology)");
        if (hops > n) fail("the route from card " + std::to_string(c) + " to card " + std::to_string(t) + " loops");
        at = next;
      }
    }
  }

  std::ostringstream o;
  o.precision(17);
  o << "cards " << n << "\nports " << ports << "\nseed " << integer(spec, "seed", "", 1, 0, false) << "\n";
  // RTL cards: one build for every card ("card"), or per card ("builds"), or both
  auto card_lib = [&](const json& v, const std::string& where) {
    if (!v.is_string() || v.get<std::string>().empty())
      fail(where + " must be the path of a `spgen build --links N` folder");
    std::string path = v.get<std::string>();
    if (path[0] != '/' && !base_dir.empty()) path = base_dir + "/" + path;
    if (path.size() < 3 || path.compare(path.size() - 3, 3, ".so") != 0) path += "/sim/libafucard.so";
    return path;
  };
  if (spec.contains("card")) o << "cardlib " << card_lib(spec["card"], "'card'") << "\n";
  const bool rtl = spec.contains("card") || spec.contains("builds");
  if (spec.contains("builds")) {
    const json& b = spec["builds"];
    if (!b.is_object()) fail("'builds' must map card numbers to builds, e.g. {\"0\": \"build/a\", \"1\": \"build/b\"}");
    std::vector<char> named(size_t(n), 0);
    for (auto it = b.begin(); it != b.end(); ++it) {
      const std::string& k = it.key();
      const std::string where = "builds[\"" + k + "\"]";
      if (k.empty() || k.size() > 2 || k.find_first_not_of("0123456789") != std::string::npos || std::stoi(k) >= n)
        fail(where + ": keys are card numbers 0.." + std::to_string(n - 1));
      const int c = std::stoi(k);
      if (absent[size_t(c)]) fail(where + ": card " + k + " is absent");
      named[size_t(c)] = 1;
      o << "build " << c << " " << card_lib(it.value(), where) << "\n";
    }
    if (!spec.contains("card"))
      for (int c = 0; c < n; ++c)
        if (!absent[size_t(c)] && !named[size_t(c)])
          fail("card " + std::to_string(c) + " has no build: name it in 'builds' or give every card's build as 'card'");
  }
  if (spec.contains("branches")) {
    const json& br = spec["branches"];
    if (!br.is_array()) fail("'branches' must be a list of {\"from\": card, \"to\": card}");
    if (!rtl && !br.empty()) fail("'branches' bind cores' branch streams: they need RTL cards ('card' or 'builds')");
    std::set<int> senders, receivers;
    for (size_t i = 0; i < br.size(); ++i) {
      const std::string where = "branches[" + std::to_string(i) + "]";
      known_keys(br[i], where, {"from", "to"});
      const long a = integer(br[i], "from", where + ".", 0, 0, true), t = integer(br[i], "to", where + ".", 0, 0, true);
      for (long c : {a, t}) {
        if (c >= n) fail(where + ": card " + std::to_string(c) + " is not in the cluster (cards 0.." + std::to_string(n - 1) + ")");
        if (absent[size_t(c)]) fail(where + ": card " + std::to_string(c) + " is absent");
      }
      if (a == t) fail(where + ": a branch stream runs between two cards (from " + std::to_string(a) + " to itself)");
      if (!senders.insert(int(a)).second)
        fail(where + ": card " + std::to_string(a) + " already sends a branch stream (one Brch_Out per card)");
      if (!receivers.insert(int(t)).second)
        fail(where + ": card " + std::to_string(t) + " already receives a branch stream (one Brch_In per card)");
      o << "branch " << a << " " << t << "\n";
    }
  }
  if (spec.contains("params")) {
    const json& prm = spec["params"];
    if (!prm.is_object()) fail("'params' must be an object");
    for (auto it = prm.begin(); it != prm.end(); ++it) {
      const auto& names = param_names();
      if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
        std::string k;
        for (const auto& s : names) k += (k.empty() ? "" : ", ") + s;
        fail("unknown param '" + it.key() + "' (known: " + k + ")");
      }
      const double v = number(prm, it.key(), "params.", 0, 0);
      // the model's limits, named here by their key rather than by a line of the description
      if (it.key() == "window" && (v < 2 || v > 511)) fail("params.window must be 2..511, got " + prm["window"].dump());
      if (it.key() == "vc_buffer" && v < 1) fail("params.vc_buffer must be >= 1, got " + prm["vc_buffer"].dump());
      o << "param " << it.key() << " " << v << "\n";
    }
  }
  bool vcs = true;
  if (spec.contains("virtual_channels")) {
    if (!spec["virtual_channels"].is_boolean()) fail("'virtual_channels' must be true or false");
    vcs = spec["virtual_channels"].get<bool>();
  }
  const double rate = number(spec, "line_rate_gbps", "", 40.0, 1e-3), lat = number(spec, "latency_ns", "", 200.0, 0);
  for (size_t i = 0; i < links.size(); ++i) {
    const Link& l = links[i];
    const std::string where = "links[" + std::to_string(i) + "].";
    const double r = l.spec.is_object() ? number(l.spec, "line_rate_gbps", where, rate, 1e-3) : rate;
    const double la = l.spec.is_object() ? number(l.spec, "latency_ns", where, lat, 0) : lat;
    o << "link " << l.a << " " << l.pa << " " << l.b << " " << l.pb << " " << r << " " << la << " " << l.dim << " "
      << int(l.dateline && vcs) << "\n";
  }
  auto faults = [&](const json& f, size_t link, const std::string& where) {
    if (f.is_null()) return;
    known_keys(f, where, {"per", "ber", "drop", "down", "link"});
    if (f.contains("per") || f.contains("ber") || f.contains("drop")) {
      double v[3] = {number(f, "ber", where + ".", 0, 0), number(f, "per", where + ".", 0, 0),
                     number(f, "drop", where + ".", 0, 0)};
      for (double x : v)
        if (x > 0.5) fail(where + ": fault rates must be <= 0.5");
      for (size_t ch : {2 * link, 2 * link + 1}) o << "fault " << ch << " " << v[0] << " " << v[1] << " " << v[2] << "\n";
    }
    if (f.contains("down")) {
      if (!f["down"].is_array()) fail(where + ".down must be a list of [from_ns, to_ns]");
      for (const json& iv : f["down"]) {
        if (!iv.is_array() || iv.size() != 2 || !iv[0].is_number() || !iv[1].is_number() || iv[0].get<double>() < 0 ||
            iv[1].get<double>() < iv[0].get<double>())
          fail(where + ".down intervals are [from_ns, to_ns], got " + iv.dump());
        for (size_t ch : {2 * link, 2 * link + 1})
          o << "down " << ch << " " << iv[0].get<double>() << " " << iv[1].get<double>() << "\n";
      }
    }
  };
  if (spec.contains("faults")) {
    if (spec["faults"].contains("link")) fail("faults: 'link' belongs in link_faults entries");
    for (size_t i = 0; i < links.size(); ++i) faults(spec["faults"], i, "faults");
  }
  if (spec.contains("link_faults")) {
    if (!spec["link_faults"].is_array()) fail("'link_faults' must be a list");
    for (size_t i = 0; i < spec["link_faults"].size(); ++i) {
      const json& lf = spec["link_faults"][i];
      const std::string where = "link_faults[" + std::to_string(i) + "]";
      const long k = integer(lf, "link", where + ".", 0, 0, true);
      if (size_t(k) >= links.size())
        fail(where + " names link " + std::to_string(k) + "; there are " + std::to_string(links.size()));
      faults(lf, size_t(k), where);
    }
  }
  for (int c = 0; c < n; ++c)
    if (absent[size_t(c)]) o << "absent " << c << "\n";
  for (int c = 0; c < n; ++c)
    for (int t = 0; t < n; ++t)
      if (c != t) o << "route " << c << " " << t << " " << table[size_t(c)][size_t(t)] << "\n";
  return o.str();
}

}  // namespace rdma
