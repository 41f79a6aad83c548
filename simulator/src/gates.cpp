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

// The worst window a share_delivery gate judges: the policy's own window is
// measured once, with the metrics; another `over` is measured here.
std::optional<WindowDelivery> gate_window(const GateInfo& gate, const PolicyTables& tables,
                                          const PolicyMetrics& metrics, const SimulationResult& result) {
  if (!gate.window || *gate.window == tables.window) return metrics.worst_window_delivery;
  return worst_window_delivery(result, *gate.window);
}

// The measured value of a gate's metric, with a note on what it is (`worst`:
// gate_window, for share_delivery).
std::pair<std::optional<double>, std::string> measured(const GateInfo& gate, const PolicyMetrics& metrics,
                                                       const std::optional<WindowDelivery>& worst) {
  const std::string& metric = gate.metric;
  if (metric == "share_delivery") {
    if (!worst) return {std::nullopt, "no program had sustained demand"};
    return {worst->delivery, fmt::format("worst: `{}`, window ending {} after the start", worst->program,
                                         support::format_duration_rounded(worst->window_end_hours * 3600))};
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

// "61.0% was on jobs inside their protection, 22.0% was ...": each cause's
// part of `hours`, largest first, leaving out parts under half a percent.
std::string cause_list(const ShortfallHours& hours, double total) {
  std::vector<std::size_t> order(kShortfallCauses);
  for (std::size_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return hours[a] > hours[b]; });
  std::string parts;
  for (std::size_t c : order) {
    const double fraction = hours[c] / total;
    if (fraction < 0.005) continue;
    if (!parts.empty()) parts += ", ";
    parts += fmt::format("{} {}", format_percent(fraction), shortfall_text(static_cast<Shortfall>(c)));
  }
  return parts;
}

// What held the capacity the worst program lacked in its worst window.
std::string shortfall_why(const WindowDelivery& worst) {
  double lacked = 0;
  for (double hours : worst.shortfall) lacked += hours;
  if (lacked <= kTiny) return "";
  return fmt::format(
      "`{}` received {} of the {:.1f} unit-hours it was owed in its worst {}; of the {:.1f} it lacked, {}",
      worst.program, format_percent(worst.delivery), worst.owed,
      support::format_duration_rounded(worst.window_hours * 3600), lacked, cause_list(worst.shortfall, lacked));
}

bool is_wait_metric(const std::string& metric) {
  return metric == "p50_wait" || metric == "p90_wait" || metric == "max_wait" || metric == "time_to_first_progress";
}

// What the cluster's capacity was doing while jobs of the classes `wanted`
// accepts waited, for jobs called `jobs`; empty when they never waited.
template <class Wanted>
std::string waited_why(const PolicyTables& tables, const SimulationResult& result, const std::string& jobs,
                       Wanted wanted) {
  ShortfallHours hours{};
  double total = 0;
  for (std::size_t k = 0; k < result.class_waits.size() && k < tables.classes.size(); ++k) {
    if (!wanted(tables.classes[k])) continue;
    for (std::size_t c = 0; c < kShortfallCauses; ++c) {
      hours[c] += result.class_waits[k][c];
      total += result.class_waits[k][c];
    }
  }
  if (total <= kTiny) return "";
  return fmt::format("while {} waited ({:.1f} job-hours in all), of the cluster's capacity {}", jobs, total,
                     cause_list(hours, total));
}

// What the cluster's capacity was doing while the gate's jobs waited.
std::string wait_why(const GateInfo& gate, const PolicyTables& tables, const SimulationResult& result) {
  const std::string jobs = gate.subject.empty() ? std::string("jobs") : fmt::format("`{}` jobs", gate.subject);
  return waited_why(tables, result, jobs,
                    [&](const ClassInfo& info) { return gate.subject.empty() || info.name == gate.subject; });
}

// How the deadline jobs missed, and what held the capacity while jobs of the
// classes that require a deadline waited.
std::string deadline_why(const PolicyTables& tables, const PolicyMetrics& metrics, const SimulationResult& result) {
  const GroupMetrics& all = metrics.all;
  const int missed = all.deadline_jobs - all.deadline_met;
  if (missed <= 0) return "";
  std::string how;
  auto part = [&](int count, const char* what) {
    if (count > 0) how += fmt::format("{}{} {}", how.empty() ? "" : ", ", count, what);
  };
  part(all.deadline_started_late, "started too late to finish by their deadline");
  part(all.deadline_stopped, "started in time but were stopped (preempted or drained) on the way");
  part(all.deadline_never_started, "never started");
  std::string why = fmt::format("{} of {} deadline jobs missed: {}", missed, all.deadline_jobs, how);
  const std::string waits = waited_why(tables, result, "jobs of deadline classes",
                                       [](const ClassInfo& info) { return info.deadline_required; });
  if (!waits.empty()) why += "; " + waits;
  return why;
}

}  // namespace

const char* shortfall_text(Shortfall cause) {
  switch (cause) {
    case Shortfall::free:
      return "was free or held for another waiting job";
    case Shortfall::not_taken:
      return "was on jobs preemption could stop but did not";
    case Shortfall::grace:
      return "was on jobs stopping in their grace";
    case Shortfall::protected_:
      return "was on jobs inside their protection";
    case Shortfall::not_preemptible:
      return "was on jobs that may not be preempted";
  }
  return "";
}

const char* shortfall_key(Shortfall cause) {
  switch (cause) {
    case Shortfall::free:
      return "free";
    case Shortfall::not_taken:
      return "not_taken";
    case Shortfall::grace:
      return "grace";
    case Shortfall::protected_:
      return "protected";
    case Shortfall::not_preemptible:
      return "not_preemptible";
  }
  return "";
}

std::optional<WindowDelivery> worst_window_delivery(const SimulationResult& result, double window_seconds) {
  const Timeline& timeline = result.timeline;
  const std::size_t buckets = timeline.capacity_gpu_seconds.size();
  const auto wanted = static_cast<std::size_t>(std::max(1.0, window_seconds / static_cast<double>(timeline.bucket)));
  const std::size_t width = std::min(wanted, buckets);
  std::optional<WindowDelivery> worst;
  std::size_t worst_program = 0, worst_begin = 0;
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
      worst_program = p;
      worst_begin = begin;
    }
  }
  if (!worst) return worst;
  worst->window_hours = static_cast<double>(width * static_cast<std::size_t>(timeline.bucket)) / 3600.0;
  for (std::size_t bucket = worst_begin; bucket < worst_begin + width; ++bucket) {
    worst->owed += timeline.program_owed[worst_program][bucket];
    if (worst_program >= timeline.program_shortfall.size()) continue;
    for (std::size_t c = 0; c < kShortfallCauses; ++c) {
      worst->shortfall[c] += timeline.program_shortfall[worst_program][bucket][c];
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
    std::optional<WindowDelivery> worst;
    if (gate.metric == "share_delivery") worst = gate_window(gate, tables, metrics, result);
    auto [value, detail] = measured(gate, metrics, worst);
    verdict.value = value;
    verdict.detail = std::move(detail);
    verdict.passed = !value || compare(*value, gate.op, gate.threshold);
    if (!verdict.passed && worst) {
      verdict.why = shortfall_why(*worst);
    } else if (!verdict.passed && is_wait_metric(gate.metric)) {
      verdict.why = wait_why(gate, tables, result);
    } else if (!verdict.passed && gate.metric == "deadline_slo") {
      verdict.why = deadline_why(tables, metrics, result);
    }
    gates.push_back(std::move(verdict));
  }
  return gates;
}

}  // namespace allot::simulator
