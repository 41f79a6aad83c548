// The Slurm adapter: makes a real slurmctld follow an Allot policy. Each
// reconcile pass reads nodes and jobs, maps them onto the policy's tree and
// classes (a mapping file), charges the usage ledger for the GPU time jobs
// actually held, runs the scheduling cycle (allot/cycle.h), and enacts its
// result in Slurm: job priorities in rank order, and preemption as a
// checkpoint signal followed, after the class's grace, by a requeue.
// docs/SLURM.md is the operator's guide.
#pragma once

#include <csignal>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/accounting.h"
#include "allot/cycle.h"
#include "allot/epoch_seconds.h"
#include "allot/expected.h"
#include "allot/located_error.h"
#include "allot/policy.h"

namespace allot::slurm {

using runtime::Seconds;

// What Slurm says of a node.
struct SlurmNode {
  std::string name;
  std::string gpu_type;  // from `gres` ("gpu:h100:8"); "" when untyped
  int gpus = 0;
  int gpus_used = 0;
  int cpus = 0;
  double memory_gib = 0;
  bool drain = false;                   // drained or draining: takes no new work
  bool down = false;                    // down, failed or not responding
  std::vector<std::string> partitions;  // the partitions it is in
  std::vector<std::string> features;    // its active features (what --constraint asks for)
};

// An advance reservation (`scontrol create reservation`): its nodes take only
// the jobs that name it while it is in force.
struct SlurmReservation {
  std::string name;
  std::vector<int> node_indexes;  // into the node list read in the same pass
  Seconds start = 0, end = 0;
};

// Where a job is in its life, as far as the adapter cares.
enum class JobPhase { pending, running, completing, finished };

// What Slurm says of a job.
struct SlurmJob {
  std::uint32_t id = 0;
  std::string name, account, user, partition, qos, comment;
  std::string admin_comment;  // where the adapter tells a job's owner why it is held back
  JobPhase phase = JobPhase::pending;
  std::uint32_t priority = 0;  // 0: held
  int nodes = 1;               // allocated when running, requested when pending
  int gpus_per_node = 0;
  double cpus_per_node = 0;
  double memory_gib_per_node = 0;
  std::vector<int> node_indexes;  // running: indexes into the node list read in the same pass
  Seconds submitted = 0;          // reset by Slurm on requeue
  Seconds eligible = 0;           // a requeued job waits until then
  Seconds started = 0;            // 0 when it never ran
  Seconds ended = 0;              // finished jobs
  Seconds time_limit = 0;         // --time; 0 when unlimited
  Seconds time_min = 0;           // --time-min: the protection it asks for (`protect up to` classes)
  Seconds deadline = 0;           // --deadline; 0 when none
  int restarts = 0;
  bool requeueable = false;  // a batch job that allows requeue
  // Where Slurm would run a pending job, and what else keeps it waiting.
  std::vector<std::string> partitions;      // `partition` split: any one of them
  std::string constraint;                   // --constraint as written ("a100&ib")
  std::vector<std::string> required_nodes;  // --nodelist, expanded
  std::vector<std::string> excluded_nodes;  // --exclude, expanded
  bool exclusive = false;                   // --exclusive: shares its nodes with no job
  std::string reservation;                  // --reservation
  Seconds begin = 0;                        // --begin; 0 when none
  std::string dependency;                   // --dependency as Slurm shows it; "" when none
  // Why it is pending (squeue's REASON: "Priority", "Dependency", "JobHeldUser")
  // and whether that reason is one a priority cannot change.
  std::string wait_reason;
  bool waits_outside = false;
};

// The levers the adapter pulls. The real one talks to slurmctld through
// libslurm; tests use a fake. Every call is one bounded RPC (MessageTimeout).
class SlurmBackend {
 public:
  virtual ~SlurmBackend() = default;
  // Every node, in Slurm's node-table order (SlurmJob::node_indexes point into it).
  virtual Expected<std::vector<SlurmNode>, std::string> read_nodes() = 0;
  // Every job slurmctld still holds, finished ones included (for MinJobAge).
  virtual Expected<std::vector<SlurmJob>, std::string> read_jobs() = 0;
  // Every advance reservation, in force or not.
  virtual Expected<std::vector<SlurmReservation>, std::string> read_reservations() = 0;
  // Each returns the error, or nullopt on success.
  // set_priority may be called from several threads at once (AdapterSettings::write_threads).
  virtual std::optional<std::string> set_priority(std::uint32_t job, std::uint32_t priority) = 0;
  virtual std::optional<std::string> signal_batch(std::uint32_t job, int signal) = 0;
  virtual std::optional<std::string> requeue(std::uint32_t job) = 0;
  virtual std::optional<std::string> set_admin_comment(std::uint32_t job, const std::string& text) = 0;
};

// Connects through libslurm to the cluster SLURM_CONF names (or
// /etc/slurm/slurm.conf); fails when there is no configuration to read.
Expected<std::unique_ptr<SlurmBackend>, std::string> connect_libslurm();

// Why a mapping file cannot be used: file, line, column and field (support/located_error.h).
using MapError = support::LocatedError;

// Conditions on a Slurm job: each set one must match (shell globs: `*`, `?`, `[...]`).
struct JobMatch {
  std::optional<std::string> slurm_account, user, partition, qos, name, comment;
};

// A rule of the mapping file; the first rule that matches a job wins.
struct MapRule {
  JobMatch match;
  std::string target;  // account rules: a leaf path, `{user}` and `{account}` substituted; class rules: a class
  int line = 0;
};

// How the adapter treats Slurm (the mapping file's [adapter] table).
struct AdapterSettings {
  std::uint32_t priority_floor = 1000;          // ranked jobs get priorities in [floor, ceiling]
  std::uint32_t priority_ceiling = 1000000000;  // (Slurm gives unranked jobs 1 with zero weights)
  Seconds charge_every = 60;                    // a running job is charged at most this often (and when it ends)
  int max_writes_per_pass = 5000;               // priority updates per pass; the rest wait for the next
  int write_threads = 8;                        // priority updates in flight at once (slurmctld takes them in turn)
  int checkpoint_signal = SIGUSR1;              // trapped by the job to write a checkpoint
  std::string default_gpu_type = "gpu";         // the type of GPUs `gres` does not name
  Seconds max_accounting_gap = 600;             // longer gaps between passes add no debt (unknown demand)
};

// A mapping file: Slurm accounts and users to tree accounts, jobs to classes.
struct JobMap {
  std::string file;
  AdapterSettings settings;
  std::vector<MapRule> accounts;
  std::vector<MapRule> classes;
};

// Reads and validates a mapping file (docs/SLURM.md "The mapping file").
Expected<JobMap, MapError> load_job_map(const std::string& path);
Expected<JobMap, MapError> parse_job_map(const std::string& text, const std::string& file);
// Whether every account and class the map names exists in the policy.
std::optional<MapError> check_job_map(const JobMap& map, const PolicyTables& tables);

// Where a generated job_submit.lua came from, for its header and its messages.
struct JobSubmitSource {
  std::string policy_hash;   // CompiledPolicy::source_hash()
  std::string generated_on;  // --now (YYYY-MM-DD), or "" to leave the date out: then every run writes the same script
};

// A job_submit.lua for Slurm 22.05's job_submit/lua plugin (Lua 5.1) that
// refuses, at submission and at `scontrol update`, a job asking for more GPUs,
// nodes or --time than its class allows (docs/SLURM.md "Rejecting jobs at
// submission"). The class is that of the map's first matching [[class]] rule,
// as the adapter finds it; a job no rule matches is left alone. An error names
// the rule whose glob a Lua pattern cannot express as fnmatch(3) reads it.
Expected<std::string, MapError> job_submit_lua(const PolicyTables& tables, const JobMap& map,
                                               const JobSubmitSource& source);

// One thing the adapter did (or would do, in a dry run) to Slurm.
struct Action {
  // class_limit: the job breaks its class's limits; its admin comment says so.
  enum class Kind { set_priority, checkpoint_signal, requeue, class_limit };
  Kind kind = Kind::set_priority;
  std::uint32_t job = 0;
  std::uint32_t priority = 0;   // set_priority: the new value
  std::string for_job;          // checkpoint_signal, requeue: the job the GPUs go to
  double lost_gpu_seconds = 0;  // requeue: work since the last checkpoint
  std::string error;            // Slurm refused it (the reason); empty on success
  std::string text;             // class_limit: the comment written (the limit it breaks)
};

// A run seen for the first time, and the contract it was given.
struct ObservedStart {
  std::uint32_t job = 0;
  Seconds started = 0;
  std::string account;
  std::string job_class;
  runtime::Contract contract;
  std::string class_limit;  // the class limit it breaks (then the contract promises nothing); "" when none
};

// A running job found stalled, or reporting again after a stall (docs/SLURM.md "Progress").
struct ProgressChange {
  bool stalled = true;  // false: it recovered
  std::uint32_t job = 0;
  runtime::RunningJob run;  // as the pass saw it (contract, last reports)
  Seconds since = 0;        // stalled: since when
};

// What one pass saw and did.
struct PassReport {
  Seconds now = 0;
  std::string policy_hash;
  runtime::Inventory inventory;  // Slurm's nodes as the cycle saw them (node indexes in `cycle`)
  // What the cycle read (the inventory, queue, running jobs with their contracts,
  // reservations, usage, debt) and what each account was owed in the window: a
  // snapshot of it (allot/snapshot.h) replays and explains this pass.
  runtime::ClusterState state;
  runtime::CycleResult cycle;
  std::vector<Action> actions;
  std::vector<ObservedStart> starts;
  std::vector<ProgressChange> progress;  // stalls and recoveries first seen by this pass
  std::vector<std::string> notes;        // jobs left alone and why (unmapped, held, ...), each said once per job
  double charged = 0;                    // unit-hours added to the ledger
  int pending = 0;                       // jobs ranked
  int running = 0;                       // jobs holding GPUs
  int writes = 0;                        // calls that changed Slurm (none in a dry run)
  // Where the pass spent its time, in seconds (for benchmarks and logs; decisions never read a clock).
  struct Timings {
    double reading = 0;  // slurm_load_node + slurm_load_jobs
    double ledger = 0;   // charges, contracts, adapter state (SQLite)
    double cycle = 0;    // run_cycle
    double writing = 0;  // signals, requeues and priority updates
  } timings;
};

// Where a new ledger's usage starts (`--charge-from`, the first run's choice;
// a ledger keeps the one it was made with): `now`, the first pass, so nothing
// the cluster ran before the adapter existed is charged; or `slurm_history`,
// each job Slurm still shows (running, or ended within its MinJobAge) from its start.
enum class ChargeFrom { now, slurm_history };

struct AdapterOptions {
  std::string state_path;  // SQLite file: the usage ledger and the adapter's own state
  bool dry_run = false;    // decide and report, write nothing (Slurm, ledger, state)
  runtime::CycleOptions cycle;
  ChargeFrom charge_from = ChargeFrom::slurm_history;
};

// The reconcile loop's state between passes. One adapter per state file (it
// takes an exclusive lock on it). Not thread-safe; holds nothing across passes
// but its database connection.
class Adapter {
 public:
  static Expected<std::unique_ptr<Adapter>, std::string> open(SlurmBackend& backend, JobMap map,
                                                              AdapterOptions options);
  ~Adapter();
  Adapter(const Adapter&) = delete;
  Adapter& operator=(const Adapter&) = delete;

