#include "gates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

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

// Buckets in a window of `window_seconds` (the whole timeline if shorter; at least one).
std::size_t window_buckets(const Timeline& timeline, double window_seconds) {
  const auto wanted = static_cast<std::size_t>(std::max(1.0, window_seconds / static_cast<double>(timeline.bucket)));
  return std::min(wanted, timeline.capacity_gpu_seconds.size());
}

// Calls visit(program, first bucket, delivered / owed) for every window of
// `width` buckets in which the program had sustained demand: something owed
// in at least half of the window's buckets.
template <class Visit>
void for_each_window(const Timeline& timeline, std::size_t width, Visit visit) {
  const std::size_t buckets = timeline.capacity_gpu_seconds.size();
  for (std::size_t p = 0; p < timeline.program_owed.size(); ++p) {
    const auto owed = prefix_sums(timeline.program_owed[p], false);
    const auto delivered = prefix_sums(timeline.program_delivered[p], false);
    const auto demand_hours = prefix_sums(timeline.program_owed[p], true);
    for (std::size_t begin = 0; begin + width <= buckets; ++begin) {
      const std::size_t end = begin + width;
      const double owed_here = owed[end] - owed[begin];
      if (demand_hours[end] - demand_hours[begin] < static_cast<double>(width) / 2 || owed_here <= kTiny) continue;
      visit(p, begin, (delivered[end] - delivered[begin]) / owed_here);
    }
  }
}

const GroupMetrics* class_group(const PolicyMetrics& metrics, const std::string& subject) {
  if (subject.empty()) return &metrics.all;
  for (const GroupMetrics& group : metrics.classes) {
    if (group.name == subject) return &group;
  }
  return nullptr;
}

bool compare(double value, GateOp op, double threshold) {
  switch (op) {
    case GateOp::at_least:
      return value >= threshold - kTiny;
    case GateOp::above:
      return value > threshold;
    case GateOp::at_most:
      return value <= threshold + kTiny;
    case GateOp::below:
      return value < threshold;
  }
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
  const std::string note(gate_metric_info(gate.metric).note);
  // A per-class metric: of the gate's class, or of every job.
  auto of_jobs = [&](double GroupMetrics::*field) -> std::pair<std::optional<double>, std::string> {
    const GroupMetrics* group = class_group(metrics, gate.subject);
    if (!group || group->jobs == 0) return {std::nullopt, fmt::format("no `{}` jobs", gate.subject)};
    return {group->*field, fmt::format("{} jobs", group->jobs) + (note.empty() ? "" : ", " + note)};
  };
  switch (gate.metric) {
    case GateMetric::share_delivery:
      if (!worst) return {std::nullopt, "no program had sustained demand"};
      return {worst->delivery, fmt::format("worst: `{}`, window ending {} after the start", worst->program,
                                           support::format_duration_rounded(worst->window_end_hours * 3600))};
    case GateMetric::lost_work:
      return {metrics.lost_work, note};
    case GateMetric::deadline_slo:
      if (!metrics.deadline_slo) return {std::nullopt, "no deadline jobs"};
      return {*metrics.deadline_slo,
              fmt::format("{} of {} deadline jobs", metrics.all.deadline_met, metrics.all.deadline_jobs)};
    case GateMetric::occupancy:
      return {metrics.occupancy, note};
    case GateMetric::fragmentation:
      return {metrics.fragmentation, note};
    case GateMetric::unassigned_share:
      return {metrics.unassigned_share, note};
    case GateMetric::p50_wait:
      return of_jobs(&GroupMetrics::p50_wait);
    case GateMetric::p90_wait:
      return of_jobs(&GroupMetrics::p90_wait);
    case GateMetric::max_wait:
      return of_jobs(&GroupMetrics::max_wait);
    case GateMetric::time_to_first_progress:
      return of_jobs(&GroupMetrics::p90_first_progress);
  }
  return {std::nullopt, ""};
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
    parts += fmt::format("{} {}", format_percent(fraction), kShortfallWords[c].text);
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

std::optional<WindowDelivery> worst_window_delivery(const SimulationResult& result, double window_seconds) {
  const Timeline& timeline = result.timeline;
  const std::size_t width = window_buckets(timeline, window_seconds);
  std::optional<WindowDelivery> worst;
  std::size_t worst_program = 0, worst_begin = 0;
  for_each_window(timeline, width, [&](std::size_t p, std::size_t begin, double ratio) {
    if (worst && ratio >= worst->delivery) return;
    worst = WindowDelivery{ratio, result.programs[p].name,
                           static_cast<double>((begin + width) * static_cast<std::size_t>(timeline.bucket)) / 3600.0};
    worst_program = p;
    worst_begin = begin;
  });
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

GateWindows gate_windows(const SimulationResult& result, double window_seconds, std::size_t max_points) {
  const Timeline& timeline = result.timeline;
  const std::size_t width = window_buckets(timeline, window_seconds);
  const std::size_t windows = timeline.capacity_gpu_seconds.size() - width + 1;
  const std::size_t group = std::max<std::size_t>(1, (windows + max_points - 1) / std::max<std::size_t>(1, max_points));
  GateWindows drawn;
  drawn.window_hours = static_cast<double>(width * static_cast<std::size_t>(timeline.bucket)) / 3600.0;
  for (std::size_t end = width + group - 1; end < width + windows + group - 1; end += group) {
    drawn.window_end_hours.push_back(
        static_cast<double>(std::min(end, width + windows - 1) * static_cast<std::size_t>(timeline.bucket)) / 3600.0);
  }
  for (const ProgramTotals& program : result.programs) {
    drawn.programs.emplace_back(program.name, std::vector<double>(drawn.window_end_hours.size(), NAN));
  }
  for_each_window(timeline, width, [&](std::size_t p, std::size_t begin, double ratio) {
    double& point = drawn.programs[p].second[begin / group];
    if (std::isnan(point) || ratio < point) point = ratio;  // the worst window a point stands for
  });
  return drawn;
}

std::vector<GateResult> evaluate_gates(const PolicyTables& tables, const PolicyMetrics& metrics,
                                       const SimulationResult& result, std::size_t max_points) {
  std::vector<GateResult> gates;
  for (const GateInfo& gate : tables.gates) {
    GateResult verdict;
    verdict.gate = gate;
    verdict.text = gate_text(gate);
    std::optional<WindowDelivery> worst;
    if (gate.metric == GateMetric::share_delivery) {
      worst = gate_window(gate, tables, metrics, result);
      verdict.windows = gate_windows(result, static_cast<double>(gate.window.value_or(tables.window)), max_points);
    }
    auto [value, detail] = measured(gate, metrics, worst);
    verdict.value = value;
    verdict.detail = std::move(detail);
    verdict.passed = !value || compare(*value, gate.op, gate.threshold);
    if (!verdict.passed && worst) {
      verdict.why = shortfall_why(*worst);
    } else if (!verdict.passed && gate_metric_info(gate.metric).takes_class) {  // the wait metrics
      verdict.why = wait_why(gate, tables, result);
    } else if (!verdict.passed && gate.metric == GateMetric::deadline_slo) {
      verdict.why = deadline_why(tables, metrics, result);
    }
    gates.push_back(std::move(verdict));
  }
  return gates;
}

}  // namespace allot::simulator
