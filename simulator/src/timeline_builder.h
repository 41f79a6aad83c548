// Accumulates rates held over intervals into the fixed-width buckets of a
// Timeline (GPU-seconds per bucket), splitting intervals at bucket edges.
#pragma once

#include <vector>

#include "allot/simulator.h"

namespace allot::simulator {

// What the cluster looks like between two events, as rates (GPUs, jobs).
struct ClusterLevels {
  double capacity_gpus = 0;
  double used_gpus = 0;
  double free_gpus = 0;
  double fragmented_gpus = 0;
  double waiting_jobs = 0;
};

class TimelineBuilder {
 public:
  TimelineBuilder(Seconds start, Seconds end, Seconds bucket, std::size_t programs);

  // Adds `levels` held over [from, until).
  void add_levels(Seconds from, Seconds until, const ClusterLevels& levels);
  // Adds each program's owed and delivered rates and its shortfall by cause
  // (unit per hour) held over [from, until).
  void add_programs(Seconds from, Seconds until, const std::vector<double>& owed, const std::vector<double>& delivered,
                    const std::vector<ShortfallHours>& shortfall);
  // Records GPU-seconds of work lost at `at`.
  void add_lost(Seconds at, double gpu_seconds);

  const Timeline& timeline() const { return timeline_; }

 private:
  // Calls add(bucket, seconds) for each bucket [from, until) overlaps.
  template <class Add>
  void split(Seconds from, Seconds until, Add add) const;

  Timeline timeline_;
  std::size_t buckets_ = 0;
};

}  // namespace allot::simulator
