// `allot fmt`: the canonical layout, for people (print, --write), editors
// (`-` formats standard input) and CI (--check).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <optional>

#include "allot/files.h"
#include "allot/frontend.h"
#include "allot/line_diff.h"
#include "lint.h"

namespace allot::cli {
namespace {

namespace fs = std::filesystem;

// How `allot fmt` names standard input in messages.
constexpr const char* kStandardInput = "<stdin>";

// A policy to format: standard input, or a bounded regular file; why not.
std::optional<std::string> read_text(const std::string& path, std::string& text) {
  // Standard input has the bound of a policy file (`/dev/zero` is refused, not read forever).
  auto contents = path == "-" ? support::read_descriptor(STDIN_FILENO, support::kMaxPolicyBytes)
                              : support::read_file(path, support::kMaxPolicyBytes);
  if (!contents) return contents.error().reason;
  text = std::move(*contents);
  return std::nullopt;
}

// Standard input is passed through as is; paths are expanded (folders).
bool collect_inputs(const std::vector<std::string>& paths, std::vector<std::string>& files) {
  std::vector<std::string> on_disk;
  for (const auto& path : paths) {
    if (path == "-") {
      files.push_back(path);
      continue;
    }
    on_disk.clear();
    if (!expand_paths({path}, on_disk)) return false;
    files.insert(files.end(), on_disk.begin(), on_disk.end());
  }
  return true;
}

// Formats one input; returns the exit code it contributes (0, 1 or 2).
int format_one(const std::string& path, const FmtArguments& arguments) {
  const std::string name = path == "-" ? kStandardInput : path;
  std::string text;
  if (auto problem = read_text(path, text)) {
    std::cerr << "allot: cannot read `" << path << "`: " << *problem << "\n";
    return 2;
  }
  FormatResult result = format_source(name, text);
  if (!result.formatted) {
    colored_stderr(stderr_color()) << render_text(result.diagnostics, {{name, text}}, {stderr_color()});
    return 1;
  }
  if (arguments.diff) {
    // `allot fmt --diff`: what --write would change, as `diff -u` prints it; exit 1 when anything would.
    if (*result.formatted == text) return 0;
    const std::optional<std::string> changes = support::unified_diff(text, *result.formatted);
    policy_stdout() << "--- " << name << "\n+++ " << name << " (formatted)\n"
                    << changes.value_or("@@ the whole file changes (too much to compare line by line) @@\n");
    return 1;
  }
  if (arguments.check) {
    if (*result.formatted == text) return 0;
    std::cout << "would reformat " << name << "\n";
    return 1;
  }
  if (arguments.write && path != "-") {
    if (*result.formatted == text) return 0;
    // Atomic and symlink-safe: a crash leaves the old policy or the new one.
    auto problem = support::write_file_atomic(path, *result.formatted);
    if (!problem) return 0;
    std::cerr << "allot: " << *problem << "\n";
    return 2;
  }
  policy_stdout() << *result.formatted;
  return 0;
}

}  // namespace

int run_fmt(const FmtArguments& arguments) {
  std::vector<std::string> files;
  if (!collect_inputs(arguments.paths, files)) return 2;
  int exit_code = 0;
  for (const auto& path : files) {
    const int code = format_one(path, arguments);
    if (code == 2) return 2;
    exit_code = std::max(exit_code, code);
  }
  return exit_code;
}

}  // namespace allot::cli
