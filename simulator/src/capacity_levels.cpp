#include "capacity_levels.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace allot::simulator {
namespace {

using runtime::ClusterState;
using runtime::NodeState;

// GPUs held or reserved on each node.
std::vector<int> taken_gpus(const ClusterState& state) {
  std::vector<int> taken(state.inventory.nodes.size(), 0);
  const auto in_range = [&](int node) { return node >= 0 && static_cast<std::size_t>(node) < taken.size(); };
  for (const runtime::RunningJob& job : state.running) {
    for (int node : job.nodes) {
      if (in_range(node)) taken[static_cast<std::size_t>(node)] += job.request.gpus_per_node;
    }
  }
  for (const runtime::Reservation& reservation : state.reservations) {
    for (int node : reservation.nodes) {
      if (in_range(node)) taken[static_cast<std::size_t>(node)] += reservation.gpus_per_node;
    }
  }
  return taken;
}

// (nodes, GPUs per node, GPU type index or -1) of every waiting job, once each.
using Shape = std::tuple<int, int, int>;

std::vector<Shape> waiting_shapes(const ClusterState& state) {
  std::vector<Shape> shapes;
  for (const runtime::JobRequest& job : state.pending) {
    int type = -1;
    if (!job.gpu_type.empty()) {
      const auto found = std::find(state.inventory.gpu_types.begin(), state.inventory.gpu_types.end(), job.gpu_type);
      if (found == state.inventory.gpu_types.end()) continue;  // no node could ever take it
      type = static_cast<int>(found - state.inventory.gpu_types.begin());
    }
    shapes.emplace_back(job.nodes, job.gpus_per_node, type);
  }
  std::sort(shapes.begin(), shapes.end());
  shapes.erase(std::unique(shapes.begin(), shapes.end()), shapes.end());
  return shapes;
}

// Marks the nodes whose free GPUs some waiting shape could use.
std::vector<bool> usable_nodes(const ClusterState& state, const std::vector<int>& free) {
  const auto& nodes = state.inventory.nodes;
  std::vector<bool> usable(nodes.size(), false);
  std::vector<std::size_t> fitting;
  for (const auto& [count, per_node, type] : waiting_shapes(state)) {
    fitting.clear();
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (free[n] > 0 && free[n] >= per_node && (type < 0 || nodes[n].gpu_type == type)) fitting.push_back(n);
    }
    if (static_cast<int>(fitting.size()) < count) continue;
    for (std::size_t n : fitting) usable[n] = true;
  }
  return usable;
}

}  // namespace

ClusterLevels cluster_levels(const ClusterState& state) {
  const std::vector<int> taken = taken_gpus(state);
  const auto& nodes = state.inventory.nodes;
  ClusterLevels levels;
  std::vector<int> free(nodes.size(), 0);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (nodes[n].state == NodeState::down) continue;
    levels.capacity_gpus += nodes[n].gpus;
    if (nodes[n].state == NodeState::up) free[n] = std::max(0, nodes[n].gpus - taken[n]);
    levels.free_gpus += free[n];
  }
  for (const runtime::RunningJob& job : state.running) {
    levels.used_gpus += static_cast<double>(job.nodes.size()) * job.request.gpus_per_node;
  }
  levels.waiting_jobs = static_cast<double>(state.pending.size());
  if (state.pending.empty() || levels.free_gpus <= 0) return levels;  // no free GPU is fragmented
  const std::vector<bool> usable = usable_nodes(state, free);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (!usable[n]) levels.fragmented_gpus += free[n];
  }
  return levels;
}

}  // namespace allot::simulator
