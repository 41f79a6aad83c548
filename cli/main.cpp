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
  fmt_command->add_option("paths", fmt.paths, "Policy files or folders (every *.allot below); `-` reads standard input")
      ->required();
  auto* check_flag = fmt_command->add_flag("--check", fmt.check, "Exit 1 and name the files that would change");
  fmt_command->add_flag("--write", fmt.write, "Rewrite the files in place")->excludes(check_flag);

  allot::cli::CompileArguments compile;
  auto* compile_command = app.add_subcommand("compile", "Check a policy and build its code (or print its IR)");
  compile_command->add_option("path", compile.path, "The policy file")->required();
  compile_command->add_option("--emit", compile.emit, "Print the code instead: ir, llvm or asm")
      ->check(CLI::IsMember({"ir", "llvm", "asm"}));
  compile_command->add_option("--engine", compile.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  compile_command->add_option("--now", compile.now, "Today's date for review and expiry checks (YYYY-MM-DD)");

  allot::cli::ReplayArguments replay;
  auto* replay_command = app.add_subcommand("replay", "Compare policies on the same arrivals (a scenario or a trace)");
  replay_command->add_option("--policy", replay.policies, "A policy to replay, as NAME=FILE (repeat to compare)")
      ->required();
  replay_command->add_option("--cluster", replay.cluster, "The cluster inventory (TOML)")->required();
  auto* scenario_option =
      replay_command->add_option("--scenario", replay.scenario, "normal, burst, large, drain or all")
          ->check(CLI::IsMember({"normal", "burst", "large", "drain", "all"}));
  replay_command->add_option("--seed", replay.seed, "Seed of the scenario generator (default 1)")
      ->needs(scenario_option);
  auto* trace_option =
      replay_command->add_option("--trace", replay.trace, "A trace CSV to replay instead of a scenario")
          ->excludes(scenario_option);
  replay_command->add_option("--map", replay.map, "Where the trace's groups and jobs go (TOML)")->needs(trace_option);
  replay_command->add_option("--days", replay.days, "Days to replay (default: 7, or the whole trace)")
      ->check(CLI::PositiveNumber);
  replay_command->add_option("--json", replay.json, "Write the JSON report here (`-` for stdout)");
  replay_command->add_option("--html", replay.html, "Write the HTML report here");
  replay_command->add_option("--engine", replay.engine, "What runs the policies: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  replay_command->add_option("--now", replay.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  replay_command->add_option("--load", replay.load, "Scenario demand as a multiple of capacity (default 1.3)")
      ->check(CLI::PositiveNumber)
      ->needs(scenario_option);
  replay_command->add_option("--cycle-gap", replay.cycle_gap, "Seconds at least between two cycles (default 0)")
      ->check(CLI::NonNegativeNumber);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  if (check_command->parsed()) return allot::cli::run_check(check);
  if (compile_command->parsed()) return allot::cli::run_compile(compile);
  if (replay_command->parsed()) return allot::cli::run_replay(replay);
  return allot::cli::run_fmt(fmt);
}
