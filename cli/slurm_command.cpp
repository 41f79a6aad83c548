// `allot slurm`: the reconcile loop that makes a real slurmctld follow a
// policy (docs/SLURM.md). One pass every --interval; SIGHUP or an edit of the
// policy file or the mapping file reloads both: they are read, compiled and
// checked together on another thread while passes go on with the old pair,
// then swapped together between two passes, or neither is (a refused pair is
// logged and audited with its diagnostics, and the old pair keeps running).
// Dates of the policy's governance that pass (a review, an exception's
// expiry) are loud warnings, never a reason to stop scheduling.
// SIGTERM or SIGINT ends the loop after the pass in progress, or 2 s after it
// when that pass waits on a controller that does not answer (Loop::reconcile).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <future>
#include <iostream>
#include <set>
#include <system_error>
#include <thread>

#include "allot/accounting.h"
#include "allot/audit.h"
#include "allot/audit_json.h"
#include "allot/compile.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/files.h"
#include "allot/hot_swap.h"
#include "allot/policy_slot.h"
#include "allot/service.h"
#include "allot/slurm.h"
#include "allot/snapshot.h"
#include "commands.h"
#include "io_paths.h"
#include "slurm_metrics.h"

namespace allot::cli {
namespace {

// Reads a second per client address on --serve's listener (as `allot serve`'s default).
constexpr double kReadRateLimit = 100;

volatile std::sig_atomic_t reload_requested = 0;
volatile std::sig_atomic_t stop_requested = 0;

void on_reload(int) { reload_requested = 1; }
void on_stop(int) { stop_requested = 1; }

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = on_reload;
  sigaction(SIGHUP, &action, nullptr);
  action.sa_handler = on_stop;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
}

void log(const std::string& line) { std::cerr << "allot slurm: " << line << '\n' << std::flush; }

// The policy's text as it is now, to notice edits; "" when it cannot be read
// (the compile that follows says why).
std::string read_text(const std::string& path) {
  auto text = support::read_file(path, support::kMaxPolicyBytes);
  return text ? std::move(*text) : std::string();
}

// The adapter's own check of a policy (runtime::compile_candidate): the
// mapping file names only accounts and classes it has.
runtime::CandidateCheck map_check(const slurm::JobMap& map) {
  return [&map](const CompiledPolicy& policy) -> std::optional<std::string> {
    if (auto error = slurm::check_job_map(map, policy.tables())) return error->to_string();
    return std::nullopt;
  };
}

// Why the first policy may not run, for the terminal: the compiler's
// diagnostics with their source lines, and the refusal when they hold no error
// (the map check, a JIT that could not load it, a compiler that threw).
std::string refusal_text(const runtime::SwapCandidate& candidate) {
  std::string text = render_text(candidate.diagnostics, candidate.sources, {false});
  const bool errors = std::any_of(candidate.diagnostics.begin(), candidate.diagnostics.end(),
                                  [](const Diagnostic& d) { return d.severity == Severity::error; });
  if (!errors) text += "allot: refused: " + candidate.refusal + "\n";
  return text;
}

const char* action_text(slurm::Action::Kind kind) {
  switch (kind) {
    case slurm::Action::Kind::set_priority:
      return "set priority of";
    case slurm::Action::Kind::checkpoint_signal:
      return "send the checkpoint signal to";
    case slurm::Action::Kind::requeue:
      return "requeue";
    case slurm::Action::Kind::class_limit:
      return "comment on the class limit broken by";
  }
  return "";
}

// What a dry run would have done, for a person.
void print_decisions(const slurm::PassReport& report, bool dry_run) {
  for (std::size_t i = 0; i < report.cycle.ranked_job_ids.size(); ++i) {
    std::cout << fmt::format("rank {:>4}  job {:<10} {:.3f}\n", i + 1, report.cycle.ranked_job_ids[i],
                             report.cycle.ranks[i]);
  }
  for (const runtime::Decision& decision : report.cycle.decisions) {
    if (decision.kind == runtime::DecisionKind::skip) continue;
    std::cout << fmt::format("{} job {}: {}\n", decision.kind == runtime::DecisionKind::start ? "start" : "preempt",
                             decision.job_id, decision.reason);
  }
  for (const slurm::Action& action : report.actions) {
    std::string line = fmt::format("{} {} job {}", dry_run ? "would" : "did", action_text(action.kind), action.job);
    if (action.kind == slurm::Action::Kind::set_priority) line += fmt::format(" to {}", action.priority);
    if (!action.for_job.empty()) line += fmt::format(" (for job {})", action.for_job);
    if (action.kind == slurm::Action::Kind::requeue)
      line += fmt::format(", losing {:.0f} GPU-seconds", action.lost_gpu_seconds);
    if (action.kind == slurm::Action::Kind::class_limit) line += ": " + action.text;
    std::cout << line << (action.error.empty() ? "" : " -- refused: " + action.error) << '\n';
  }
  std::cout << std::flush;
}

// The cycle's starts and preemptions (runtime/audit.h records; skips would
// repeat every pending job every pass), the contracts recorded and the writes
// to Slurm: one JSON object a line, appended in one write per pass.
void append_pass_records(std::string& lines, const slurm::PassReport& report, bool dry_run) {
  runtime::CycleResult decided = report.cycle;
  decided.skips.clear();
  lines += runtime::audit_lines(decided, report.inventory);
  for (const slurm::ObservedStart& start : report.starts) lines += slurm::start_json(start, report.now) + "\n";
  for (const slurm::ProgressChange& change : report.progress) {
    lines += slurm::progress_json(change, report.now, report.policy_hash) + "\n";
  }
  for (const slurm::Action& action : report.actions) {
    lines += slurm::action_json(action, report.now, report.policy_hash, dry_run) + "\n";
  }
}

std::string pass_summary(const slurm::PassReport& report) {
  int priorities = 0, signals = 0, requeues = 0, refused = 0;
  for (const slurm::Action& action : report.actions) {
    priorities += action.kind == slurm::Action::Kind::set_priority;
    signals += action.kind == slurm::Action::Kind::checkpoint_signal;
    requeues += action.kind == slurm::Action::Kind::requeue;
    refused += !action.error.empty();
  }
  return fmt::format(
      "{} pass: {} pending, {} running; {} priorities, {} checkpoint signals, {} requeues{}; "
      "charged {:.4f} unit-hours",
      support::format_timestamp(report.now), report.pending, report.running, priorities, signals, requeues,
      refused ? fmt::format(" ({} refused by Slurm)", refused) : "", report.charged);
}

// What a reload read and compiled off the passes, to be installed between two.
struct Reload {
  std::string policy_text, map_text;  // as read before loading, to notice the next edit
  std::optional<slurm::JobMap> map;   // empty when the mapping file was refused
  std::string map_error;
  runtime::SwapCandidate candidate;  // compiled against `map`
};

// What a pass did, as the feed of `--serve` shows it (docs/SLURM.md "The
// dashboard"): the pass's audit records but the cycle's skips and starts (a
// start is Slurm's to make: the `contract` record says when it did) and the
// priority writes (one per ranked job per pass), each with a reason for people.
std::vector<std::string> feed_records(const slurm::PassReport& report, bool dry_run) {
  using runtime::audit::Json;
  std::vector<std::string> records;
  const auto add = [&records](Json record, const std::string& reason) {
    record.erase("time");  // the feed puts its own `at` first
    if (!reason.empty()) record["reason"] = reason;
    records.push_back(runtime::audit::dump(record, -1));
  };
  for (const runtime::Decision& decision : report.cycle.decisions) {
    if (decision.kind != runtime::DecisionKind::preempt) continue;
    Json record{{"policy", report.policy_hash}};
    runtime::audit::add_decision(record, decision, report.inventory);
    add(std::move(record), "");
  }
  for (const slurm::ObservedStart& start : report.starts) {
    add(Json::parse(slurm::start_json(start, report.now)),
        fmt::format("started by Slurm as class `{}`{}", start.job_class,
                    start.class_limit.empty() ? "" : "; its contract promises nothing: " + start.class_limit));
  }
  for (const slurm::ProgressChange& change : report.progress) {
    add(Json::parse(slurm::progress_json(change, report.now, report.policy_hash)), "");  // it has its reason
  }
  for (const slurm::Action& action : report.actions) {
    if (action.kind == slurm::Action::Kind::set_priority) continue;
    std::string reason = action.kind == slurm::Action::Kind::class_limit ? action.text : action_text(action.kind);
    if (!action.for_job.empty()) reason += fmt::format(": its GPUs go to job {}", action.for_job);
    if (action.kind == slurm::Action::Kind::requeue)
      reason += fmt::format(", losing {:.0f} GPU-seconds", action.lost_gpu_seconds);
    if (!action.error.empty()) reason += "; refused by Slurm: " + action.error;
    if (dry_run) reason += " (dry run: not sent)";
    add(Json::parse(slurm::action_json(action, report.now, report.policy_hash, dry_run)), reason);
  }
  return records;
}

// One line per diagnostic for the audit log: "file:line:column: error[code]: message".
std::vector<std::string> diagnostic_lines(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> lines;
  for (const Diagnostic& d : diagnostics) lines.push_back(runtime::diagnostic_line(d));
  return lines;
}

// Warnings of a policy allowed to run (a review date that passed, ...), for the log.
void log_warnings(const std::vector<Diagnostic>& diagnostics) {
  for (const Diagnostic& diagnostic : diagnostics) {
    if (diagnostic.severity == Severity::warning) log(runtime::diagnostic_line(diagnostic));
  }
}

class Loop {
 public:
  Loop(const SlurmArguments& arguments, CompileOptions options, std::optional<Date> today, slurm::Adapter& adapter,
       runtime::AuditLog* audit, AdapterMetrics* metrics, service::ObservedCluster* observed,
       std::shared_ptr<const CompiledPolicy> first, std::string policy_text, std::string map_text)
      : arguments_(arguments),
        options_(std::move(options)),
        today_(today),
        adapter_(adapter),
        audit_(audit),
        metrics_(metrics),
        observed_(observed),
        slot_(std::move(first)),
        running_policy_(std::move(policy_text)),
        running_map_(std::move(map_text)) {}

