#include "slurm_metrics.h"

#include <map>
#include <utility>

#include "allot/contracts.h"

namespace allot::cli {

AdapterMetrics::AdapterMetrics(std::chrono::seconds staleness)
    : health_(staleness),
      pass_seconds_(registry_.histogram("allot_slurm_pass_duration_seconds",
                                        "Wall time of one pass: reading Slurm, charging, the cycle, writing",
                                        {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30})),
      passes_(registry_.counter_family("allot_slurm_passes_total",
                                       "Passes by outcome; a failed pass writes nothing to Slurm", {"outcome"})),
      writes_(registry_.counter_family(
          "allot_slurm_writes_total",
          "Calls to Slurm by kind (set_priority, checkpoint_signal, requeue, class_limit) and outcome (done, refused)",
          {"kind", "outcome"})),
      preemptions_(registry_.counter("allot_slurm_preemptions_total",
                                     "Running jobs the policy chose to stop for a waiting job")),
      charged_(registry_.counter("allot_slurm_charged_usage_total",
                                 "Usage charged to the ledger, in the policy's unit-hours")),
      pending_(registry_.gauge("allot_slurm_pending_jobs", "Jobs the last pass ranked")),
      running_(registry_.gauge("allot_slurm_running_jobs", "Jobs holding GPUs at the last pass")),
      stalled_(registry_.gauge_family(
          "allot_slurm_stalled_jobs",
          "Running jobs past their class's progress interval without a report, at the last pass, by program",
          {"program"})),
      without_progress_(registry_.gauge_family(
          "allot_slurm_without_progress_units",
          "Of each program's usage over the window, what its stalled jobs held without progress", {"program"})),
      last_success_(registry_.gauge("allot_slurm_last_success_timestamp_seconds",
                                    "When the last pass that succeeded ran (Unix time)")),
      ledger_lag_(registry_.gauge("allot_slurm_ledger_lag_seconds",
                                  "Seconds since usage was last charged through (grows while passes fail)")),
      generation_(registry_.gauge("allot_slurm_policy_generation",
                                  "Policies swapped in since the start (0: the first one still runs)")),
      reloads_(registry_.counter_family("allot_slurm_reloads_total",
                                        "Reloads of the policy and mapping file by outcome (swapped, refused)",
                                        {"outcome"})),
      governance_(registry_.gauge("allot_slurm_governance_warnings",
                                  "Passed review dates and expired exceptions in the running policy")) {
  for (const char* outcome : {"ok", "failed"}) passes_.with({outcome});
  for (const char* outcome : {"swapped", "refused"}) reloads_.with({outcome});
  for (const auto kind : {slurm::Action::Kind::set_priority, slurm::Action::Kind::checkpoint_signal,
                          slurm::Action::Kind::requeue, slurm::Action::Kind::class_limit}) {
    for (const char* outcome : {"done", "refused"}) writes_.with({slurm::action_kind_name(kind), outcome});
  }
  http::serve_metrics_and_health(server_, registry_, health_);
}

std::optional<std::string> AdapterMetrics::listen(const std::string& address) { return server_.start(address); }

void AdapterMetrics::heartbeat() { health_.heartbeat(); }

void AdapterMetrics::pass_done(const slurm::PassReport& report, double seconds, bool dry_run) {
  health_.heartbeat();
  pass_seconds_.observe(seconds);
  passes_.with({"ok"}).inc();
  for (const slurm::Action& action : report.actions) {
    writes_.with({slurm::action_kind_name(action.kind), action.error.empty() ? "done" : "refused"}).inc();
  }
  for (const runtime::Decision& decision : report.cycle.decisions) {
    if (decision.kind == runtime::DecisionKind::preempt) preemptions_.inc();
  }
  pending_.set(report.pending);
  running_.set(report.running);
  progress_by_program(report);
  last_success_.set(static_cast<double>(report.now));
  if (!dry_run) {
    if (report.charged > 0) charged_.inc(report.charged);
    charged_through_ = report.now;
  }
  ledger_lag(report.now);
  health_.mark_ready();
}

// Stalled jobs and time held without progress by program (top-level account);
// a program seen at an earlier pass reads 0 until it has some again.
void AdapterMetrics::progress_by_program(const slurm::PassReport& report) {
  std::map<std::string, std::pair<int, double>> programs;  // stalled jobs, held without progress
  for (const std::string& program : programs_) programs[program];
  for (const runtime::RunningJob& job : report.state.running) {
    if (runtime::stalled_since(job, report.now))
      ++programs[job.request.account.substr(0, job.request.account.find('/'))].first;
  }
  if (report.state.without_progress) {
    // The ledger lists every account with its ancestors: a program's own entry is its total.
    for (const auto& [account, amount] : *report.state.without_progress) {
      if (!account.empty() && account.find('/') == std::string::npos) programs[account].second = amount;
    }
  }
  for (const auto& [program, counts] : programs) {
    stalled_.with({program}).set(counts.first);
    without_progress_.with({program}).set(counts.second);
    programs_.insert(program);
  }
}

void AdapterMetrics::pass_failed(double seconds, const std::string& why) {
  health_.heartbeat();
  pass_seconds_.observe(seconds);
  passes_.with({"failed"}).inc();
  health_.mark_not_ready("the last pass failed: " + why);
}

void AdapterMetrics::ledger_lag(slurm::Seconds now) {
  if (charged_through_ > 0) ledger_lag_.set(static_cast<double>(now - charged_through_));
}

void AdapterMetrics::reload(bool swapped) {
  reloads_.with({swapped ? "swapped" : "refused"}).inc();
  if (swapped) generation_.add(1);
}

void AdapterMetrics::governance_warnings(std::size_t count) { governance_.set(static_cast<double>(count)); }

}  // namespace allot::cli
