#include "gates.h"

#include <fmt/format.h>

#include <algorithm>

#include "report_format.h"

namespace allot::simulator {
namespace {

constexpr double kTiny = 1e-9;

std::vector<double> prefix_sums(const std::vector<double>& values, bool count_positive) {
  std::vector<double> sums(values.size() + 1, 0.0);
  for (std::size_t i = 0; i < values.size(); ++i) {
    sums[i + 1] = sums[i] + (count_positive ? (values[i] > kTiny ? 1.0 : 0.0) : values[i]);
  }
  return sums;
}

const GroupMetrics* class_group(const PolicyMetrics& metrics, const std::string& subject) {
  if (subject.empty()) return &metrics.all;
  for (const GroupMetrics& group : metrics.classes) {
    if (group.name == subject) return &group;
  }
  return nullptr;
}

bool compare(double value, const std::string& op, double threshold) {
  if (op == ">=") return value >= threshold - kTiny;
  if (op == ">") return value > threshold;
  if (op == "<=") return value <= threshold + kTiny;
  if (op == "<") return value < threshold;
  return false;
}

// The measured value of a gate's metric, with a note on what it is.
std::pair<std::optional<double>, std::string> measured(const GateInfo& gate, const PolicyTables& tables,
                                                       const PolicyMetrics& metrics, const SimulationResult& result) {
  const std::string& metric = gate.metric;
  if (metric == "share_delivery") {
    // The policy's own window is measured once, with the metrics.
    const auto worst = !gate.window || *gate.window == tables.window ? metrics.worst_window_delivery
                                                                     : worst_window_delivery(result, *gate.window);
    if (!worst) return {std::nullopt, "no program had sustained demand"};
    return {worst->delivery, fmt::format("worst: `{}`, window ending {} after the start", worst->program,
                                         format_duration(worst->window_end_hours * 3600))};
  }
  if (metric == "lost_work") return {metrics.lost_work, "of GPU-time used"};
  if (metric == "occupancy") return {metrics.occupancy, "of GPU-time on up nodes"};
  if (metric == "fragmentation") return {metrics.fragmentation, "of free GPU-time"};
  if (metric == "unassigned_share") return {metrics.unassigned_share, "of GPU-time delivered"};
  if (metric == "deadline_slo") {
    if (!metrics.deadline_slo) return {std::nullopt, "no deadline jobs"};
    return {*metrics.deadline_slo,
            fmt::format("{} of {} deadline jobs", metrics.all.deadline_met, metrics.all.deadline_jobs)};
  }
  const GroupMetrics* group = class_group(metrics, gate.subject);
  if (!group || group->jobs == 0) return {std::nullopt, fmt::format("no `{}` jobs", gate.subject)};
  const std::string jobs = fmt::format("{} jobs", group->jobs);
  if (metric == "p50_wait") return {group->p50_wait, jobs};
  if (metric == "p90_wait") return {group->p90_wait, jobs};
  if (metric == "max_wait") return {group->max_wait, jobs};
  if (metric == "time_to_first_progress") return {group->p90_first_progress, jobs + ", p90"};
  return {std::nullopt, fmt::format("unknown metric `{}`", metric)};
}

}  // namespace

std::optional<WindowDelivery> worst_window_delivery(const SimulationResult& result, double window_seconds) {
  const Timeline& timeline = result.timeline;
  const std::size_t buckets = timeline.capacity_gpu_seconds.size();
  const auto wanted = static_cast<std::size_t>(std::max(1.0, window_seconds / static_cast<double>(timeline.bucket)));
  const std::size_t width = std::min(wanted, buckets);
  std::optional<WindowDelivery> worst;
  for (std::size_t p = 0; p < timeline.program_owed.size(); ++p) {
    const auto owed = prefix_sums(timeline.program_owed[p], false);
    const auto delivered = prefix_sums(timeline.program_delivered[p], false);
    const auto demand_hours = prefix_sums(timeline.program_owed[p], true);
    for (std::size_t begin = 0; begin + width <= buckets; ++begin) {
      const std::size_t end = begin + width;
      const double owed_here = owed[end] - owed[begin];
      if (demand_hours[end] - demand_hours[begin] < static_cast<double>(width) / 2 || owed_here <= kTiny) continue;
      const double ratio = (delivered[end] - delivered[begin]) / owed_here;
      if (worst && ratio >= worst->delivery) continue;
      worst = WindowDelivery{ratio, result.programs[p].name,
                             static_cast<double>(end * static_cast<std::size_t>(timeline.bucket)) / 3600.0};
    }
  }
  return worst;
}

std::vector<GateResult> evaluate_gates(const PolicyTables& tables, const PolicyMetrics& metrics,
                                       const SimulationResult& result) {
  std::vector<GateResult> gates;
  for (const GateInfo& gate : tables.gates) {
    GateResult verdict;
    verdict.gate = gate;
    verdict.text = gate_text(gate);
    auto [value, detail] = measured(gate, tables, metrics, result);
    verdict.value = value;
    verdict.detail = std::move(detail);
    verdict.passed = !value || compare(*value, gate.op, gate.threshold);
    gates.push_back(std::move(verdict));
  }
  return gates;
}

}  // namespace allot::simulator
