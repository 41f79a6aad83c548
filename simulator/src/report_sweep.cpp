#include "report_sweep.h"

#include <fmt/format.h>

#include <algorithm>

#include "report_format.h"
#include "text_table.h"

namespace allot::simulator {
namespace {

std::string join(const std::vector<std::string>& texts, const std::string& separator) {
  std::string out;
  for (const std::string& text : texts) out += (out.empty() ? "" : separator) + text;
  return out;
}

// The sentence for one policy over the points sorted by load.
std::string first_failure(const std::vector<const SweepPoint*>& points, std::size_t policy) {
  const std::string& name = points.front()->policies[policy].policy;
  for (const SweepPoint* point : points) {
    const SweepResult& result = point->policies[policy];
    if (result.failed_gates.empty()) continue;
    const bool lowest = point == points.front() && points.size() > 1;
    return fmt::format("`{}` {} {}: {}.", name,
                       lowest ? "fails a gate already at the lowest load replayed," : "first fails a gate at",
                       sweep_point_name(*point), join(result.failed_gates, ", "));
  }
  return fmt::format("`{}` passes every gate up to {}.", name, sweep_point_name(*points.back()));
}

std::vector<std::string> header(const std::vector<std::string>& classes, bool scaled) {
  std::vector<std::string> columns = {scaled ? "load" : "offered", "policy"};
  for (const std::string& name : classes) columns.push_back("p90 " + name);
  for (const char* column : {"worst program", "occupancy", "gates"}) columns.push_back(column);
  return columns;
}

std::vector<std::string> row(const SweepPoint& point, const SweepResult& result,
                             const std::vector<std::string>& classes, const Table& table) {
  std::vector<std::string> cells = {fmt::format("{:.2f}", point.offered_load), result.policy};
  for (const std::string& name : classes) {
    const auto wait = sweep_p90_wait(result, name);
    cells.push_back(wait ? support::format_duration_rounded(*wait) : "-");
  }
  cells.push_back(format_worst_delivery(result));
  cells.push_back(format_percent(result.occupancy));
  cells.push_back(table.verdict(result.failed_gates.empty(), fmt::format("{}/{}", result.gates_passed, result.gates)));
  return cells;
}

}  // namespace

std::vector<std::string> sweep_class_names(const std::vector<SweepPoint>& sweep) {
  std::vector<std::string> names;
  for (const SweepPoint& point : sweep) {
    for (const SweepResult& result : point.policies) {
      for (const auto& [name, wait] : result.p90_waits) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
      }
    }
  }
  return names;
}

std::vector<const SweepPoint*> sweep_by_load(const std::vector<SweepPoint>& sweep) {
  std::vector<const SweepPoint*> points;
  for (const SweepPoint& point : sweep) points.push_back(&point);
  std::stable_sort(points.begin(), points.end(),
                   [](const SweepPoint* a, const SweepPoint* b) { return a->load < b->load; });
  return points;
}

std::string format_load(const SweepPoint& point) {
  return point.capacity_scale ? fmt::format("{:.2f}", point.load) : fmt::format("{:g}", point.load);
}

std::string sweep_point_name(const SweepPoint& point) {
  if (!point.capacity_scale) return "load " + format_load(point);
  return fmt::format("load {} (x{:g}: {} GPUs)", format_load(point), *point.capacity_scale, point.gpus);
}

std::string format_worst_delivery(const SweepResult& result) {
  if (!result.worst_delivery) return "-";
  return fmt::format("{} `{}`", format_percent(result.worst_delivery->delivery), result.worst_delivery->program);
}

std::optional<double> sweep_p90_wait(const SweepResult& result, const std::string& name) {
  for (const auto& [class_name, wait] : result.p90_waits) {
    if (class_name == name) return wait;
  }
  return std::nullopt;
}

std::vector<std::string> first_failures(const ScenarioReport& scenario) {
  std::vector<std::string> sentences;
  const std::vector<const SweepPoint*> points = sweep_by_load(scenario.sweep);
  if (points.empty()) return sentences;
  for (std::size_t p = 0; p < points.front()->policies.size(); ++p) sentences.push_back(first_failure(points, p));
  return sentences;
}

std::string render_sweep_text(const ScenarioReport& scenario, bool color) {
  if (scenario.sweep.empty()) return "";
  const bool scaled = scenario.sweep.front().capacity_scale.has_value();
  const std::vector<std::string> classes = sweep_class_names(scenario.sweep);
  Table table(header(classes, scaled), color);
  for (const SweepPoint& point : scenario.sweep) {
    const std::string label =
        scaled ? fmt::format("x{:g} ({} nodes, {} GPUs)", *point.capacity_scale, point.nodes, point.gpus)
               : "load " + format_load(point);
    for (std::size_t p = 0; p < point.policies.size(); ++p) {
      std::vector<std::string> cells = row(point, point.policies[p], classes, table);
      if (p > 0) cells.front().clear();  // the point's load is on its first row
      table.row(p == 0 ? label : "", std::move(cells));
    }
  }
  std::string out =
      scaled ? "  capacity sweep: the trace on the cluster scaled to round(nodes x F) nodes; load = offered GPU-hours "
               "/ GPU-hours of capacity\n"
             : "  load sweep: the same seed at each load; offered = GPU-hours asked / GPU-hours of capacity\n";
  out += "  worst program: the lowest delivered / owed of any program over a window of the policy's\n";
  out += table.render();
  for (const std::string& sentence : first_failures(scenario)) out += support::printable("  " + sentence + "\n");
  return out;
}

}  // namespace allot::simulator
