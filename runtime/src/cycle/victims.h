// Choosing preemption victims for a job that does not fit. A running job is a
// candidate when it is past its protection, preemptible under the contract it
// started with, requeueable, not already stopping, and the policy's `preempt`
// accepts it for this requester. Among the sets of candidates that free
// enough room (one node, or `nodes` nodes preferring one block) and that the
// ShareBalance allows, the one that loses the least work (GPU-seconds since
// the last checkpoint) wins; ties go to fewer victims, then shorter graces.
#pragma once

#include <optional>
#include <vector>

#include "cycle_jobs.h"
#include "job_columns.h"
#include "share_balance.h"

namespace allot::runtime::cycle {

// Everything a search reads.
struct VictimInputs {
  const CompiledPolicy& policy;
  const JobColumns& running_table;  // rows = indexes into `active`
  const JobColumns& pending_table;  // rows = PendingJob::row
  const abi::AccountTable& accounts;
  const abi::ClusterView& cluster;
  const std::vector<ActiveJob>& active;
  // Per node, the jobs on it that may_be_preempted() at the start of the
  // search's cycle (jobs stopped since then are skipped).
  const NodeLists& candidates_on_node;
  const NodePool& pool;
  const ShareBalance& balance;
  const std::vector<double>& lost_gpu_seconds;  // per active job, if it stopped now
  Seconds now = 0;
  // A fast-lane search (ClassInfo::fast_lane_gpus): neither the share balance
  // nor `preempt` is asked, and any candidate that is not itself of a
  // fast-lane class may go. Capacity held for blocked jobs (`lendable`, per
  // node) counts as free for it: a hold is recomputed every cycle and waits at
  // most the lane's `max_runtime` for it, where otherwise the lane would stop a
  // second job to fill the hold. Reserved capacity never counts.
  bool fast_lane = false;
  const std::vector<NodeAmounts>* lendable = nullptr;
};

// The victims chosen for one job and where that job will run.
struct VictimChoice {
  std::vector<int> victims;  // indexes into `active`
  std::vector<int> nodes;    // the requester's nodes
  double lost_gpu_seconds = 0;
};

// Whether a running job may be offered to `preempt` at all (before the predicate).
bool may_be_preempted(const ActiveJob& job, Seconds now);

// Per node, the jobs on it that may_be_preempted().
NodeLists preemption_candidates(const std::vector<ActiveJob>& active, const NodeLists& jobs_on_node, Seconds now);

// The cheapest allowed set of victims for `requester`, or nullopt. Without
// `fast_lane`, nullopt unless the policy has `preempt` and the requester's path
// has an account below its share.
std::optional<VictimChoice> find_victims(const VictimInputs& inputs, const PendingJob& requester);

}  // namespace allot::runtime::cycle
