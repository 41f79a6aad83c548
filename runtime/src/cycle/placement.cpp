#include "placement.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include <fmt/format.h>

namespace allot::runtime::cycle {
namespace {

// Tolerance for CPU and memory sums, which are fractional.
constexpr double kSlack = 1e-9;

std::string gpu_phrase(const Inventory& inventory, int gpu_type, int gpus) {
  const char* noun = gpus == 1 ? "GPU" : "GPUs";
  if (gpu_type == kAnyGpuType) return fmt::format("{} free {}", gpus, noun);
  return fmt::format("{} free {} {}", gpus, inventory.gpu_types[static_cast<std::size_t>(gpu_type)], noun);
}

std::tuple<int, int, int, int, bool> shape_key(const NodeRequest& request) {  // FailedShapes::Key
  return {request.gpu_type, request.nodes, request.gpus_per_node, request.node_set, request.exclusive};
}

NodeAmounts capacity_of(const Node& node) {
  return NodeAmounts{node.gpus, static_cast<double>(node.cpus), node.memory_gib};
}

}  // namespace

NodeAmounts per_node(const NodeRequest& request) {
  return NodeAmounts{request.gpus_per_node, request.cpus_per_node, request.memory_gib_per_node};
}

NodeAmounts held_on(const Inventory& inventory, int node, const NodeRequest& request) {
  if (!request.exclusive) return per_node(request);
  return capacity_of(inventory.nodes[static_cast<std::size_t>(node)]);
}

NodeAmounts held_on_each(const Inventory& inventory, const std::vector<int>& nodes, const NodeRequest& request) {
  if (!request.exclusive) return per_node(request);
  NodeAmounts most = per_node(request);
  for (int node : nodes) {
    const NodeAmounts whole = capacity_of(inventory.nodes[static_cast<std::size_t>(node)]);
    most = NodeAmounts{std::max(most.gpus, whole.gpus), std::max(most.cpus, whole.cpus),
                       std::max(most.memory_gib, whole.memory_gib)};
  }
  return most;
}

NodePool::NodePool(const Inventory& inventory, Buckets* memory)
    : inventory_(inventory), free_(inventory.nodes.size()), slot_(inventory.nodes.size(), -1) {
  // As many buckets per type as its largest node has GPUs, plus one, each empty.
  std::vector<std::size_t> sizes(inventory.gpu_types.size(), 0);
  for (const Node& node : inventory.nodes) {
    std::size_t& size = sizes[static_cast<std::size_t>(node.gpu_type)];
    size = std::max(size, static_cast<std::size_t>(node.gpus) + 1);
  }
  if (memory != nullptr) buckets_ = std::move(*memory);
  buckets_.resize(sizes.size());
  for (std::size_t type = 0; type < sizes.size(); ++type) {
    buckets_[type].resize(sizes[type]);
    for (std::vector<int>& bucket : buckets_[type]) bucket.clear();
  }
  for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
    const Node& node = inventory.nodes[n];
    free_[n] = NodeAmounts{node.gpus, static_cast<double>(node.cpus), node.memory_gib};
    if (node.state == NodeState::up) file(static_cast<int>(n));
  }
}

int NodePool::bucket_of(int node) const {
  const std::size_t n = static_cast<std::size_t>(node);
  return std::clamp(free_[n].gpus, 0, inventory_.nodes[n].gpus);
}

void NodePool::file(int node) {
  auto& bucket = buckets_[static_cast<std::size_t>(inventory_.nodes[static_cast<std::size_t>(node)].gpu_type)]
                         [static_cast<std::size_t>(bucket_of(node))];
  slot_[static_cast<std::size_t>(node)] = static_cast<int>(bucket.size());
  bucket.push_back(node);
}

void NodePool::unfile(int node) {
  auto& bucket = buckets_[static_cast<std::size_t>(inventory_.nodes[static_cast<std::size_t>(node)].gpu_type)]
                         [static_cast<std::size_t>(bucket_of(node))];
  const int slot = slot_[static_cast<std::size_t>(node)];
  const int moved = bucket.back();
  bucket[static_cast<std::size_t>(slot)] = moved;
  slot_[static_cast<std::size_t>(moved)] = slot;
  bucket.pop_back();
  slot_[static_cast<std::size_t>(node)] = -1;
}

void NodePool::take(std::span<const int> nodes, const NodeAmounts& amounts) {
  ++version_;
  for (int node : nodes) {
    const bool filed = slot_[static_cast<std::size_t>(node)] >= 0;
    if (filed) unfile(node);
    NodeAmounts& free = free_[static_cast<std::size_t>(node)];
    free.gpus -= amounts.gpus;
    free.cpus -= amounts.cpus;
    free.memory_gib -= amounts.memory_gib;
    if (filed) file(node);
  }
}

void NodePool::take_for(std::span<const int> nodes, const NodeRequest& request) {
  for (const int& node : nodes) take(std::span<const int>(&node, 1), held_on(inventory_, node, request));
}

