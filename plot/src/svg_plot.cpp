#include "allot/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "allot/dates.h"
#include "allot/duration.h"

namespace allot::plot {
namespace {

constexpr double kWidth = 480, kHeight = 270;
constexpr double kLeft = 62, kRight = 14, kTop = 46, kBottom = 40;
const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"};

// Maps data to pixels inside the plot area.
struct Frame {
  double x_min, x_max, y_min, y_max;
  bool log_x;

  double px(double x) const {
    const double value = log_x ? std::log10(std::max(x, 1e-9)) : x;
    const double low = log_x ? std::log10(x_min) : x_min, high = log_x ? std::log10(x_max) : x_max;
    return kLeft + (high > low ? (value - low) / (high - low) : 0) * (kWidth - kLeft - kRight);
  }
  double py(double y) const {
    const double clamped = std::clamp(y, y_min, y_max);
    return kHeight - kBottom - (y_max > y_min ? (clamped - y_min) / (y_max - y_min) : 0) * (kHeight - kTop - kBottom);
  }
};

// 1, 2 or 5 times a power of ten, near range / count.
double nice_step(double range, int count) {
  if (range <= 0) return 1;
  const double raw = range / count, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= factor * power) return factor * power;
  }
  return 10 * power;
}

// "Mon 11-30" for daily ticks, "11-30" for sparser ones, "14:30" for ticks
// inside a day (with the date at midnight) (UTC).
std::string date_label(double hours, double origin, double step_hours) {
  static const char* const kWeekdays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  const auto seconds = static_cast<std::int64_t>(std::llround(origin + hours * 3600));
  const auto of_day = ((seconds % 86400) + 86400) % 86400;
  if (step_hours < 24 - 1e-9 && of_day != 0) return fmt::format("{:02}:{:02}", of_day / 3600, of_day % 3600 / 60);
  const std::string day = support::format_day(seconds).substr(5);
  if (step_hours > 24 + 1e-9) return day;
  const auto days = static_cast<long long>(std::floor(static_cast<double>(seconds) / 86400));
  return fmt::format("{} {}", kWeekdays[((days + 3) % 7 + 7) % 7], day);  // 1970-01-01 was a Thursday
}

std::string tick_label(double value, AxisFormat format) {
  switch (format) {
    case AxisFormat::percent:
      return fmt::format("{:.0f}%", value * 100);
    case AxisFormat::duration:
      return support::format_duration(std::llround(value));  // ticks fall on whole units: "10m", "6h", "7d"
    case AxisFormat::dates:
    case AxisFormat::number:
      break;
  }
  return fmt::format("{:g}", std::round(value * 100) / 100);
}

std::vector<double> linear_ticks(double low, double high) {
  const double step = nice_step(high - low, 5);
  std::vector<double> ticks;
  for (double tick = std::ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) ticks.push_back(tick);
  return ticks;
}

// The hours between ticks: over two days or more, every day up to 8 days, then
// every 2, 5, 10... days; shorter (a service's last hours), whole minutes or
// hours, at most 8 ticks.
double date_step(double span_hours) {
  const double days = span_hours / 24;
  if (days > 2) return 24 * (days <= 8 ? 1.0 : std::max(1.0, nice_step(days, 6)));
  for (double step : {1 / 60.0, 5 / 60.0, 10 / 60.0, 0.25, 0.5, 1.0, 2.0, 3.0, 6.0, 12.0}) {
    if (span_hours / step <= 8) return step;
  }
  return 24;
}

// Ticks `step` hours apart, on whole multiples of it in UTC (midnights for days),
// between `low` and `high` hours after `origin`.
std::vector<double> date_ticks(double low, double high, double origin, double step) {
  const double offset = std::fmod(origin, 86400.0) / 3600.0;  // hours after midnight at x = 0
  std::vector<double> ticks;
  for (double tick = std::ceil((low + offset) / step - 1e-9) * step - offset; tick <= high + 1e-9; tick += step) {
    ticks.push_back(tick);
  }
  return ticks;
}

