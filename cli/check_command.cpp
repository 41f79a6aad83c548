// `allot check`: the linter CI runs on every policy change.
#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "allot/files.h"
#include "allot/frontend.h"
#include "lint.h"

namespace allot::cli {
namespace {

std::string summary(const CheckResult& result, std::size_t files) {
  std::size_t errors = 0, warnings = 0;
  for (const auto& d : result.diagnostics) (d.severity == Severity::error ? errors : warnings)++;
  return fmt::format("checked {} file{}: {} error{}, {} warning{}\n", files, files == 1 ? "" : "s", errors,
                     errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

}  // namespace

int run_check(const CheckArguments& arguments) {
  if (!arguments.explain.empty()) return run_explain_code(arguments.explain);
  if (arguments.paths.empty()) {
    std::cerr << "allot: check needs policy files or folders (or `-`, or --explain CODE)\n";
    return 2;
  }
  CheckOptions options;
  options.max_exception_horizon_days = arguments.max_exception_days;
  options.import_path = import_path();
  options.allow_outside_imports = arguments.allow_outside_imports;
  options.cluster = arguments.cluster;
  if (!read_now(arguments.now, options.today)) return 2;
  std::vector<std::string> files;
  CheckResult result;
  if (std::find(arguments.paths.begin(), arguments.paths.end(), "-") != arguments.paths.end()) {
    // `allot check -`: one policy on standard input (an editor's buffer), its imports from the working folder.
    if (arguments.paths.size() != 1) {
      std::cerr << "allot: `-` (standard input) is checked alone, not with other paths\n";
      return 2;
    }
    auto text = support::read_descriptor(STDIN_FILENO, support::kMaxPolicyBytes);
    if (!text) {
      std::cerr << "allot: cannot read standard input: " << text.error().reason << "\n";
      return 2;
    }
    files.push_back("<stdin>");
    result = check_source("<stdin>", *text, options);
  } else {
    if (!expand_paths(arguments.paths, files)) return 2;
    result = check_files(files, options);
  }
  if (arguments.format == "json") {
    std::cout << render_json(result.diagnostics);
  } else if (arguments.format == "sarif") {
    std::cout << render_sarif(result.diagnostics);
  } else if (arguments.format == "github") {
    std::cout << render_github(result.diagnostics);
  } else {
    colored_stdout(use_color()) << render_text(result.diagnostics, result.sources, {use_color()})
                                << summary(result, files.size());
  }
  if (result.has_io_errors()) return 2;
  if (result.has_errors() || (arguments.deny_warnings && result.has_warnings())) return 1;
  return 0;
}

}  // namespace allot::cli
