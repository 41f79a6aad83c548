// The sentences decisions carry for people (Decision::reason). Times and
// durations in them are printed by support/ (dates.h, duration.h).
#pragma once

#include <string>
#include <vector>

#include "allot/cycle.h"

namespace allot::runtime::cycle {

// "`gpu-01`", "`gpu-01`, `gpu-02`", "`gpu-01`, `gpu-02`, `gpu-03` and 5 more".
std::string node_list(const Inventory& inventory, const std::vector<int>& nodes);

// "1st", "2nd", "23rd".
std::string ordinal(std::size_t position);

}  // namespace allot::runtime::cycle