void NodePool::give(std::span<const int> nodes, const NodeAmounts& amounts) {
  take(nodes, NodeAmounts{-amounts.gpus, -amounts.cpus, -amounts.memory_gib});
}

bool NodePool::matches(int node, const NodeRequest& request) const {
  const Node& info = inventory_.nodes[static_cast<std::size_t>(node)];
  return info.state == NodeState::up && (request.gpu_type == kAnyGpuType || info.gpu_type == request.gpu_type) &&
         (request.eligible == nullptr || (*request.eligible)[static_cast<std::size_t>(node)]);
}

bool NodePool::has_room(int node, const NodeRequest& request) const {
  if (request.eligible != nullptr && !(*request.eligible)[static_cast<std::size_t>(node)]) return false;
  const NodeAmounts& free = free_[static_cast<std::size_t>(node)];
  const NodeAmounts need = held_on(inventory_, node, request);
  return free.gpus >= need.gpus && free.cpus + kSlack >= need.cpus && free.memory_gib + kSlack >= need.memory_gib;
}

std::vector<int> NodePool::types_of(const NodeRequest& request) const {
  if (request.gpu_type != kAnyGpuType) return {request.gpu_type};
  std::vector<int> types(buckets_.size());
  std::iota(types.begin(), types.end(), 0);
  return types;
}

// The node with the fewest free GPUs that still fits, over every allowed type.
std::optional<int> NodePool::find_one(const NodeRequest& request) const {
  std::optional<Fit> best;
  for (int type : types_of(request)) {
    const auto& buckets = buckets_[static_cast<std::size_t>(type)];
    for (std::size_t gpus = static_cast<std::size_t>(std::max(0, request.gpus_per_node)); gpus < buckets.size();
         ++gpus) {
      if (best && static_cast<int>(gpus) >= best->free_gpus) break;
      const auto& bucket = buckets[gpus];
      const auto fit = std::find_if(bucket.begin(), bucket.end(), [&](int node) { return has_room(node, request); });
      if (fit == bucket.end()) continue;
      best = Fit{static_cast<int>(gpus), *fit};
      break;
    }
  }
  if (!best) return std::nullopt;
  return best->node;
}

// Best fit within one block if any block can hold the job (the block whose
// chosen nodes leave the fewest GPUs free, then the block with the fewest
// other candidates, so roomy blocks stay whole); else the fewest blocks.
std::optional<NodePool::Choice> NodePool::find_many(int gpu_type, const NodeRequest& request) const {
  const auto& buckets = buckets_[static_cast<std::size_t>(gpu_type)];
  std::vector<std::vector<Fit>> by_block(inventory_.blocks.size());
  std::size_t candidates = 0;
  for (std::size_t gpus = static_cast<std::size_t>(std::max(0, request.gpus_per_node)); gpus < buckets.size(); ++gpus) {
    for (int node : buckets[gpus]) {
      if (!has_room(node, request)) continue;
      by_block[static_cast<std::size_t>(inventory_.nodes[static_cast<std::size_t>(node)].block)].push_back(
          Fit{static_cast<int>(gpus), node});
      ++candidates;
    }
  }
  const std::size_t needed = static_cast<std::size_t>(request.nodes);
  if (candidates < needed) return std::nullopt;
  auto waste_of = [&](const std::vector<Fit>& fits, std::size_t count) {
    long long waste = 0;
    for (std::size_t i = 0; i < count; ++i) waste += fits[i].free_gpus - request.gpus_per_node;
    return waste;
  };
  std::optional<std::size_t> best_block;
  for (std::size_t b = 0; b < by_block.size(); ++b) {
    if (by_block[b].size() < needed) continue;
    if (!best_block || std::pair(waste_of(by_block[b], needed), by_block[b].size()) <
                           std::pair(waste_of(by_block[*best_block], needed), by_block[*best_block].size())) {
      best_block = b;
    }
  }
  Choice choice;
  if (best_block) {
    for (std::size_t i = 0; i < needed; ++i) choice.nodes.push_back(by_block[*best_block][i].node);
    choice.blocks = 1;
    choice.waste = waste_of(by_block[*best_block], needed);
    return choice;
  }
  // No block holds it: take the blocks with the most candidates first.
  std::vector<std::size_t> blocks(by_block.size());
  std::iota(blocks.begin(), blocks.end(), 0);
  std::stable_sort(blocks.begin(), blocks.end(),
                   [&](std::size_t a, std::size_t b) { return by_block[a].size() > by_block[b].size(); });
  for (std::size_t b : blocks) {
    const std::size_t take = std::min(by_block[b].size(), needed - choice.nodes.size());
    if (take == 0) break;
    for (std::size_t i = 0; i < take; ++i) choice.nodes.push_back(by_block[b][i].node);
    choice.waste += waste_of(by_block[b], take);
    ++choice.blocks;
  }
  return choice;
}

