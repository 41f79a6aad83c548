// Downsamples a simulation's hourly timeline into plot-sized series.
#pragma once

#include "allot/simulator.h"

namespace allot::simulator {

// At most `max_points` points, each covering whole timeline buckets.
Series downsample(const SimulationResult& result, std::size_t max_points);

}  // namespace allot::simulator
