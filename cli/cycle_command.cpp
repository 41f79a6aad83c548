// `allot cycle`: one scheduling cycle on a state snapshot, as the scheduler
// would run it. The decisions go to stdout as JSON (docs/AUDIT.md, "Cycle
// document"); --audit appends them as audit records, --apply writes the state
// after them, so an operator can step a cluster cycle by cycle.
#include <iostream>
#include <optional>

#include "allot/audit.h"
#include "commands.h"
#include "cycle_inputs.h"
#include "io_paths.h"

namespace allot::cli {
namespace {

// What a cycle reads and writes: --apply may replace its own --state (atomically,
// docs/STATE.md), nothing else may be written over an input or another output.
CommandFiles cycle_files(const CycleArguments& arguments, const CycleInputs& inputs) {
  CommandFiles files;
  files.input("--policy", arguments.policy);
  files.input("--state", arguments.state);
  if (!inputs.snapshot.inventory_file.empty()) files.input("the inventory of --state", inputs.snapshot.inventory_file);
  files.imports("--policy", inputs.policy_files);
  files.output("--apply", arguments.apply);
  files.output("--audit", arguments.audit);
  files.in_place["--apply"] = "--state";
  return files;
}

}  // namespace

int run_cycle_command(const CycleArguments& arguments) {
  int code = 0;
  auto inputs = load_cycle_inputs(arguments.policy, arguments.state, arguments.now, arguments.engine, code);
  if (!inputs) return code;
  if (!check_files(cycle_files(arguments, *inputs))) return 2;
  runtime::ClusterState& state = inputs->snapshot.state;
  runtime::CycleOptions options;
  options.yield_backfill = arguments.yield_backfill;
  const runtime::CycleResult result = runtime::run_cycle(state, *inputs->policy, options);
  const std::string& policy_name = inputs->policy->tables().name;
  std::cout << (arguments.format == "text" ? runtime::cycle_text(result, state.inventory, policy_name)
                                           : runtime::cycle_document(result, state.inventory, policy_name));
  // A document that did not reach its reader leaves the state and the log as they were.
  if (!flush_stdout()) return 2;
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
