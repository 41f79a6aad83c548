#include "serve_metrics.h"

#include <algorithm>
#include <unordered_map>

#include "allot/share_report.h"

namespace allot::cli {
namespace {

// A program is an account's first path segment ("exploration/ana" -> "exploration").
std::string program_of(const std::string& account) { return account.substr(0, account.find('/')); }

}  // namespace

ServeMetrics::ServeMetrics()
    : cycle_seconds_(registry_.histogram("allot_serve_cycle_duration_seconds", "How long one scheduling cycle took",
                                         {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10})),
      cycles_(registry_.counter_family("allot_serve_cycles_total", "Cycles run, by outcome", {"outcome"})),
      decisions_(
          registry_.counter_family("allot_serve_decisions_total", "Decisions put on the feed, by kind", {"kind"})),
      charged_(
          registry_.counter("allot_serve_charged_units_total", "Usage charged to the ledger, in the policy's unit")),
      pending_(registry_.gauge_family("allot_serve_pending_jobs", "Jobs waiting, by program and class",
                                      {"program", "class"})),
      running_(registry_.gauge_family("allot_serve_running_jobs", "Jobs running, by program and class",
                                      {"program", "class"})),
      wait_(registry_.histogram_family(
          "allot_serve_wait_seconds", "How long each started job waited since it last entered the queue",
          {60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86400, 3 * 86400, 7 * 86400}, {"program", "class"})),
      share_(registry_.gauge_family("allot_serve_share_ratio",
                                    "Each program's share of the cluster with the exceptions in force", {"program"})),
      usage_(registry_.gauge_family("allot_serve_usage_units", "Each program's usage over the window", {"program"})),
      owed_(registry_.gauge_family("allot_serve_owed_units",
                                   "What each program was owed over the window while it had work", {"program"})),
      delivered_(registry_.gauge_family("allot_serve_delivered_units",
                                        "What each program was delivered of what it was owed over the window",
                                        {"program"})),
      debt_(registry_.gauge_family("allot_serve_debt_units",
                                   "Each program's debt over the window: owed minus delivered", {"program"})),
      without_progress_(registry_.gauge_family(
          "allot_serve_without_progress_units",
          "Of each program's usage over the window, what its stalled jobs held without progress", {"program"})),
      stalled_(registry_.gauge_family("allot_serve_stalled_jobs",
                                      "Running jobs past their class's progress interval without a report",
                                      {"program"})),
      preemptions_(registry_.counter_family("allot_serve_preemptions_total",
                                            "Running jobs preempted, by the victim's "
                                            "program and class",
                                            {"program", "class"})),
      lost_work_(registry_.counter("allot_serve_lost_gpu_seconds_total",
                                   "GPU-seconds of work since their last checkpoint that preempted jobs lose")),
      policy_changes_(registry_.counter_family("allot_serve_policy_changes_total",
                                               "POST /policy by outcome: swapped, refused, dry_run, dry_run_refused",
                                               {"outcome"})),
      generation_(registry_.gauge("allot_serve_policy_generation", "The policy slot's generation (1 at start)")),
      last_cycle_(registry_.gauge("allot_serve_last_cycle_timestamp_seconds", "When the last cycle ran")),
      ledger_lag_(registry_.gauge("allot_serve_ledger_lag_seconds",
                                  "Seconds of the service's time since usage was last charged through")) {
  for (const char* outcome : {"swapped", "refused", "dry_run", "dry_run_refused"}) policy_changes_.with({outcome});
  for (const char* outcome : {"ok", "failed"}) cycles_.with({outcome});
  for (const char* kind : {"start", "preempt", "requeue"}) decisions_.with({kind});
}

void ServeMetrics::cycle_done(const service::CycleReport& report, const service::View& view) {
  cycle_seconds_.observe(report.seconds);
  cycles_.with({"ok"}).inc();
  decisions_.with({"start"}).inc(static_cast<double>(report.starts));
  decisions_.with({"preempt"}).inc(static_cast<double>(report.preemptions));
  decisions_.with({"requeue"}).inc(static_cast<double>(report.requeued));
  charged_.inc(report.charged);
  if (report.charged > 0 || charged_through_ == 0) charged_through_ = view.at;
  generation_.set(static_cast<double>(view.generation));
  last_cycle_.set(static_cast<double>(view.at));
  ledger_lag(view.at);

  // Waits and preemptions of this cycle's decisions.
  std::unordered_map<std::string_view, const runtime::RunningJob*> running_by_id;
  for (const runtime::RunningJob& job : view.state.running) running_by_id.emplace(job.request.id, &job);
  for (const runtime::Decision& decision : view.result.decisions) {
    if (decision.kind == runtime::DecisionKind::start) {
      const auto found = running_by_id.find(decision.job_id);
      if (found == running_by_id.end()) continue;
      const runtime::JobRequest& job = found->second->request;
      const runtime::Seconds entered = job.queued != 0 ? job.queued : job.submitted;
      wait_.with({program_of(job.account), job.job_class})
          .observe(static_cast<double>(std::max<runtime::Seconds>(0, view.at - entered)));
    } else if (decision.kind == runtime::DecisionKind::preempt) {
      preemptions_.with({program_of(decision.account), decision.job_class}).inc();
      lost_work_.inc(std::max(0.0, decision.lost_gpu_seconds));
    }
  }

  // Gauges by program and class: every pair seen so far is set, to 0 when it has no job now.
  std::map<std::pair<std::string, std::string>, int> pending, running;
  for (const auto& job : view.state.pending) ++pending[{program_of(job.account), job.job_class}];
  for (const auto& job : view.state.running) ++running[{program_of(job.request.account), job.request.job_class}];
  for (const auto& [key, count] : pending) seen_[key] = 0;
  for (const auto& [key, count] : running) seen_[key] = 0;
  // Every pair has its series from the start (0 preemptions, no waits yet): a
  // query over them answers 0, not nothing.
  for (const auto& [key, unused] : seen_) {
    preemptions_.with({key.first, key.second});
    wait_.with({key.first, key.second});
  }
  for (const auto& [key, unused] : seen_) {
    pending_.with({key.first, key.second}).set(pending.count(key) ? pending.at(key) : 0);
    running_.with({key.first, key.second}).set(running.count(key) ? running.at(key) : 0);
  }
  const runtime::ShareReport shares = runtime::share_report(*view.policy, view.state);
  for (const runtime::ShareRow& row : shares.rows) {
    if (row.depth != 1) continue;  // programs (a leaf program shows as a user of the root, as sshare shows it)
    share_.with({row.path}).set(row.cluster_share);
    usage_.with({row.path}).set(static_cast<double>(row.fields.usage_raw));
    owed_.with({row.path}).set(row.owed.value_or(0));
    delivered_.with({row.path}).set(row.delivered.value_or(0));
    debt_.with({row.path}).set(row.debt);
    without_progress_.with({row.path}).set(row.without_progress.value_or(0));
    stalled_.with({row.path}).set(row.stalled_jobs.value_or(0));  // counted by the share report, at the view's now
  }
}

void ServeMetrics::policy_change(const service::PolicyChange& change) {
  const char* outcome =
      change.dry_run ? (change.diff ? "dry_run" : "dry_run_refused") : (change.outcome.swapped ? "swapped" : "refused");
  policy_changes_.with({outcome}).inc();
  if (change.outcome.swapped) generation_.set(static_cast<double>(change.outcome.generation));
}

void ServeMetrics::ledger_lag(runtime::Seconds now) {
  ledger_lag_.set(charged_through_ == 0 ? 0.0
                                        : static_cast<double>(std::max<runtime::Seconds>(0, now - charged_through_)));
}

}  // namespace allot::cli
