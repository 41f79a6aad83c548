// The `allot` command line: one subcommand per product surface.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "allot/nearest_name.h"
#include "allot/text.h"
#include "command_line.h"
#include "commands.h"

namespace {

using allot::cli::bounded;
using allot::cli::kEmptyPath;
using allot::cli::kPath;

// replay's `--policy NAME=FILE` (or FILE): the file after `=` must not be empty either.
const CLI::Validator kNamedPath([](const std::string& text)
                                    -> std::string { return text.empty() || text.back() == '=' ? kEmptyPath : ""; },
                                "[NAME=]PATH");

// A whole number from 0 to `high` in decimal digits alone: no sign (CLI11 would
// wrap "-1" to 2^64-1), no hex, no exponent, nothing empty or past `high`.
CLI::Validator whole_number(std::uint64_t high) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        std::uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto [stop, error] = std::from_chars(text.data(), end, value);
        const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || error != std::errc() || stop != end || value > high)
          return fmt::format("`{}` must be a whole number from 0 to {}", text, high);
        return "";
      },
      fmt::format("0..{}", high));
}

constexpr const char* kYieldBackfill =
    "Let a preemptible, resumable job whose limit runs past a hold's time backfill it and yield then, under a "
    "policy without `preempt` (CycleOptions::yield_backfill, default off; docs/SCHEDULING.md)";

}  // namespace