  // Runs passes until stopped (or once); the exit code.
  int run();

 private:
  void start_reload(const char* why);
  void reopen_audit();
  void finish_reload();
  void install(Reload reload, slurm::Seconds now);
  void say_governance(const CompiledPolicy& policy, slurm::Seconds now);
  void say_unit_types(const CompiledPolicy& policy, const runtime::Inventory& inventory);
  bool audit(const std::string& lines, slurm::Seconds now);
  void write_snapshot(const slurm::PassReport& report);
  Expected<slurm::PassReport, std::string> reconcile(const CompiledPolicy& policy, slurm::Seconds now);

  const SlurmArguments& arguments_;
  CompileOptions options_;
  std::optional<Date> today_;  // --now: the governance clock; the pass's time otherwise
  slurm::Adapter& adapter_;
  runtime::AuditLog* audit_;
  AdapterMetrics* metrics_;             // --metrics or --serve; null without
  service::ObservedCluster* observed_;  // --serve; null without
  runtime::PolicySlot slot_;
  std::string running_policy_, running_map_;  // the texts running now
  std::string refused_policy_, refused_map_;  // the last pair refused, not retried until one changes
  std::future<Reload> reload_;
  std::set<std::pair<std::string, std::string>> governance_said_;  // (code, subject) said for the running policy
  std::int64_t governance_day_ = -1;                               // the day the notices were last repeated
  std::vector<std::string> unit_types_said_;  // the unit's GPU types Slurm lacks, as last logged for the running policy
  int failures_ = 0;
};

// Reads and compiles policy and map together on another thread: passes go on meanwhile.
void Loop::start_reload(const char* why) {
  if (reload_.valid()) return;
  log(fmt::format("reloading `{}` and `{}` ({})", arguments_.policy, arguments_.map, why));
  try {
    reload_ = std::async(std::launch::async, [this] {
      Reload reload;
      reload.policy_text = read_text(arguments_.policy);
      reload.map_text = read_text(arguments_.map);
      auto map = slurm::load_job_map(arguments_.map);
      if (!map) {
        reload.map_error = map.error().to_string();
        return reload;
      }
      // The one hot-swap path (allot/hot_swap.h), checked against the new map, swapped by install().
      reload.candidate = runtime::compile_candidate(arguments_.policy, options_, map_check(*map));
      reload.map = std::move(*map);
      return reload;
    });
  } catch (const std::exception& failure) {  // no thread to be had: try again at the next change or SIGHUP
    log(fmt::format("cannot reload `{}` now: {}", arguments_.policy, failure.what()));
  }
}

void Loop::finish_reload() {
  if (!reload_.valid() || reload_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  Reload reload;
  try {
    reload = reload_.get();
  } catch (const std::exception& failure) {
    reload.policy_text = read_text(arguments_.policy);
    reload.map_text = read_text(arguments_.map);
    reload.candidate.refusal = failure.what();
  }
  install(std::move(reload), std::time(nullptr));
}

// SIGHUP also reopens the audit log by its name, so log rotation (a move, then
// SIGHUP) needs no copy and loses no record. Should it fail, records go on
// to the file already open.
void Loop::reopen_audit() {
  if (audit_ == nullptr) return;
  auto reopened = runtime::AuditLog::open(arguments_.audit);
  if (!reopened) {
    log(fmt::format("cannot reopen the audit log, records go on to the open file: {}", reopened.error()));
    return;
  }
  *audit_ = std::move(*reopened);
}

// Policy and map are swapped together, here, between two passes, or neither is.
void Loop::install(Reload reload, slurm::Seconds now) {
  const std::shared_ptr<const CompiledPolicy> running = slot_.current();
  slurm::ReloadRecord record;
  record.from_hash = running->source_hash();
  record.policy_file = arguments_.policy;
  record.map_file = arguments_.map;
  record.policy_changed = reload.policy_text != running_policy_;
  record.map_changed = reload.map_text != running_map_;
  if (reload.map && reload.candidate.policy) {
    const runtime::SwapOutcome outcome = slot_.swap_candidate(std::move(reload.candidate));
    record.swapped = outcome.swapped;
    record.generation = outcome.generation;
    record.to_hash = outcome.policy_hash;
    if (outcome.swapped) {
      adapter_.set_map(std::move(*reload.map));
      running_policy_ = std::move(reload.policy_text);
      running_map_ = std::move(reload.map_text);
      governance_said_.clear();
      unit_types_said_.clear();
      log(fmt::format("{}{}; running jobs keep the contracts they started with", outcome.message,
                      record.map_changed ? " with the new mapping file" : ""));
      log_warnings(outcome.diagnostics);
    } else {
      record.reason = outcome.message;
      record.diagnostics = diagnostic_lines(outcome.diagnostics);
    }
  } else if (!reload.map) {
    record.reason = "the mapping file: " + reload.map_error;
  } else {
    record.reason = reload.candidate.refusal;
    record.diagnostics = diagnostic_lines(reload.candidate.diagnostics);
    std::string text = render_text(reload.candidate.diagnostics, reload.candidate.sources, {false});
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (!text.empty()) log(text);
  }
  if (!record.swapped) {
    record.generation = slot_.generation();
    refused_policy_ = std::move(reload.policy_text);
    refused_map_ = std::move(reload.map_text);
    log(fmt::format("refused: {}; {} keeps running with its mapping file", record.reason,
                    record.from_hash.substr(0, 12)));
  }
  if (metrics_ != nullptr) metrics_->reload(record.swapped);
  if (observed_ != nullptr) {
    const std::string what = record.policy_changed && record.map_changed ? "policy and mapping file"
                             : record.map_changed                        ? "mapping file"
                                                                         : "policy";
    observed_->record_policy(
        service::PolicyRecord{static_cast<std::int64_t>(record.generation), now,
                              record.swapped ? record.to_hash : record.from_hash,
                              record.swapped ? "swapped" : "refused",
                              record.swapped ? fmt::format("the {} reloaded", what) : record.reason,
                              record.swapped ? running_policy_ : refused_policy_},
        record.swapped ? slot_.current() : nullptr);
  }
  audit(slurm::reload_json(record, now) + "\n", now);
}

// Dates of the policy's governance that have passed: loud in the log (when
// first seen, and again each day) and in the audit log (once per policy), and
// scheduling goes on. An expired exception has stopped applying by itself.
void Loop::say_governance(const CompiledPolicy& policy, slurm::Seconds now) {
  const slurm::Seconds clock = today_ ? slurm::Seconds{today_->days_since_epoch} * 86400 + 43200 : now;
  const std::vector<runtime::GovernanceNotice> notices = runtime::governance_notices(policy.tables(), clock);
  if (metrics_ != nullptr) metrics_->governance_warnings(notices.size());
  const std::int64_t day = clock / 86400;
  const bool repeat = day != governance_day_;
  governance_day_ = day;
  std::string lines;
  for (const runtime::GovernanceNotice& notice : notices) {
    const bool first = governance_said_.insert({notice.code, notice.subject}).second;
    if (first || repeat) {
      log(fmt::format("WARNING governance: {} ({}); `allot check` refuses this policy, the adapter keeps scheduling",
                      notice.message, notice.code));
    }
    if (first) lines += slurm::governance_json(notice, now, policy.source_hash()) + "\n";
  }
  if (!lines.empty()) audit(lines, now);
}

// A unit weight for a GPU type Slurm's nodes do not have (runtime::unit_types_missing):
// logged at the first pass of each policy, and again whenever what is missing changes
// (a node type added or retired); scheduling goes on, with those GPUs at 1.0.
void Loop::say_unit_types(const CompiledPolicy& policy, const runtime::Inventory& inventory) {
  std::vector<std::string> missing = runtime::unit_types_missing(policy.tables().unit, inventory);
  if (missing == unit_types_said_) return;
  for (const std::string& warning : missing) log("WARNING unit: " + warning);
  unit_types_said_ = std::move(missing);
}

// The state the pass scheduled, for `allot explain` and `allot shares` on the
// live cluster; written atomically (a reader never sees half a file). A
// snapshot that cannot be written fails the pass, as an audit record does.
void Loop::write_snapshot(const slurm::PassReport& report) {
  if (arguments_.snapshot.empty()) return;
  runtime::Snapshot snapshot;
  snapshot.state = report.state;
  if (auto problem = runtime::save_snapshot(snapshot, arguments_.snapshot)) {
    ++failures_;
    log(fmt::format("{} snapshot not written: {}", support::format_timestamp(report.now), *problem));
  }
}

// One pass, on a thread of its own so that a stop is never held up by a
// libslurm call waiting on a controller that does not answer (each waits up to
// MessageTimeout, and a pass makes several). A stop during a pass waits
// kStopGrace for it, then abandons it as `kill -9` would: the adapter is built
// to be killed at any step (every charge is committed once, a signal or
// requeue decided is finished by the next start), so nothing is lost or done twice.
Expected<slurm::PassReport, std::string> Loop::reconcile(const CompiledPolicy& policy, slurm::Seconds now) {
  constexpr auto kStopGrace = std::chrono::seconds(2);
  std::future<Expected<slurm::PassReport, std::string>> pass;
  try {
    pass = std::async(std::launch::async, [&] { return adapter_.reconcile(policy, now); });
  } catch (const std::system_error&) {  // no thread to be had: run it here
    return adapter_.reconcile(policy, now);
  }
  std::optional<std::chrono::steady_clock::time_point> stop_seen;
  while (pass.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    if (!stop_requested) continue;
    if (!stop_seen) stop_seen = std::chrono::steady_clock::now();
    if (std::chrono::steady_clock::now() - *stop_seen < kStopGrace) continue;
    log("stopped during a pass still waiting on Slurm; the pass is abandoned as if killed: the next start "
        "finishes what it decided, and charges nothing twice");
    std::_Exit(1);
  }
  return pass.get();
}

// Appends records; a record that cannot be written fails the pass it belongs to.
bool Loop::audit(const std::string& lines, slurm::Seconds now) {
  if (audit_ == nullptr || lines.empty()) return true;
  if (auto problem = audit_->append_lines(lines)) {
    ++failures_;
    log(fmt::format("{} audit not written: {}", support::format_timestamp(now), *problem));
    return false;
  }
  return true;
}

int Loop::run() {
  const auto interval = std::chrono::seconds(*parse_interval(arguments_.interval));
  while (!stop_requested) {
    finish_reload();
    const auto started = std::chrono::steady_clock::now();
    const slurm::Seconds now = std::time(nullptr);
    const runtime::PolicySlot::Running running = slot_.running();  // held for the whole pass
    const std::shared_ptr<const CompiledPolicy>& policy = running.policy;
    const int failures_before = failures_;
    say_governance(*policy, now);
    auto report = reconcile(*policy, now);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!report) {
      ++failures_;
      log(fmt::format("{} pass failed, nothing written to Slurm: {}", support::format_timestamp(now), report.error()));
      if (metrics_ != nullptr) metrics_->pass_failed(took, report.error());
    } else {
      for (const std::string& note : report->notes) log(note);
      say_unit_types(*policy, report->inventory);
      log(pass_summary(*report));
      // The ledger is committed; a record that cannot be written is a failed pass.
      if (audit_ != nullptr) {
        std::string lines;
        append_pass_records(lines, *report, arguments_.dry_run);
        audit(lines, now);
      }
      write_snapshot(*report);
      if (metrics_ != nullptr) {
        if (failures_ == failures_before) {
          metrics_->pass_done(*report, took, arguments_.dry_run);
        } else {
          metrics_->pass_failed(took, "its audit record or snapshot was not written");
        }
      }
      if (failures_ == failures_before) failures_ = 0;
      if (arguments_.dry_run || arguments_.once) print_decisions(*report, arguments_.dry_run);
      // Last: the readers take the pass's state and decisions over.
      if (observed_ != nullptr) {
        std::vector<std::string> feed = feed_records(*report, arguments_.dry_run);
        observed_->publish(service::ObservedPass{report->now, std::move(report->state), std::move(report->cycle),
                                                 running, took, std::move(feed)});
      }
    }
    if (arguments_.once) return report && failures_ == 0 ? 0 : 1;
    slot_.release_retired();  // replaced policies are freed here, between passes, never under a cycle
    while (!stop_requested && std::chrono::steady_clock::now() - started < interval) {
      if (reload_requested) {
        reload_requested = 0;
        reopen_audit();
        start_reload("SIGHUP");
      }
      finish_reload();
      if (metrics_ != nullptr) {
        metrics_->heartbeat();
        metrics_->ledger_lag(std::time(nullptr));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const std::string policy_text = read_text(arguments_.policy), map_text = read_text(arguments_.map);
    const bool changed = policy_text != running_policy_ || map_text != running_map_;
    const bool refused = policy_text == refused_policy_ && map_text == refused_map_;
    if (changed && !refused) start_reload(policy_text != running_policy_ ? "the policy changed" : "the map changed");
  }
  if (reload_.valid()) reload_.wait();
  log("stopped");
  return failures_ > 0 ? 1 : 0;
}

// --emit-job-submit: the script for Slurm's job_submit/lua plugin, from the
// policy and map just checked; nothing is asked of Slurm.
int emit_job_submit(const SlurmArguments& arguments, const slurm::JobMap& map, const CompiledPolicy& policy) {
  auto script = slurm::job_submit_lua(policy.tables(), map, {policy.source_hash(), arguments.now});
  if (!script) {
    std::cerr << "allot: " << script.error().to_string() << '\n';
    return 1;
  }
  if (arguments.emit_job_submit == "-") {
    policy_stdout() << *script;
    return 0;  // main() checks that it arrived
  }
  if (auto problem = support::write_file_atomic(arguments.emit_job_submit, *script)) {
    std::cerr << "allot: " << *problem << '\n';
    return 2;
  }
  return 0;
}

}  // namespace

int run_slurm(const SlurmArguments& arguments) {
  CompileOptions options = compile_options(arguments.engine);
  if (!read_now(arguments.now, options.check.today)) return 2;
  const std::optional<Date> today = options.check.today;
  // A review date or an exception's expiry that passes never stops the
  // scheduler (at start or at a reload): warnings here, errors in `allot check`.
  options.check.passed_dates_are_warnings = true;
  if (!parse_interval(arguments.interval)) {
    std::cerr << "allot: --interval expects a duration like 5s, 2m or 1h, got `" << arguments.interval << "`\n";
    return 2;
  }
  std::string map_text = read_text(arguments.map);  // read first: an edit after it is noticed
  auto map = slurm::load_job_map(arguments.map);
  if (!map) {
    std::cerr << "allot: " << map.error().to_string() << '\n';
    return map.error().unreadable ? 2 : 1;
  }
  std::string first_source = read_text(arguments.policy);
  runtime::SwapCandidate first = runtime::compile_candidate(arguments.policy, options, map_check(*map));
  if (!first.policy) {
    std::cerr << refusal_text(first);
    return 1;
  }
  log_warnings(first.diagnostics);  // passed governance dates, and any other warning: loud, not fatal
  // The ledger and the audit log are written; neither may be an input or the other.
  CommandFiles files;
  files.input("--policy", arguments.policy);
  files.input("--map", arguments.map);
  files.imports("--policy", files_read(first.sources));
  files.output("--ledger", arguments.ledger);
  files.output("--audit", arguments.audit);
  files.output("--snapshot", arguments.snapshot);
  files.output("--emit-job-submit", arguments.emit_job_submit);
  if (!check_files(files)) return 2;
  if (!arguments.emit_job_submit.empty()) return emit_job_submit(arguments, *map, *first.policy);
  auto backend = slurm::connect_libslurm();
  if (!backend) {
    std::cerr << "allot: " << backend.error() << '\n';
    return 2;
  }
  const slurm::ChargeFrom charge_from =
      arguments.charge_from == "slurm-history" ? slurm::ChargeFrom::slurm_history : slurm::ChargeFrom::now;
  auto adapter = slurm::Adapter::open(**backend, *map, {arguments.ledger, arguments.dry_run, {}, charge_from});
  if (!adapter) {
    std::cerr << "allot: " << adapter.error() << '\n';
    return 2;
  }
  std::optional<runtime::AuditLog> audit;
  if (!arguments.audit.empty()) {
    auto opened = runtime::AuditLog::open(arguments.audit);
    if (!opened) {
      std::cerr << "allot: " << opened.error() << '\n';
      return 2;
    }
    audit.emplace(std::move(*opened));
  }
  // The listener comes up before the first pass, so a probe can see it start
  // (not ready until a pass succeeds). Alive while the loop beats: a pass
  // stuck on an unanswering controller for longer than a few intervals is not.
  // --serve puts the read API and the dashboard of `allot serve` on the same
  // listener, over what each pass read and did (docs/SLURM.md "The dashboard").
  std::optional<service::ObservedCluster> observed;  // outlives the listener that reads it
  std::optional<AdapterMetrics> metrics;
  const std::string& listen = arguments.serve.empty() ? arguments.metrics : arguments.serve;
  if (!listen.empty()) {
    const auto staleness =
        std::max(std::chrono::seconds(60), 3 * std::chrono::seconds(*parse_interval(arguments.interval)));
    metrics.emplace(staleness);
    if (!arguments.serve.empty()) {
      observed.emplace("slurm", runtime::PolicySlot::Running{first.policy, 1}, first_source, std::time(nullptr),
                       service::ObservedCluster::Limits{});
      service::ApiOptions api;
      api.clock = [] { return static_cast<service::Seconds>(std::time(nullptr)); };
      api.read_rate = kReadRateLimit;
      api.read_burst = 2 * kReadRateLimit;
      service::mount_read_api(metrics->server(), *observed, std::move(api));
    }
    if (auto problem = metrics->listen(listen)) {
      std::cerr << "allot: " << (arguments.serve.empty() ? "--metrics" : "--serve") << ": " << *problem << '\n';
      return 2;
    }
    log(fmt::format("metrics, /healthz and /readyz on port {}", metrics->port()));
    if (observed) log(fmt::format("the dashboard and the read API on port {}", metrics->port()));
  }
  install_handlers();
  log(fmt::format("running policy `{}` {} with ledger `{}`, {}{}", first.policy->tables().name,
                  first.policy->source_hash().substr(0, 12), arguments.ledger,
                  arguments.once ? "one pass" : "a pass every " + arguments.interval,
                  arguments.dry_run ? " (dry run: nothing is written)" : ""));
  Loop loop(arguments, options, today, **adapter, audit ? &*audit : nullptr, metrics ? &*metrics : nullptr,
            observed ? &*observed : nullptr, std::move(first.policy), std::move(first_source), std::move(map_text));
  return loop.run();
}

}  // namespace allot::cli
