#include "pass.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "allot/account_columns.h"
#include "allot/accounting.h"
#include "allot/contracts.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/parallel.h"
#include "allot/text.h"
#include "cluster_view.h"
#include "crash_point.h"
#include "job_map.h"
#include "priority_plan.h"

namespace allot::slurm {
namespace {

using runtime::Charge;
using runtime::Contract;
using runtime::DecisionKind;
using runtime::RunningJob;

// The account and class of running jobs the map does not place: they hold GPUs, are never victims.
constexpr const char* kUnmapped = "(unmapped)";

// A job's place in the policy: its leaf account and class, when the map gives both.
struct Placement {
  std::string account;
  std::string job_class;
};

// Seconds since the last lap.
class Stopwatch {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

bool holds_resources(const SlurmJob& job) {
  return job.phase == JobPhase::running || job.phase == JobPhase::completing;
}

std::optional<std::uint32_t> job_number(const std::string& id) {
  std::uint32_t number = 0;
  const auto [end, error] = std::from_chars(id.data(), id.data() + id.size(), number);
  if (error != std::errc() || end != id.data() + id.size()) return std::nullopt;
  return number;
}

class Pass {
 public:
  Pass(Adapter::State& state, const CompiledPolicy& policy, Seconds now)
      : adapter_(state), policy_(policy), settings_(state.map.settings), now_(now) {
    report_.now = now;
    report_.policy_hash = policy.source_hash();
  }

  Expected<PassReport, std::string> run();

 private:
  std::optional<std::string> read();
  void map_jobs();
  std::optional<std::string> open_ledger();
  std::optional<std::string> decide_charge_from();
  std::optional<std::string> charge(const std::vector<const SlurmJob*>& jobs, bool force);
  std::optional<std::string> remember_submissions();
  std::optional<std::string> record_contracts();
  void take_reports();
  void note_progress();
  void sort_preemptions();
  void build_state();
  std::vector<runtime::Reservation> reservations_from_preemptions() const;
  void requeue(const SlurmJob& job, const std::string& for_job);
  void enact_preemptions(runtime::CycleResult& result);
  std::optional<std::string> refuse_preemption(const SlurmJob* victim, const std::string& for_job) const;
  void write_priorities(const runtime::CycleResult& result);
  std::optional<std::string> track_debt();
  runtime::EntitlementBook* book();
  void note(std::uint32_t job, std::string text);
  // A write to Slurm, skipped in a dry run; the error, if Slurm refused it.
  // It touches no pass state, so several may run at once (write_priorities).
  template <class Call>
  std::string write(Call call) const;
  // Every write's action goes into the report here, the one place that counts
  // the writes Slurm took.
  void report(Action action);

  const SlurmJob* find(std::uint32_t id) const {
    const auto found = by_id_.find(id);
    return found == by_id_.end() ? nullptr : &jobs_[found->second];
  }
  const Placement* placement(std::uint32_t id) const {
    const auto found = placements_.find(id);
    return found == placements_.end() ? nullptr : &found->second;
  }
  Seconds first_submitted(const SlurmJob& job) const {
    const auto& known = adapter_.store->first_submitted();
    const auto found = known.find(job.id);
    return found == known.end() ? job.submitted : found->second;
  }
  RunningJob running_job(const SlurmJob& job) const;
  // The policy's class of that name, if it has one.
  const ClassInfo* class_info(const std::string& name) const;
  // The limit of its class `job` breaks (GPUs, nodes, runtime, a required
  // deadline), if any; `request` is its request as the cycle sees it.
  std::optional<std::string> class_breach(const SlurmJob& job, const runtime::JobRequest& request) const;
  void write_class_limits();

