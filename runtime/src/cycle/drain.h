// Maintenance: jobs on a draining node stop at their next checkpoint after
// their protection (losing nothing) or at the drain deadline, whichever comes
// first; a job with neither keeps running to completion, as under Slurm's
// drain. Jobs on a node that is down have already stopped.
#pragma once

#include <string>
#include <vector>

#include "cycle_jobs.h"

namespace allot::runtime::cycle {

// A stop decided for a job because of its node.
struct DrainStop {
  int active = 0;  // index into CycleJobs::active
  Seconds stops_at = 0;
  double lost_gpu_seconds = 0;
  std::string reason;
};

// Stops for every job not already stopping that holds a draining or down node.
std::vector<DrainStop> drain_stops(const Inventory& inventory, const std::vector<ActiveJob>& active, Seconds now);

}  // namespace allot::runtime::cycle