int main(int argc, char** argv) {
  // One printing path: nothing printed from here on reaches the terminal with a
  // raw control character, whatever the input put in it (docs/SECURITY.md).
  allot::support::guard_standard_streams();
  CLI::App app{"allot: budget policies for shared GPU clusters", "allot"};
  allot::cli::LintCommands lint;
  allot::cli::add_lint_commands(app, lint);
  std::string check_cluster;  // the full binary reads inventories; allot-lint has no --cluster
  lint.check_command
      ->add_option("--cluster", check_cluster,
                   "Also check the policies against this cluster inventory (TOML): unit weights for GPU types it "
                   "lacks while one it has is unweighted, classes asking for more GPUs or nodes than it has")
      ->check(kPath);

  allot::cli::CompileArguments compile;
  auto* compile_command = app.add_subcommand("compile", "Check a policy and build its code (or print its IR)");
  compile_command->add_option("path", compile.path, "The policy file")->check(kPath)->required();
  compile_command->add_option("--emit", compile.emit, "Print the code instead: ir, llvm or asm")
      ->check(CLI::IsMember({"ir", "llvm", "asm"}));
  compile_command->add_option("--engine", compile.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  compile_command->add_option("--now", compile.now, "Today's date for review and expiry checks (YYYY-MM-DD)");

  allot::cli::ReplayArguments replay;
  auto* replay_command = app.add_subcommand("replay", "Compare policies on the same arrivals (a scenario or a trace)");
  replay_command->add_option("--policy", replay.policies, "A policy to replay, as NAME=FILE (repeat to compare)")
      ->check(kNamedPath)
      ->required();
  replay_command->add_option("--cluster", replay.cluster, "The cluster inventory (TOML)")->check(kPath)->required();
  auto* scenario_option =
      replay_command->add_option("--scenario", replay.scenario, "normal, burst, large, drain or all")
          ->check(CLI::IsMember({"normal", "burst", "large", "drain", "all"}));
  auto* seed_option =
      replay_command->add_option("--seed", replay.seed, "Seed of the scenario generator and of --hang (default 1)")
          ->check(whole_number(std::numeric_limits<std::int64_t>::max()));
  auto* trace_option =
      replay_command->add_option("--trace", replay.trace, "A trace CSV to replay instead of a scenario")
          ->check(kPath)
          ->excludes(scenario_option);
  replay_command->add_option("--map", replay.map, "Where the trace's groups and jobs go (TOML)")
      ->check(kPath)
      ->needs(trace_option);
  replay_command->add_option("--days", replay.days, "Days to replay (default: 7, or the whole trace; at most 3660)")
      ->check(bounded(1, 3660));
  replay_command->add_option("--json", replay.json, "Write the JSON report here (`-` for stdout)")->check(kPath);
  replay_command->add_option("--html", replay.html, "Write the HTML report here")->check(kPath);
  replay_command->add_option("--engine", replay.engine, "What runs the policies: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  replay_command->add_option("--now", replay.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  replay_command
      ->add_option("--load", replay.loads,
                   "Scenario demand as a multiple of capacity (default 1.3); a comma list sweeps the loads")
      ->delimiter(',')
      ->check(bounded(0.05, 10))
      ->needs(scenario_option);
  replay_command
      ->add_option("--scale-capacity", replay.capacity_scales,
                   "Replay the trace on the cluster with round(nodes x F) nodes; a comma list sweeps capacities")
      ->delimiter(',')
      ->check(bounded(0, 100000, true))
      ->needs(trace_option);
  replay_command->add_option("--cycle-gap", replay.cycle_gap, "Seconds at least between two cycles (default 0)")
      ->check(bounded(0, 604800));
  replay_command
      ->add_option("--holds", replay.holds,
                   "Blocked jobs per cycle that hold the capacity they wait for, lent out by backfill (default 1; "
                   "docs/SCHEDULING.md)")
      ->check(bounded(0, 64));
  replay_command->add_flag("--yield-backfill", replay.yield_backfill, kYieldBackfill);
  replay_command
      ->add_option("--threads", replay.threads,
                   "Policies replayed at once, each on its own thread (default 0: one per core); the report is the "
                   "same whatever it is")
      ->check(bounded(0, 1024));
  replay_command->add_flag("--fail-on-gates", replay.fail_on_gates,
                           "Exit 1 when a policy fails one of its gates in any workload (a rollout gate in CI)");
  replay_command
      ->add_option("--hang", replay.hang,
                   "Percent of training jobs that hang once, after a random part of their work (default 0; "
                   "docs/REPLAY.md \"Hung jobs\")")
      ->check(bounded(0, 100));

  allot::cli::CycleArguments cycle;
  auto* cycle_command =
      app.add_subcommand("cycle", "Run one scheduling cycle on a state snapshot; print the decisions");
  cycle_command->add_option("--policy", cycle.policy, "The policy file")->check(kPath)->required();
  cycle_command->add_option("--state", cycle.state, "The state snapshot (TOML, docs/STATE.md)")
      ->check(kPath)
      ->required();
  cycle_command->add_option("--now", cycle.now, "Run at this time instead (2026-12-02T09:30:00Z, a date, or seconds)");
  cycle_command->add_option("--engine", cycle.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  cycle_command->add_option("--audit", cycle.audit, "Append the decisions to this audit log (JSON lines)")
      ->check(kPath);
  cycle_command->add_option("--apply", cycle.apply, "Write the state after the decisions to this snapshot file")
      ->check(kPath);
  cycle_command->add_flag("--yield-backfill", cycle.yield_backfill, kYieldBackfill);
  cycle_command->add_option("--format", cycle.format, "Output: json (default, docs/AUDIT.md) or text (a table)")
      ->check(CLI::IsMember({"json", "text"}));

  allot::cli::ExplainArguments explain;
  auto* explain_command = app.add_subcommand("explain", "Explain why a job is where it is and when it may run");
  explain_command->add_option("job", explain.job, "The job id")->required();
  explain_command->add_option("--policy", explain.policy, "The policy file")->check(kPath)->required();
  explain_command->add_option("--state", explain.state, "The state snapshot (TOML, docs/STATE.md)")
      ->check(kPath)
      ->required();
  explain_command->add_option("--now", explain.now, "Explain at this time instead (as for `allot cycle`)");
  explain_command->add_option("--engine", explain.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  explain_command->add_flag("--json", explain.json, "Print JSON instead of text");
  explain_command->add_flag("--yield-backfill", explain.yield_backfill, kYieldBackfill);

  allot::cli::SharesArguments shares;
  auto* shares_command =
      app.add_subcommand("shares", "Print every account's fair-share fields, as sshare -l does, plus share and debt");
  shares_command->add_option("--policy", shares.policy, "The policy file")->check(kPath)->required();
  shares_command->add_option("--state", shares.state, "The state snapshot (TOML, docs/STATE.md)")
      ->check(kPath)
      ->required();
  shares_command->add_option("--now", shares.now, "At this time instead (as for `allot cycle`)");
  shares_command->add_option("--engine", shares.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  shares_command->add_option("--format", shares.format, "Output: text (default) or json")
      ->check(CLI::IsMember({"text", "json"}));

  allot::cli::DiffArguments diff;
  auto* diff_command =
      app.add_subcommand("diff", "What a policy change means: shares, classes, exceptions, rank and the queue");
  diff_command->add_option("old", diff.before, "The policy before: a file, or git:REVISION:PATH")->required();
  diff_command->add_option("new", diff.after, "The policy after: a file, or git:REVISION:PATH")->required();
  diff_command->add_option("--state", diff.state, "Also rank this snapshot under both (docs/STATE.md)")->check(kPath);
  diff_command->add_option("--now", diff.now, "The day exceptions and reviews are judged on (default: the state's)");
  diff_command->add_option("--format", diff.format, "Output: text (default), markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  diff_command->add_option("--engine", diff.engine, "What runs the policies: interp (default) or jit")
      ->check(CLI::IsMember({"jit", "interp"}));
  diff_command->add_flag("--exit-code", diff.exit_code, "Exit 1 when the meaning changes (as git diff --exit-code)");
  diff_command
      ->add_option("--replay", diff.replay,
                   "Replay this scenario under both: who gains and who loses GPU-hours and wait")
      ->check(CLI::IsMember({"normal", "burst", "large", "drain"}));
  diff_command->add_option("--cluster", diff.cluster, "With --replay: the cluster inventory (TOML)")->check(kPath);
  diff_command->add_option("--seed", diff.seed, "With --replay: the scenario's seed (default 1)");
  diff_command->add_option("--load", diff.load, "With --replay: offered load, a multiple of capacity (default 1.3)")
      ->check(CLI::Range(0.01, 100.0));

  allot::cli::EvalArguments eval;
  auto* eval_command = app.add_subcommand(
      "eval", "One job's rank, term by term, and what `preempt` says for it, against a policy and a state");
  eval_command->add_option("job", eval.job, "A JSON or TOML file holding one job as a snapshot's [[job]], or -");
  eval_command->add_option("--id", eval.id, "Evaluate this job of the state instead");
  eval_command->add_option("--policy", eval.policy, "The policy file")->check(kPath)->required();
  eval_command->add_option("--state", eval.state, "The state snapshot (TOML, docs/STATE.md)")->check(kPath)->required();
  eval_command->add_option("--now", eval.now, "Evaluate at this time instead (as for `allot cycle`)");
  eval_command->add_option("--engine", eval.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  eval_command->add_flag("--json", eval.json, "Print JSON instead of text");

  allot::cli::TestArguments test;
  auto* test_command =
      app.add_subcommand("test", "Run policy unit tests: the *_test.toml files given or below the folders given");
  test_command->add_option("paths", test.paths, "Test files and folders (docs/TESTING.md)")->check(kPath)->required();
  test_command->add_option("--format", test.format, "Output: text (default), json or junit")
      ->check(CLI::IsMember({"text", "json", "junit"}));
  test_command->add_option("--now", test.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  test_command->add_option("--engine", test.engine, "What runs the policies: interp (default) or jit")
      ->check(CLI::IsMember({"jit", "interp"}));
  test_command->add_flag("--coverage", test.coverage,
                         "Report the rank terms, classes, exceptions and preempt operands the cases exercised");
  test_command->add_option("--threshold", test.threshold, "With coverage: fail below this percentage exercised")
      ->check(CLI::Range(0.0, 100.0));

  allot::cli::ImportSlurmArguments import_slurm;
  auto* import_command = app.add_subcommand("import", "Start a policy from another scheduler's configuration");
  import_command->require_subcommand(1);
  auto* import_slurm_command =
      import_command->add_subcommand("slurm", "Turn `sacctmgr dump` output into an Allot policy tree");
  import_slurm_command->add_option("dump", import_slurm.dump, "The file `sacctmgr dump CLUSTER` wrote")
      ->check(kPath)
      ->required();
  import_slurm_command->add_option("--output", import_slurm.output, "Write the policy here instead of stdout")
      ->check(kPath);
  import_slurm_command->add_option("--owner", import_slurm.owner, "Every program's owner (fill in later otherwise)");
  import_slurm_command->add_option("--review", import_slurm.review, "Every program's review date (YYYY-MM-DD)");
  import_slurm_command->add_option("--hypothesis", import_slurm.hypothesis,
                                   "Every program's hypothesis: what its share is expected to buy");

  allot::cli::SlurmArguments slurm;
  auto* slurm_command = app.add_subcommand("slurm", "Run the Slurm adapter: rank, set priorities, preempt by policy");
  slurm_command->add_option("--policy", slurm.policy, "The policy file (reloaded on SIGHUP or when it changes)")
      ->check(kPath)
      ->required();
  slurm_command
      ->add_option("--map", slurm.map, "The mapping file: Slurm accounts and jobs to tree accounts and classes")
      ->check(kPath)
      ->required();
  slurm_command
      ->add_option("--ledger", slurm.ledger, "The usage ledger and adapter state (SQLite; default allot-slurm.db)")
      ->check(kPath);
  slurm_command->add_option("--interval", slurm.interval, "Time between passes: 5s (default), 1m, ...");
  slurm_command->add_flag("--once", slurm.once, "Run one pass and exit");
  slurm_command->add_flag("--dry-run", slurm.dry_run, "Print the decisions; write nothing to Slurm or the ledger");
  slurm_command->add_option("--audit", slurm.audit, "Append audit records to this file (JSON lines)")->check(kPath);
  slurm_command
      ->add_option("--snapshot", slurm.snapshot,
                   "Write the state each pass scheduled to this file (for allot explain and allot shares)")
      ->check(kPath);
  slurm_command->add_option("--now", slurm.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  slurm_command->add_option("--engine", slurm.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));
  slurm_command
      ->add_option("--charge-from", slurm.charge_from,
                   "A new ledger charges usage from `now` (default) or from each job's start that Slurm still "
                   "shows (`slurm-history`)")
      ->check(CLI::IsMember({"now", "slurm-history"}));
  auto* slurm_metrics = slurm_command->add_option(
      "--metrics", slurm.metrics, "Serve Prometheus metrics, /healthz and /readyz on HOST:PORT (:PORT for loopback)");
  slurm_command
      ->add_option("--serve", slurm.serve,
                   "Serve the metrics and probes, and the read API and dashboard of `allot serve` on the live "
                   "state, on HOST:PORT (:PORT for loopback)")
      ->excludes(slurm_metrics);
  slurm_command
      ->add_option("--emit-job-submit", slurm.emit_job_submit,
                   "Write a job_submit.lua refusing jobs over their class's limits (- for stdout), then exit")
      ->check(kPath);

  allot::cli::ServeArguments serve;
  auto* serve_command = app.add_subcommand("serve", "Run the scheduler as a service: a JSON API, metrics and probes");
  serve_command->add_option("--policy", serve.policy, "The policy file (with --demo: policies/saas.allot)")
      ->check(kPath);
  serve_command->add_option("--cluster", serve.cluster, "The cluster inventory (TOML; with --demo: saas-8gpu)")
      ->check(kPath);
  serve_command
      ->add_option("--db", serve.db,
                   "Jobs, events, decisions, ledger and policy history (SQLite; default allot-serve.db)")
      ->check(kPath);
  serve_command
      ->add_option("--token-file", serve.token_file,
                   "A file (mode 600) whose first line is the bearer token mutating calls must send")
      ->check(kPath);
  serve_command->add_option("--listen", serve.listen,
                            "HOST:PORT to listen on (default 127.0.0.1:8642; :0 picks a port)");
  serve_command->add_option("--interval", serve.interval, "Time between cycles: 2s (default), 1m, ...");
  serve_command->add_option("--sample-every", serve.sample_every,
                            "Sample each account's standing for the dashboard's chart this often: 5m (default), ...");
  serve_command->add_option("--charge-every", serve.charge_every,
                            "Charge a running job's usage at most this often: 1m (default), 10s, ...");
  serve_command
      ->add_option("--durability", serve.durability,
                   "power-loss (default: fsync every commit) or process-crash (survives kill -9, not power loss)")
      ->check(CLI::IsMember({"power-loss", "process-crash"}));
  serve_command->add_option("--now", serve.now, "Today's date for review and expiry checks (YYYY-MM-DD)");
  serve_command->add_option("--import-path", serve.import_path,
                            "A folder a posted policy (POST /policy) may import from, after the stdlib (repeatable)");
  serve_command->add_flag("--demo", serve.demo,
                          "Replay a week of the seed's company in virtual time against the real service, with a "
                          "pretend executor: a living dashboard with no cluster");
  serve_command->add_option("--speed", serve.speed, "--demo: virtual seconds per real second (default 300)")
      ->check(CLI::Range(1.0, 100000.0));
  serve_command->add_option("--seed", serve.seed, "--demo: the scenario's seed (default 1)");
  serve_command->add_option(
      "--webhook", serve.webhook,
      "Push the decision feed to this http://HOST:PORT/PATH as it grows (at least once, in order)");
  serve_command
      ->add_option("--webhook-token-file", serve.webhook_token_file,
                   "A file (mode 600) whose first line is the bearer token sent with each push")
      ->check(kPath);
  serve_command
      ->add_option("--rate-limit", serve.rate_limit,
                   "Mutating requests a second a token may make, twice that at once (default 500; 0: no limit)")
      ->check(CLI::Range(0.0, 1e9));
  serve_command
      ->add_option("--read-rate-limit", serve.read_rate_limit,
                   "Reads a second a client address may make, twice that at once (default 100; 0: no limit)")
      ->check(CLI::Range(0.0, 1e9));
  serve_command->add_option("--engine", serve.engine, "What runs the policy: jit (default) or interp")
      ->check(CLI::IsMember({"jit", "interp"}));

  if (const auto done = allot::cli::parse_command_line(app, lint, argc, argv)) return *done;
  if (!check_cluster.empty()) {
    if (const auto problem = allot::cli::read_cluster_facts(check_cluster, lint.check.cluster)) return *problem;
  }
  const int code = [&] {
    if (const auto linted = allot::cli::run_lint_command(lint)) return *linted;
    if (compile_command->parsed()) return allot::cli::run_compile(compile);
    if (replay_command->parsed()) {
      replay.seed_given = seed_option->count() > 0;
      return allot::cli::run_replay(replay);
    }
    if (cycle_command->parsed()) return allot::cli::run_cycle_command(cycle);
    if (explain_command->parsed()) return allot::cli::run_explain(explain);
    if (eval_command->parsed()) return allot::cli::run_eval(eval);
    if (diff_command->parsed()) return allot::cli::run_diff(diff);
    if (slurm_command->parsed()) return allot::cli::run_slurm(slurm);
    if (serve_command->parsed()) return allot::cli::run_serve(serve);
    if (shares_command->parsed()) return allot::cli::run_shares(shares);
    if (test_command->parsed()) return allot::cli::run_test(test);
    return allot::cli::run_import_slurm(import_slurm);
  }();
  // Output cut short (a full disk, /dev/full) is a failure, whatever the command found.
  return allot::cli::flush_stdout() ? code : 2;
}
