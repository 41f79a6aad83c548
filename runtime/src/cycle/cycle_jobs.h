// The jobs of a ClusterState resolved against a policy and an inventory:
// accounts, classes and GPU types become indexes, resources become per-node
// amounts and a rate in the policy's unit. Built once per cycle.
#pragma once

#include <cstdint>
#include <span>
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

// Per node, a list of active job indexes, all in one array: what a vector per
// node would hold, in the same order, built with two allocations instead of
// one per node. `each(add)` calls add(node, job) for every entry, in order; it
// is called twice (to count, then to fill).
class NodeLists {
 public:
  NodeLists() = default;
  template <class Each>
  NodeLists(std::size_t nodes, Each each) : starts_(nodes + 1, 0) {
    each([&](int node, int) { ++starts_[static_cast<std::size_t>(node) + 1]; });
    for (std::size_t n = 1; n < starts_.size(); ++n) starts_[n] += starts_[n - 1];
    jobs_.resize(starts_.back());
    std::vector<std::size_t> next(starts_.begin(), starts_.end() - 1);
    each([&](int node, int job) { jobs_[next[static_cast<std::size_t>(node)]++] = job; });
  }

  std::span<const int> operator[](std::size_t node) const {
    return std::span<const int>(jobs_).subspan(starts_[node], starts_[node + 1] - starts_[node]);
  }
  std::size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }

 private:
  std::vector<std::size_t> starts_;  // node n's jobs are jobs_[starts_[n], starts_[n + 1])
  std::vector<int> jobs_;
};

// The policy account and class each request resolved to at the last cycle,
// by JobRequest::revision: a CycleCache keeps one per list of jobs (pending,
// running) for one policy. Each cycle looks its jobs up in the order the state
// lists them, which mostly keeps from one cycle to the next (jobs leave, others
// join at the end), so a lookup tries the few entries after the last one found
// and records what the next cycle will look up.
class Resolutions {
 public:
  struct Entry {
    std::uint64_t revision = 0;
    int account = -1;
    int job_class = -1;
  };

  // Starts a cycle's pass: what the last pass recorded is what find() finds.
  void begin();
  // The last pass's entry for `revision` (not 0), or null.
  const Entry* find(std::uint64_t revision);
  // For the next pass; entries of revision 0 are not kept.
  void record(const Entry& entry);
  void clear();

 private:
  std::vector<Entry> last_;
  std::vector<Entry> next_;
  std::size_t cursor_ = 0;  // in last_, just past the last entry found
};

// What a cycle with a cache has resolved before (CycleCache::Kept).
struct KnownJobs {
  Resolutions pending;
  Resolutions running;
};

// Every job of the state, resolved.
struct CycleJobs {
  explicit CycleJobs(const Inventory& inventory) : node_sets(inventory) {}

  std::vector<PendingJob> pending;  // in state order
  std::vector<ActiveJob> active;    // in state order, one per running job
  NodeLists jobs_on_node;           // node -> active indexes holding it (not stopped)
  AccountActivity activity;         // by policy account index
  NodeSets node_sets;               // the masks PendingJob::shape points into
};

// With `known`, each request's account and class are taken from there when
// its revision was resolved before, and recorded there for the next cycle.
CycleJobs resolve_jobs(const ClusterState& state, const PolicyTables& tables, const AccountIndex& accounts,
                       const Rates& rates, KnownJobs* known = nullptr);

// The `cluster` record a policy reads, from a cycle's tallies of GPUs in use,
// free GPUs on up nodes, and running jobs.
abi::ClusterView cluster_record(const ClusterState& state, double used_gpus, double free_gpus, double running_jobs);

}  // namespace allot::runtime::cycle
