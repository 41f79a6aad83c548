#include "policy_units.h"

namespace allot::simulator {
namespace {

using runtime::Inventory;
using runtime::NodeState;
using runtime::UnitWeights;

struct Totals {
  double gpus = 0;
  double cpus = 0;
  double memory_gib = 0;
};

Totals up_totals(const Inventory& inventory) {
  Totals totals;
  for (const runtime::Node& node : inventory.nodes) {
    if (node.state != NodeState::up) continue;
    totals.gpus += node.gpus;
    totals.cpus += node.cpus;
    totals.memory_gib += node.memory_gib;
  }
  return totals;
}

}  // namespace

UnitWeights unit_weights(const PolicyTables& tables, const Inventory& inventory) {
  UnitWeights weights;
  if (tables.unit.dominant) {
    weights.kind = UnitWeights::Kind::dominant_resource;
    for (const auto& [resource, weight] : tables.unit.weights) {
      if (resource == "gpu") weights.gpu_weight = weight;
      if (resource == "cpu") weights.cpu_weight = weight;
      if (resource == "memory") weights.memory_weight = weight;
    }
  } else {
    for (const auto& [type, weight] : tables.unit.weights) weights.gpu_type_weights.emplace(type, weight);
  }
  const Totals totals = up_totals(inventory);
  weights.total_gpus = totals.gpus;
  weights.total_cpus = totals.cpus;
  weights.total_memory_gib = totals.memory_gib;
  return weights;
}

runtime::LedgerConfig ledger_config(const PolicyTables& tables, const Inventory& inventory) {
  runtime::LedgerConfig config;
  config.unit = unit_weights(tables, inventory);
  config.bucket_width = 3600;
  const auto hours = static_cast<runtime::Seconds>(tables.window / 3600.0 + 0.5);
  config.window = std::max<runtime::Seconds>(1, hours) * 3600;
  if (tables.half_life) config.half_life_seconds = *tables.half_life;
  return config;
}

double capacity_rate(const UnitWeights& unit, const Inventory& inventory) {
  if (unit.kind == UnitWeights::Kind::dominant_resource) {
    const Totals totals = up_totals(inventory);
    return unit.rate_per_hour(runtime::ResourceUse{"", totals.gpus, totals.cpus, totals.memory_gib});
  }
  double rate = 0;
  for (std::size_t i = 0; i < inventory.nodes.size(); ++i) {
    const runtime::Node& node = inventory.nodes[i];
    if (node.state != NodeState::up) continue;
    rate += unit.rate_per_hour(runtime::ResourceUse{node_gpu_type(inventory, static_cast<int>(i)), 1.0 * node.gpus});
  }
  return rate;
}

double average_gpu_rate(const UnitWeights& unit, const Inventory& inventory) {
  const double total = up_gpus(inventory);
  return total > 0 ? capacity_rate(unit, inventory) / total : 1.0;
}

const std::string& node_gpu_type(const Inventory& inventory, int node) {
  return inventory.gpu_types[static_cast<std::size_t>(inventory.nodes[static_cast<std::size_t>(node)].gpu_type)];
}

int up_gpus(const Inventory& inventory) { return inventory.schedulable_gpus(); }

}  // namespace allot::simulator
