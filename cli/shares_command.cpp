// `allot shares`: the policy's tree with Slurm's fair-share fields, as
// `sshare -l` prints them, plus the share in force and debt (docs/FAIRSHARE.md).
#include <iostream>

#include "allot/share_report.h"
#include "commands.h"
#include "cycle_inputs.h"

namespace allot::cli {

int run_shares(const SharesArguments& arguments) {
  int code = 0;
  auto inputs = load_cycle_inputs(arguments.policy, arguments.state, arguments.now, arguments.engine, code);
  if (!inputs) return code;
  const runtime::ShareReport report = runtime::share_report(*inputs->policy, inputs->snapshot.state);
  std::cout << (arguments.format == "json" ? runtime::share_report_json(report) : runtime::share_report_text(report));
  return 0;
}

}  // namespace allot::cli
