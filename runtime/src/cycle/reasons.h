// The sentences decisions carry for people (Decision::reason).
#pragma once

#include <string>
#include <vector>

#include "allot/cycle.h"

namespace allot::runtime::cycle {

// "2026-12-02T10:05:00Z".
std::string format_time(Seconds time);

// "`gpu-01`", "`gpu-01`, `gpu-02`", "`gpu-01`, `gpu-02`, `gpu-03` and 5 more".
std::string node_list(const Inventory& inventory, const std::vector<int>& nodes);

// "12m", "1h30m", "2d": a duration as the language writes it.
std::string format_duration(Seconds seconds);

// "1st", "2nd", "23rd".
std::string ordinal(std::size_t position);

}  // namespace allot::runtime::cycle