std::optional<std::vector<int>> NodePool::find(const NodeRequest& request) const {
  if (request.nodes < 1) return std::nullopt;
  if (request.nodes == 1) {
    if (auto node = find_one(request)) return std::vector<int>{*node};
    return std::nullopt;
  }
  std::optional<Choice> best;
  for (int type : types_of(request)) {
    auto choice = find_many(type, request);
    if (choice && (!best || std::pair(choice->blocks, choice->waste) < std::pair(best->blocks, best->waste))) {
      best = std::move(choice);
    }
  }
  if (!best) return std::nullopt;
  return std::move(best->nodes);
}

int NodePool::nodes_with_gpus(const NodeRequest& request) const {
  int count = 0;
  for (int type : types_of(request)) {
    const auto& buckets = buckets_[static_cast<std::size_t>(type)];
    for (std::size_t gpus = static_cast<std::size_t>(std::max(0, request.gpus_per_node)); gpus < buckets.size();
         ++gpus) {
      if (request.eligible == nullptr) {
        count += static_cast<int>(buckets[gpus].size());
        continue;
      }
      for (int node : buckets[gpus]) count += (*request.eligible)[static_cast<std::size_t>(node)] ? 1 : 0;
    }
  }
  return count;
}

int NodePool::most_free_gpus(const NodeRequest& request) const {
  int most = 0;
  for (int type : types_of(request)) {
    const auto& buckets = buckets_[static_cast<std::size_t>(type)];
    for (std::size_t gpus = buckets.size(); gpus-- > 0;) {
      const auto& bucket = buckets[gpus];
      if (std::none_of(bucket.begin(), bucket.end(), [&](int node) {
            return request.eligible == nullptr || (*request.eligible)[static_cast<std::size_t>(node)];
          })) {
        continue;
      }
      most = std::max(most, static_cast<int>(gpus));
      break;
    }
  }
  return most;
}

std::string NodePool::failure_reason(const NodeRequest& request) const {
  // "node" or "node it may use" (its partitions, features, node list...).
  const std::string_view where = request.eligible != nullptr ? " it may use" : "";
  if (request.exclusive) {
    int whole = 0;
    for (std::size_t n = 0; n < inventory_.nodes.size(); ++n) {
      const int node = static_cast<int>(n);
      whole += slot_[n] >= 0 && matches(node, request) && has_room(node, request) ? 1 : 0;
    }
    if (request.nodes == 1) return fmt::format("it asks for a whole node and no node{} is free of other jobs", where);
    return fmt::format("it asks for {} whole nodes and {} node{} {} free of other jobs", request.nodes, whole, where,
                       whole == 1 ? "is" : "are");
  }
  const int with_gpus = nodes_with_gpus(request);
  if (request.nodes > 1 && with_gpus < request.nodes) {
    return fmt::format("needs {} nodes with {} each; {} {}{} {} them now", request.nodes,
                       gpu_phrase(inventory_, request.gpu_type, request.gpus_per_node), with_gpus,
                       with_gpus == 1 ? "node" : "nodes", where, with_gpus == 1 ? "has" : "have");
  }
  if (with_gpus < request.nodes) {
    return fmt::format("no node{} has {} (the most on one node is {})", where,
                       gpu_phrase(inventory_, request.gpu_type, request.gpus_per_node), most_free_gpus(request));
  }
  return fmt::format("no node{} with {} also has {:g} CPUs and {:g} GiB of memory free", where,
                     gpu_phrase(inventory_, request.gpu_type, request.gpus_per_node), request.cpus_per_node,
                     request.memory_gib_per_node);
}

std::size_t FailedShapes::KeyHash::operator()(const Key& key) const {
  const auto [gpu_type, nodes, gpus, node_set, exclusive] = key;
  std::uint64_t hash = static_cast<std::uint32_t>(gpu_type + 1);
  for (const std::uint64_t part :
       {static_cast<std::uint64_t>(static_cast<std::uint32_t>(nodes)),
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(gpus)),
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(node_set + 1)), static_cast<std::uint64_t>(exclusive)}) {
    hash = (hash ^ part) * 0x100000001b3ULL;  // FNV-1a's prime, over 32-bit parts
  }
  return static_cast<std::size_t>(hash);
}

bool FailedShapes::known_to_fail(const NodeRequest& request) const {
  const auto it = failed_.find(shape_key(request));
  if (it == failed_.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(), [&](const auto& failed) {
    return failed.first <= request.cpus_per_node && failed.second <= request.memory_gib_per_node;
  });
}

void FailedShapes::remember(const NodeRequest& request) {
  if (known_to_fail(request)) return;
  auto& failed = failed_[shape_key(request)];
  // Keep only the smallest shapes: a remembered one this request undercuts adds nothing.
  std::erase_if(failed, [&](const auto& known) {
    return request.cpus_per_node <= known.first && request.memory_gib_per_node <= known.second;
  });
  failed.emplace_back(request.cpus_per_node, request.memory_gib_per_node);
}

}  // namespace allot::runtime::cycle
