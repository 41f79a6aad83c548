// The log lines of hot swap (swap_messages.h).
#include "hot_swap/swap_messages.h"

#include <fmt/format.h>

#include <algorithm>

namespace allot::runtime::hot_swap {

std::string short_hash(const std::string& hash) { return hash.substr(0, 12); }

std::string warnings_suffix(const std::vector<Diagnostic>& diagnostics) {
  const auto warnings = std::count_if(diagnostics.begin(), diagnostics.end(),
                                      [](const Diagnostic& d) { return d.severity == Severity::warning; });
  if (warnings == 0) return "";
  return fmt::format(" with {} warning{}", warnings, warnings == 1 ? "" : "s");
}

void refuse(SwapOutcome& outcome, const PolicySlot::Running& running, const std::string& why) {
  outcome.swapped = false;
  outcome.policy_hash = running.policy->source_hash();
  outcome.generation = running.generation;
  outcome.message = fmt::format("refused: {}; {} keeps running (generation {})", why, short_hash(outcome.policy_hash),
                                running.generation);
}

}  // namespace allot::runtime::hot_swap
