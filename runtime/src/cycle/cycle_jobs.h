// The jobs of a ClusterState resolved against a policy and an inventory:
// accounts, classes and GPU types become indexes, resources become per-node
// amounts and a rate in the policy's unit. Built once per cycle.
#pragma once

#include <string>
#include <vector>

#include "allot/account_columns.h"
#include "allot/contracts.h"
#include "allot/cycle.h"
#include "allot/ledger.h"
#include "allot/policy.h"
#include "eligibility.h"
#include "placement.h"

namespace allot::runtime::cycle {

// A pending job as the cycle sees it.
struct PendingJob {
  const JobRequest* request = nullptr;
  int account = -1;    // policy account index
  int job_class = -1;  // index into PolicyTables::classes
  NodeRequest shape;
  std::string problem;  // why it cannot be ranked (unknown account or class); empty when it can
  // Why it is ranked but cannot start (JobRequest::blocked, or it may run on no
  // node: Eligibility::problem); empty when it may start.
  std::string cannot_start;
  bool known_gpu_type = true;
  std::size_t row = 0;  // its row in the pending job table (rankable jobs only)
};

// A running job as the cycle sees it.
struct ActiveJob {
  const RunningJob* job = nullptr;
  int account = -1;  // -1 when the current policy does not know it (after a swap)
  int job_class = -1;
  NodeAmounts per_node;   // what it holds on each node (whole nodes when exclusive)
  int node_count = 0;     // nodes it holds
  double rate = 0;        // what it costs per hour in the policy's unit
  bool stopping = false;  // its stop is decided (stopping_at, or in this cycle)
  bool stopped = false;   // its stop time has passed: its resources are free
  bool stalled = false;   // no progress within its contract's interval (contracts.h stalled_since)
};

// What holding resources costs per hour in the policy's unit: accounting.h's
// rate_on_nodes, with a GPU-hours unit's price of each GPU type looked up once
// per cycle instead of by name once per job.
class Rates {
 public:
  Rates(const UnitWeights& unit, const Inventory& inventory);

  // The rate of holding `amounts` on each of `nodes`.
  double of(const std::vector<int>& nodes, const NodeAmounts& amounts) const;

 private:
  const UnitWeights& unit_;
  const Inventory& inventory_;
  std::vector<double> per_gpu_;  // by Inventory::gpu_types index; empty unless a GPU-hours unit
};

// Every job of the state, resolved.
struct CycleJobs {
  explicit CycleJobs(const Inventory& inventory) : node_sets(inventory) {}

  std::vector<PendingJob> pending;             // in state order
  std::vector<ActiveJob> active;               // in state order, one per running job
  std::vector<std::vector<int>> jobs_on_node;  // node -> active indexes holding it
  AccountActivity activity;                    // by policy account index
  NodeSets node_sets;                          // the masks PendingJob::shape points into
};

CycleJobs resolve_jobs(const ClusterState& state, const PolicyTables& tables, const AccountIndex& accounts,
                       const Rates& rates);

// The `cluster` record a policy reads, from a cycle's tallies of GPUs in use,
// free GPUs on up nodes, and running jobs.
abi::ClusterView cluster_record(const ClusterState& state, double used_gpus, double free_gpus, double running_jobs);

}  // namespace allot::runtime::cycle
