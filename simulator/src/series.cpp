#include "series.h"

#include <algorithm>

namespace allot::simulator {
namespace {

double range_sum(const std::vector<double>& values, std::size_t begin, std::size_t end) {
  double total = 0;
  for (std::size_t i = begin; i < end; ++i) total += values[i];
  return total;
}

}  // namespace

Series downsample(const SimulationResult& result, std::size_t max_points) {
  const Timeline& timeline = result.timeline;
  const std::size_t buckets = timeline.capacity_gpu_seconds.size();
  const std::size_t group = std::max<std::size_t>(1, (buckets + max_points - 1) / std::max<std::size_t>(1, max_points));
  Series series;
  series.program_delivery.assign(timeline.program_owed.size(), {});
  for (std::size_t begin = 0; begin < buckets; begin += group) {
    const std::size_t end = std::min(buckets, begin + group);
    const double seconds = static_cast<double>((end - begin) * static_cast<std::size_t>(timeline.bucket));
    const double capacity = range_sum(timeline.capacity_gpu_seconds, begin, end);
    series.hours.push_back(static_cast<double>(begin * static_cast<std::size_t>(timeline.bucket)) / 3600.0);
    series.occupancy.push_back(capacity > 0 ? range_sum(timeline.used_gpu_seconds, begin, end) / capacity : 0);
    series.fragmented_gpus.push_back(range_sum(timeline.fragmented_gpu_seconds, begin, end) / seconds);
    series.lost_gpu_hours.push_back(range_sum(timeline.lost_gpu_seconds, begin, end) / 3600.0);
    series.waiting_jobs.push_back(range_sum(timeline.waiting_jobs, begin, end) / seconds);
    for (std::size_t p = 0; p < timeline.program_owed.size(); ++p) {
      const double owed = range_sum(timeline.program_owed[p], begin, end);
      const double delivered = range_sum(timeline.program_delivered[p], begin, end);
      series.program_delivery[p].push_back(owed > 1e-9 ? delivered / owed : -1.0);
    }
  }
  return series;
}

}  // namespace allot::simulator