std::vector<double> log_ticks(double low, double high) {
  std::vector<double> ticks;
  for (double tick : {1.0, 10.0, 60.0, 600.0, 3600.0, 6 * 3600.0, 86400.0, 7 * 86400.0, 30 * 86400.0}) {
    if (tick >= low && tick <= high) ticks.push_back(tick);
  }
  return ticks;
}

std::string x_axis(const Frame& frame, const PlotOptions& options) {
  std::string svg;
  const bool dates = options.x_format == AxisFormat::dates;
  const double step = date_step(frame.x_max - frame.x_min);
  const std::vector<double> ticks = options.log_x ? log_ticks(frame.x_min, frame.x_max)
                                    : dates       ? date_ticks(frame.x_min, frame.x_max, options.x_origin, step)
                                                  : linear_ticks(frame.x_min, frame.x_max);
  for (double tick : ticks) {
    svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" class="grid"/>)", frame.px(tick),
                       frame.px(tick), kTop, kHeight - kBottom);
    const std::string label = dates ? date_label(tick, options.x_origin, step) : tick_label(tick, options.x_format);
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="tick" text-anchor="middle">{}</text>)", frame.px(tick),
                       kHeight - kBottom + 14, label);
  }
  std::string unit = options.x_label;
  // Ticks inside a day read "14:30": the unit says which day they start on.
  if (dates && step < 24 - 1e-9) unit += (unit.empty() ? "" : ", ") + date_label(frame.x_min, options.x_origin, 24);
  if (!unit.empty()) {
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="unit" text-anchor="middle">{}</text>)",
                       (kLeft + kWidth - kRight) / 2, kHeight - 5, escape_html(unit));
  }
  return svg;
}

// The y axis's unit, written up its left side.
std::string y_label(const std::string& text) {
  if (text.empty()) return "";
  return fmt::format(
      R"svg(<text transform="translate(12 {:.1f}) rotate(-90)" class="unit" text-anchor="middle">{}</text>)svg",
      (kTop + kHeight - kBottom) / 2, escape_html(text));
}

std::string axes(const Frame& frame, const PlotOptions& options) {
  std::string svg;
  for (double tick : linear_ticks(frame.y_min, frame.y_max)) {
    svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" class="grid"/>)", kLeft,
                       kWidth - kRight, frame.py(tick), frame.py(tick));
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="tick" text-anchor="end">{}</text>)", kLeft - 4,
                       frame.py(tick) + 3, tick_label(tick, options.y_format));
  }
  svg += x_axis(frame, options) + y_label(options.y_label);
  svg += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" class="frame"/>)", kLeft, kTop,
                     kWidth - kLeft - kRight, kHeight - kTop - kBottom);
  return svg;
}

// A sample of each labelled line (dashed where the line is) and its label:
// the key reads without colour.
std::string legend(const std::vector<PlotLine>& lines) {
  std::string svg;
  double x = kLeft;
  for (const PlotLine& line : lines) {
    if (line.label.empty() || !line.in_legend) continue;
    svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="32" y2="32" stroke="{}" class="key"{}/>)", x, x + 14,
                       line.color, line.dashed ? R"( stroke-dasharray="4 2")" : "");
    svg += fmt::format(R"(<text x="{:.1f}" y="36" class="legend">{}</text>)", x + 18, escape_html(line.label));
    x += 28 + 7 * static_cast<double>(line.label.size());
  }
  return svg;
}

std::string path_of(const PlotLine& line, const Frame& frame, bool steps) {
  std::string d;
  bool open = false;
  for (std::size_t i = 0; i < line.x.size() && i < line.y.size(); ++i) {
    if (std::isnan(line.y[i]) || (frame.log_x && line.x[i] <= 0)) {
      open = false;
      continue;
    }
    const double x = frame.px(line.x[i]), y = frame.py(line.y[i]);
    if (!open) {
      d += fmt::format("M{:.1f} {:.1f}", x, y);
    } else if (steps) {
      d += fmt::format("H{:.1f}V{:.1f}", x, y);
    } else {
      d += fmt::format("L{:.1f} {:.1f}", x, y);
    }
    open = true;
  }
  if (d.empty()) return "";  // a legend entry only (the key to dashed lines)
  return fmt::format(R"(<path d="{}" stroke="{}" class="line"{}><title>{}</title></path>)", d, line.color,
                     line.dashed ? R"( stroke-dasharray="6 4")" : "", escape_html(line.label));
}

