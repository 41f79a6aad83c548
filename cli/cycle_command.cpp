// `allot cycle`: one scheduling cycle on a state snapshot, as the scheduler
// would run it. The decisions go to stdout as JSON (docs/AUDIT.md, "Cycle
// document"); --audit appends them as audit records, --apply writes the state
// after them, so an operator can step a cluster cycle by cycle.
#include <iostream>

#include "allot/audit.h"
#include "commands.h"
#include "cycle_inputs.h"

namespace allot::cli {

int run_cycle_command(const CycleArguments& arguments) {
  int code = 0;
  auto inputs = load_cycle_inputs(arguments.policy, arguments.state, arguments.now, arguments.engine, code);
  if (!inputs) return code;
  runtime::ClusterState& state = inputs->snapshot.state;
  const runtime::CycleResult result = runtime::run_cycle(state, *inputs->policy);
  std::cout << runtime::cycle_document(result, state.inventory, inputs->policy->tables().name);
  if (!arguments.audit.empty()) {
    auto log = runtime::AuditLog::open(arguments.audit);
    const auto problem = log ? log->append(result, state.inventory) : std::optional<std::string>(log.error());
    if (problem) {
      std::cerr << "allot: " << *problem << "\n";
      return 2;
    }
  }
  if (!arguments.apply.empty()) {
    runtime::apply_decisions(state, result);
    if (const auto problem = runtime::save_snapshot(inputs->snapshot, arguments.apply)) {
      std::cerr << "allot: " << *problem << "\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace allot::cli