  // One pass at time `now` under `policy`. A failure to read Slurm or to
  // write the ledger ends the pass before any write to Slurm.
  Expected<PassReport, std::string> reconcile(const CompiledPolicy& policy, Seconds now);

  // Replaces the mapping file between passes (a reload: policy and map swap
  // together, docs/SLURM.md "Reloading"). Jobs left alone are noted again.
  void set_map(JobMap map);

  // Usage per account as the ledger holds it now (for logs and tests).
  std::map<std::string, double> usage(Seconds now) const;

  // What the adapter keeps between passes (slurm/src/adapter_state.h).
  struct State;

 private:
  explicit Adapter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Audit log lines (JSON, one object per line, docs/SLURM.md "Audit log"). A
// dry run's actions were never sent to Slurm: `dry_run` marks them so.
std::string action_json(const Action& action, Seconds now, const std::string& policy_hash, bool dry_run = false);
// The action's kind as the audit log and the metrics name it ("set_priority", "checkpoint_signal", ...).
const char* action_kind_name(Action::Kind kind);
std::string start_json(const ObservedStart& start, Seconds now);
// `stalled` or `recovered` (docs/SLURM.md "Audit log").
std::string progress_json(const ProgressChange& change, Seconds now, const std::string& policy_hash);

// A reload (SIGHUP, or an edit of the policy or the mapping file) and how it
// ended: `swapped` from `from_hash` to `to_hash` (the same hash when only the
// map changed), or refused with the reason and the diagnostics (one line each,
// `error[code]: message` at `file:line:column`); the old policy and map keep running.
struct ReloadRecord {
  bool swapped = false;
  std::string from_hash, to_hash;
  std::uint64_t generation = 0;  // the policy slot's generation after it
  std::string policy_file, map_file;
  bool policy_changed = false, map_changed = false;
  std::string reason;  // refused: why
  std::vector<std::string> diagnostics;
};
std::string reload_json(const ReloadRecord& reload, Seconds now);
// A passed review date or an expired exception, said once per policy (runtime::governance_notices).
std::string governance_json(const runtime::GovernanceNotice& notice, Seconds now, const std::string& policy_hash);

}  // namespace allot::slurm
