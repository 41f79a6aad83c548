#include "report_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "report_format.h"
#include "report_groups.h"

namespace allot::simulator {
namespace {

enum class Kind { duration, percent, count, gpu_hours };

// A measure: how to read it off a policy's metrics, and which way is better.
struct Measure {
  std::string name;
  Kind kind;
  bool higher_is_better;
  std::function<std::optional<double>(const PolicyMetrics&)> value;
};

std::string format_value(Kind kind, double value) {
  switch (kind) {
    case Kind::duration:
      return support::format_duration_rounded(value);
    case Kind::percent:
      return format_percent(value);
    case Kind::gpu_hours:
      return fmt::format("{:.1f} GPU-h", value);
    case Kind::count:
      break;
  }
  return fmt::format("{:.0f}", value);
}

std::string format_difference(Kind kind, double difference) {
  const char* sign = difference < 0 ? "-" : "+";
  switch (kind) {
    case Kind::duration:
      return sign + support::format_duration_rounded(std::fabs(difference));
    case Kind::percent:
      return fmt::format("{}{:.1f} pts", sign, std::fabs(difference) * 100);
    case Kind::gpu_hours:
      return fmt::format("{}{:.1f} GPU-h", sign, std::fabs(difference));
    case Kind::count:
      break;
  }
  return fmt::format("{}{:.0f}", sign, std::fabs(difference));
}

// Differences too small to call: under a second or 1% for waits, under 0.1
// points for fractions, none for counts.
bool negligible(Kind kind, double base, double value) {
  const double difference = std::fabs(value - base);
  switch (kind) {
    case Kind::duration:
      return difference < 1.0 || difference <= 0.01 * std::max(std::fabs(base), std::fabs(value));
    case Kind::percent:
      return difference < 0.0005;
    case Kind::gpu_hours:
      return difference < 0.05;
    case Kind::count:
      break;
  }
  return difference < 0.5;
}

// The lowest delivered/owed of any program owed anything over the whole replay.
std::optional<double> worst_program_delivery(const PolicyMetrics& metrics) {
  std::optional<double> worst;
  for (const GroupMetrics& program : metrics.programs) {
    if (!program.share || program.share->owed <= 0) continue;
    const double ratio = program.share->delivered / program.share->owed;
    if (!worst || ratio < *worst) worst = ratio;
  }
  return worst;
}

std::vector<Measure> measures(const ScenarioReport& scenario) {
  std::vector<Measure> list;
  list.push_back({"p90 wait, all jobs", Kind::duration, false,
                  [](const PolicyMetrics& m) -> std::optional<double> { return m.all.p90_wait; }});
  for (const std::string& name : group_names(scenario, &PolicyMetrics::classes)) {
    list.push_back(
        {"p90 wait, " + name, Kind::duration, false, [name](const PolicyMetrics& m) -> std::optional<double> {
           const GroupMetrics* group = find_group(m.classes, name);
           if (!group || group->jobs == 0) return std::nullopt;
           return group->p90_wait;
         }});
  }
  list.push_back({"worst program's delivered / owed", Kind::percent, true, worst_program_delivery});
  list.push_back(
      {"occupancy", Kind::percent, true, [](const PolicyMetrics& m) -> std::optional<double> { return m.occupancy; }});
  list.push_back(
      {"lost work", Kind::percent, false, [](const PolicyMetrics& m) -> std::optional<double> { return m.lost_work; }});
  if (scenario.hanging_jobs > 0) {
    list.push_back({"GPU-hours held by hung jobs", Kind::gpu_hours, false,
                    [](const PolicyMetrics& m) -> std::optional<double> { return m.all.hung_gpu_hours; }});
  }
  list.push_back({"starved jobs", Kind::count, false,
                  [](const PolicyMetrics& m) -> std::optional<double> { return m.all.starved; }});
  list.push_back({"deadline SLO", Kind::percent, true, [](const PolicyMetrics& m) { return m.deadline_slo; }});
  return list;
}

std::size_t gates_passed(const PolicyMetrics& metrics) {
  return static_cast<std::size_t>(
      std::count_if(metrics.gates.begin(), metrics.gates.end(), [](const GateResult& gate) { return gate.passed; }));
}

std::string gate_count(const PolicyMetrics& metrics) {
  return fmt::format("{} of {}", gates_passed(metrics), metrics.gates.size());
}

// The measures on which one policy is better and worse than the baseline, of those compared.
struct Tally {
  std::vector<std::string> better, worse;
  std::size_t compared = 0;
};

Tally tally(const Verdict& verdict, std::size_t policy) {
  Tally counted;
  for (const VerdictRow& row : verdict.rows) {
    const Comparison comparison = row.comparisons[policy];
    if (comparison == Comparison::not_comparable) continue;
    ++counted.compared;
    if (comparison == Comparison::better) counted.better.push_back(row.measure);
    if (comparison == Comparison::worse) counted.worse.push_back(row.measure);
  }
  return counted;
}

std::string brief(const Verdict& verdict, std::size_t policy) {
  if (policy == 0) return "baseline";
  const Tally counted = tally(verdict, policy);
  return fmt::format("better on {} of {} measures, worse on {}", counted.better.size(), counted.compared,
                     counted.worse.size());
}

std::string summary(const Verdict& verdict, const ScenarioReport& scenario, std::size_t policy) {
  const auto [better, worse, compared] = tally(verdict, policy);
  auto listed = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : "; ") + name;
    return text;
  };
  const PolicyMetrics& base = scenario.policies.front();
  const PolicyMetrics& metrics = scenario.policies[policy];
  std::string text =
      fmt::format("`{}` against `{}`: better on {} of {} measures", metrics.name, base.name, better.size(), compared);
  if (!better.empty()) text += fmt::format(" ({})", listed(better));
  text += fmt::format(", worse on {}", worse.size());
  if (!worse.empty()) text += fmt::format(" ({})", listed(worse));
  text += fmt::format("; its own gates: {} passed, `{}`'s: {}.", gate_count(metrics), base.name, gate_count(base));
  return text;
}

}  // namespace

