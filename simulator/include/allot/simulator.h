// The replay simulator: compares policies on the same arrivals before one goes
// live (docs/REPLAY.md). Workloads come from a trace CSV
// with a mapping file, or from the seed's four scenarios; a discrete-event loop
// drives the runtime's own scheduling cycle (run_cycle + apply_decisions), a
// RollingLedger and entitlement accounting; metrics, rollout gates and reports
// (terminal table, JSON, HTML) come out. docs/REPLAY.md documents the JSON.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allot/cycle.h"
#include "allot/expected.h"
#include "allot/inventory.h"
#include "allot/policy.h"

namespace allot::simulator {

using runtime::Seconds;

// 2026-11-30T00:00:00Z, a Monday: where scenarios start unless told otherwise,
// so the seed's Tuesday and Wednesday are the second and third days.
constexpr Seconds kDefaultStart = 1'796'083'200 - 86'400;

// ---------------------------------------------------------------- workloads

// What a generated job is for; each policy maps a kind to one of its classes.
enum class JobKind { debug, eval, train, large };

// "debug", "eval", "train", "large".
const char* job_kind_name(JobKind kind);

// One job of a workload, identical for every policy replayed.
struct WorkloadJob {
  std::string id;
  Seconds submitted = 0;
  Seconds work = 0;  // run time it needs when never interrupted
  int nodes = 1;
  int gpus_per_node = 1;
  std::string gpu_type;   // "" for any type
  std::string account;    // leaf account path
  std::string job_class;  // a class name, or "" to pick one by `kind` per policy
  JobKind kind = JobKind::train;
  int label = 0;  // 0 none, 1 low, 2 medium, 3 high (for label-based baselines)
  std::optional<Seconds> deadline;
  Seconds requested_protect = 0;
  std::string origin;  // where it came from, for errors ("trace.csv:57"), or ""
  // It hangs once, after this much of its work: it stops making progress
  // (no reports, no checkpoints) and holds its GPUs until the scheduler stops
  // it or its time limit (`work` after the run's start) ends the run; its
  // owner then resubmits it, and it resumes from its last checkpoint and runs
  // normally (docs/REPLAY.md "Hung jobs"). nullopt: it never hangs.
  std::optional<Seconds> hangs_after;
};

// Hosts taken out for maintenance: drained (no new work, running jobs stop at a
// checkpoint or the deadline), down at the deadline, back up later.
struct Maintenance {
  std::vector<int> nodes;  // indexes into Inventory::nodes
  Seconds drain_at = 0;
  Seconds deadline = 0;
  Seconds back_at = 0;
};

// The arrivals and cluster events of one replay, over [start, end).
struct Workload {
  std::string name;         // "normal", "burst", "large", "drain", or the trace's file name
  std::string description;  // one sentence for reports
  Seconds start = 0;
  Seconds end = 0;
  std::vector<WorkloadJob> jobs;  // by submission time, then id
  std::vector<Maintenance> maintenance;
  std::vector<std::string> notes;  // what was left out and why, for reports
};

// The seed's four scenarios.
enum class Scenario { normal, burst, large, drain };

// "normal", "burst", "large", "drain".
const char* scenario_name(Scenario scenario);
// The scenario named `name`, if there is one.
std::optional<Scenario> parse_scenario(std::string_view name);

// How scenarios are generated. The same options give the same workload.
struct ScenarioOptions {
  std::uint64_t seed = 1;
  int days = 7;
  Seconds start = kDefaultStart;
  // Offered GPU-hours per GPU-hour of capacity, averaged over the week (the
  // seed's demand is above capacity: research always has more to run).
  double load = 1.3;
  // The fraction of training jobs that hang (add_hangs), 0 to 1.
  double hang = 0;
};

// Generates a scenario for a cluster, with accounts and classes from a
// policy's tables (leaves of its programs, classes chosen per kind).
Expected<Workload, std::string> generate_scenario(Scenario scenario, const runtime::Inventory& inventory,
                                                  const PolicyTables& tables, const ScenarioOptions& options);

// Makes `fraction` (0 to 1) of the workload's training jobs (kinds train and
// large; a trace's jobs are all of kind train) hang once after a uniformly
// drawn part of their work, drawn from `seed` apart from the arrivals, so the
// same arrivals replay with and without hangs; jobs that hang already (a
// trace's `hang_s`) keep theirs. Adds a sentence to the description.
void add_hangs(Workload& workload, double fraction, std::uint64_t seed);

// A problem in a trace or mapping file: which file, line and field
// ("gpus", "class[2].max_duration"; support/located_error.h).
using TraceError = support::LocatedError;

// One row of a trace CSV (`job_id,submit_s,duration_s,gpus,group,user,status`).
struct TraceRow {
  std::string job_id;
  Seconds submit = 0;  // seconds after the trace's start
  Seconds duration = 0;
  int gpus = 0;
  std::string group;
  std::string user;
  std::string status;
  int line = 0;
  std::optional<Seconds> hang;  // the optional `hang_s` column: hangs after this much of its run
};

// Reads a trace CSV; the header names the columns (any order, all required but
// `hang_s`, whose empty fields mean the job never hangs).
Expected<std::vector<TraceRow>, TraceError> read_trace(const std::string& path);
// Reads trace text; `file` names it in errors.
Expected<std::vector<TraceRow>, TraceError> parse_trace(std::string_view text, const std::string& file);

// Where a trace group (and optionally user) runs in the policy's tree. With
// several accounts, each job goes to one of them by a hash of its id (stable
// across runs), so a group can stand for a team of several people.
struct AccountRule {
  std::string group;  // "" only for the default rule
  std::string user;   // "" matches any user
  std::vector<std::string> accounts;
  int label = 0;
  int line = 0;
};

// Jobs that match every set condition get `job_class` (first match wins).
struct ClassRule {
  std::string job_class;
  int min_gpus = 0;  // 0: no condition
  int max_gpus = 0;
  Seconds min_duration = 0;
  Seconds max_duration = 0;
  std::string gpu_type;                   // what the jobs ask for, "" any
  std::optional<Seconds> deadline_slack;  // deadline = submission + duration + slack
  Seconds protect = 0;                    // requested protection (`protect up to` classes)
  int line = 0;
};

// A mapping file (docs/REPLAY.md "Trace mapping").
struct TraceMap {
  std::string file;
  Seconds start = kDefaultStart;  // the replay time of the trace's second 0
  std::vector<AccountRule> accounts;
  std::optional<AccountRule> default_account;
  std::vector<ClassRule> classes;
};

// Reads a mapping file.
Expected<TraceMap, TraceError> load_trace_map(const std::string& path);
// Reads mapping text; `file` names it in errors.
Expected<TraceMap, TraceError> parse_trace_map(std::string_view text, const std::string& file);

// Checks a mapping's accounts and classes against a policy (leaf accounts,
// known classes), naming the mapping's line and field.
std::optional<TraceError> check_trace_map(const TraceMap& map, const PolicyTables& tables);

// Turns trace rows into a workload: accounts and classes from the map, jobs
// wider than a node become whole-node multi-node jobs, jobs the cluster can
// never hold are left out (noted). `days` cuts the replay (default: the
// trace's span rounded up to a day).
Expected<Workload, TraceError> trace_workload(const std::vector<TraceRow>& rows, const TraceMap& map,
                                              const runtime::Inventory& inventory, const std::string& trace_file,
                                              std::optional<int> days);

// The request `job` makes when it runs as class `job_class`: what the replay's
// cycle sees of it, and what `allot serve --demo` submits.
runtime::JobRequest workload_request(const WorkloadJob& job, const std::string& job_class);

// The class index (into PolicyTables::classes) each job runs as under a
// policy, or an error naming the job when an account or class does not fit.
Expected<std::vector<int>, std::string> resolve_jobs(const Workload& workload, const PolicyTables& tables);

// --------------------------------------------------------------- simulation

// How the event loop runs.
struct SimulationOptions {
  Seconds cycle_interval = 300;  // a cycle at least this often while jobs wait
  // Events closer than this to the last cycle wait for the next one (0: a
  // cycle after every batch of events at the same time). Trace simulators
  // often schedule in rounds (Pollux: 60 s); waits then round up to a round.
  Seconds min_cycle_gap = 0;
  Seconds ledger_refresh = 600;  // running jobs are charged (and usage read) at least this often
  Seconds bucket = 3600;         // time-series resolution
  runtime::CycleOptions cycle;
  // Now and then: the fraction of virtual time done, and the events handled so far.
  std::function<void(double fraction, std::uint64_t events)> progress;
  // Sees every cycle's result and the state it ran on (before its decisions
  // are applied): an audit trail for tests and tools.
  std::function<void(const runtime::ClusterState&, const runtime::CycleResult&)> on_cycle;
};

// What happened to one job (times absolute; -1 when it never happened).
struct JobOutcome {
  int job_class = 0;            // index into the policy's classes
  Seconds first_start = -1;     // wait = first_start - submitted
  Seconds first_progress = -1;  // first checkpoint or completion
  Seconds completed = -1;
  double gpu_seconds = 0;       // GPU-time held, every run
  double lost_gpu_seconds = 0;  // GPU-time since the last checkpoint at each stop (a hung run's: before it hung)
  int stops = 0;                // preemptions and drains
  bool hung = false;            // a run of it hung (WorkloadJob::hangs_after)
  bool hung_stopped = false;    // and the scheduler stopped that run before its time limit
  double hung_gpu_seconds = 0;  // GPU-time held while hung
  // GPU-time the hung run would still have held when the scheduler stopped it
  // (a stall preempted or stopped, a drain): up to its time limit, or the end.
  double recovered_gpu_seconds = 0;
  double hung_lost_gpu_seconds = 0;  // of lost_gpu_seconds, what the hung run lost (its work since its last checkpoint)
};

// What held the capacity a program below its share lacked while it had work
// waiting. The capacity was free (held for a blocked job, of a shape no
// waiting job fits, or between cycles), or held by programs beyond their own
// shares, whose jobs are counted in this order: those preemption may stop
// (past protection, preemptible, requeueable) but did not, those stopping in
// their grace, those inside their protection, those that may never be
// preempted. docs/REPLAY.md "Why a program was short".
//
// X(cause, key, text, label): each cause's key in JSON, its words in a failed
// gate's why ("61.0% was on jobs inside their protection") and its row of the
// terminal table.
// clang-format off
#define ALLOT_SHORTFALL_CAUSES(X) \
  X(free, "free", "was free or held for another waiting job", "free or held for a waiting job") \
  X(not_taken, "not_taken", "was on jobs preemption could stop but did not", "on jobs preemption could stop") \
  X(grace, "grace", "was on jobs stopping in their grace", "on jobs in their grace") \
  X(protected_, "protected", "was on jobs inside their protection", "on protected jobs") \
  X(not_preemptible, "not_preemptible", "was on jobs that may not be preempted", "on jobs never preempted")
// clang-format on

enum class Shortfall {
#define ALLOT_SHORTFALL_ENUM(cause, key, text, label) cause,
  ALLOT_SHORTFALL_CAUSES(ALLOT_SHORTFALL_ENUM)
#undef ALLOT_SHORTFALL_ENUM
};

// How a Shortfall cause is written.
struct ShortfallWords {
  Shortfall cause;
  const char* key;
  const char* text;
  const char* label;
};

// The causes' words, in enum order (row c for ShortfallHours[c]).
inline constexpr std::array kShortfallWords = {
#define ALLOT_SHORTFALL_WORDS(cause, key, text, label) ShortfallWords{Shortfall::cause, key, text, label},
    ALLOT_SHORTFALL_CAUSES(ALLOT_SHORTFALL_WORDS)
#undef ALLOT_SHORTFALL_WORDS
};

inline constexpr std::size_t kShortfallCauses = kShortfallWords.size();
using ShortfallHours = std::array<double, kShortfallCauses>;  // unit-hours, by Shortfall

// Per-bucket totals over the replay; bucket i covers [start + i*bucket, +bucket).
struct Timeline {
  Seconds start = 0;
  Seconds bucket = 3600;
  std::vector<double> capacity_gpu_seconds;  // GPUs on up and draining nodes
  std::vector<double> used_gpu_seconds;
  std::vector<double> free_gpu_seconds;        // up, not held, not reserved
  std::vector<double> fragmented_gpu_seconds;  // free GPUs no waiting job could use
  std::vector<double> lost_gpu_seconds;
  std::vector<double> waiting_jobs;               // job-seconds waiting (average = / bucket)
  std::vector<std::vector<double>> program_owed;  // [program][bucket], unit-hours
  std::vector<std::vector<double>> program_delivered;
  std::vector<std::vector<ShortfallHours>> program_shortfall;  // [program][bucket]: owed - delivered, by cause
};

// A program's (top-level account's) entitlement totals, in unit-hours.
struct ProgramTotals {
  std::string name;
  double share = 0;  // of the cluster, before exceptions
  double owed = 0;
  double delivered = 0;
  double borrowed = 0;         // unassigned capacity it used beyond its share
  ShortfallHours shortfall{};  // owed - delivered, by what held the capacity
};

// Everything one policy's replay produced.
struct SimulationResult {
  std::vector<JobOutcome> jobs;  // parallel to Workload::jobs
  Timeline timeline;
  std::vector<ProgramTotals> programs;  // in tree order
  double used_unit_hours = 0;
  double unassigned_unit_hours = 0;         // used by programs beyond their shares (Ai2's unassigned capacity)
  double beyond_user_share_unit_hours = 0;  // used by users beyond their own shares (includes lending inside a program)
  // [class]: job-hours its jobs spent waiting, split by what the cluster's
  // capacity was doing meanwhile (the Shortfall causes, over the whole cluster).
  std::vector<ShortfallHours> class_waits;
  std::uint64_t events = 0;
  std::uint64_t cycles = 0;
};

// Replays `workload` on `inventory` under `policy`.
Expected<SimulationResult, std::string> simulate(const Workload& workload, const runtime::Inventory& inventory,
                                                 const CompiledPolicy& policy, const SimulationOptions& options);

// ------------------------------------------------------------------ metrics

// Wait and progress statistics of a group of jobs (seconds; NaN-free: 0 when empty).
struct GroupMetrics {
  std::string name;
  int jobs = 0;
  int started = 0;
  int completed = 0;
  double p50_wait = 0;
  double p90_wait = 0;
  double max_wait = 0;  // jobs still waiting count with their wait so far
  int starved = 0;      // waited (or still wait) longer than the threshold
  double p50_first_progress = 0;
  double p90_first_progress = 0;
  double gpu_hours = 0;
  double lost_gpu_hours = 0;
  int stops = 0;
  int deadline_jobs = 0;
  int deadline_met = 0;
  // Deadline jobs that missed, by how: never started; started too late to
  // finish by their deadline even uninterrupted; started in time but stopped
  // (preempted or drained) on the way.
  int deadline_never_started = 0;
  int deadline_started_late = 0;
  int deadline_stopped = 0;
  // Hung jobs (WorkloadJob::hangs_after): how many hung, the GPU-hours they
  // held while hung, those the scheduler recovered by stopping them before
  // their time limit, and the work their hung runs lost (part of lost_gpu_hours).
  int hung = 0;
  int hung_stopped = 0;  // of those, stopped by the scheduler rather than their time limit
  double hung_gpu_hours = 0;
  double recovered_gpu_hours = 0;
  double hung_lost_gpu_hours = 0;
  std::optional<ProgramTotals> share;  // programs only
  std::vector<double> waits;           // sorted, for CDF plots (not in JSON)
};

// What a share_delivery gate judged, over time: each program's delivered /
// owed over the gate's window (`over`) ending at each point, NaN where it had
// no sustained demand in that window (the gate judges only windows with it).
// The smallest value of any line is the gate's measured value. At most
// MetricOptions::max_points points: each the worst of the windows it stands for.
struct GateWindows {
  double window_hours = 0;                                            // the gate's `over` (the whole replay if shorter)
  std::vector<double> window_end_hours;                               // hours after the replay's start
  std::vector<std::pair<std::string, std::vector<double>>> programs;  // in tree order
};

// A gate with its measured value.
struct GateResult {
  GateInfo gate;
  std::string text;             // as written: "p90_wait debug <= 5m"
  std::optional<double> value;  // nullopt: nothing to measure (e.g. no deadline jobs)
  bool passed = true;
  std::string detail;  // e.g. which program fared worst
  // For a failed share_delivery gate: what held the capacity the worst program
  // lacked in its worst window ("of the 15.1 unit-hours it lacked, 61% was on
  // jobs inside their protection, ..."); for a failed wait gate: what the
  // cluster's capacity was doing while the jobs waited; for a failed
  // deadline_slo gate: how the jobs missed and what held the capacity while
  // jobs of deadline classes waited; empty otherwise.
  std::string why;
  std::optional<GateWindows> windows;  // share_delivery gates only
};

// The worst delivered / owed of any program over a sliding window where it had
// sustained demand (something owed in at least half of the window's hours).
struct WindowDelivery {
  double delivery = 1;
  std::string program;
  double window_end_hours = 0;  // hours after the replay's start
  double window_hours = 0;
  double owed = 0;             // the program's, over the window, in unit-hours
  ShortfallHours shortfall{};  // the program's owed - delivered over the window, by cause
};

// Time series for plots, downsampled to at most a few hundred points.
struct Series {
  std::vector<double> hours;  // bucket starts, hours since the replay's start
  std::vector<double> occupancy;
  std::vector<double> fragmented_gpus;  // average over the bucket
  std::vector<double> lost_gpu_hours;
  std::vector<double> waiting_jobs;
  std::vector<std::vector<double>> program_delivery;  // delivered / owed, -1 when nothing was owed
};

// One policy's results on one workload.
struct PolicyMetrics {
  std::string name;
  std::string policy_name;  // the `policy` declaration's name
  GroupMetrics all;
  std::vector<GroupMetrics> classes;
  std::vector<GroupMetrics> programs;
  // By GPUs asked for ("1 GPU", "2-4 GPUs", "5-8 GPUs", "9+ GPUs"): a mean can
  // hide that big jobs never find a contiguous block.
  std::vector<GroupMetrics> sizes;
  double occupancy = 0;          // used / capacity (up and draining nodes), GPU-time
  double fragmentation = 0;      // fragmented / free, GPU-time
  double fragmented_gpus = 0;    // time-average count
  double unassigned_share = 0;   // used beyond programs' shares / used, unit-hours
  double beyond_user_share = 0;  // used beyond users' own shares / used, unit-hours
  double lost_work = 0;          // lost / used, GPU-time
  std::optional<double> deadline_slo;
  // Over the policy's window (the whole replay if shorter); nullopt when no
  // program had sustained demand. The share_delivery gate reads the same value.
  std::optional<WindowDelivery> worst_window_delivery;
  std::vector<GateResult> gates;
  bool gates_passed = true;
  Series series;
  std::uint64_t events = 0;
  std::uint64_t cycles = 0;
};

// What the metrics are measured against.
struct MetricOptions {
  Seconds starvation_threshold = 86'400;  // a wait longer than this is starvation
  std::size_t max_points = 240;           // per series, for plots
};

// The metrics and gates of one policy's replay; `name` is the report's name for the policy.
PolicyMetrics measure(const Workload& workload, const SimulationResult& result, const CompiledPolicy& policy,
                      const std::string& name, const MetricOptions& options);

// ----------------------------------------------------------------- load sweep

// One policy at one point of a load sweep: the numbers a capacity planner reads.
struct SweepResult {
  std::string policy;
  std::vector<std::pair<std::string, double>> p90_waits;  // class name -> seconds, classes with jobs
  std::optional<WindowDelivery> worst_delivery;           // PolicyMetrics::worst_window_delivery
  std::optional<double> delivery_gate;  // the threshold of the policy's share_delivery gate, if it has one
  double occupancy = 0;
  int gates_passed = 0;
  int gates = 0;
  std::vector<std::string> failed_gates;  // as written in the policy
};

// One workload replayed at one load: a scenario generated at `load`, or a trace
// on the cluster scaled by `capacity_scale` (scale_cluster).
struct SweepPoint {
  double load = 0;                       // scenarios: the generator's load; traces: offered_load
  double offered_load = 0;               // offered_load of the workload replayed
  std::optional<double> capacity_scale;  // traces only
  int gpus = 0;                          // GPUs on up nodes
  int nodes = 0;
  std::size_t jobs = 0;
  std::vector<SweepResult> policies;
};

// Offered GPU-hours (every job's work x GPUs) / GPU-hours of the cluster's up
// nodes over [start, end): 1.0 asks for exactly the capacity.
double offered_load(const Workload& workload, const runtime::Inventory& inventory);

// The cluster with round(nodes x factor) nodes, at least one: the first nodes in
// file order when smaller; when larger, copies of the file's nodes in order
// ("gpu-01+2" is the second copy of gpu-01), each round of copies in racks of
// its own ("rack-1+2"), as bought racks would be.
runtime::Inventory scale_cluster(const runtime::Inventory& inventory, double factor);
// round(nodes x factor), at least one: the node count scale_cluster gives.
long long scaled_node_count(std::size_t nodes, double factor);

// ------------------------------------------------------------------ reports

// Every policy on one workload.
struct ScenarioReport {
  std::string workload;
  std::string description;
  Seconds start = 0;
  Seconds end = 0;
  std::size_t jobs = 0;
  std::vector<std::string> notes;
  std::vector<PolicyMetrics> policies;  // with a sweep: at its first point
  // Empty unless several loads or capacities were replayed; in the order given.
  std::vector<SweepPoint> sweep;
  std::size_t hanging_jobs = 0;  // jobs of the workload that hang (the report then shows what they cost)
};

// One point of a sweep from the full replay of it: `workload` replayed on
// `inventory` under every policy of `scenario`.
SweepPoint sweep_point(const ScenarioReport& scenario, const Workload& workload, const runtime::Inventory& inventory,
                       double load, std::optional<double> capacity_scale);

// A whole `allot replay` run.
struct ReplayReport {
  std::string cluster;
  int cluster_gpus = 0;       // on nodes that are up: the capacity new jobs can use
  int cluster_gpus_down = 0;  // on nodes that are down or draining when the replay starts
  int cluster_nodes = 0;
  std::optional<std::uint64_t> seed;  // scenarios only
  Seconds starvation_threshold = 86'400;
  std::vector<std::pair<std::string, std::string>> policies;  // name -> file
  std::vector<ScenarioReport> scenarios;
};

// A compiled policy and the name the report gives it.
struct ReplayPolicy {
  std::string name;  // "baseline", "proposed"
  std::string file;
  std::shared_ptr<const CompiledPolicy> policy;
};

// Reports how far a replay is: which policy (index), the fraction of virtual
// time done, and the events (arrivals, completions, stops) it has handled.
using ReplayProgress = std::function<void(std::size_t policy, double fraction, std::uint64_t events)>;

// What one replay may ask for (docs/SECURITY.md "Every reader is bounded by what
// it builds"): at most kMaxWorkloadJobs jobs, and at most kMaxQueueWork queue
// work, estimated as jobs x the backlog the offered load implies (a cycle ranks
// and places every waiting job, so a queue that grows without end makes a
// replay's time grow with the square of its length). kMaxQueueWork is about
// three hours of cycles at the ~1 us per waiting job per cycle of
// docs/PERFORMANCE.md; the Philly trace on 640 GPUs needs none of it.
inline constexpr std::size_t kMaxWorkloadJobs = 2'000'000;
inline constexpr double kMaxQueueWork = 1e10;

// Why replaying `workload` on `inventory` would take more than a replay may,
// with the numbers that say so; nullopt when it is within the bounds.
std::optional<std::string> replay_too_large(const Workload& workload, const runtime::Inventory& inventory);

// Replays one workload under every policy (identical arrivals) and measures each.
// Refuses a workload replay_too_large refuses. The policies run on up to
// `threads` threads at once (0: one per core the machine has; never more than
// one per policy): each simulation is on its own, so the report is the same,
// byte for byte, whatever `threads` is. `progress` is called from those threads,
// one call at a time.
Expected<ScenarioReport, std::string> replay_workload(const Workload& workload, const runtime::Inventory& inventory,
                                                      const std::vector<ReplayPolicy>& policies,
                                                      const SimulationOptions& simulation, const MetricOptions& metrics,
                                                      const ReplayProgress& progress = {}, std::size_t threads = 0);

// Side-by-side comparison for a terminal, one table per workload.
std::string render_table(const ReplayReport& report, bool color);
// The JSON document of docs/REPLAY.md: byte-identical for identical inputs.
std::string render_json(const ReplayReport& report);
// One self-contained HTML page with inline SVG plots.
std::string render_html(const ReplayReport& report);

}  // namespace allot::simulator
