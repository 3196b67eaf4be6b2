// Cluster files (JSON, docs/rdma.md "Cluster file") -> the resolved text description the
// model (rdma::Cluster) and the RTL cluster (spgsim::ClusterDesc) read: topology expanded
// into links and routing tables, faults per channel, every key checked.
#pragma once
#include <string>

namespace rdma {

/// `json` is the file's text; relative "card" paths are taken from `base_dir`. Throws
/// std::runtime_error naming the offending key (e.g. "links[3].a: port 2 of card 1 is
/// used twice").
std::string resolve_cluster_file(const std::string& json, const std::string& base_dir);

}  // namespace rdma
