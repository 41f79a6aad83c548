// `allot cycle`: one scheduling cycle on a state snapshot, as the scheduler
// would run it. The decisions go to stdout as JSON (docs/AUDIT.md, "Cycle
// document"); --audit appends them as audit records, --apply writes the state
// after them, so an operator can step a cluster cycle by cycle.
#include <iostream>
#include <optional>

#include "allot/audit.h"
#include "commands.h"
#include "cycle_inputs.h"

namespace allot::cli {

int run_cycle_command(const CycleArguments& arguments) {
  int code = 0;
  auto inputs = load_cycle_inputs(arguments.policy, arguments.state, arguments.now, arguments.engine, code);
  if (!inputs) return code;
  runtime::ClusterState& state = inputs->snapshot.state;
  runtime::CycleOptions options;
  options.yield_backfill = arguments.yield_backfill;
  const runtime::CycleResult result = runtime::run_cycle(state, *inputs->policy, options);
  std::cout << runtime::cycle_document(result, state.inventory, inputs->policy->tables().name);
  // The state first, then the audit: an audit record never describes a state
  // that was not written (a failed --apply leaves the audit as it was).
  std::optional<runtime::AuditLog> log;
  if (!arguments.audit.empty()) {
    auto opened = runtime::AuditLog::open(arguments.audit);
    if (!opened) {
      std::cerr << "allot: " << opened.error() << "\n";
      return 2;
    }
    log.emplace(std::move(*opened));
  }
  if (!arguments.apply.empty()) {
    runtime::apply_decisions(state, result);
    if (const auto problem = runtime::save_snapshot(inputs->snapshot, arguments.apply)) {
      std::cerr << "allot: " << *problem << "\n";
      return 2;
    }
  }
  if (log) {
    if (const auto problem = log->append(result, state.inventory)) {
      std::cerr << "allot: " << *problem << "\n";
      return 2;
    }
  }
  return 0;
}

}  // namespace allot::cli