  Adapter::State& adapter_;
  const CompiledPolicy& policy_;
  const AdapterSettings& settings_;
  const Seconds now_;
  PassReport report_;
  std::vector<SlurmNode> nodes_;
  std::vector<SlurmJob> jobs_;
  std::unordered_map<std::uint32_t, std::size_t> by_id_;
  std::unordered_map<std::uint32_t, Placement> placements_;
  runtime::Inventory inventory_;
  runtime::ClusterState state_;
  std::optional<runtime::EntitlementBook> book_;         // with the debt of earlier passes; see book()
  std::vector<const SlurmJob*> due_;                     // requeue now: their grace is over
  std::unordered_map<std::uint32_t, Seconds> stopping_;  // signalled, requeue later
  std::map<std::uint32_t, std::string> breaches_;        // pending jobs that break their class's limits, why
};

const ClassInfo* Pass::class_info(const std::string& name) const {
  const auto& classes = policy_.tables().classes;
  const auto found = std::find_if(classes.begin(), classes.end(), [&](const ClassInfo& c) { return c.name == name; });
  return found == classes.end() ? nullptr : &*found;
}

std::optional<std::string> Pass::class_breach(const SlurmJob& job, const runtime::JobRequest& request) const {
  const ClassInfo* info = class_info(request.job_class);
  if (info == nullptr) return std::nullopt;
  if (auto problem = runtime::class_limit_problem(*info, request)) return problem;
  // Slurm's time limit UNLIMITED (no --time, and a partition without one) is no limit at all.
  if (info->max_runtime > 0 && job.time_limit == 0) {
    return fmt::format("has no time limit; class `{}` allows at most {}", info->name,
                       support::format_duration(static_cast<Seconds>(info->max_runtime)));
  }
  return std::nullopt;
}

Expected<PassReport, std::string> Pass::run() {
  Stopwatch watch;
  if (auto error = read()) return unexpected(*error);
  report_.timings.reading = watch.lap();
  map_jobs();
  take_reports();
  std::optional<std::string> error = open_ledger();
  if (!error) error = decide_charge_from();
  sort_preemptions();
  std::vector<const SlurmJob*> all;
  for (const SlurmJob& job : jobs_) all.push_back(&job);
  if (!error) error = charge(all, false);
  if (!error) error = charge(due_, true);
  if (!error) error = remember_submissions();
  if (!error) error = record_contracts();
  if (error) return unexpected(*error);
  build_state();
  note_progress();
  report_.timings.ledger = watch.lap();
  for (const SlurmJob* job : due_) requeue(*job, adapter_.store->preemptions().at({job->id, job->started}).for_job);
  report_.timings.writing = watch.lap();
  // Slurm handles its draining and down nodes (a controller just restarted
  // shows every node down for a moment): the cycle decides no stop for them.
  runtime::CycleOptions cycle_options = adapter_.options.cycle;
  cycle_options.stop_on_unavailable_nodes = false;
  report_.cycle = runtime::run_cycle(state_, policy_, cycle_options);
  adapter_.reservations = report_.cycle.reservations;
  adapter_.reservations_known = true;
  report_.timings.cycle = watch.lap();
  enact_preemptions(report_.cycle);
  write_priorities(report_.cycle);
  write_class_limits();
  report_.timings.writing += watch.lap();
  if (auto failed = track_debt()) return unexpected(*failed);
  std::vector<std::uint32_t> alive;
  for (const SlurmJob& job : jobs_) alive.push_back(job.id);
  std::erase_if(adapter_.noted, [&](std::uint32_t id) { return by_id_.count(id) == 0; });
  std::erase_if(adapter_.reports, [&](const auto& entry) {
    const SlurmJob* job = find(entry.first.job);
    return job == nullptr || job->started != entry.first.started;
  });
  std::erase_if(adapter_.refused, [&](const auto& entry) { return by_id_.count(entry.first) == 0; });
  if (auto failed = adapter_.store->forget_except(alive)) return unexpected(*failed);
  report_.timings.ledger += watch.lap();
  report_.state = std::move(state_);
  return std::move(report_);
}

std::optional<std::string> Pass::read() {
  auto nodes = adapter_.backend->read_nodes();
  if (!nodes) return fmt::format("reading nodes from Slurm: {}", nodes.error());
  auto jobs = adapter_.backend->read_jobs();
  if (!jobs) return fmt::format("reading jobs from Slurm: {}", jobs.error());
  auto reservations = adapter_.backend->read_reservations();
  if (!reservations) return fmt::format("reading reservations from Slurm: {}", reservations.error());
  nodes_ = std::move(*nodes);
  jobs_ = std::move(*jobs);
  for (std::size_t i = 0; i < jobs_.size(); ++i) by_id_.emplace(jobs_[i].id, i);
  inventory_ = inventory_of(nodes_, *reservations, settings_, now_);
  return std::nullopt;
}

void Pass::map_jobs() {
  std::unordered_set<std::string_view> leaves;
  for (const AccountInfo& account : policy_.tables().accounts) {
    if (account.leaf && !account.path.empty()) leaves.insert(account.path);
  }
  for (const SlurmJob& job : jobs_) {
    if (job.phase == JobPhase::finished && job.started <= 0) continue;
    auto account = account_of(adapter_.map, job);
    auto job_class = class_of(adapter_.map, job);
    if (account && job_class && leaves.count(*account)) {
      placements_.emplace(job.id, Placement{std::move(*account), std::move(*job_class)});
      continue;
    }
    if (job.phase == JobPhase::finished) continue;
    const std::string why = !account     ? fmt::format("matches no [[account]] rule of {}", adapter_.map.file)
                            : !job_class ? fmt::format("matches no [[class]] rule of {}", adapter_.map.file)
                                         : fmt::format("maps to `{}`, which is not a leaf account of policy `{}`",
                                                       *account, policy_.tables().name);
    note(job.id, fmt::format("job {} (account `{}`, user `{}`, partition `{}`) {}; left as Slurm has it", job.id,
                             job.account, job.user, job.partition, why));
  }
}

std::optional<std::string> Pass::open_ledger() {
  runtime::LedgerConfig config = runtime::ledger_config(policy_.tables(), inventory_);
  if (adapter_.ledger && adapter_.ledger->ledger().config() == config) return std::nullopt;
  // A new unit, window or capacity: rebuild usage from the stored charges.
  adapter_.ledger.reset();
  auto ledger = runtime::DurableLedger::open(adapter_.database, std::move(config));
  if (!ledger) return ledger.error().message;
  adapter_.ledger = std::move(*ledger);
  return std::nullopt;
}

// A ledger's first run decides, once, where its usage starts (--charge-from).
// A ledger an earlier version made (it has passes, and no such mark) keeps
// charging what Slurm shows, as it did.
std::optional<std::string> Pass::decide_charge_from() {
  AdapterStore& store = *adapter_.store;
  if (store.charge_from()) return std::nullopt;
  const bool from_now = adapter_.options.charge_from == ChargeFrom::now && !store.last_pass();
  if (auto error = store.set_charge_from(from_now ? now_ : 0)) return error;
  report_.notes.push_back(
      from_now
          ? fmt::format("a new ledger: usage is charged from now, {}; GPU time before it is not (--charge-from now)",
                        support::format_timestamp(now_))
          : "a new ledger: each job Slurm still shows is charged from its start (--charge-from slurm-history)");
  return std::nullopt;
}

// Charges each job for the GPU time it held since its last charge: running
// jobs once `charge_every` has passed (or when `force`), ended runs in full;
// nothing before the ledger's charge_from.
std::optional<std::string> Pass::charge(const std::vector<const SlurmJob*>& jobs, bool force) {
  std::vector<Charge> charges;
  const runtime::RollingLedger& ledger = adapter_.ledger->ledger();
  for (const SlurmJob* job : jobs) {
    const Placement* place = placement(job->id);
    if (place == nullptr || job->started <= 0 || job->phase == JobPhase::pending) continue;
    const bool ended = job->phase == JobPhase::finished || (job->phase == JobPhase::completing && job->ended > 0);
    const Seconds until = ended ? std::min(job->ended, now_) : now_;
    const std::string id = std::to_string(job->id);
    const std::optional<Seconds> mark = ledger.charged_until(id);
    const Seconds from = std::max(job->started, adapter_.store->charge_from().value_or(0));
    if (until <= from || (mark && *mark >= until)) continue;
    if (!force && !ended && mark && *mark >= job->started && until - *mark < settings_.charge_every) continue;
    const double gpus = static_cast<double>(std::max<std::size_t>(job->node_indexes.size(), 1)) * job->gpus_per_node;
    const double nodes = std::max<std::size_t>(job->node_indexes.size(), 1);
    const runtime::ResourceUse use{gpu_type_of(*job, inventory_), gpus, nodes * job->cpus_per_node,
                                   nodes * job->memory_gib_per_node};
    // The part since a stalled job stalled is held without progress (docs/SLURM.md "Progress").
    for (Charge& part : runtime::holding_charges(running_job(*job), place->account, from, until, use))
      charges.push_back(std::move(part));
  }
  if (charges.empty()) return std::nullopt;
  auto added = adapter_.ledger->charge_batch(charges);
  if (!added) return added.error().message;
  crash_point("charged");
  report_.charged += *added;
  return std::nullopt;
}

// Slurm resets a job's submit time when it is requeued; the first one is kept.
std::optional<std::string> Pass::remember_submissions() {
  std::vector<std::pair<std::uint32_t, Seconds>> first;
  const auto& known = adapter_.store->first_submitted();
  for (const SlurmJob& job : jobs_) {
    if (job.phase == JobPhase::finished) continue;
    const auto found = known.find(job.id);
    // A job id seen again with no restart is a new job (a cluster that started over).
    if (found == known.end() || (job.restarts == 0 && found->second != job.submitted)) {
      first.emplace_back(job.id, job.submitted);
    }
  }
  return adapter_.store->set_first_submitted(first);
}

// The progress reports in running jobs' Comments (docs/SLURM.md "Progress"):
// each that reads and agrees with the clock and the last one is taken; one
// that does not is refused with a note naming the job and why, once.
void Pass::take_reports() {
  for (const SlurmJob& job : jobs_) {
    if (!holds_resources(job) || job.started <= 0) continue;
    auto report = read_comment_report(job.comment);
    if (report && (!*report || reports_earlier_run(**report, job.started))) continue;
    const RunKey run{job.id, job.started};
    const auto before = adapter_.reports.find(run);
    std::optional<std::string> problem = report ? std::nullopt : std::optional<std::string>(report.error());
    if (!problem) {
      problem = report_problem(
          **report, job.started, now_,
          before == adapter_.reports.end() ? std::nullopt : std::optional<CommentReport>(before->second));
    }
    if (!problem) {
      adapter_.reports[run] = **report;
      continue;
    }
    if (std::string& noted = adapter_.refused[job.id]; noted != job.comment) {
      noted = job.comment;
      report_.notes.push_back(support::printable(
          fmt::format("job {}: the progress report in its Comment is refused: {}", job.id, *problem)));
    }
  }
}

// Runs that became stalled, or reported again after a stall, since the last
// pass: an audit record each (the set is kept between passes, in memory).
void Pass::note_progress() {
  std::set<RunKey> stalled;
  for (const RunningJob& run : state_.running) {
    const auto id = job_number(run.request.id);
    if (!id) continue;
    const RunKey key{*id, run.started};
    const std::optional<Seconds> since = runtime::stalled_since(run, now_);
    if (since) stalled.insert(key);
    if (since.has_value() == (adapter_.stalled.count(key) > 0)) continue;
    report_.progress.push_back(ProgressChange{since.has_value(), *id, run, since.value_or(0)});
  }
  adapter_.stalled = std::move(stalled);
}

// The contract of each run seen for the first time: what its class promises
// under the policy running now, from the time Slurm started it. Stored, so it
// outlives policy swaps and adapter restarts.
std::optional<std::string> Pass::record_contracts() {
  std::vector<std::pair<RunKey, StoredContract>> fresh;
  const auto& stored = adapter_.store->contracts();
  for (const SlurmJob& job : jobs_) {
    const Placement* place = placement(job.id);
    if (!holds_resources(job) || place == nullptr || job.started <= 0) continue;
    const RunKey run{job.id, job.started};
    if (stored.count(run)) continue;
    const ClassInfo* info = class_info(place->job_class);
    if (info == nullptr) continue;  // the cycle skips it: unknown class
    const runtime::JobRequest request = request_of(job, place->account, place->job_class, first_submitted(job), now_);
    StoredContract contract{runtime::contract_at_start(*info, request, job.started, policy_.source_hash()),
                            place->account, place->job_class};
    // A run that breaks its class's limits (Slurm started it; Allot would not
    // have) is promised nothing: no protection, preemptible, nothing to resume.
    const std::optional<std::string> breach = class_breach(job, request);
    if (breach) {
      contract.contract.protected_until = job.started;
      contract.contract.preemptible = true;
      contract.contract.resumable = false;
      contract.contract.checkpoint_every = 0;
    }
    report_.starts.push_back(
        ObservedStart{job.id, job.started, place->account, place->job_class, contract.contract, breach.value_or("")});
    fresh.emplace_back(run, std::move(contract));
  }
  return adapter_.store->add_contracts(fresh);
}

// Splits the preemptions under way into those due now and those still in
// their grace; forgets those whose job stopped by itself.
void Pass::sort_preemptions() {
  std::vector<RunKey> finished;
  for (const auto& [run, preemption] : adapter_.store->preemptions()) {
    const SlurmJob* job = find(run.job);
    if (job == nullptr || job->phase != JobPhase::running || job->started != run.started) {
      finished.push_back(run);
    } else if (preemption.requeue_at <= now_) {
      due_.push_back(job);
    } else {
      stopping_[run.job] = preemption.requeue_at;
    }
  }
  for (const RunKey& run : finished) adapter_.store->remove_preemption(run);
}

RunningJob Pass::running_job(const SlurmJob& job) const {
  const Placement* place = placement(job.id);
  RunningJob running;
  running.request = request_of(job, place ? place->account : kUnmapped, place ? place->job_class : kUnmapped,
                               first_submitted(job), now_);
  running.started = job.started;
  running.last_checkpoint = job.started;  // later checkpoints follow the contract's schedule
  if (const auto report = adapter_.reports.find({job.id, job.started}); report != adapter_.reports.end()) {
    running.last_progress = report->second.progress;
    if (report->second.checkpoint) {
      running.last_checkpoint = std::max(job.started, *report->second.checkpoint);
      running.checkpoint_reported = true;
    }
  }
  running.nodes = job.node_indexes;
  const auto& contracts = adapter_.store->contracts();
  const auto contract = contracts.find({job.id, job.started});
  if (contract != contracts.end()) {
    running.contract = contract->second.contract;
  } else {
    running.contract.protected_until = job.started;
    running.contract.preemptible = false;  // no promise recorded: never a victim
  }
  if (job.phase == JobPhase::completing) running.stopping_at = now_ + 1;  // frees its GPUs any moment
  if (const auto stop = stopping_.find(job.id); stop != stopping_.end()) running.stopping_at = stop->second;
  if (std::find(due_.begin(), due_.end(), &job) != due_.end()) running.stopping_at = now_;
  return running;
}

void Pass::build_state() {
  state_.now = now_;
  state_.inventory = inventory_;
  report_.inventory = inventory_;
  for (const SlurmJob& job : jobs_) {
    if (holds_resources(job)) {
      state_.running.push_back(running_job(job));
      continue;
    }
    if (job.phase != JobPhase::pending) continue;
    const Placement* place = placement(job.id);
    if (place == nullptr) continue;
    if (job.priority == 0) {
      note(job.id, fmt::format("job {} is held; it is not ranked until it is released", job.id));
      continue;
    }
    state_.pending.push_back(request_of(job, place->account, place->job_class, first_submitted(job), now_));
    // A job that breaks its class's limits is ranked last and never a reason to preempt.
    if (auto breach = class_breach(job, state_.pending.back())) {
      state_.pending.back().blocked = *breach;
      breaches_.emplace(job.id, std::move(*breach));
    }
  }
  state_.usage = adapter_.ledger->ledger().usage_by_account(now_);
  state_.without_progress = adapter_.ledger->without_progress().usage_by_account(now_);
  if (runtime::EntitlementBook* book = this->book()) {
    state_.debt = book->debt_in_window(now_, adapter_.ledger->ledger().config().window);
  }
  // For reports only (the snapshot, `allot explain`): what each leaf was owed in
  // the window; never less than its debt (hours stored before owed was kept).
  state_.owed = runtime::sum_in_window(adapter_.store->owed_hours(), now_, adapter_.ledger->ledger().config().window);
  for (const auto& [account, debt] : state_.debt) {
    double& owed = state_.owed[account];
    owed = std::max(owed, debt);
  }
  state_.reservations = adapter_.reservations_known ? adapter_.reservations : reservations_from_preemptions();
  report_.pending = static_cast<int>(state_.pending.size());
  report_.running = static_cast<int>(state_.running.size());
}

// After a restart: the capacity preemptions under way free is held for the
// jobs they were for, as the cycle that decided them held it.
std::vector<runtime::Reservation> Pass::reservations_from_preemptions() const {
  std::map<std::string, runtime::Reservation> by_job;
  for (const auto& [run, preemption] : adapter_.store->preemptions()) {
    const SlurmJob* victim = find(run.job);
    const auto for_id = job_number(preemption.for_job);
    const SlurmJob* beneficiary = for_id ? find(*for_id) : nullptr;
    if (victim == nullptr || beneficiary == nullptr || beneficiary->phase != JobPhase::pending) continue;
    runtime::Reservation& reservation = by_job[preemption.for_job];
    reservation.job_id = preemption.for_job;
    for (int node : victim->node_indexes) {
      if (std::find(reservation.nodes.begin(), reservation.nodes.end(), node) == reservation.nodes.end()) {
        reservation.nodes.push_back(node);
      }
    }
    reservation.until = std::max(reservation.until, preemption.requeue_at + adapter_.options.cycle.reservation_ttl);
    reservation.gpus_per_node = beneficiary->gpus_per_node;
    reservation.cpus_per_node = beneficiary->cpus_per_node;
    reservation.memory_gib_per_node = beneficiary->memory_gib_per_node;
  }
  std::vector<runtime::Reservation> reservations;
  for (auto& [id, reservation] : by_job) reservations.push_back(std::move(reservation));
  return reservations;
}

template <class Call>
std::string Pass::write(Call call) const {
  if (adapter_.options.dry_run) return "";
  return call(*adapter_.backend).value_or("");
}

void Pass::report(Action action) {
  if (!adapter_.options.dry_run && action.error.empty()) ++report_.writes;
  report_.actions.push_back(std::move(action));
}

// Requeues a job whose grace is over (charged up to now already), recording the work it loses.
void Pass::requeue(const SlurmJob& job, const std::string& for_job) {
  const RunningJob running = running_job(job);
  Action action{Action::Kind::requeue, job.id, 0, for_job, runtime::lost_gpu_seconds(running, now_), "", ""};
  action.error = write([&](SlurmBackend& slurm) { return slurm.requeue(job.id); });
  if (action.error.empty()) crash_point("requeued");
  // A refused requeue is retried next pass; a done one ends the preemption.
  if (action.error.empty()) adapter_.store->remove_preemption({job.id, job.started});
  report(std::move(action));
}

std::optional<std::string> Pass::refuse_preemption(const SlurmJob* victim, const std::string& for_job) const {
  if (victim == nullptr || victim->phase != JobPhase::running) return "it is not running";
  if (!victim->requeueable) return "Slurm does not allow it to be requeued";
  const auto& contracts = adapter_.store->contracts();
  const auto contract = contracts.find({victim->id, victim->started});
  if (contract == contracts.end()) return "no contract was recorded for its run";
  // The rule the cycle used (runtime/contracts.h); requeueable was asked above, in Slurm's words.
  if (const auto refusal = runtime::stop_refusal(contract->second.contract, victim->requeueable, false, now_)) {
    return *refusal == runtime::StopRefusal::protected_now ? "it is inside its protected time"
                                                           : "its contract does not allow preemption";
  }
  if (adapter_.store->preemptions().count({victim->id, victim->started})) return "its preemption is under way";
  const auto for_id = job_number(for_job);
  const SlurmJob* beneficiary = for_id ? find(*for_id) : nullptr;
  if (beneficiary == nullptr || beneficiary->phase != JobPhase::pending) return "the job it is for is not pending";
  if (beneficiary->eligible > now_) return "the job it is for may not start yet (Slurm's begin time)";
  if (const std::string blocked = blocked_reason(*beneficiary, now_); !blocked.empty()) {
    return "the job it is for cannot start: " + blocked;
  }
  return std::nullopt;
}

// Signals each victim the cycle chose (the checkpoint signal), and requeues
// it now when its class gives no grace; the rest are requeued by a later pass.
// A preemption the adapter does not enact (refused here, or its signal refused
// by Slurm) leaves the result: the audit records only what was done.
void Pass::enact_preemptions(runtime::CycleResult& result) {
  std::vector<bool> not_done(result.decisions.size(), false);
  for (std::size_t index = 0; index < result.decisions.size(); ++index) {
    const runtime::Decision& decision = result.decisions[index];
    if (decision.kind != DecisionKind::preempt) continue;
    const auto id = job_number(decision.job_id);
    const SlurmJob* victim = id ? find(*id) : nullptr;
    if (auto refused = refuse_preemption(victim, decision.for_job)) {
      note(id.value_or(0),
           fmt::format("not preempting job {} for job {}: {}", decision.job_id, decision.for_job, *refused));
      not_done[index] = true;
      continue;
    }
    Action signal{Action::Kind::checkpoint_signal, victim->id, 0, decision.for_job, decision.lost_gpu_seconds, "", ""};
    signal.error =
        write([&](SlurmBackend& slurm) { return slurm.signal_batch(victim->id, settings_.checkpoint_signal); });
    const bool sent = signal.error.empty();
    report(std::move(signal));
    if (!sent) {
      not_done[index] = true;
      continue;
    }
    crash_point("signalled");
    const StoredPreemption preemption{now_, decision.stops_at, decision.for_job, decision.lost_gpu_seconds};
    if (auto error = adapter_.store->add_preemption({victim->id, victim->started}, preemption)) {
      note(victim->id,
           fmt::format("job {} was signalled but its preemption could not be stored: {}", victim->id, *error));
      continue;
    }
    if (decision.stops_at > now_) continue;
    if (auto error = charge({victim}, true)) note(victim->id, fmt::format("charging job {}: {}", victim->id, *error));
    requeue(*victim, decision.for_job);
  }
  std::size_t kept = 0;
  for (std::size_t index = 0; index < result.decisions.size(); ++index) {
    if (not_done[index]) continue;
    if (kept != index) result.decisions[kept] = std::move(result.decisions[index]);
    ++kept;
  }
  result.decisions.resize(kept);
}

// Rank order -> Slurm priorities, best first, at most max_writes_per_pass.
void Pass::write_priorities(const runtime::CycleResult& result) {
  std::vector<std::uint32_t> ids, current;
  for (const std::string& job_id : result.ranked_job_ids) {
    const auto id = job_number(job_id);
    const SlurmJob* job = id ? find(*id) : nullptr;
    if (job == nullptr || breaches_.count(job->id)) continue;
    ids.push_back(job->id);
    current.push_back(job->priority);
  }
  // Jobs that break their class's limits sit at the floor, below every ranked job.
  for (const auto& [id, breach] : breaches_) {
    ids.push_back(id);
    current.push_back(find(id)->priority);
  }
  const std::size_t ranked = ids.size() - breaches_.size();
  std::vector<std::uint32_t> planned(current.begin(), current.begin() + static_cast<std::ptrdiff_t>(ranked));
  planned = plan_priorities(planned, settings_.priority_floor + 1, settings_.priority_ceiling);
  planned.resize(ids.size(), settings_.priority_floor);
  const auto max_writes = static_cast<std::size_t>(settings_.max_writes_per_pass);
  std::vector<Action> actions;
  for (std::size_t i = 0; i < ids.size() && actions.size() < max_writes; ++i) {
    if (planned[i] != current[i])
      actions.push_back(Action{Action::Kind::set_priority, ids[i], planned[i], "", 0, "", ""});
  }
  // Up to write_threads RPCs in flight: slurmctld applies each under its job write
  // lock, so they overlap only in the network, authentication and RPC threads.
  // Every write is independent (a priority is absolute), so their order in
  // slurmctld does not matter; the report keeps the plan's order.
  support::parallel_for(actions.size(), static_cast<std::size_t>(settings_.write_threads), [&](std::size_t i) {
    Action& action = actions[i];
    action.error = write([&](SlurmBackend& slurm) { return slurm.set_priority(action.job, action.priority); });
    if (action.error.empty()) crash_point("prioritised");
  });
  for (Action& action : actions) report(std::move(action));
}

// Tells the owner of a job that breaks its class's limits why it is held back,
// in the job's admin comment (`scontrol show job`, `squeue -O AdminComment`),
// written once: again only when the reason changes.
void Pass::write_class_limits() {
  for (const auto& [id, breach] : breaches_) {
    const SlurmJob* job = find(id);
    const std::string comment =
        fmt::format("allot: {}; ranked below every job within its limits, and promised no protection", breach);
    if (job == nullptr || job->admin_comment == comment) continue;
    Action action{Action::Kind::class_limit, id, 0, "", 0, "", comment};
    action.error = write([&](SlurmBackend& slurm) { return slurm.set_admin_comment(id, comment); });
    report(std::move(action));
  }
}

// The entitlement book of this pass's policy with the debt stored by earlier
// passes; null only for tables that did not come from the compiler.
runtime::EntitlementBook* Pass::book() {
  if (!book_) {
    auto created = runtime::EntitlementBook::create(policy_.tables());
    if (!created) return nullptr;
    book_.emplace(std::move(*created));
    book_->add_debt(adapter_.store->debt_hours());
  }
  return &*book_;
}

// The debt run up since the last pass, taking this pass's loads as those of
// the whole interval (passes are seconds to minutes apart), stored per hour.
std::optional<std::string> Pass::track_debt() {
  const AdapterStore& store = *adapter_.store;
  const runtime::LedgerConfig& config = adapter_.ledger->ledger().config();
  runtime::DebtHours debt, owed;
  const std::optional<Seconds> last = store.last_pass();
  runtime::EntitlementBook* book = this->book();
  if (book && last && *last < now_ && now_ - *last <= settings_.max_accounting_gap) {
    book->load(state_, config.unit);
    book->step(*last, now_, runtime::capacity_rate(config.unit, state_.inventory));
    debt = book->last_step_debt();
    owed = book->last_step_owed();
  }
  if (last && *last >= now_ && debt.empty() && owed.empty()) return std::nullopt;
  return adapter_.store->record_pass(now_, debt, owed, (now_ - config.window) / 3600);
}

// Notes quote what Slurm holds (account, user and partition names): never raw
// control bytes to the operator's terminal or log.
void Pass::note(std::uint32_t job, std::string text) {
  if (adapter_.noted.insert(job).second) report_.notes.push_back(support::printable(text));
}

}  // namespace

Expected<PassReport, std::string> run_pass(Adapter::State& state, const CompiledPolicy& policy, Seconds now) {
  return Pass(state, policy, now).run();
}

}  // namespace allot::slurm
