// `allot explain`: why a job is where it is, for the person who asks (or, with
// --json, for a dashboard): its queue place and rank terms, its account's
// share, usage, fair-share factor and debt, why it waits and its next
// opportunity to run, or the contract it runs under.
#include <iostream>

#include "allot/explain.h"
#include "commands.h"
#include "cycle_inputs.h"

namespace allot::cli {

int run_explain(const ExplainArguments& arguments) {
  int code = 0;
  auto inputs = load_cycle_inputs(arguments.policy, arguments.state, arguments.now, arguments.engine, code);
  if (!inputs) return code;
  const runtime::ClusterState& state = inputs->snapshot.state;
  runtime::ExplainOptions options;
  options.cycle.yield_backfill = arguments.yield_backfill;
  const auto explanation = runtime::explain_job(state, *inputs->policy, arguments.job, options);
  if (!explanation) {
    std::cerr << "allot: " << explanation.error() << "\n";
    return 1;
  }
  std::cout << (arguments.json ? runtime::explanation_json(*explanation, state.inventory)
                               : runtime::explanation_text(*explanation, state.inventory));
  return 0;
}

}  // namespace allot::cli
