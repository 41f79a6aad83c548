// Taking capacity back from running jobs for a waiting one, three ways, each a
// planner that returns the jobs to stop and where the waiting job then runs;
// the cycle (cycle.cpp) commits the choice. Who may be stopped at all is one
// rule (stop_refusal, allot/contracts.h); the victim search is victims.h.
//   - the share rule: the policy's `preempt`, for a job whose account is below
//     its share, never pushing another below its own (share_balance.h);
//   - a fast lane (ClassInfo::fast_lane_gpus): short jobs of a class stop jobs
//     past their protection, share rule and `preempt` aside, while the class's
//     jobs in their program hold at most the lane's GPUs (docs/SCHEDULING.md
//     "Fast lane");
//   - take-back: capacity held for a blocked job whose time has come, from jobs
//     that ran past what they promised backfill (their runtime limit, or the
//     time they were backfilled to yield at).
#pragma once

#include <optional>
#include <vector>

#include "blocked_hold.h"
#include "capacity.h"
#include "context.h"
#include "share_balance.h"
#include "victims.h"

namespace allot::runtime::cycle {

// Jobs to stop for a waiting job, and the waiting job's nodes once they stop.
struct StopChoice {
  std::vector<int> victims;  // indexes into the cycle's active jobs
  std::vector<int> nodes;
};

class Preemption {
 public:
  // At most `searches` victim searches this cycle (CycleOptions::preemption_depth).
  Preemption(const CycleContext& context, std::size_t searches);

  std::size_t searches_left() const { return searches_left_; }

  // The share rule's victims for `job`, or nullopt (no search left, no
  // `preempt`, no account below its share on the job's path, or no allowed set).
  std::optional<StopChoice> share_rule(const PendingJob& job, const std::vector<ActiveJob>& active,
                                       const Capacity& capacity, const ShareBalance& balance);
  // The victims of `job`'s fast lane, or nullopt; the lane has room for the
  // job (the caller keeps the quota), and a search is left. Capacity held for
  // blocked jobs (`holds`) counts as free for it (victims.h).
  std::optional<StopChoice> fast_lane(const PendingJob& job, const std::vector<ActiveJob>& active,
                                      const Capacity& capacity, const ShareBalance& balance,
                                      const std::vector<Hold>& holds);
  // The jobs on `nodes`, held for a job whose time has come, that ran past
  // what they promised backfill, when every one of them may be stopped;
  // nullopt when there are none or one may not be stopped (then the job waits
  // for them to end).
  std::optional<StopChoice> take_back(const std::vector<int>& nodes, const std::vector<ActiveJob>& active) const;

 private:
  // Filled at the first victim search of the cycle.
  void prepare(const std::vector<ActiveJob>& active);
  // Counts a search and gives it what it reads.
  VictimInputs search_inputs(const std::vector<ActiveJob>& active, const Capacity& capacity,
                             const ShareBalance& balance);

  // Whether a share-rule search for `job` is known to fail: see failed_.
  bool known_to_fail(const PendingJob& job, const Capacity& capacity, const ShareBalance& balance) const;
  void remember_failure(const PendingJob& job, const Capacity& capacity, const ShareBalance& balance);

  const CycleContext& context_;
  std::size_t searches_left_;
  // When the policy's `preempt` has one fixed value (`preempt when true`), a
  // share-rule search reads nothing of the requester but its account and its
  // shape: the rest is the cycle's (the running jobs, which of them stop, the
  // free capacity, the share balance). So one that failed fails again for the
  // same account and shape while the free capacity and the balance are those it
  // failed with (every stop changes one of them); it still counts as a search.
  // A long queue asks the same few questions many times in a cycle.
  bool fixed_preempt_ = false;
  struct Failed {
    int account;
    NodeRequest shape;
  };
  std::vector<Failed> failed_;  // for the versions below
  std::uint64_t failed_pool_version_ = 0;
  std::uint64_t failed_balance_version_ = 0;
  NodeLists candidates_on_node_;
  std::vector<double> lost_now_;  // per active job, if it stopped now
};

}  // namespace allot::runtime::cycle
