// The log lines of hot swap (SwapOutcome::message), shared by the slot and by
// its from-file paths so every outcome reads the same way.
#pragma once

#include <string>
#include <vector>

#include "allot/policy_slot.h"

namespace allot::runtime::hot_swap {

// Enough of a SHA-256 to tell policies apart in a log line.
std::string short_hash(const std::string& hash);

// " with 2 warnings", or "" when there are none.
std::string warnings_suffix(const std::vector<Diagnostic>& diagnostics);

// Marks `outcome` refused for `why`, with the policy that keeps running.
void refuse(SwapOutcome& outcome, const PolicySlot::Running& running, const std::string& why);

}  // namespace allot::runtime::hot_swap
