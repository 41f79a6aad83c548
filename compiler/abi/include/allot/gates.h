// Rollout gates (spec: "Gates"): the metrics `allot replay` measures and the
// comparisons a gate makes, each in one table. The front end checks gates
// against them, lowering stores the enums in GateInfo, and the simulator
// measures, compares and reports by them, so a metric is added here and in
// the simulator's measured() and nowhere else. Header-only, part of
// allot_policy_abi. The order is the order of the docs' table and of the
// metric lists in diagnostics.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

// clang-format off
// X(metric, unit, takes_window, takes_class, doc, note): `note` follows the
// measured value in a gate's detail ("of GPU-time used"); a per-class metric's
// follows the job count ("p90"); empty where the replay words it.
#define ALLOT_GATE_METRICS(X) \
  X(share_delivery, fraction, true, false, \
    "worst delivered/entitled share of a program with sustained demand", "") \
  X(lost_work, fraction, false, false, "GPU-time lost to preemption, of all GPU-time", "of GPU-time used") \
  X(deadline_slo, fraction, false, false, "deadline jobs that finished in time", "") \
  X(occupancy, fraction, false, false, "GPU-time running a job, of all GPU-time", "of GPU-time on up nodes") \
  X(fragmentation, fraction, false, false, "free GPUs that no pending job could use, of all free GPUs", \
    "of free GPU-time") \
  X(unassigned_share, fraction, false, false, "GPU-time charged as unassigned capacity", "of GPU-time delivered") \
  X(p50_wait, seconds, false, true, "median time from submission to start", "") \
  X(p90_wait, seconds, false, true, "90th-percentile time from submission to start", "") \
  X(max_wait, seconds, false, true, "longest time from submission to start", "") \
  X(time_to_first_progress, seconds, false, true, "time from submission to the first checkpoint or completion", "p90")

// X(op, text): how a gate compares its measured value with its threshold.
#define ALLOT_GATE_OPS(X) \
  X(at_least, ">=") \
  X(above, ">") \
  X(at_most, "<=") \
  X(below, "<")
// clang-format on

namespace allot {

enum class GateMetric {
#define ALLOT_GATE_METRIC_ENUM(metric, unit, takes_window, takes_class, doc, note) metric,
  ALLOT_GATE_METRICS(ALLOT_GATE_METRIC_ENUM)
#undef ALLOT_GATE_METRIC_ENUM
};

// The unit of a metric's value and threshold (abi units).
enum class GateUnit { fraction, seconds };

// One row of the metric table.
struct GateMetricInfo {
  GateMetric metric;
  std::string_view name;  // as written in policies
  GateUnit unit;          // a threshold is a percent (fraction) or a duration (seconds)
  bool takes_window;      // `over 7d`
  bool takes_class;       // `p90_wait debug <= 5m`
  std::string_view doc;
  std::string_view note;
};

// The metric table, in enum order.
inline constexpr std::array kGateMetrics = {
#define ALLOT_GATE_METRIC_INFO(metric, unit, takes_window, takes_class, doc, note) \
  GateMetricInfo{GateMetric::metric, #metric, GateUnit::unit, takes_window, takes_class, doc, note},
    ALLOT_GATE_METRICS(ALLOT_GATE_METRIC_INFO)
#undef ALLOT_GATE_METRIC_INFO
};

constexpr const GateMetricInfo& gate_metric_info(GateMetric metric) {
  return kGateMetrics[static_cast<std::size_t>(metric)];
}

constexpr std::string_view gate_metric_name(GateMetric metric) { return gate_metric_info(metric).name; }

// The metric written `name`, or nullptr.
constexpr const GateMetricInfo* find_gate_metric(std::string_view name) {
  for (const auto& info : kGateMetrics) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

enum class GateOp {
#define ALLOT_GATE_OP_ENUM(op, text) op,
  ALLOT_GATE_OPS(ALLOT_GATE_OP_ENUM)
#undef ALLOT_GATE_OP_ENUM
};

// The operator table, in enum order: how each is written.
inline constexpr std::array kGateOps = {
#define ALLOT_GATE_OP_TEXT(op, text) std::string_view(text),
    ALLOT_GATE_OPS(ALLOT_GATE_OP_TEXT)
#undef ALLOT_GATE_OP_TEXT
};

constexpr std::string_view gate_op_text(GateOp op) { return kGateOps[static_cast<std::size_t>(op)]; }

// The operator written `text`, or nullopt for one a gate cannot use (`==`, `!=`).
constexpr std::optional<GateOp> find_gate_op(std::string_view text) {
  for (std::size_t i = 0; i < kGateOps.size(); ++i) {
    if (kGateOps[i] == text) return static_cast<GateOp>(i);
  }
  return std::nullopt;
}

}  // namespace allot
