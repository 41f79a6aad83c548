#include "victims.h"

#include "allot/contracts.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <tuple>

namespace allot::runtime::cycle {
namespace {

// Up to this many candidates on one node, every subset is tried; above it, a greedy choice.
constexpr std::size_t kExhaustiveLimit = 12;
constexpr double kSlack = 1e-9;

// How bad a set of victims is: the work lost by victims that are making
// progress (so a stalled job is taken before any that works), then the work
// the stalled ones lose, then how many, then the longest grace. Without a
// stalled candidate this is lost work, count, grace.
struct Cost {
  double lost = 0;          // by progressing victims
  double stalled_lost = 0;  // by stalled victims
  std::size_t count = 0;
  Seconds grace = 0;

  double total() const { return lost + stalled_lost; }

  friend bool operator<(const Cost& a, const Cost& b) {
    return std::tie(a.lost, a.stalled_lost, a.count, a.grace) < std::tie(b.lost, b.stalled_lost, b.count, b.grace);
  }
};

// The victims that make room for the requester on one node.
struct NodeOption {
  int node = 0;
  std::vector<int> victims;
  Cost cost;
};

bool covers(const NodeAmounts& freed, const NodeAmounts& deficit) {
  return freed.gpus >= deficit.gpus && freed.cpus + kSlack >= deficit.cpus &&
         freed.memory_gib + kSlack >= deficit.memory_gib;
}

void add(NodeAmounts& total, const NodeAmounts& amounts) {
  total.gpus += amounts.gpus;
  total.cpus += amounts.cpus;
  total.memory_gib += amounts.memory_gib;
}

class Search {
 public:
  Search(const VictimInputs& inputs, const PendingJob& requester)
      : in_(inputs), requester_(requester), verdict_(inputs.active.size(), 0) {}

  std::optional<VictimChoice> run();

 private:
  double lost(int victim) const { return in_.lost_gpu_seconds[static_cast<std::size_t>(victim)]; }
  NodeAmounts deficit(int node) const;
  // Jobs on `node` that may be offered to `preempt` (into eligible_).
  const std::vector<int>& eligible_on(int node);
  std::optional<double> lower_bound(int node);
  bool accepted(int victim);
  Cost cost_of(const std::vector<int>& victims) const;
  bool allowed(std::span<const int> victims) const;
  std::optional<NodeOption> best_on(int node);
  std::optional<NodeOption> exhaustive(int node, const std::vector<int>& candidates, const NodeAmounts& needed);
  std::optional<NodeOption> greedy(int node, std::vector<int> candidates, const NodeAmounts& needed) const;
  std::optional<VictimChoice> one_node(std::vector<std::pair<double, int>> nodes);
  std::optional<VictimChoice> many_nodes(const std::vector<std::pair<double, int>>& nodes);

