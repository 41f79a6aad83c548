// Units and rates (accounting.h): what holding resources costs in a policy's unit.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "allot/accounting.h"
#include "allot/unit_types.h"

namespace allot::runtime {

ResourceAmounts schedulable_capacity(const Inventory& inventory) {
  ResourceAmounts capacity;
  for (const Node& node : inventory.nodes) {
    if (node.state != NodeState::up) continue;
    capacity.gpus += node.gpus;
    capacity.cpus += node.cpus;
    capacity.memory_gib += node.memory_gib;
  }
  return capacity;
}

UnitWeights unit_weights(const UnitInfo& unit, const ResourceAmounts& capacity) {
  UnitWeights weights;
  if (unit.dominant) {
    weights.kind = UnitWeights::Kind::dominant_resource;
    for (const auto& [resource, weight] : unit.weights) {
      if (resource == "gpu") weights.gpu_weight = weight;
      if (resource == "cpu") weights.cpu_weight = weight;
      if (resource == "memory") weights.memory_weight = weight;
    }
  } else {
    for (const auto& [type, weight] : unit.weights) weights.gpu_type_weights.emplace(type, weight);
  }
  weights.total_gpus = capacity.gpus;
  weights.total_cpus = capacity.cpus;
  weights.total_memory_gib = capacity.memory_gib;
  return weights;
}

UnitWeights unit_weights(const PolicyTables& tables, const Inventory& inventory) {
  return unit_weights(tables.unit, schedulable_capacity(inventory));
}

std::vector<std::string> unit_types_missing(const UnitInfo& unit, const Inventory& inventory) {
  std::vector<std::string> sentences;
  if (unit.dominant) return sentences;
  std::vector<std::string> weighted;
  for (const auto& weight : unit.weights) weighted.push_back(weight.first);
  const support::UnitTypeGaps gaps = support::unit_type_gaps(weighted, inventory.gpu_types);
  for (const support::StrayWeight& stray : gaps.stray) {
    sentences.push_back(fmt::format(
        "the unit weighs GPU type `{}`, which the cluster does not have{}", stray.type,
        stray.nearest.empty()
            ? fmt::format(" (its `{}` GPUs have no weight and count 1.0 per GPU-hour)",
                          fmt::join(gaps.unweighted, "`, `"))
            : fmt::format("; did you mean `{}`? `{}` GPUs now count 1.0 per GPU-hour", stray.nearest, stray.nearest)));
  }
  return sentences;
}

LedgerConfig ledger_config(const PolicyTables& tables, const Inventory& inventory) {
  LedgerConfig config;
  config.unit = unit_weights(tables, inventory);
  config.bucket_width = 3600;
  const auto hours = static_cast<Seconds>(tables.window / 3600.0 + 0.5);
  config.window = std::max<Seconds>(1, hours) * 3600;
  if (tables.half_life) config.half_life_seconds = *tables.half_life;
  return config;
}

double rate_on_nodes(const UnitWeights& unit, const Inventory& inventory, const std::vector<int>& nodes, double gpus,
                     double cpus, double memory_gib) {
  if (nodes.empty() || nodes.front() < 0 || static_cast<std::size_t>(nodes.front()) >= inventory.nodes.size()) {
    return 0.0;
  }
  const std::string& type = inventory.gpu_type_name(static_cast<std::size_t>(nodes.front()));
  const double count = static_cast<double>(nodes.size());
  return unit.rate_per_hour(ResourceUse{type, count * gpus, count * cpus, count * memory_gib});
}

double running_rate(const UnitWeights& unit, const Inventory& inventory, const RunningJob& job) {
  return rate_on_nodes(unit, inventory, job.nodes, job.request.gpus_per_node, job.request.cpus_per_node,
                       job.request.memory_gib_per_node);
}

double request_rate(const UnitWeights& unit, const JobRequest& request, std::string_view gpu_type) {
  const double nodes = request.nodes;
  return unit.rate_per_hour(ResourceUse{std::string(gpu_type), nodes * request.gpus_per_node,
                                        nodes * request.cpus_per_node, nodes * request.memory_gib_per_node});
}

double capacity_rate(const UnitWeights& unit, const Inventory& inventory) {
  if (unit.kind == UnitWeights::Kind::dominant_resource) {
    const ResourceAmounts capacity = schedulable_capacity(inventory);
    return unit.rate_per_hour(ResourceUse{"", capacity.gpus, capacity.cpus, capacity.memory_gib});
  }
  double rate = 0;
  for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
    const Node& node = inventory.nodes[n];
    if (node.state != NodeState::up) continue;
    rate += unit.rate_per_hour(ResourceUse{inventory.gpu_type_name(n), static_cast<double>(node.gpus), 0, 0});
  }
  return rate;
}

double average_gpu_rate(const UnitWeights& unit, const Inventory& inventory) {
  const double total = inventory.schedulable_gpus();
  return total > 0 ? capacity_rate(unit, inventory) / total : 1.0;
}

}  // namespace allot::runtime
