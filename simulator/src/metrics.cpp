// Turns a simulation's outcomes into the seed's measures: per class and per
// program wait, first progress, lost work and share delivery; for the whole
// cluster occupancy, fragmentation, unassigned share; then the gates.
#include <algorithm>
#include <cmath>
#include <map>

#include "allot/accounting.h"
#include "allot/simulator.h"
#include "gates.h"
#include "series.h"

namespace allot::simulator {
namespace {

// Nearest-rank percentile of sorted values (0 for none).
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// Adds one job to a group. Jobs that never started (or progressed) count with
// the time they had waited by the end: the percentiles are then lower bounds.
class GroupBuilder {
 public:
  GroupBuilder(std::string name, Seconds end, Seconds threshold) : end_(end), threshold_(threshold) {
    metrics_.name = std::move(name);
  }

  void add(const WorkloadJob& job, const JobOutcome& outcome) {
    ++metrics_.jobs;
    const Seconds started = outcome.first_start >= 0 ? outcome.first_start : end_;
    const double wait = static_cast<double>(started - job.submitted);
    metrics_.waits.push_back(wait);
    metrics_.started += outcome.first_start >= 0;
    metrics_.completed += outcome.completed >= 0;
    metrics_.starved += wait > static_cast<double>(threshold_);
    const Seconds progressed = outcome.first_progress >= 0 ? outcome.first_progress : end_;
    progress_.push_back(static_cast<double>(progressed - job.submitted));
    metrics_.gpu_hours += outcome.gpu_seconds / 3600;
    metrics_.lost_gpu_hours += outcome.lost_gpu_seconds / 3600;
    metrics_.stops += outcome.stops;
    metrics_.hung += outcome.hung;
    metrics_.hung_stopped += outcome.hung_stopped;
    metrics_.hung_gpu_hours += outcome.hung_gpu_seconds / 3600;
    metrics_.recovered_gpu_hours += outcome.recovered_gpu_seconds / 3600;
    metrics_.hung_lost_gpu_hours += outcome.hung_lost_gpu_seconds / 3600;
    add_deadline(job, outcome);
  }

  GroupMetrics finish() {
    std::sort(metrics_.waits.begin(), metrics_.waits.end());
    std::sort(progress_.begin(), progress_.end());
    metrics_.p50_wait = percentile(metrics_.waits, 0.5);
    metrics_.p90_wait = percentile(metrics_.waits, 0.9);
    metrics_.max_wait = metrics_.waits.empty() ? 0 : metrics_.waits.back();
    metrics_.p50_first_progress = percentile(progress_, 0.5);
    metrics_.p90_first_progress = percentile(progress_, 0.9);
    return std::move(metrics_);
  }

 private:
  // A deadline that falls after the replay's end counts only if the job already finished.
  void add_deadline(const WorkloadJob& job, const JobOutcome& outcome) {
    if (!job.deadline) return;
    const bool met = outcome.completed >= 0 && outcome.completed <= *job.deadline;
    if (!met && *job.deadline >= end_) return;
    ++metrics_.deadline_jobs;
    metrics_.deadline_met += met;
    if (met) return;
    if (outcome.first_start < 0) {
      ++metrics_.deadline_never_started;
    } else if (outcome.stops > 0 && outcome.first_start <= *job.deadline - job.work) {
      ++metrics_.deadline_stopped;
    } else {
      ++metrics_.deadline_started_late;
    }
  }