  const VictimInputs& in_;
  const PendingJob& requester_;
  std::vector<signed char> verdict_;  // per active job: 0 not asked yet, 1 accepted, -1 refused
  // Scratch, reused: a search tries many sets and allocates for none of them.
  std::vector<int> eligible_;              // eligible_on
  std::vector<int> candidates_;            // best_on
  std::vector<int> subset_;                // exhaustive
  mutable std::vector<Release> releases_;  // allowed
};

NodeAmounts Search::deficit(int node) const {
  NodeAmounts free = in_.pool.free(node);
  if (in_.fast_lane && in_.lendable != nullptr) add(free, (*in_.lendable)[static_cast<std::size_t>(node)]);
  const NodeAmounts need = held_on(in_.pool.inventory(), node, requester_.shape);
  return NodeAmounts{need.gpus - free.gpus, need.cpus - free.cpus, need.memory_gib - free.memory_gib};
}

const std::vector<int>& Search::eligible_on(int node) {
  eligible_.clear();
  for (int job : in_.candidates_on_node[static_cast<std::size_t>(node)]) {
    if (!in_.active[static_cast<std::size_t>(job)].stopping) eligible_.push_back(job);
  }
  return eligible_;
}

// A bound no allowed set on this node can beat (each missing GPU costs at
// least the cheapest candidate's lost work per GPU), or nullopt when even
// every candidate together does not free enough.
std::optional<double> Search::lower_bound(int node) {
  const NodeAmounts needed = deficit(node);
  NodeAmounts all;
  double cheapest_per_gpu = std::numeric_limits<double>::infinity();
  for (int job : eligible_on(node)) {
    const ActiveJob& candidate = in_.active[static_cast<std::size_t>(job)];
    add(all, candidate.per_node);
    const double gpus = static_cast<double>(candidate.node_count) * candidate.per_node.gpus;
    // A bound on the first key of Cost: what progressing victims lose (a stalled one counts 0).
    if (gpus > 0) cheapest_per_gpu = std::min(cheapest_per_gpu, (candidate.stalled ? 0.0 : lost(job)) / gpus);
  }
  if (!covers(all, needed)) return std::nullopt;
  if (needed.gpus <= 0) return 0.0;
  return cheapest_per_gpu * needed.gpus;
}

// Whether the victim may go for this requester on its own: the balance allows
// it (no set containing a refused victim is allowed either, so this prunes
// early and spares the predicate) and the policy's `preempt` accepts it.
bool Search::accepted(int victim) {
  signed char& verdict = verdict_[static_cast<std::size_t>(victim)];
  if (verdict == 0 && in_.fast_lane) {
    const int victim_class = in_.active[static_cast<std::size_t>(victim)].job_class;
    const auto& classes = in_.policy.tables().classes;
    verdict = victim_class >= 0 && classes[static_cast<std::size_t>(victim_class)].fast_lane_gpus > 0 ? -1 : 1;
  }
  if (verdict == 0) {
    const bool yes = allowed(std::span<const int>(&victim, 1)) &&
                     in_.policy.preempt(in_.running_table.table(), static_cast<std::size_t>(victim),
                                        in_.pending_table.table(), requester_.row, in_.accounts, in_.cluster);
    verdict = yes ? 1 : -1;
  }
  return verdict > 0;
}

Cost Search::cost_of(const std::vector<int>& victims) const {
  Cost cost{0, 0, victims.size(), 0};
  for (int job : victims) {
    (in_.active[static_cast<std::size_t>(job)].stalled ? cost.stalled_lost : cost.lost) += lost(job);
    cost.grace = std::max(cost.grace, in_.active[static_cast<std::size_t>(job)].job->contract.grace);
  }
  return cost;
}

bool Search::allowed(std::span<const int> victims) const {
  if (in_.fast_lane) return true;
  releases_.clear();
  for (int job : victims) {
    const ActiveJob& victim = in_.active[static_cast<std::size_t>(job)];
    releases_.emplace_back(victim.account, victim.rate);
  }
  return in_.balance.allows(requester_.account, releases_);
}

std::optional<NodeOption> Search::exhaustive(int node, const std::vector<int>& candidates, const NodeAmounts& needed) {
  std::optional<NodeOption> best;
  const std::size_t subsets = std::size_t{1} << candidates.size();
  for (std::size_t mask = 1; mask < subsets; ++mask) {
    NodeAmounts freed;
    subset_.clear();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (!(mask & (std::size_t{1} << i))) continue;
      subset_.push_back(candidates[i]);
      add(freed, in_.active[static_cast<std::size_t>(candidates[i])].per_node);
    }
    if (!covers(freed, needed)) continue;
    const Cost cost = cost_of(subset_);
    if (best && !(cost < best->cost)) continue;
    if (allowed(subset_)) best = NodeOption{node, subset_, cost};
  }
  return best;
}

// Cheapest per GPU first, skipping any victim the balance refuses, then drop
// victims (dearest first) the room does not need.
std::optional<NodeOption> Search::greedy(int node, std::vector<int> candidates, const NodeAmounts& needed) const {
  auto per_gpu = [&](int job) {
    return lost(job) / std::max(1, in_.active[static_cast<std::size_t>(job)].per_node.gpus);
  };
  auto progressing = [&](int job) { return !in_.active[static_cast<std::size_t>(job)].stalled; };
  std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return std::pair(progressing(a), per_gpu(a)) < std::pair(progressing(b), per_gpu(b));
  });
  std::vector<int> chosen;
  NodeAmounts freed;
  for (int job : candidates) {
    if (covers(freed, needed)) break;
    chosen.push_back(job);
    if (!allowed(chosen)) {
      chosen.pop_back();
      continue;
    }
    add(freed, in_.active[static_cast<std::size_t>(job)].per_node);
  }
  if (!covers(freed, needed)) return std::nullopt;
  for (std::size_t i = chosen.size(); i-- > 0;) {
    NodeAmounts without = freed;
    const NodeAmounts& amounts = in_.active[static_cast<std::size_t>(chosen[i])].per_node;
    add(without, NodeAmounts{-amounts.gpus, -amounts.cpus, -amounts.memory_gib});
    if (!covers(without, needed)) continue;
    freed = without;
    chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(i));
  }
  const Cost cost = cost_of(chosen);
  return NodeOption{node, std::move(chosen), cost};
}

std::optional<NodeOption> Search::best_on(int node) {
  const NodeAmounts needed = deficit(node);
  if (covers(NodeAmounts{}, needed)) return NodeOption{node, {}, Cost{}};
  candidates_.clear();
  for (int job : eligible_on(node)) {
    if (accepted(job)) candidates_.push_back(job);
  }
  if (candidates_.size() <= kExhaustiveLimit) return exhaustive(node, candidates_, needed);
  return greedy(node, candidates_, needed);
}

