#include "timeline_builder.h"

#include <algorithm>

namespace allot::simulator {

TimelineBuilder::TimelineBuilder(Seconds start, Seconds end, Seconds bucket, std::size_t programs) {
  timeline_.start = start;
  timeline_.bucket = std::max<Seconds>(1, bucket);
  buckets_ = static_cast<std::size_t>(std::max<Seconds>(1, (end - start + timeline_.bucket - 1) / timeline_.bucket));
  for (auto* series : {&timeline_.capacity_gpu_seconds, &timeline_.used_gpu_seconds, &timeline_.free_gpu_seconds,
                       &timeline_.fragmented_gpu_seconds, &timeline_.lost_gpu_seconds, &timeline_.waiting_jobs}) {
    series->assign(buckets_, 0.0);
  }
  timeline_.program_owed.assign(programs, std::vector<double>(buckets_, 0.0));
  timeline_.program_delivered.assign(programs, std::vector<double>(buckets_, 0.0));
  timeline_.program_shortfall.assign(programs, std::vector<ShortfallHours>(buckets_, ShortfallHours{}));
}

template <class Add>
void TimelineBuilder::split(Seconds from, Seconds until, Add add) const {
  const Seconds width = timeline_.bucket;
  while (from < until) {
    const Seconds index = (from - timeline_.start) / width;
    if (index < 0 || static_cast<std::size_t>(index) >= buckets_) return;
    const Seconds edge = std::min(until, timeline_.start + (index + 1) * width);
    add(static_cast<std::size_t>(index), static_cast<double>(edge - from));
    from = edge;
  }
}

void TimelineBuilder::add_levels(Seconds from, Seconds until, const ClusterLevels& levels) {
  split(from, until, [&](std::size_t bucket, double seconds) {
    timeline_.capacity_gpu_seconds[bucket] += levels.capacity_gpus * seconds;
    timeline_.used_gpu_seconds[bucket] += levels.used_gpus * seconds;
    timeline_.free_gpu_seconds[bucket] += levels.free_gpus * seconds;
    timeline_.fragmented_gpu_seconds[bucket] += levels.fragmented_gpus * seconds;
    timeline_.waiting_jobs[bucket] += levels.waiting_jobs * seconds;
  });
}

void TimelineBuilder::add_programs(Seconds from, Seconds until, const std::vector<double>& owed,
                                   const std::vector<double>& delivered, const std::vector<ShortfallHours>& shortfall) {
  split(from, until, [&](std::size_t bucket, double seconds) {
    const double hours = seconds / 3600.0;
    for (std::size_t p = 0; p < owed.size(); ++p) {
      timeline_.program_owed[p][bucket] += owed[p] * hours;
      timeline_.program_delivered[p][bucket] += delivered[p] * hours;
      for (std::size_t c = 0; c < kShortfallCauses; ++c) {
        timeline_.program_shortfall[p][bucket][c] += shortfall[p][c] * hours;
      }
    }
  });
}

void TimelineBuilder::add_lost(Seconds at, double gpu_seconds) {
  const Seconds index = (at - timeline_.start) / timeline_.bucket;
  if (index < 0) return;
  const auto bucket = std::min(static_cast<std::size_t>(index), buckets_ - 1);
  timeline_.lost_gpu_seconds[bucket] += gpu_seconds;
}

}  // namespace allot::simulator
