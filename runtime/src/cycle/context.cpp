#include "context.h"

#include <algorithm>

#include "cycle_cache.h"
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

bool reads(const CompiledPolicy& policy, abi::AccountField field) {
  const auto& read = policy.account_fields_read();
  return std::find(read.begin(), read.end(), field) != read.end();
}

// The cache's part for `policy`, or null without a cache.
CycleCache::Kept* kept_for(CycleCache* cache, const CompiledPolicy& policy) {
  if (cache == nullptr) return nullptr;
  cache->kept().serve(policy);
  return &cache->kept();
}

const AccountIndex& index_for(const PolicyTables& tables, CycleCache::Kept* kept, std::optional<AccountIndex>& own) {
  std::optional<AccountIndex>& index = kept != nullptr ? kept->account_index : own;
  if (!index) index.emplace(tables);
  return *index;
}

}  // namespace

CycleContext::CycleContext(const ClusterState& state, const CompiledPolicy& policy, CycleCache* cache)
    : kept_(kept_for(cache, policy)),
      state(state),
      policy(policy),
      tables(policy.tables()),
      account_index(index_for(tables, kept_, own_index_)),
      capacity(schedulable_capacity(state.inventory)),
      unit(unit_weights(tables.unit, capacity)),
      rates(unit, state.inventory),
      jobs(resolve_jobs(state, tables, account_index, rates, kept_ != nullptr ? &kept_->known_jobs : nullptr)),
      accounts(tables, state, jobs.activity, capacity, kept_ != nullptr ? &kept_->accounts : nullptr,
               reads(policy, abi::account_dominant_share)),
      pending_table(pending_job_table(jobs.pending, tables, policy.job_fields_read(), state.now)),
      running_table(running_job_table(jobs.active, tables, policy.job_fields_read(), state.now)),
      balance(running_balance(tables, accounts, unit, state, jobs)),
      cluster(cluster_view(state, jobs)),
      ranks(rank_rows(policy, pending_table, accounts, cluster)) {}

}  // namespace allot::runtime::cycle

namespace allot::runtime {

void CycleCache::Kept::serve(const CompiledPolicy& policy) {
  if (!accounts.serve(policy.tables(), policy.source_hash())) return;
  account_index.reset();
  known_jobs.pending.clear();
  known_jobs.running.clear();
}

void CycleCache::give_back(CycleResult&& used) {
  kept_->memory.skips = std::move(used.skips);
  kept_->memory.skips.clear();
}

CycleCache::CycleCache() : kept_(std::make_unique<Kept>()) {}
CycleCache::~CycleCache() = default;
CycleCache::CycleCache(CycleCache&&) noexcept = default;
CycleCache& CycleCache::operator=(CycleCache&&) noexcept = default;

}  // namespace allot::runtime
