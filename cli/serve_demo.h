// `allot serve --demo`: the seed's company replayed against the real service
// in accelerated virtual time (docs/SERVE.md "Demo"). A generated week of
// arrivals (the simulator's `normal` scenario) is submitted as its times come,
// and a pretend executor runs what the service starts: it reports checkpoints
// on each contract's schedule and a job finished when its work is done, and
// keeps the work of a resumable job that was preempted. Everything else is the
// service's own: ranking, placement, preemption, charging, the dashboard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "allot/service.h"
#include "allot/simulator.h"

namespace allot::cli {

class DemoExecutor {
 public:
  // `workload` with each job's class index under the policy (simulator::resolve_jobs).
  DemoExecutor(simulator::Workload workload, std::vector<int> classes, const PolicyTables& tables);

  // Submits what arrived by `now`, reads the feed, and reports what ran by
  // `now` (checkpoints, finishes). Returns a line for the log when something
  // went wrong (nothing is stopped by it), else "".
  std::string step(service::Service& service, runtime::Seconds now);

  std::size_t submitted() const { return next_; }
  std::size_t finished() const { return finished_; }

 private:
  struct Run {
    runtime::Seconds started = 0;
    runtime::Seconds last_checkpoint = 0;
    bool resumable = false;
  };
  simulator::Workload workload_;
  std::vector<int> classes_;
  const PolicyTables& tables_;
  std::size_t next_ = 0;                          // the next workload job to submit
  std::int64_t feed_ = 0;                         // the last feed entry read
  std::map<std::string, std::size_t> index_;      // job id -> workload index
  std::map<std::string, runtime::Seconds> done_;  // work kept from earlier runs (checkpoints)
  std::map<std::string, Run> runs_;               // what each running job looked like last step
  std::size_t finished_ = 0;
};

}  // namespace allot::cli
