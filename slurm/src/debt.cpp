#include "debt.h"

#include <algorithm>

#include "allot/account_columns.h"
#include "allot/account_tree.h"
#include "allot/entitlement.h"
#include "cycle/cycle_jobs.h"

namespace allot::slurm {
namespace {

constexpr Seconds kHour = 3600;

// The rate of a job's resources in the unit, its GPUs typed by `gpu_type`.
double rate(const runtime::UnitWeights& unit, const runtime::JobRequest& request, const std::string& gpu_type) {
  const double nodes = request.nodes;
  return unit.rate_per_hour(runtime::ResourceUse{gpu_type, nodes * request.gpus_per_node, nodes * request.cpus_per_node,
                                                 nodes * request.memory_gib_per_node});
}

}  // namespace

DebtHours debt_added(const PolicyTables& tables, const runtime::ClusterState& state, const runtime::UnitWeights& unit,
                     Seconds duration) {
  std::vector<runtime::AccountSpec> specs;
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    specs.push_back({tables.accounts[i].path, std::max(tables.accounts[i].share, 0.0)});
  }
  auto tree = runtime::AccountTree::build(specs);
  if (!tree || duration <= 0) return {};
  const runtime::SharesInForce in_force = runtime::shares_in_force(tables, state.now);
  const runtime::AccountIndex index(tables);
  std::vector<double> shares(tree->size(), 0.0);
  for (std::size_t node = 0; node < tree->size(); ++node) {
    if (auto account = index.find(tree->node(node).path))
      shares[node] = in_force.of_cluster[static_cast<std::size_t>(*account)];
  }
  runtime::EntitlementStep step{duration, 0, std::vector<runtime::AccountLoad>(tree->size())};
  step.capacity = runtime::cycle::capacity_rate(unit, state.inventory, runtime::schedulable_capacity(state.inventory));
  for (const runtime::RunningJob& job : state.running) {
    const auto node = tree->find(job.request.account);
    if (!node || job.nodes.empty() || static_cast<std::size_t>(job.nodes.front()) >= state.inventory.nodes.size()) {
      continue;
    }
    const runtime::Node& first = state.inventory.nodes[static_cast<std::size_t>(job.nodes.front())];
    const double held = rate(unit, job.request, state.inventory.gpu_types[static_cast<std::size_t>(first.gpu_type)]);
    step.load[*node].usage += held;
    step.load[*node].demand += held;
  }
  for (const runtime::JobRequest& job : state.pending) {
    if (auto node = tree->find(job.account)) step.load[*node].demand += rate(unit, job, job.gpu_type);
  }
  const runtime::EntitlementReport report =
      runtime::account_entitlements(*tree, shares, std::span<const runtime::EntitlementStep>(&step, 1));
  DebtHours added;
  const Seconds hour = state.now / kHour;
  for (std::size_t node = 1; node < tree->size(); ++node) {
    const double debt = report.accounts[node].debt;
    if (debt > 0 && tree->node(node).is_leaf()) added[{tree->node(node).path, hour}] += debt;
  }
  return added;
}

std::map<std::string, double> debt_in_window(const DebtHours& hours, Seconds now, Seconds window) {
  std::map<std::string, double> debt;
  const Seconds oldest = (now - window) / kHour + 1;
  for (const auto& [key, amount] : hours) {
    if (key.second >= oldest && key.second <= now / kHour) debt[key.first] += amount;
  }
  return debt;
}

}  // namespace allot::slurm
