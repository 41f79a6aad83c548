// The `allot` command line: one subcommand per product surface.
#include <CLI/CLI.hpp>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"allot: budget policies for shared GPU clusters"};
  app.require_subcommand(1);

  allot::cli::CheckArguments check;
  auto* check_command = app.add_subcommand("check", "Validate policy files and report diagnostics");
  check_command->add_option("paths", check.paths, "Policy files or folders (every *.allot below)")->required();
  check_command->add_option("--now", check.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  check_command->add_option("--format", check.format, "Output: text, json, sarif or github")
      ->check(CLI::IsMember({"text", "json", "sarif", "github"}));
  check_command->add_flag("--deny-warnings", check.deny_warnings, "Exit 1 on warnings too");
  check_command
      ->add_option("--max-exception-days", check.max_exception_days,
                   "Longest an exception may run past today (default 90)")
      ->check(CLI::PositiveNumber);

  allot::cli::FmtArguments fmt;
  auto* fmt_command = app.add_subcommand("fmt", "Print policy files in the canonical layout");
  fmt_command->add_option("paths", fmt.paths, "Policy files or folders (every *.allot below)")->required();
  auto* check_flag = fmt_command->add_flag("--check", fmt.check, "Exit 1 and name the files that would change");
  fmt_command->add_flag("--write", fmt.write, "Rewrite the files in place")->excludes(check_flag);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  if (check_command->parsed()) return allot::cli::run_check(check);
  return allot::cli::run_fmt(fmt);
}
