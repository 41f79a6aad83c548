#include "context.h"

#include <algorithm>

#include "ranking.h"

namespace allot::runtime::cycle {
namespace {

ShareBalance running_balance(const PolicyTables& tables, const AccountColumns& accounts, const UnitWeights& unit,
                             const ClusterState& state, const CycleJobs& jobs) {
  ShareBalance balance(tables, accounts.shares().of_cluster, capacity_rate(unit, state.inventory));
  for (const ActiveJob& job : jobs.active) {
    if (!job.stopping && !job.stopped && job.account >= 0) balance.add(job.account, job.rate);
  }
  return balance;
}

abi::ClusterView cluster_view(const ClusterState& state, const CycleJobs& jobs) {
  std::vector<int> free(state.inventory.nodes.size(), 0);
  for (std::size_t n = 0; n < free.size(); ++n) free[n] = state.inventory.nodes[n].gpus;
  double used = 0, running = 0;
  for (const ActiveJob& job : jobs.active) {
    if (job.stopped) continue;
    for (const int node : job.job->nodes) free[static_cast<std::size_t>(node)] -= job.per_node.gpus;
    used += static_cast<double>(job.node_count) * job.per_node.gpus;
    running += 1;
  }
  double free_gpus = 0;
  for (std::size_t n = 0; n < free.size(); ++n) {
    if (state.inventory.nodes[n].state == NodeState::up) free_gpus += std::max(0, free[n]);
  }
  return cluster_record(state, used, free_gpus, running);
}

}  // namespace

CycleContext::CycleContext(const ClusterState& state, const CompiledPolicy& policy)
    : state(state),
      policy(policy),
      tables(policy.tables()),
      account_index(tables),
      capacity(schedulable_capacity(state.inventory)),
      unit(unit_weights(tables.unit, capacity)),
      jobs(resolve_jobs(state, tables, account_index, unit)),
      accounts(tables, state, jobs.activity, capacity),
      pending_table(pending_job_table(jobs.pending, tables, policy.job_fields_read(), state.now)),
      running_table(running_job_table(jobs.active, tables, policy.job_fields_read(), state.now)),
      balance(running_balance(tables, accounts, unit, state, jobs)),
      cluster(cluster_view(state, jobs)),
      ranks(rank_rows(policy, pending_table, accounts, cluster)) {}

}  // namespace allot::runtime::cycle
