// A load sweep: the same workload at several loads (scenarios generated at each
// load, or a trace on clusters of several sizes), each point summarised to the
// numbers a capacity planner reads off the curve.
#include <algorithm>
#include <cmath>

#include "allot/simulator.h"

namespace allot::simulator {
namespace {

// Index of `name` in `names`, appended when new.
int intern(std::vector<std::string>& names, const std::string& name) {
  const auto found = std::find(names.begin(), names.end(), name);
  if (found != names.end()) return static_cast<int>(found - names.begin());
  names.push_back(name);
  return static_cast<int>(names.size() - 1);
}

// "gpu-01" for the file's own nodes, "gpu-01+2" for the second copy.
std::string copy_name(const std::string& name, std::size_t copy) {
  return copy == 0 ? name : name + "+" + std::to_string(copy + 1);
}

SweepResult sweep_result(const PolicyMetrics& metrics) {
  SweepResult result;
  result.policy = metrics.name;
  for (const GroupMetrics& group : metrics.classes) {
    if (group.jobs > 0) result.p90_waits.emplace_back(group.name, group.p90_wait);
  }
  result.worst_delivery = metrics.worst_window_delivery;
  result.occupancy = metrics.occupancy;
  result.gates = static_cast<int>(metrics.gates.size());
  for (const GateResult& gate : metrics.gates) {
    if (gate.gate.metric == GateMetric::share_delivery && !result.delivery_gate)
      result.delivery_gate = gate.gate.threshold;
    if (gate.passed) {
      ++result.gates_passed;
    } else {
      result.failed_gates.push_back(gate.text);
    }
  }
  return result;
}

}  // namespace

double offered_load(const Workload& workload, const runtime::Inventory& inventory) {
  double offered = 0;
  for (const WorkloadJob& job : workload.jobs) {
    offered += static_cast<double>(job.nodes * job.gpus_per_node) * static_cast<double>(job.work);
  }
  const double capacity =
      static_cast<double>(inventory.schedulable_gpus()) * static_cast<double>(workload.end - workload.start);
  return capacity > 0 ? offered / capacity : 0;
}

long long scaled_node_count(std::size_t nodes, double factor) {
  return std::max(1LL, std::llround(static_cast<double>(nodes) * factor));
}

runtime::Inventory scale_cluster(const runtime::Inventory& inventory, double factor) {
  runtime::Inventory scaled;
  scaled.name = inventory.name;
  scaled.gpu_types = inventory.gpu_types;
  if (inventory.nodes.empty()) return scaled;
  const auto count = static_cast<std::size_t>(scaled_node_count(inventory.nodes.size(), factor));
  for (std::size_t index = 0; index < count; ++index) {
    const std::size_t copy = index / inventory.nodes.size();
    runtime::Node node = inventory.nodes[index % inventory.nodes.size()];
    node.name = copy_name(node.name, copy);
    node.block = intern(scaled.blocks, copy_name(inventory.blocks[static_cast<std::size_t>(node.block)], copy));
    scaled.nodes.push_back(std::move(node));
  }
  return scaled;
}

SweepPoint sweep_point(const ScenarioReport& scenario, const Workload& workload, const runtime::Inventory& inventory,
                       double load, std::optional<double> capacity_scale) {
  SweepPoint point;
  point.load = load;
  point.offered_load = offered_load(workload, inventory);
  point.capacity_scale = capacity_scale;
  point.gpus = inventory.schedulable_gpus();
  point.nodes = static_cast<int>(inventory.nodes.size());
  point.jobs = workload.jobs.size();
  for (const PolicyMetrics& metrics : scenario.policies) point.policies.push_back(sweep_result(metrics));
  return point;
}

}  // namespace allot::simulator
