#include "cycle_inputs.h"

#include "io_paths.h"

#include <fmt/format.h>

#include <iostream>

#include "allot/accounting.h"
#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/text.h"
#include "commands.h"

namespace allot::cli {
namespace {

std::nullopt_t fail(int& code, int exit_code, const std::string& message) {
  std::cerr << "allot: " << message << "\n";
  code = exit_code;
  return std::nullopt;
}

}  // namespace

std::optional<CycleInputs> load_cycle_inputs(const std::string& policy_path, const std::string& state_path,
                                             const std::string& now, const std::string& engine, int& code) {
  std::optional<runtime::Seconds> override_now;
  if (!now.empty() && !(override_now = support::parse_timestamp(now))) {
    return fail(code, 2,
                fmt::format("--now expects a time like 2026-12-02T09:30:00Z, a date like 2026-12-02 or seconds since "
                            "the epoch, got `{}`",
                            now));
  }
  auto snapshot = runtime::load_snapshot(state_path, override_now);
  if (!snapshot) return fail(code, snapshot.error().unreadable ? 2 : 1, snapshot.error().to_string());
  CompileOptions options = compile_options(engine);
  options.check.today = Date{static_cast<int>(snapshot->state.now / 86400)};
  CompileResult compiled = compile_policy_file(policy_path, options);
  colored_stderr(stderr_color()) << render_text(compiled.diagnostics, compiled.sources, {stderr_color()});
  if (!compiled.policy) {
    code = has_unreadable_input(compiled.diagnostics) ? 2 : 1;
    return std::nullopt;
  }
  // A misspelt account in [usage], [debt], [owed] or [without_progress] would silently count as 0.
  if (auto unknown = runtime::check_snapshot_accounts(*snapshot, compiled.policy->tables())) {
    return fail(code, 1, unknown->to_string());
  }
  for (const std::string& warning :
       runtime::unit_types_missing(compiled.policy->tables().unit, snapshot->state.inventory)) {
    std::cerr << "allot: warning: " << support::printable(warning) << "\n";
  }
  return CycleInputs{std::move(*snapshot), std::move(compiled.policy), files_read(compiled.sources)};
}

}  // namespace allot::cli
