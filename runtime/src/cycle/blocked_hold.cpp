#include "blocked_hold.h"

#include <algorithm>
#include <limits>
#include <map>

#include "allot/contracts.h"

namespace allot::runtime::cycle {
namespace {

constexpr Seconds kUnknown = std::numeric_limits<Seconds>::max();

// One node that could hold one node of the job, and when.
struct Candidate {
  Seconds ready = kUnknown;
  int free_gpus = 0;
  int node = 0;
};

bool earlier(const Candidate& a, const Candidate& b) {
  if (a.ready != b.ready) return a.ready < b.ready;
  if (a.free_gpus != b.free_gpus) return a.free_gpus > b.free_gpus;
  return a.node < b.node;
}

// When `job` gives its resources back: its stop time when stopping, else its
// start plus the runtime estimate, or the time it yields its backfilled
// capacity if earlier; kUnknown without either.
Seconds expected_end(const ActiveJob& job, const PolicyTables& tables) {
  if (job.stopped) return std::numeric_limits<Seconds>::min();
  const RunningJob& running = *job.job;
  if (running.stopping_at) return *running.stopping_at;
  Seconds estimate = running.request.expected_runtime;
  if (job.job_class >= 0)
    estimate = runtime_estimate(tables.classes[static_cast<std::size_t>(job.job_class)], running.request);
  const Seconds end = estimate > 0 ? running.started + estimate : kUnknown;
  return running.contract.yields_at ? std::min(end, *running.contract.yields_at) : end;
}

// When `node` has room for one node of `request`, walking its jobs' ends
// (`ends`: scratch, reused from node to node).
Candidate readiness(const NodePool& pool, int node, const NodeAmounts& need, const std::vector<ActiveJob>& active,
                    std::span<const int> on_node, const PolicyTables& tables, Seconds now,
                    std::vector<std::pair<Seconds, int>>& ends) {
  NodeAmounts free = pool.free(node);
  Candidate candidate{now, free.gpus, node};
  auto fits = [&] { return free.gpus >= need.gpus && free.cpus >= need.cpus && free.memory_gib >= need.memory_gib; };
  if (fits()) return candidate;
  ends.clear();
  for (int index : on_node) {
    const ActiveJob& job = active[static_cast<std::size_t>(index)];
    if (!job.stopped) ends.emplace_back(expected_end(job, tables), index);
  }
  std::sort(ends.begin(), ends.end());
  for (const auto& [end, index] : ends) {
    const NodeAmounts& held = active[static_cast<std::size_t>(index)].per_node;
    free.gpus += held.gpus;
    free.cpus += held.cpus;
    free.memory_gib += held.memory_gib;
    if (fits()) {
      candidate.ready = std::max(end, now);
      return candidate;
    }
  }
  candidate.ready = kUnknown;  // reservations of other jobs stay in the way
  return candidate;
}

}  // namespace

std::optional<BlockedHold> blocked_hold(const NodePool& pool, const NodeRequest& shape,
                                        const std::vector<ActiveJob>& active, const NodeLists& jobs_on_node,
                                        const std::vector<bool>& reserved, const PolicyTables& tables, Seconds now) {
  const Inventory& inventory = pool.inventory();
  std::map<int, std::vector<Candidate>> by_block;
  std::vector<Candidate> all;
  std::vector<std::pair<Seconds, int>> ends;
  for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
    const Node& node = inventory.nodes[n];
    const int index = static_cast<int>(n);
    const NodeAmounts need = held_on(inventory, index, shape);
    if (reserved[n] || !pool.matches(index, shape) || node.gpus < need.gpus || node.cpus < need.cpus ||
        node.memory_gib < need.memory_gib) {
      continue;
    }
    const Candidate candidate = readiness(pool, index, need, active, jobs_on_node[n], tables, now, ends);
    by_block[node.block].push_back(candidate);
    all.push_back(candidate);
  }
  const auto count = static_cast<std::size_t>(shape.nodes);
  if (all.size() < count) return std::nullopt;
  // The best `count` of a list, and when the last of them is ready.
  auto best_of = [count](std::vector<Candidate>& list) {
    std::partial_sort(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(count), list.end(), earlier);
    return list[count - 1];
  };
  std::vector<Candidate>* chosen = nullptr;
  Candidate chosen_last;
  for (auto& [block, list] : by_block) {
    if (list.size() < count) continue;
    const Candidate last = best_of(list);
    if (!chosen || earlier(last, chosen_last)) chosen = &list, chosen_last = last;
  }
  // One block unless only capacity across blocks has a known time to free up.
  if (!chosen || (chosen_last.ready == kUnknown && best_of(all).ready != kUnknown)) {
    chosen_last = best_of(all), chosen = &all;
  }
  BlockedHold hold;
  for (std::size_t i = 0; i < count; ++i) hold.nodes.push_back((*chosen)[i].node);
  std::sort(hold.nodes.begin(), hold.nodes.end());
  if (chosen_last.ready != kUnknown) hold.when = chosen_last.ready;
  return hold;
}

}  // namespace allot::runtime::cycle
