// Small inline-SVG charts for the HTML report: line charts (linear or
// logarithmic x) and grouped bars. Self-contained markup, no scripts.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace allot::simulator {

// One line of a chart; a NaN y breaks the line.
struct PlotLine {
  std::string label;
  std::string color;
  std::vector<double> x;
  std::vector<double> y;
  bool dashed = false;  // a threshold, not data
};

// How a chart's axes are labelled. `dates`: x in hours after PlotOptions::x_origin,
// ticks at midnights UTC ("Mon 11-30", or "11-30" when ticks are days apart).
enum class AxisFormat { number, percent, duration, dates };

struct PlotOptions {
  std::string title;
  AxisFormat x_format = AxisFormat::number;
  AxisFormat y_format = AxisFormat::number;
  bool log_x = false;  // x values must be > 0
  double y_min = 0;
  std::optional<double> y_max;  // default: the largest y (at least 1 for percent)
  bool steps = false;           // draw as a step function (CDFs)
  std::string x_label = "";     // what and in which unit: "wait (log scale)", "date (UTC)"
  std::string y_label = "";     // "GPUs", "% of jobs", "hours"
  double x_origin = 0;          // AxisFormat::dates: epoch seconds at x = 0
  bool markers = false;         // a dot at every point (few points, as in a sweep)
};

// The colour of the report's policy `index`: each policy has one colour throughout.
const char* policy_color(std::size_t index);

// Whether a chart would show anything: some point with a y above zero.
bool has_positive_point(const std::vector<PlotLine>& lines);

// A line chart with axes, ticks and a legend.
std::string line_chart(const std::vector<PlotLine>& lines, const PlotOptions& options);

// Bars: one group per category, one bar per series (series colours and labels from `series`).
std::string bar_chart(const std::string& title, const std::vector<std::string>& categories,
                      const std::vector<PlotLine>& series, AxisFormat y_format, const std::string& y_label = "");

// Text safe inside HTML or SVG.
std::string escape_html(const std::string& text);

}  // namespace allot::simulator
