// What `allot cycle` and `allot explain` start from: a state snapshot (with
// `--now` applied) and the policy compiled as of that day.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/policy.h"
#include "allot/snapshot.h"

namespace allot::cli {

struct CycleInputs {
  runtime::Snapshot snapshot;
  std::shared_ptr<const CompiledPolicy> policy;
  std::vector<std::string> policy_files;  // the policy and every file it imports, as read
};

// Loads the snapshot, applies `now` (empty: the snapshot's own) and compiles
// the policy with "today" = the day of that time, so review dates and expiries
// are judged as of the cycle. Prints why and sets `code` (1 bad input, 2 usage
// or I/O) when it cannot.
std::optional<CycleInputs> load_cycle_inputs(const std::string& policy_path, const std::string& state_path,
                                             const std::string& now, const std::string& engine, int& code);

}  // namespace allot::cli
