// What one scheduling cycle reads, built once from the state and the policy
// before anything is placed: the policy's indexes, the cluster's capacity and
// unit, every job resolved, the account table, the job tables, every pending
// job's rank, the share balance of the running jobs and the `cluster` record.
//
// The cycle (cycle.cpp) plans on it; `allot explain` reads the same object, so
// what explain shows is what the rank read. Nothing in it changes after
// construction: the cycle copies what placing changes (which jobs stop, the
// free capacity, the share balance).
#pragma once

#include <optional>
#include <vector>

#include "allot/account_columns.h"
#include "allot/accounting.h"
#include "allot/cycle.h"
#include "cycle_jobs.h"
#include "job_columns.h"
#include "share_balance.h"

namespace allot::runtime::cycle {

// Everyone is given it as `const CycleContext&`.
struct CycleContext {
  // With `cache`, what it keeps is reused and refreshed (CycleCache).
  CycleContext(const ClusterState& state, const CompiledPolicy& policy, CycleCache* cache = nullptr);
  CycleContext(const CycleContext&) = delete;
  CycleContext& operator=(const CycleContext&) = delete;

 private:
  CycleCache::Kept* kept_;
  std::optional<AccountIndex> own_index_;  // without a cache

 public:
  const ClusterState& state;
  const CompiledPolicy& policy;
  const PolicyTables& tables;
  const AccountIndex& account_index;
  ResourceAmounts capacity;  // of the up nodes
  UnitWeights unit;
  Rates rates;  // in `unit`
  CycleJobs jobs;
  // The account table `rank` and `preempt` read, from what `jobs` hold and wait for.
  AccountColumns accounts;
  JobColumns pending_table;  // rows: PendingJob::row
  JobColumns running_table;  // rows: indexes into jobs.active
  // What the running jobs hold against each account's share (not yet the
  // reservations in force, which the cycle claims first).
  ShareBalance balance;
  // The `cluster` record `rank` and `preempt` read: GPUs in use and free on up
  // nodes and running jobs, before the cycle places anything.
  abi::ClusterView cluster;
  std::vector<double> ranks;  // by pending row

  // Whether class `job_class` has a fast lane (ClassInfo::fast_lane_gpus).
  bool in_fast_lane(int job_class) const {
    return job_class >= 0 && tables.classes[static_cast<std::size_t>(job_class)].fast_lane_gpus > 0;
  }
};

// Memory one cycle leaves for the next, kept by a CycleCache: a cycle over a
// long queue or a large cluster would otherwise allocate it afresh each time.
struct CycleMemory {
  std::vector<Skip> skips;    // empty, with the capacity of a result given back (CycleCache::give_back)
  NodePool::Buckets buckets;  // the last cycle's node pool's (NodePool::memory)
};

// run_cycle (allot/cycle.h) on a context built already; with `memory`, the
// skips and the node pool are built in what it holds, and the pool's is left there.
CycleResult run_cycle(const CycleContext& context, const CycleOptions& options, CycleMemory* memory = nullptr);

}  // namespace allot::runtime::cycle
