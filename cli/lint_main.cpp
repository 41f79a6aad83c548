// `allot-lint`: `allot check` and `allot fmt` alone, for CI runners and editors
// that have neither LLVM nor libslurm (docs/INSTALL.md). The same commands,
// flags, diagnostics and exit codes as `allot`'s (command_line.h), linked
// against the front end only; tests/packaging/install_test.sh checks its
// libraries.
#include "allot/text.h"
#include "command_line.h"

int main(int argc, char** argv) {
  allot::support::guard_standard_streams();
  CLI::App app{"allot-lint: check and format Allot policies (allot check and allot fmt, without the runtime)",
               "allot-lint"};
  allot::cli::LintCommands lint;
  allot::cli::add_lint_commands(app, lint);
  if (const auto done = allot::cli::parse_command_line(app, lint, argc, argv)) return *done;
  const int code = allot::cli::run_lint_command(lint).value_or(2);
  return allot::cli::flush_stdout() ? code : 2;
}
