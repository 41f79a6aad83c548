// Background demand for the scenarios: every program submits a mix of debug,
// deadline evaluation and training jobs as a Poisson process, busier in working
// hours (08:00-20:00 UTC) than at night and quieter at weekends. As in the
// seed's story, the largest program asks for less than its share (80%) and the
// others for more: together they offer `load` times the capacity.
#pragma once

#include <string>
#include <vector>

#include "scenario_context.h"

namespace allot::simulator {

struct DemandOptions {
  double load = 1.3;                  // offered GPU-hours per GPU-hour of capacity on an average weekday
  double largest_program_load = 0.8;  // the largest program's demand, as a fraction of its share
  Seconds start = 0;
  Seconds end = 0;
};

// Appends the background arrivals of [start, end) to `jobs` (accounts set, ids not).
void add_background_demand(const ScenarioContext& context, const DemandOptions& options, Random& random,
                           std::vector<WorkloadJob>& jobs);

// How many background jobs add_background_demand is expected to append (the
// Poisson means summed), computed without drawing one: the generator's cost is
// bounded before any memory is taken for it.
double expected_background_jobs(const ScenarioContext& context, const DemandOptions& options);

// How busy an hour is relative to an average weekday: 1.3 in working hours,
// 0.7 at night, 0.6 at weekends (UTC).
double hour_factor(Seconds time);

}  // namespace allot::simulator
