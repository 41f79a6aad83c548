#include "drain.h"

#include <algorithm>
#include <optional>

#include "decisions.h"

namespace allot::runtime::cycle {
namespace {

// The first checkpoint at or after `from`, for a job that may be stopped there.
std::optional<Seconds> next_checkpoint(const RunningJob& job, Seconds from) {
  const Contract& contract = job.contract;
  if (contract.checkpoint_every <= 0 || !contract.resumable || !contract.preemptible) return std::nullopt;
  const Seconds first = std::max(job.started, job.last_checkpoint);
  if (from <= first) return first;
  const Seconds intervals = (from - first + contract.checkpoint_every - 1) / contract.checkpoint_every;
  return first + intervals * contract.checkpoint_every;
}

// The node that stops the job first: a down node, else the draining node with the earliest deadline.
const Node* blocking_node(const Inventory& inventory, const RunningJob& job) {
  const Node* blocking = nullptr;
  for (int index : job.nodes) {
    const Node& node = inventory.nodes[static_cast<std::size_t>(index)];
    if (node.state == NodeState::down) return &node;
    if (node.state != NodeState::drain) continue;
    if (!blocking ||
        (node.drain_deadline && (!blocking->drain_deadline || *node.drain_deadline < *blocking->drain_deadline))) {
      blocking = &node;
    }
  }
  return blocking;
}

std::optional<DrainStop> stop_for(const Node& node, const RunningJob& job, Seconds now) {
  if (node.state == NodeState::down) {
    return DrainStop{0, now, lost_gpu_seconds(job, now), node_down(node)};
  }
  const auto checkpoint = next_checkpoint(job, std::max(now, job.contract.protected_until));
  const auto& deadline = node.drain_deadline;
  if (checkpoint && (!deadline || *checkpoint <= *deadline)) {
    return DrainStop{0, *checkpoint, 0.0, node_draining_until_checkpoint(node)};
  }
  if (!deadline) return std::nullopt;
  const Seconds stop = std::max(now, *deadline);
  return DrainStop{0, stop, lost_gpu_seconds(job, stop), node_draining_until_deadline(node)};
}

}  // namespace

std::vector<DrainStop> drain_stops(const Inventory& inventory, const std::vector<ActiveJob>& active, Seconds now) {
  std::vector<DrainStop> stops;
  for (std::size_t i = 0; i < active.size(); ++i) {
    if (active[i].stopping || active[i].stopped) continue;
    const Node* node = blocking_node(inventory, *active[i].job);
    if (!node) continue;
    if (auto stop = stop_for(*node, *active[i].job, now)) {
      stop->active = static_cast<int>(i);
      stops.push_back(std::move(*stop));
    }
  }
  return stops;
}

}  // namespace allot::runtime::cycle