  Seconds end_;
  Seconds threshold_;
  GroupMetrics metrics_;
  std::vector<double> progress_;
};

// The size group of a job (names sort in size order with their index).
std::pair<int, std::string> size_of(const WorkloadJob& job) {
  const int gpus = job.nodes * job.gpus_per_node;
  if (gpus <= 1) return {0, "1 GPU"};
  if (gpus <= 4) return {1, "2-4 GPUs"};
  if (gpus <= 8) return {2, "5-8 GPUs"};
  return {3, "9+ GPUs"};
}

double sum(const std::vector<double>& values) {
  double total = 0;
  for (double value : values) total += value;
  return total;
}

double ratio(double part, double whole) { return whole > 0 ? part / whole : 0; }

void cluster_totals(const SimulationResult& result, const Workload& workload, PolicyMetrics& metrics) {
  const Timeline& timeline = result.timeline;
  const double used = sum(timeline.used_gpu_seconds);
  metrics.occupancy = ratio(used, sum(timeline.capacity_gpu_seconds));
  metrics.fragmentation = ratio(sum(timeline.fragmented_gpu_seconds), sum(timeline.free_gpu_seconds));
  metrics.fragmented_gpus =
      ratio(sum(timeline.fragmented_gpu_seconds), static_cast<double>(workload.end - workload.start));
  metrics.unassigned_share = ratio(result.unassigned_unit_hours, result.used_unit_hours);
  metrics.beyond_user_share = ratio(result.beyond_user_share_unit_hours, result.used_unit_hours);
  metrics.lost_work = ratio(sum(timeline.lost_gpu_seconds), used);
  if (metrics.all.deadline_jobs > 0) {
    metrics.deadline_slo = static_cast<double>(metrics.all.deadline_met) / metrics.all.deadline_jobs;
  }
}

}  // namespace

PolicyMetrics measure(const Workload& workload, const SimulationResult& result, const CompiledPolicy& policy,
                      const std::string& name, const MetricOptions& options) {
  const PolicyTables& tables = policy.tables();
  const Seconds end = workload.end, threshold = options.starvation_threshold;
  GroupBuilder all("all", end, threshold);
  std::map<int, GroupBuilder> classes;
  std::map<std::string, GroupBuilder> programs;
  const runtime::AccountIndex accounts(tables);
  std::map<int, GroupBuilder> sizes;
  for (std::size_t i = 0; i < workload.jobs.size(); ++i) {
    const WorkloadJob& job = workload.jobs[i];
    const JobOutcome& outcome = result.jobs[i];
    all.add(job, outcome);
    const std::string& class_name = tables.classes[static_cast<std::size_t>(outcome.job_class)].name;
    classes.try_emplace(outcome.job_class, class_name, end, threshold).first->second.add(job, outcome);
    if (const std::optional<int> account = accounts.find(job.account)) {
      const std::string& program = tables.accounts[static_cast<std::size_t>(program_of(tables, *account))].name;
      programs.try_emplace(program, program, end, threshold).first->second.add(job, outcome);
    }
    const auto [size, size_name] = size_of(job);
    sizes.try_emplace(size, size_name, end, threshold).first->second.add(job, outcome);
  }
  PolicyMetrics metrics;
  metrics.name = name;
  metrics.policy_name = tables.name;
  metrics.all = all.finish();
  for (auto& [index, group] : classes) metrics.classes.push_back(group.finish());
  for (auto& [index, group] : sizes) metrics.sizes.push_back(group.finish());
  for (const ProgramTotals& totals : result.programs) {
    const auto found = programs.find(totals.name);
    GroupMetrics group;
    if (found != programs.end()) {
      group = found->second.finish();
    } else {
      group.name = totals.name;
    }
    group.share = totals;
    metrics.programs.push_back(std::move(group));
  }
  cluster_totals(result, workload, metrics);
  metrics.series = downsample(result, options.max_points);
  metrics.worst_window_delivery = worst_window_delivery(result, tables.window);
  metrics.gates = evaluate_gates(tables, metrics, result, options.max_points);
  metrics.gates_passed =
      std::all_of(metrics.gates.begin(), metrics.gates.end(), [](const GateResult& gate) { return gate.passed; });
  metrics.events = result.events;
  metrics.cycles = result.cycles;
  return metrics;
}

}  // namespace allot::simulator
