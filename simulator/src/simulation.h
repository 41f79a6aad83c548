// The discrete-event loop. Virtual time jumps from event to event: arrivals,
// completions, the stop of a preempted or drained job (its grace, checkpoint
// or drain deadline), hosts draining, going down and coming back, and periodic
// cycles while jobs wait. After each batch of events at one time the runtime's
// cycle runs and its decisions are applied, exactly as a production driver
// would. Checkpoints are periodic (the class's `checkpoint every`) and, with
// progress reports, are applied when they matter: before a cycle reads the
// jobs and when a job stops. A job that hangs (WorkloadJob::hangs_after)
// reports and checkpoints nothing from then on, and its run ends at its time
// limit unless the scheduler stops it first.
#pragma once

#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "allot/cycle.h"
#include "allot/ledger.h"
#include "allot/simulator.h"
#include "entitlement_book.h"
#include "timeline_builder.h"

namespace allot::simulator {

class Simulation {
 public:
  // `classes`: each job's class index under `policy` (resolve_jobs).
  Simulation(const Workload& workload, const runtime::Inventory& inventory, const CompiledPolicy& policy,
             const SimulationOptions& options, std::vector<int> classes);

  SimulationResult run();

 private:
  enum class Status { future, waiting, running, done };
  // Events at the same time run in this order: capacity first, then stops.
  enum class EventKind { completion, node_change, stop };

  // A job's life across its runs.
  struct JobState {
    Status status = Status::future;
    Seconds saved = 0;  // work kept from earlier runs (checkpoints)
    int run = 0;        // bumped at each start; events of older runs are stale
    Seconds started = 0;
    Seconds charged_until = 0;
    double rate = 0;          // unit per hour while running
    double pending_rate = 0;  // unit per hour of demand while waiting
    int gpus = 0;
    int account_node = 0;
    const std::string* gpu_type = nullptr;  // of the current run's nodes
    // When it was told to checkpoint and stop (preempted for a job, with a
    // grace); -1 when it was not.
    Seconds signalled = -1;
    // When this run hangs (WorkloadJob::hangs_after), -1 when it does not; a
    // job hangs in one run only.
    Seconds hangs_at = -1;
    bool hung_once = false;
    bool hung(Seconds at) const { return hangs_at >= 0 && hangs_at <= at; }
  };

  struct Event {
    Seconds at = 0;
    EventKind kind = EventKind::completion;
    std::uint64_t sequence = 0;
    int job = -1;
    int run = 0;
    int maintenance = -1;
    int phase = 0;  // node changes: 0 drain, 1 down, 2 up, 3 a drain deadline from the inventory
    bool operator>(const Event& other) const {
      if (at != other.at) return at > other.at;
      if (kind != other.kind) return kind > other.kind;
      return sequence > other.sequence;
    }
  };

  // simulation.cpp: the loop.
  std::optional<Seconds> next_time() const;
  void advance_to(Seconds time);
  bool handle_events();
  bool handle_event(const Event& event);
  void change_nodes(const Event& event);
  void push(Event event);
  void schedule_node_events();
  void report_progress();
  void measure_levels();

  // simulation_jobs.cpp: jobs moving between states.
  void arrive(int job);
  void run_cycles();
  bool run_one_cycle();
  bool handle_stops(const runtime::CycleResult& result);
  void started(const runtime::Decision& decision);
  void stopped(runtime::RunningJob& job, Seconds at);
  void complete(int job);
  void requeue_run(int job, runtime::RunningJob& running, Seconds at);
  void close_run(int job, runtime::RunningJob& running, Seconds at);
  void end_hang(int job, const runtime::RunningJob& running, Seconds at, bool stopped);
  void charge(int job, runtime::RunningJob& running, Seconds until);
  void report(const JobState& job, runtime::RunningJob& running, Seconds at) const;
  void refresh_ledger();
  void apply_reports();
  void finish();
  // A new request for `job` (arriving, or resubmitted), with a new revision.
  runtime::JobRequest request_for(int job);
  int index_of(const std::string& id) const;
  // The workload index of each running job, in state_.running's order.
  const std::vector<int>& running_indexes();

  const Workload& workload_;
  const CompiledPolicy& policy_;
  const SimulationOptions& options_;
  std::vector<int> classes_;
  // The cycle's options: SimulationOptions::cycle, without a skip decision per
  // waiting job when nobody reads them (no on_cycle): skips change no start,
  // stop or reservation (tests/simulator/cycle_cache_test.cpp), and writing
  // them was most of a saturated replay's allocations.
  runtime::CycleOptions cycle_options_;
  runtime::ClusterState state_;
  // What the cycle keeps between cycles (the account tree and fair-share values).
  runtime::CycleCache cycle_cache_;
  runtime::RollingLedger ledger_;
  runtime::UnitWeights unit_;
  double capacity_rate_ = 0;
  double average_gpu_rate_ = 1;
  ProgramBook book_;
  TimelineBuilder timeline_;
  ClusterLevels levels_;
  std::vector<ShortfallHours> held_;   // per program, by Shortfall cause, unit per hour (measure_levels)
  ShortfallHours cluster_held_{};      // the whole cluster's capacity, by Shortfall cause (measure_levels)
  std::vector<int> waiting_by_class_;  // jobs waiting now, per class index
  std::vector<JobState> jobs_;
  std::vector<JobOutcome> outcomes_;
  std::unordered_map<std::string, int> index_;
  // running_indexes()' memo: kept in step with state_.running, every entry
  // checked against its job's id, so hashing is only for jobs that moved in.
  std::vector<int> running_indexes_;
  std::uint64_t last_revision_ = 0;  // JobRequest::revision, one per request made
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t sequence_ = 0;
  std::size_t next_arrival_ = 0;
  Seconds now_ = 0;
  Seconds last_cycle_ = INT64_MIN / 2;
  Seconds last_refresh_ = INT64_MIN / 2;
  bool cycle_due_ = false;  // events changed the cluster since the last cycle
  double reported_ = -1;
  SimulationResult result_;
};

}  // namespace allot::simulator
