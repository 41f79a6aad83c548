// The data a compiled policy reads: the contract between the runtime, which
// fills these tables, and the code the compiler generates (JIT or interpreter).
//
// Everything here is plain data: no virtual calls, no allocation, no locks.
// Jobs and accounts are struct-of-arrays tables (one column per field), so a
// batch ranking reads only the columns a policy uses and LLVM can vectorise.
//
// Units inside the tables (the language's literals are converted to these):
//   number  -> the number;          duration -> seconds;
//   percent -> a fraction (40% = 0.4); date  -> seconds since 1970-01-01 UTC;
//   bool    -> 0.0 or 1.0;          class   -> the class index in
//   CompiledPolicy::classes();      label   -> 0 none, 1 low, 2 medium, 3 high.
//
// The runtime never writes NaN into a table: with a NaN input the two engines
// can disagree on nested min/max (an open bug, docs/IR.md).
//
// Field order is part of the ABI: compiler/frontend/src/check/schema.cpp names each
// field and tests/compiler keeps the two in step.
#pragma once

#include <cstddef>
#include <cstdint>

namespace allot::abi {

// Columns of the job table (pending jobs for rank; running or pending for preempt).
enum JobField : std::uint32_t {
  job_class,
  job_label,
  job_gpus,
  job_nodes,
  job_gpus_per_node,
  job_cpus,
  job_memory_gb,
  job_wait,
  job_runtime,
  job_since_checkpoint,
  job_protect,
  job_has_deadline,
  job_deadline_slack,
  job_resumable,
  job_restarts,
  job_submitted,
  job_stalled,
  job_since_progress,
  kJobFieldCount
};

// Columns of the account table, one row per account (every tree node).
enum AccountField : std::uint32_t {
  account_share,
  account_level_share,
  account_norm_share,
  account_usage,
  account_effective_usage,
  account_usage_ratio,
  account_debt,
  account_fair_tree,
  account_level_fs,
  account_dominant_share,
  account_running_gpus,
  account_pending_jobs,
  account_depth,
  kAccountFieldCount
};

// Values describing the whole cluster at the time of the cycle.
enum ClusterField : std::uint32_t {
  cluster_now,
  cluster_total_gpus,
  cluster_free_gpus,
  cluster_utilization,
  cluster_pending_jobs,
  cluster_running_jobs,
  kClusterFieldCount
};

// Job rows: columns[f][i] is field f of job i; account[i] is the row of job i's
// account in the AccountTable. A column the policy does not read may be null
// (CompiledPolicy reports which it reads).
struct JobTable {
  std::size_t count;
  const double* columns[kJobFieldCount];
  const std::int32_t* account;
};

struct AccountTable {
  std::size_t count;
  const double* columns[kAccountFieldCount];
};

struct ClusterView {
  double values[kClusterFieldCount];
};

// Ranks jobs [begin, end) of `jobs`, writing out[i - begin]. Higher ranks first.
// `out` must not overlap any column the tables point to (the JIT assumes so to vectorise).
using RankBatchFn = void (*)(const JobTable* jobs, const AccountTable* accounts, const ClusterView* cluster,
                             std::size_t begin, std::size_t end, double* out);

// Ranks one job.
using RankOneFn = double (*)(const JobTable* jobs, std::size_t job, const AccountTable* accounts,
                             const ClusterView* cluster);

// Whether running job `victim` may be preempted for pending job `requester`.
// Returns 1 or 0. The runtime never offers a protected job.
using PreemptFn = std::uint8_t (*)(const JobTable* victims, std::size_t victim, const JobTable* requesters,
                                   std::size_t requester, const AccountTable* accounts, const ClusterView* cluster);

}  // namespace allot::abi
