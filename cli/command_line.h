// What both binaries' command lines share (`allot` and `allot-lint`): the
// validators options use, the global options (-I, --version), the help, check
// and fmt commands, and parsing with a did-you-mean for a misspelt command.
// One definition, so `allot check` and `allot-lint check` take the same flags.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "lint.h"

namespace allot::cli {

// A number from `low` to `high` (NaN and infinities refused), so no argument
// can ask for unbounded time or memory.
CLI::Validator bounded(double low, double high, bool above_low = false);

// A path option: an empty value (an unset shell variable, `--apply ''`) is a
// usage error, never "not given" and never a file named "".
extern const CLI::Validator kPath;
extern const char* const kEmptyPath;

struct LintCommands {
  std::vector<std::string> import_folders;
  CheckArguments check;
  FmtArguments fmt;
  CLI::App* help_command = nullptr;
  CLI::App* check_command = nullptr;
  CLI::App* fmt_command = nullptr;
  CLI::App* completion_command = nullptr;
  CLI::App* lsp_command = nullptr;
  bool man = false;              // `help --man`: the manual page, in troff
  std::string completion_shell;  // `completion bash`
};

// Adds -I / --import-path and --version to `app`, and its help, completion,
// check and fmt commands. Call before adding the binary's other commands.
void add_lint_commands(CLI::App& app, LintCommands& lint);

// The manual page (troff, man(7)) and a bash completion script of `app`, from
// its commands and options as defined: they never fall behind the binary.
// `cmake --install` writes both (packaging/CMakeLists.txt).
std::string manual_page(const CLI::App& app);
std::string bash_completion(const CLI::App& app);

// Parses the command line. Returns the exit code when parsing finished the
// run (a usage error, an unknown command with its nearest name, --version,
// help, completion), else nullopt; sets the import folders.
std::optional<int> parse_command_line(CLI::App& app, LintCommands& lint, int argc, char** argv);

// Runs check or fmt if one was parsed.
std::optional<int> run_lint_command(const LintCommands& lint);

}  // namespace allot::cli
