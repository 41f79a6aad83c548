// Small inline-SVG charts: line charts (linear or logarithmic x) and grouped
// bars, with the CSS they are drawn with. Self-contained markup, no scripts.
// The replay report (`allot replay --html`) and `allot serve`'s dashboard
// (GET /history.svg) both draw with these, so their charts look and read alike.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/text.h"

namespace allot::plot {

// One line of a chart; a NaN y breaks the line.
struct PlotLine {
  std::string label;
  std::string color;
  std::vector<double> x;
  std::vector<double> y;
  bool dashed = false;    // a threshold or what was owed, not what happened
  bool in_legend = true;  // false: a line the legend's other entries explain ("dashed: owed")
};

// How a chart's axes are labelled. `dates`: x in hours after PlotOptions::x_origin,
// ticks at midnights UTC ("Mon 11-30", or "11-30" when ticks are days apart).
enum class AxisFormat { number, percent, duration, dates };

// A horizontal line across the plot at `y` (a gate's threshold), drawn dashed
// and labelled with `label` ("share_delivery >= 80% over 1d").
struct Threshold {
  double y = 0;
  std::string label;
};

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
  // Each solid line's label written at its last point, so lines are told
  // apart without colour (as the legend alone does not).
  bool label_ends = false;
  std::vector<Threshold> thresholds = {};  // always inside the y range
};

// The colour of series `index` (a report's policy, a dashboard's program):
// each keeps one colour throughout a page.
const char* series_color(std::size_t index);

// Whether a chart would show anything: some point with a y above zero.
bool has_positive_point(const std::vector<PlotLine>& lines);

// A line chart with axes, ticks and a legend.
std::string line_chart(const std::vector<PlotLine>& lines, const PlotOptions& options);

// Bars: one group per category, one bar per series (series colours and labels from `series`).
std::string bar_chart(const std::string& title, const std::vector<std::string>& categories,
                      const std::vector<PlotLine>& series, AxisFormat y_format, const std::string& y_label = "");

// A chart's frame holding only `message` ("no history yet"): where a chart is
// expected but there is nothing to draw yet.
std::string message_chart(const std::string& title, const std::string& message);

// `chart` with chart_style() inside it, so it renders the same on its own
// (served as image/svg+xml) as on a page that has the rules.
std::string with_style(const std::string& chart);

// The CSS rules the charts are drawn with, all under `.chart` so they touch
// nothing else of a page. Colours follow the page: text and axes in
// currentColor, greys from the page's --muted and --line variables when it
// has them (the dashboard's light and dark themes), fixed greys when not.
const char* chart_style();

// Text safe inside HTML or SVG (support/text.h).
using support::escape_html;

}  // namespace allot::plot