std::string markers_of(const PlotLine& line, const Frame& frame) {
  std::string svg;
  for (std::size_t i = 0; i < line.x.size() && i < line.y.size(); ++i) {
    if (std::isnan(line.y[i])) continue;
    svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="{}"/>)", frame.px(line.x[i]),
                       frame.py(line.y[i]), line.color);
  }
  return svg;
}

Frame frame_for(const std::vector<PlotLine>& lines, const PlotOptions& options) {
  Frame frame{INFINITY, -INFINITY, options.y_min, options.y_max.value_or(-INFINITY), options.log_x};
  for (const PlotLine& line : lines) {
    for (std::size_t i = 0; i < line.x.size() && i < line.y.size(); ++i) {
      if (std::isnan(line.y[i]) || (options.log_x && line.x[i] <= 0)) continue;
      frame.x_min = std::min(frame.x_min, line.x[i]);
      frame.x_max = std::max(frame.x_max, line.x[i]);
      if (!options.y_max) frame.y_max = std::max(frame.y_max, line.y[i]);
    }
  }
  for (const Threshold& threshold : options.thresholds) {
    if (!options.y_max) frame.y_max = std::max(frame.y_max, threshold.y);
  }
  if (!std::isfinite(frame.x_min)) {
    frame.x_min = options.log_x ? 1 : 0;
    frame.x_max = frame.x_min + 1;
  }
  if (frame.x_max <= frame.x_min) frame.x_max = frame.x_min * (options.log_x ? 10 : 1) + 1;
  if (!std::isfinite(frame.y_max) || frame.y_max <= frame.y_min) frame.y_max = frame.y_min + 1;
  if (!options.y_max) frame.y_max *= 1.05;  // headroom above the highest point
  if (options.y_format == AxisFormat::percent && !options.y_max) frame.y_max = std::max(frame.y_max, 1.0);
  return frame;
}

std::string chart_open(const std::string& title) {
  return fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {:.0f} {:.0f}" class="chart" role="img" aria-label="{}"><text x="{:.0f}" y="16" class="title">{}</text>)",
      kWidth, kHeight, escape_html(title), kLeft, escape_html(title));
}

// A dashed line across the plot at the threshold, its label above the line's
// left end (the lines' own labels are at their right ends).
std::string threshold_line(const Threshold& threshold, const Frame& frame) {
  const double y = frame.py(threshold.y);
  return fmt::format(
      R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" class="threshold"/><text x="{:.1f}" y="{:.1f}" class="threshold-label">{}</text>)",
      kLeft, kWidth - kRight, y, y, kLeft + 4, y - 4, escape_html(threshold.label));
}

// The line's label at its last point, inside the plot.
std::string end_label(const PlotLine& line, const Frame& frame) {
  for (std::size_t i = std::min(line.x.size(), line.y.size()); i-- > 0;) {
    if (std::isnan(line.y[i])) continue;
    const double x = std::min(frame.px(line.x[i]) + 4, kWidth - kRight - 6 * static_cast<double>(line.label.size()));
    return fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="end-label">{}</text>)", x, frame.py(line.y[i]) - 4,
                       escape_html(line.label));
  }
  return "";
}

}  // namespace

std::string line_chart(const std::vector<PlotLine>& lines, const PlotOptions& options) {
  const Frame frame = frame_for(lines, options);
  std::string svg = chart_open(options.title) + axes(frame, options) + legend(lines);
  for (const Threshold& threshold : options.thresholds) svg += threshold_line(threshold, frame);
  for (const PlotLine& line : lines) {
    svg += path_of(line, frame, options.steps);
    if (options.markers && !line.dashed) svg += markers_of(line, frame);
    if (options.label_ends && !line.dashed) svg += end_label(line, frame);
  }
  return svg + "</svg>";
}

