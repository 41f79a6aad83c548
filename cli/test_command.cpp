// `allot test`: policy unit tests beside the policies (docs/TESTING.md). Each
// test file's policy is compiled as of the file's day, every case run, and the
// results printed as text, JSON or JUnit XML.
#include <fmt/format.h>

#include <iostream>

#include "allot/compile.h"
#include "allot/policy_test.h"
#include "commands.h"

namespace allot::cli {
namespace {

// The day `allot check` judges review dates and expiries on: --now, else the
// file's `today`, else the day of its first case's `now`.
Date day_of(const policytest::TestFile& test, const std::optional<Date>& now) {
  if (now) return *now;
  if (test.today) return *test.today;
  return Date{static_cast<int>(test.cases.front().state.state.now / 86400)};
}

// One file: read, compiled and run; `unreadable` set when an input could not be read.
policytest::FileResult run_file(const std::string& path, const TestArguments& arguments, const std::optional<Date>& now,
                                bool& unreadable) {
  policytest::FileResult result;
  result.file = path;
  auto test = policytest::load_test_file(path);
  if (!test) {
    result.error = test.error().to_string();
    unreadable |= test.error().unreadable;
    return result;
  }
  result.policy = test->policy;
  CompileOptions options = compile_options(arguments.engine);
  options.check.today = day_of(*test, now);
  CompileResult compiled = compile_policy_file(test->policy, options);
  if (!compiled.policy) {
    colored_stderr(stderr_color()) << render_text(compiled.diagnostics, compiled.sources, {stderr_color()});
    unreadable |= has_unreadable_input(compiled.diagnostics);
    result.error = fmt::format("the policy `{}` does not compile (the diagnostics are above)", test->policy);
    return result;
  }
  return policytest::run_test_file(*test, *compiled.policy);
}

}  // namespace

int run_test(const TestArguments& arguments) {
  std::optional<Date> now;
  if (!read_now(arguments.now, now)) return 2;
  auto files = policytest::find_test_files(arguments.paths);
  if (!files) {
    std::cerr << "allot: " << files.error() << "\n";
    return 2;
  }
  std::vector<policytest::FileResult> results;
  bool unreadable = false;
  for (const std::string& file : *files) results.push_back(run_file(file, arguments, now, unreadable));
  const bool coverage = arguments.coverage || arguments.threshold;
  const std::vector<policytest::Coverage> exercised = policytest::coverage_of(results);
  const std::vector<policytest::Coverage>* shown = coverage ? &exercised : nullptr;
  if (arguments.format == "json") {
    std::cout << policytest::report_json(results, shown);
  } else if (arguments.format == "junit") {
    std::cout << policytest::report_junit(results);
  } else {
    colored_stdout(use_color()) << policytest::report_text(results, use_color(), shown);
  }
  if (unreadable) return 2;
  const double percent = policytest::coverage_percent(exercised);
  if (arguments.threshold && percent < *arguments.threshold) {
    std::cerr << fmt::format("allot: coverage {:.1f}% is below --threshold {:g}%\n", percent, *arguments.threshold);
    return 1;
  }
  return policytest::summarize(results).failed > 0 ? 1 : 0;
}

}  // namespace allot::cli