std::string comparison_word(Comparison comparison) {
  switch (comparison) {
    case Comparison::baseline:
      return "";
    case Comparison::better:
      return "better";
    case Comparison::worse:
      return "worse";
    case Comparison::same:
      return "same";
    case Comparison::not_comparable:
      break;
  }
  return "n/a";
}

Verdict compare_policies(const ScenarioReport& scenario) {
  Verdict verdict;
  if (scenario.policies.size() < 2) return verdict;
  for (const Measure& measure : measures(scenario)) {
    VerdictRow row;
    row.measure = measure.name;
    const std::optional<double> base = measure.value(scenario.policies.front());
    for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
      const std::optional<double> value = measure.value(scenario.policies[p]);
      row.values.push_back(value ? format_value(measure.kind, *value) : "-");
      if (p == 0) {
        row.differences.emplace_back();
        row.comparisons.push_back(Comparison::baseline);
      } else if (!value || !base) {
        row.differences.emplace_back();
        row.comparisons.push_back(Comparison::not_comparable);
      } else if (negligible(measure.kind, *base, *value)) {
        row.differences.emplace_back();
        row.comparisons.push_back(Comparison::same);
      } else {
        row.differences.push_back(format_difference(measure.kind, *value - *base));
        const bool higher = *value > *base;
        row.comparisons.push_back(higher == measure.higher_is_better ? Comparison::better : Comparison::worse);
      }
    }
    verdict.rows.push_back(std::move(row));
  }
  for (std::size_t p = 1; p < scenario.policies.size(); ++p) verdict.summaries.push_back(summary(verdict, scenario, p));
  for (std::size_t p = 0; p < scenario.policies.size(); ++p) verdict.briefs.push_back(brief(verdict, p));
  return verdict;
}

}  // namespace allot::simulator
