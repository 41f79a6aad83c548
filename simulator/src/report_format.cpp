#include "report_format.h"

#include <fmt/format.h>

#include <cmath>

namespace allot::simulator {
namespace {

// A threshold as the policy would write it: whole units where they fit.
std::string threshold_duration(double seconds) {
  const auto whole = static_cast<long long>(std::llround(seconds));
  if (whole > 0 && whole % 86400 == 0) return fmt::format("{}d", whole / 86400);
  if (whole > 0 && whole % 3600 == 0) return fmt::format("{}h", whole / 3600);
  if (whole > 0 && whole % 60 == 0) return fmt::format("{}m", whole / 60);
  return fmt::format("{}s", whole);
}

}  // namespace

std::string format_percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

bool is_percent_metric(GateMetric metric) { return gate_metric_info(metric).unit == GateUnit::fraction; }

std::string format_metric(GateMetric metric, double value) {
  return is_percent_metric(metric) ? format_percent(value) : support::format_duration_rounded(value);
}

std::string gate_text(const GateInfo& gate) {
  std::string text(gate_metric_name(gate.metric));
  if (!gate.subject.empty()) text += " " + gate.subject;
  const std::string threshold = is_percent_metric(gate.metric)
                                    ? fmt::format("{:g}%", std::round(gate.threshold * 1e6) / 1e4)
                                    : threshold_duration(gate.threshold);
  text += fmt::format(" {} {}", gate_op_text(gate.op), threshold);
  if (gate.window) text += " over " + threshold_duration(*gate.window);
  return text;
}

}  // namespace allot::simulator
