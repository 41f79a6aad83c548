// The load sweep on the HTML page: the curves a capacity planner reads to
// decide how many GPUs to buy (wait and delivery against load, per policy).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "allot/svg_plot.h"
#include "report_sweep.h"

namespace allot::simulator {
using plot::AxisFormat;
using plot::escape_html;
using plot::has_positive_point;
using plot::line_chart;
using plot::PlotLine;
using plot::PlotOptions;

namespace {

// What the x axis measures.
std::string load_label(const ScenarioReport& scenario) {
  return scenario.sweep.front().capacity_scale ? "load (offered GPU-hours / capacity)"
                                               : "load (demand / capacity, the scenario's --load)";
}

// One line per policy of `value` at each point, by load; NaN where it has none.
template <class Value>
std::vector<PlotLine> against_load(const ScenarioReport& scenario, Value value) {
  const std::vector<const SweepPoint*> points = sweep_by_load(scenario.sweep);
  std::vector<PlotLine> lines;
  for (std::size_t p = 0; p < points.front()->policies.size(); ++p) {
    PlotLine line{points.front()->policies[p].policy, plot::series_color(p), {}, {}};
    for (const SweepPoint* point : points) {
      line.x.push_back(point->load);
      line.y.push_back(value(point->policies[p]).value_or(NAN));
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

PlotOptions load_plot(const ScenarioReport& scenario, const std::string& title, AxisFormat y_format,
                      std::optional<double> y_max, const std::string& y_label) {
  PlotOptions options{title, AxisFormat::number, y_format, false, 0, y_max, false};
  options.x_label = load_label(scenario);
  options.y_label = y_label;
  options.markers = true;
  return options;
}

// p90 wait of one class against load, in minutes, or hours when some wait reaches two.
std::string wait_plot(const ScenarioReport& scenario, const std::string& name, std::vector<PlotLine> lines) {
  double longest = 0;
  for (const PlotLine& line : lines) {
    for (double y : line.y) longest = std::isnan(y) ? longest : std::max(longest, y);
  }
  const bool hours = longest >= 2 * 3600;
  for (PlotLine& line : lines) {
    for (double& y : line.y) y /= hours ? 3600 : 60;
  }
  return line_chart(lines, load_plot(scenario, "p90 wait against load: " + name, AxisFormat::number, std::nullopt,
                                     hours ? "p90 wait (hours)" : "p90 wait (minutes)"));
}

// The policies' share_delivery gates, as dashed lines across the loads.
std::vector<PlotLine> delivery_gates(const std::vector<const SweepPoint*>& points) {
  std::vector<double> thresholds;
  for (const SweepResult& result : points.front()->policies) {
    if (!result.delivery_gate) continue;
    if (std::find(thresholds.begin(), thresholds.end(), *result.delivery_gate) == thresholds.end()) {
      thresholds.push_back(*result.delivery_gate);
    }
  }
  const double low = points.front()->load, high = points.back()->load;
  std::vector<PlotLine> lines;
  for (double threshold : thresholds) {
    lines.push_back(PlotLine{fmt::format("gate {:g}%", std::round(threshold * 1e4) / 100),
                             "#777",
                             {low, high},
                             {threshold, threshold},
                             true});
  }
  return lines;
}

// Nothing when no program had sustained demand at any load.
std::optional<std::string> delivery_plot(const ScenarioReport& scenario) {
  std::vector<PlotLine> lines = against_load(scenario, [](const SweepResult& result) -> std::optional<double> {
    if (!result.worst_delivery) return std::nullopt;
    return result.worst_delivery->delivery;
  });
  const bool measured = std::any_of(lines.begin(), lines.end(), [](const PlotLine& line) {
    return std::any_of(line.y.begin(), line.y.end(), [](double y) { return !std::isnan(y); });
  });
  if (!measured) return std::nullopt;
  for (PlotLine& gate : delivery_gates(sweep_by_load(scenario.sweep))) {
    lines.push_back(std::move(gate));
  }
  return line_chart(lines, load_plot(scenario, "worst program's share delivered against load", AxisFormat::percent,
                                     1.05, "% of owed (worst window)"));
}

}  // namespace

std::string sweep_html(const ScenarioReport& scenario) {
  if (scenario.sweep.empty()) return "";
  std::string charts, notes;
  for (const std::string& name : sweep_class_names(scenario.sweep)) {
    auto lines = against_load(scenario, [&](const SweepResult& result) { return sweep_p90_wait(result, name); });
    if (has_positive_point(lines)) {
      charts += wait_plot(scenario, name, std::move(lines));
    } else {
      notes += "<p class=note>" + escape_html("no jobs of class " + name + " waited at any load") + "</p>";
    }
  }
  if (auto plot = delivery_plot(scenario)) {
    charts += *plot;
  } else {
    notes += "<p class=note>no program had sustained demand at any load</p>";
  }
  std::string html = "<h3>load sweep</h3><div class=charts>" + charts + "</div>" + notes;
  for (const std::string& sentence : first_failures(scenario)) html += "<p>" + escape_html(sentence) + "</p>";
  return html;
}

}  // namespace allot::simulator
