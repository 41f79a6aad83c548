// The `allot` subcommands beyond linting (lint.h has check, fmt and what
// every command shares). Each returns the process exit code: 0 success, 1
// problems found in the input, 2 usage or I/O failure.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "allot/compile.h"
#include "lint.h"

namespace allot::runtime {
struct Inventory;
}

namespace allot::cli {

struct CompileArguments {
  std::string path;
  std::string emit;            // "", ir, llvm or asm
  std::string engine = "jit";  // jit or interp
  std::string now;             // YYYY-MM-DD, empty for today
};
int run_compile(const CompileArguments& arguments);

struct ReplayArguments {
  std::vector<std::string> policies;  // NAME=FILE (or FILE, named after its stem)
  std::string cluster;
  std::string scenario;  // normal, burst, large, drain or all; empty with --trace
  std::uint64_t seed = 1;
  std::string trace;
  std::string map;
  int days = 0;      // 0: 7 for scenarios, the whole trace
  std::string json;  // file, "-" for stdout
  std::string html;
  std::string engine = "jit";           // jit or interp
  std::string now;                      // YYYY-MM-DD, empty for today
  std::vector<double> loads = {1.3};    // scenario demand, a multiple of capacity; several: a load sweep
  std::vector<double> capacity_scales;  // a trace on the cluster scaled by each (empty: as it is)
  std::int64_t cycle_gap = 0;           // seconds at least between two cycles
  int holds = 1;                        // blocked jobs per cycle that hold capacity (CycleOptions::blocked_holds)
  bool yield_backfill = false;          // CycleOptions::yield_backfill
  double hang = 0;                      // percent of training jobs that hang (simulator::add_hangs)
  bool seed_given = false;              // --seed was given (a trace draws nothing without --hang)
  bool fail_on_gates = false;           // exit 1 when a policy fails one of its gates
  std::size_t threads = 0;              // policies replayed at once (0: one per core)
};
int run_replay(const ReplayArguments& arguments);

struct CycleArguments {
  std::string policy;
  std::string state;            // a state snapshot (docs/STATE.md)
  std::string now;              // overrides the snapshot's `now`; empty keeps it
  std::string engine = "jit";   // jit or interp
  std::string audit;            // append audit records here, if set
  std::string apply;            // write the state after the cycle here, if set
  bool yield_backfill = false;  // CycleOptions::yield_backfill
  std::string format = "json";  // json (docs/AUDIT.md's cycle document) or text (a table for people)
};
int run_cycle_command(const CycleArguments& arguments);

struct ExplainArguments {
  std::string policy;
  std::string state;
  std::string job;
  std::string now;
  std::string engine = "jit";
  bool json = false;
  bool yield_backfill = false;  // CycleOptions::yield_backfill, as the cycle ran
};
int run_explain(const ExplainArguments& arguments);

struct DiffArguments {
  std::string before, after;    // files, or git:REVISION:PATH
  std::string state;            // rank this snapshot under both (optional)
  std::string now;              // the day exceptions are judged on (default: the state's now)
  std::string format = "text";  // text, markdown or json
  std::string engine = "interp";
  bool exit_code = false;  // exit 1 when the meaning changes, as `git diff --exit-code`
  std::string replay;      // a scenario replayed under both (normal, burst, large, drain)
  std::string cluster;     // the inventory the replay runs on
  std::uint64_t seed = 1;
  double load = 1.3;
};
int run_diff(const DiffArguments& arguments);

struct EvalArguments {
  std::string policy;
  std::string state;
  std::string job;  // a JSON or TOML file holding one job, or "-" (standard input)
  std::string id;   // or a job already in the state
  std::string now;
  std::string engine = "jit";
  bool json = false;
};
int run_eval(const EvalArguments& arguments);

struct TestArguments {
  std::vector<std::string> paths;   // test files, or folders searched for *_test.toml
  std::string format = "text";      // text, json or junit
  std::string now;                  // YYYY-MM-DD: the day review dates and expiries are judged on
  std::string engine = "interp";    // interp or jit
  bool coverage = false;            // report what the cases exercised (docs/TESTING.md "Coverage")
  std::optional<double> threshold;  // fail below this percentage of items exercised (implies coverage)
};
int run_test(const TestArguments& arguments);

struct SharesArguments {
  std::string policy;
  std::string state;
  std::string now;
  std::string engine = "jit";
  std::string format = "text";  // text or json
};
int run_shares(const SharesArguments& arguments);

struct ImportSlurmArguments {
  std::string dump;        // `sacctmgr dump CLUSTER` output
  std::string output;      // write the policy here instead of stdout
  std::string owner;       // every program's owner, if set
  std::string review;      // every program's review date (YYYY-MM-DD), if set
  std::string hypothesis;  // every program's hypothesis, if set
};
int run_import_slurm(const ImportSlurmArguments& arguments);

struct SlurmArguments {
  std::string policy;
  std::string map;                        // the mapping file (docs/SLURM.md)
  std::string ledger = "allot-slurm.db";  // usage ledger and adapter state (SQLite)
  std::string interval = "5s";            // between passes
  bool once = false;
  bool dry_run = false;
  std::string audit;                // append JSON lines here, if set
  std::string snapshot;             // write the state each pass scheduled here, if set
  std::string now;                  // YYYY-MM-DD for policy checks, empty for today
  std::string engine = "jit";       // jit or interp
  std::string metrics;              // serve /metrics, /healthz and /readyz here (HOST:PORT), if set
  std::string serve;                // serve those, the read API and the dashboard here (HOST:PORT), if set
  std::string charge_from = "now";  // a new ledger's first charge: now or slurm-history
  // Write a job_submit.lua here ("-": standard output) and exit, if set (docs/SLURM.md).
  std::string emit_job_submit;
};
int run_slurm(const SlurmArguments& arguments);

struct ServeArguments {
  std::string policy;
  std::string cluster;                // the inventory (docs/STATE.md)
  std::string db = "allot-serve.db";  // jobs, events, decisions, ledger, policy history (SQLite)
  std::string token_file;             // the bearer token for mutating calls
  std::string listen = "127.0.0.1:8642";
  std::string interval = "2s";            // between cycles
  std::string charge_every = "1m";        // ServiceOptions::charge_every
  std::string sample_every = "5m";        // ServiceOptions::sample_every
  std::string durability = "power-loss";  // or process-crash (docs/SERVE.md "Durability")
  std::string now;                        // YYYY-MM-DD for policy checks, empty for today
  std::string engine = "jit";
  std::vector<std::string> import_path;  // where a posted policy's imports may come from, after the stdlib
  bool demo = false;                     // replay the seed's company in virtual time (docs/SERVE.md "Demo")
  double speed = 300;                    // --demo: virtual seconds per real second
  std::uint64_t seed = 1;                // --demo: the scenario's seed
  double rate_limit = 500;               // mutating requests a second per token (0: off)
  double read_rate_limit = 100;          // reads a second per client address (0: off)
  std::string webhook;                   // push the decision feed here (http://HOST:PORT/PATH), if set
  std::string webhook_token_file;        // the bearer token sent with each push, if set
};
int run_serve(const ServeArguments& arguments);

// `allot check --cluster FILE`: what the checker needs of the inventory. Returns
// the exit code after printing why when it cannot be read (2) or is invalid (1).
std::optional<int> read_cluster_facts(const std::string& path, std::optional<ClusterFacts>& facts);
// What the checker needs of an inventory read from `file`.
ClusterFacts cluster_facts(const runtime::Inventory& inventory, const std::string& file);

// How a command compiles: `engine` ("jit" or "interp") and import_path().
CompileOptions compile_options(const std::string& engine);

}  // namespace allot::cli
