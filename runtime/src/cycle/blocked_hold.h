// Capacity held for the best job that can neither start nor take capacity by
// preemption. Without it, a job that needs whole nodes never starts on a busy
// cluster: every GPU that frees goes at once to a smaller job ranked below it
// (Slurm's scheduler has the same problem and answers it with the backfill
// reservation of its top job). The hold is recomputed every cycle at the job's
// place in the queue, so jobs ranked above it are never kept waiting by it, and
// nothing about it has to be stored between cycles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/cycle.h"
#include "capacity.h"
#include "cycle_jobs.h"
#include "placement.h"

namespace allot::runtime::cycle {

struct BlockedHold {
  std::vector<int> nodes;       // one per node the job needs
  std::optional<Seconds> when;  // when it should fit, if every job in the way has a runtime estimate
};

// The nodes the blocked job `shape` would fit on soonest if nothing else
// started there: for each node that could ever hold one of its nodes, the time
// its running jobs have freed enough (their expected end, or their stop time
// when stopping), preferring one topology block, then the most free GPUs now.
// Nodes carrying a reservation (capacity freed by preemption for another job)
// are never held: that capacity is promised already. nullopt when not enough
// nodes could ever hold it.
std::optional<BlockedHold> blocked_hold(const NodePool& pool, const NodeRequest& shape,
                                        const std::vector<ActiveJob>& active, const NodeLists& jobs_on_node,
                                        const std::vector<bool>& reserved, const PolicyTables& tables, Seconds now);

// Capacity held this cycle for a blocked job: what jobs ranked below it may
// not take, except by backfill (backfill.h).
struct Hold {
  std::string job_id;
  Claim claim;
  std::optional<Seconds> when;  // when the held job should fit; no backfill without it
  // Whether a job may backfill here past `when` and yield then: only with
  // CycleOptions::yield_backfill, under a policy without `preempt`, where
  // nothing but `when` starts the held job. Under one with it, the held job may
  // start sooner by preemption whenever its account drops below its share, and
  // a yielding job's own protection would put that start off (measured:
  // docs/SCHEDULING.md).
  bool lends_to_yielders = false;
};

}  // namespace allot::runtime::cycle
