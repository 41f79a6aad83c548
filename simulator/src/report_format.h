// How reports write numbers: durations (support::format_duration_rounded,
// included here for every report writer), percentages, gate text. Fixed
// formats, so the same value always prints the same way.
#pragma once

#include <string>

#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/policy.h"

namespace allot::simulator {

// A fraction as a percentage: "97.3%".
std::string format_percent(double fraction);
// A gate as written in a policy: "p90_wait debug <= 5m", "share_delivery >= 95% over 7d".
std::string gate_text(const GateInfo& gate);
// Whether a gate's metric is a fraction (the others are durations).
bool is_percent_metric(GateMetric metric);
// A value of a gate's metric for people.
std::string format_metric(GateMetric metric, double value);

}  // namespace allot::simulator