std::string message_chart(const std::string& title, const std::string& message) {
  return chart_open(title) +
         fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="message" text-anchor="middle">{}</text></svg>)", kWidth / 2,
                     kHeight / 2, escape_html(message));
}

std::string bar_chart(const std::string& title, const std::vector<std::string>& categories,
                      const std::vector<PlotLine>& series, AxisFormat y_format, const std::string& y_axis_label) {
  double top = 0;
  for (const PlotLine& line : series) {
    for (double y : line.y) top = std::max(top, y);
  }
  const Frame frame{0, static_cast<double>(std::max<std::size_t>(1, categories.size())), 0, top > 0 ? top * 1.1 : 1,
                    false};
  std::string svg = chart_open(title);
  for (double tick : linear_ticks(frame.y_min, frame.y_max)) {
    svg += fmt::format(
        R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" class="grid"/><text x="{:.1f}" y="{:.1f}" class="tick" text-anchor="end">{}</text>)",
        kLeft, kWidth - kRight, frame.py(tick), frame.py(tick), kLeft - 4, frame.py(tick) + 3,
        tick_label(tick, y_format));
  }
  const double group_width = (frame.px(1) - frame.px(0)) * 0.8;
  const double bar_width = group_width / static_cast<double>(std::max<std::size_t>(1, series.size()));
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const double left = frame.px(static_cast<double>(c)) + (frame.px(1) - frame.px(0)) * 0.1;
    for (std::size_t s = 0; s < series.size(); ++s) {
      const double value = c < series[s].y.size() ? series[s].y[c] : 0;
      svg += fmt::format(
          R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}"><title>{}: {:.2f}</title></rect>)",
          left + bar_width * static_cast<double>(s), frame.py(value), std::max(1.0, bar_width - 2),
          frame.py(0) - frame.py(value), series[s].color, escape_html(series[s].label), value);
    }
    svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="tick" text-anchor="middle">{}</text>)",
                       left + group_width / 2, kHeight - kBottom + 14, escape_html(categories[c]));
  }
  svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" class="axis"/>)", kLeft, kWidth - kRight,
                     frame.py(0), frame.py(0));
  return svg + y_label(y_axis_label) + legend(series) + "</svg>";
}

std::string with_style(const std::string& chart) {
  const std::size_t opened = chart.find('>');
  if (opened == std::string::npos) return chart;
  return chart.substr(0, opened + 1) + "<style>" + chart_style() + "</style>" + chart.substr(opened + 1);
}

const char* chart_style() {
  // Text and axes in currentColor and greys from the page's variables, so the
  // charts follow a page's light or dark theme; the fallbacks are the report's.
  return ".chart{width:480px;max-width:100%;height:auto;color:var(--fg,#222);background:var(--bg,#fff);"
         "border:1px solid var(--line,#ddd)}"
         ".chart .grid{stroke:currentColor;stroke-opacity:.12}.chart .frame{fill:none;stroke:currentColor;"
         "stroke-opacity:.45}.chart .axis{stroke:currentColor;stroke-opacity:.45}"
         ".chart .line{fill:none;stroke-width:1.8}.chart .key{stroke-width:2.5}"
         ".chart .threshold{stroke:currentColor;stroke-width:1.2;stroke-dasharray:3 3}"
         ".chart text{fill:currentColor}.chart .tick,.chart .message{fill:var(--muted,#555)}"
         ".chart .tick,.chart .unit,.chart .end-label,.chart .threshold-label{font-size:10px}"
         ".chart .title{font-size:13px;font-weight:600}.chart .legend{font-size:11px}.chart .message{font-size:13px}";
}

const char* series_color(std::size_t index) { return kColors[index % std::size(kColors)]; }

bool has_positive_point(const std::vector<PlotLine>& lines) {
  for (const PlotLine& line : lines) {
    for (double y : line.y) {
      if (y > 0) return true;  // NaN compares false
    }
  }
  return false;
}

}  // namespace allot::plot
