#include "capacity.h"

#include <algorithm>

namespace allot::runtime::cycle {
namespace {

NodeAmounts plus(const NodeAmounts& a, const NodeAmounts& b) {
  return {a.gpus + b.gpus, a.cpus + b.cpus, a.memory_gib + b.memory_gib};
}

NodeAmounts negated(const NodeAmounts& a) { return {-a.gpus, -a.cpus, -a.memory_gib}; }

}  // namespace

Capacity::Capacity(const Inventory& inventory, NodePool::Buckets* memory)
    : pool_(inventory, memory),
      stopping_(inventory.nodes.size()),
      claimed_(inventory.nodes.size()),
      overlap_(inventory.nodes.size()) {}

std::optional<std::vector<int>> Capacity::find(const NodeRequest& shape) {
  if (failed_.known_to_fail(shape)) return std::nullopt;
  auto nodes = pool_.find(shape);
  if (!nodes) failed_.remember(shape);
  return nodes;
}

std::optional<std::vector<int>> Capacity::find_lending(std::span<const Claim* const> lent, const NodeRequest& shape) {
  for (const Claim* claim : lent) change_claim(claim->nodes, negated(claim->amounts));
  auto nodes = pool_.find(shape);
  for (const Claim* claim : lent) change_claim(claim->nodes, claim->amounts);
  return nodes;
}

const std::string& Capacity::failure_reason(const NodeRequest& shape) {
  const auto key = std::tuple(shape.gpu_type, shape.nodes, shape.gpus_per_node, shape.cpus_per_node,
                              shape.memory_gib_per_node, shape.node_set, shape.exclusive);
  auto it = reasons_.find(key);
  if (it == reasons_.end()) it = reasons_.emplace(key, pool_.failure_reason(shape)).first;
  return it->second;
}

void Capacity::take(std::span<const int> nodes, const NodeAmounts& amounts) {
  pool_.take(nodes, amounts);
  reasons_.clear();
}

void Capacity::take_for(std::span<const int> nodes, const NodeRequest& shape) {
  pool_.take_for(nodes, shape);
  reasons_.clear();
}

void Capacity::release(std::span<const int> nodes, const NodeAmounts& amounts) {
  pool_.give(nodes, amounts);
  returned();
}

void Capacity::add_stopping(std::span<const int> nodes, const NodeAmounts& amounts) {
  bool came_back = false;
  for (int node : nodes) {
    NodeAmounts& stopping = stopping_[static_cast<std::size_t>(node)];
    stopping = plus(stopping, amounts);
    came_back |= retally(node);
  }
  if (came_back) returned();
}

void Capacity::claim(const Claim& claim) {
  if (change_claim(claim.nodes, claim.amounts)) {
    returned();
  } else {
    reasons_.clear();
  }
}

void Capacity::unclaim(const Claim& claim) {
  change_claim(claim.nodes, negated(claim.amounts));
  returned();
}

bool Capacity::change_claim(std::span<const int> nodes, const NodeAmounts& amounts) {
  pool_.take(nodes, amounts);
  bool came_back = false;
  for (int node : nodes) {
    NodeAmounts& claimed = claimed_[static_cast<std::size_t>(node)];
    claimed = plus(claimed, amounts);
    came_back |= retally(node);
  }
  return came_back;
}

bool Capacity::retally(int node) {
  const auto n = static_cast<std::size_t>(node);
  const NodeAmounts overlap{std::min(stopping_[n].gpus, claimed_[n].gpus),
                            std::min(stopping_[n].cpus, claimed_[n].cpus),
                            std::min(stopping_[n].memory_gib, claimed_[n].memory_gib)};
  const NodeAmounts change{overlap.gpus - overlap_[n].gpus, overlap.cpus - overlap_[n].cpus,
                           overlap.memory_gib - overlap_[n].memory_gib};
  if (change.gpus == 0 && change.cpus == 0 && change.memory_gib == 0) return false;
  overlap_[n] = overlap;
  const int nodes[] = {node};
  pool_.give(nodes, change);
  return change.gpus > 0 || change.cpus > 0 || change.memory_gib > 0;
}

void Capacity::returned() {
  failed_.forget();
  reasons_.clear();
}

}  // namespace allot::runtime::cycle
