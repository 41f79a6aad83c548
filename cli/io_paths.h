// The files one command reads and writes, checked against each other before
// anything is written (docs/SECURITY.md "Every path checked against every
// other"): an output that is the same file as an input or as another output
// is a usage error naming both, except an update in place the command
// documents and writes atomically (`cycle --apply` onto its own `--state`).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace allot::cli {

// A path and the option it came from ("--state", "an import of --policy").
struct NamedPath {
  std::string option;
  std::string path;
};

struct CommandFiles {
  std::vector<NamedPath> inputs;
  std::vector<NamedPath> outputs;  // "-" is standard output
  // Output option -> the input option it may update in place.
  std::map<std::string, std::string> in_place;

  void input(std::string option, std::string path) { inputs.push_back({std::move(option), std::move(path)}); }
  // Adds an output when `path` is set (an unset option is empty).
  void output(std::string option, std::string path);
  // Every file a compiled policy was read from (the keys of CompileResult::sources),
  // so an output cannot replace a library the policy imports either. Name the
  // policy itself with input() first: the first input a clash meets is named.
  void imports(const std::string& option, const std::vector<std::string>& files) {
    for (const std::string& file : files) input("an import of " + option, file);
  }
};

// The files a compilation read (the keys of CompileResult::sources), in order.
std::vector<std::string> files_read(const std::map<std::string, std::string>& sources);

// Why the outputs of `files` clash with an input or with each other, in one
// sentence naming both paths and their options; nullopt when none does.
std::optional<std::string> clashing_files(const CommandFiles& files);

// Prints the clash (if any) as a usage error and returns false.
bool check_files(const CommandFiles& files);

}  // namespace allot::cli
