// Epoch seconds as calendar text (UTC), for reports.
#pragma once

#include <string>

#include "allot/epoch_seconds.h"

namespace allot::simulator {

// "2026-11-30T00:00:00Z".
std::string format_timestamp(runtime::Seconds seconds);
// "2026-11-30".
std::string format_day(runtime::Seconds seconds);

}  // namespace allot::simulator
