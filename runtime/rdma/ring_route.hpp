// The way along one ring of a torus from coordinate `from` to `to` (k cards round): the
// shorter way, and exactly halfway round a ring of 4 or more, up from an even coordinate
// and down from an odd one, so that the cards of a ring all sending halfway at once (an
// all-to-all in rotated order) use every link once instead of every up link twice. After
// the first hop the way left is shorter, so every card on the route keeps its direction.
// Shared by the cluster file's tables (cluster_file.cpp) and the node-level RTL cluster
// (rtl_links.hpp).
#pragma once

namespace rdma_route {

// true: up (port 2d along dimension d), false: down (port 2d + 1)
inline bool ring_up(int from, int to, int k) {
    const int up = ((to - from) % k + k) % k;
    return up < k - up || (up == k - up && (k == 2 || from % 2 == 0));
}

}  // namespace rdma_route