// Nodes in order of their bound (a heap: the search usually stops early);
// stop once no remaining node can beat the best.
std::optional<VictimChoice> Search::one_node(std::vector<std::pair<double, int>> nodes) {
  const auto later = std::greater<std::pair<double, int>>();
  std::make_heap(nodes.begin(), nodes.end(), later);
  std::optional<NodeOption> best;
  while (!nodes.empty()) {
    std::pop_heap(nodes.begin(), nodes.end(), later);
    const auto [bound, node] = nodes.back();
    nodes.pop_back();
    if (best && bound > best->cost.lost) break;
    auto option = best_on(node);
    if (option && (!best || option->cost < best->cost)) best = std::move(option);
  }
  if (!best) return std::nullopt;
  return VictimChoice{best->victims, {best->node}, best->cost.total()};
}

// The cheapest `nodes` options in one block if a block has enough, else overall;
// the union of their victims must still be allowed.
std::optional<VictimChoice> Search::many_nodes(const std::vector<std::pair<double, int>>& nodes) {
  const std::size_t needed = static_cast<std::size_t>(requester_.shape.nodes);
  std::map<int, std::vector<NodeOption>> by_block;
  std::vector<NodeOption> all;
  for (const auto& [bound, node] : nodes) {
    auto option = best_on(node);
    if (!option) continue;
    by_block[in_.pool.inventory().nodes[static_cast<std::size_t>(node)].block].push_back(*option);
    all.push_back(std::move(*option));
  }
  auto by_cost = [](const NodeOption& a, const NodeOption& b) { return a.cost < b.cost; };
  auto total = [&](const std::vector<NodeOption>& options) {
    std::pair<double, double> cost{0, 0};  // work lost by progressing victims, then by stalled ones
    for (std::size_t i = 0; i < needed; ++i) {
      cost.first += options[i].cost.lost;
      cost.second += options[i].cost.stalled_lost;
    }
    return cost;
  };
  const std::vector<NodeOption>* chosen = nullptr;
  for (auto& [block, options] : by_block) {
    if (options.size() < needed) continue;
    std::sort(options.begin(), options.end(), by_cost);
    if (!chosen || total(options) < total(*chosen)) chosen = &options;
  }
  if (!chosen) {
    if (all.size() < needed) return std::nullopt;
    std::sort(all.begin(), all.end(), by_cost);
    chosen = &all;
  }
  VictimChoice choice;
  for (std::size_t i = 0; i < needed; ++i) {
    choice.nodes.push_back((*chosen)[i].node);
    for (int victim : (*chosen)[i].victims) {
      if (std::find(choice.victims.begin(), choice.victims.end(), victim) == choice.victims.end()) {
        choice.victims.push_back(victim);
      }
    }
  }
  if (!allowed(choice.victims)) return std::nullopt;
  choice.lost_gpu_seconds = cost_of(choice.victims).total();
  return choice;
}

std::optional<VictimChoice> Search::run() {
  std::vector<std::pair<double, int>> nodes;
  for (std::size_t n = 0; n < in_.candidates_on_node.size(); ++n) {
    const int node = static_cast<int>(n);
    if (in_.candidates_on_node[n].empty() || !in_.pool.matches(node, requester_.shape)) continue;
    if (const auto bound = lower_bound(node)) nodes.emplace_back(*bound, node);
  }
  if (nodes.size() < static_cast<std::size_t>(requester_.shape.nodes)) return std::nullopt;
  return requester_.shape.nodes == 1 ? one_node(std::move(nodes)) : many_nodes(nodes);
}

}  // namespace

bool may_be_preempted(const ActiveJob& job, Seconds now) {
  return !job.stopping && !job.stopped && job.account >= 0 && !stop_refusal(*job.job, now);
}

NodeLists preemption_candidates(const std::vector<ActiveJob>& active, const NodeLists& jobs_on_node, Seconds now) {
  std::vector<char> may(active.size());
  for (std::size_t i = 0; i < active.size(); ++i) may[i] = may_be_preempted(active[i], now);
  return NodeLists(jobs_on_node.size(), [&](auto add) {
    for (std::size_t node = 0; node < jobs_on_node.size(); ++node) {
      for (int job : jobs_on_node[node]) {
        if (may[static_cast<std::size_t>(job)]) add(static_cast<int>(node), job);
      }
    }
  });
}

std::optional<VictimChoice> find_victims(const VictimInputs& inputs, const PendingJob& requester) {
  if (requester.account < 0) return std::nullopt;
  if (!inputs.fast_lane && !inputs.policy.has_preempt()) return std::nullopt;
  if (!inputs.fast_lane && !inputs.balance.any_below_share_on_path(requester.account)) return std::nullopt;
  return Search(inputs, requester).run();
}

}  // namespace allot::runtime::cycle
