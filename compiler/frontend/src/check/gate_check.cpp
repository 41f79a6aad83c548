// Rollout gates (spec: "Gates"): a known metric, a threshold in the metric's
// unit, a class only on wait metrics, a window only where the metric has one.
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "allot/gates.h"
#include "check_context.h"
#include "suggest.h"
#include "typing.h"

namespace allot {
namespace {

// The type of a gate's threshold literal; `string` is reported by the caller.
Type literal_type(const ast::Expr& literal) {
  switch (literal.kind) {
    case ast::ExprKind::number:
      return Type::number;
    case ast::ExprKind::duration:
      return Type::duration;
    case ast::ExprKind::percent:
      return Type::percent;
    case ast::ExprKind::date:
      return Type::date;
    case ast::ExprKind::boolean:
      return Type::boolean;
    default:
      return Type::string;
  }
}

// The metrics that satisfy `wanted`, as "`a`, `b` and `c`".
template <typename Predicate>
std::string metric_list(Predicate wanted) {
  std::vector<std::string> names;
  for (const auto& metric : kGateMetrics) {
    if (wanted(metric)) names.emplace_back(metric.name);
  }
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    list += fmt::format("{}`{}`", i == 0 ? "" : i + 1 == names.size() ? " and " : ", ", names[i]);
  }
  return list;
}

// `7d`, `36h`, `90m`: the largest unit that divides the window exactly (days,
// not weeks: windows are written in days).
std::string compact_duration(double seconds) {
  constexpr std::pair<const char*, double> kUnits[] = {{"d", 86400}, {"h", 3600}, {"m", 60}};
  for (const auto& [suffix, length] : kUnits) {
    if (seconds >= length && std::fmod(seconds, length) == 0) return fmt::format("{}{}", seconds / length, suffix);
  }
  return fmt::format("{}s", seconds);
}

// The type a metric's threshold is written in.
Type threshold_type(const GateMetricInfo& metric) {
  return metric.unit == GateUnit::fraction ? Type::percent : Type::duration;
}

void check_operator(const ast::Gate& gate, const CheckContext& context) {
  if (find_gate_op(gate.op)) return;
  context.diagnostics.error(DiagnosticCode::invalid_gate, gate.op_span, fmt::format("a gate cannot use `{}`", gate.op))
      .help("a gate is a threshold: write `>=` for a minimum or `<=` for a maximum");
}

void check_subject(const ast::Gate& gate, const GateMetricInfo& metric, const Scope& scope,
                   const CheckContext& context) {
  if (!gate.subject) return;
  if (!metric.takes_class) {
    context.diagnostics
        .error(DiagnosticCode::invalid_gate, gate.subject_span,
               fmt::format("`{}` is not measured per class", gate.metric))
        .help(fmt::format("remove `{}`; a class applies only to {}", *gate.subject,
                          metric_list([](const GateMetricInfo& m) { return m.takes_class; })));
    return;
  }
  if (scope.classes.count(*gate.subject) || scope.incomplete) return;  // incomplete: maybe the failed import's
  std::vector<std::string> classes;
  for (const auto& [name, decl] : scope.classes) classes.push_back(name);
  context.diagnostics
      .error(DiagnosticCode::unknown_name, gate.subject_span, fmt::format("unknown class `{}`", *gate.subject))
      .help(suggest(*gate.subject, classes));
}

void check_threshold(const ast::Gate& gate, const GateMetricInfo& metric, const CheckContext& context) {
  if (!gate.threshold) return;
  const Type threshold = literal_type(*gate.threshold);
  const Type wanted = threshold_type(metric);
  if (threshold == wanted) return;
  context.diagnostics
      .error(DiagnosticCode::type_mismatch, gate.threshold->span,
             fmt::format("the threshold of `{}` must be a `{}`, not `{}`", gate.metric, type_name(wanted),
                         type_name(threshold)))
      .help(literal_unit_help(wanted, threshold, *gate.threshold));
}

void check_window(const ast::Gate& gate, const GateMetricInfo& metric, const CheckContext& context) {
  if (!gate.window_seconds) return;
  if (metric.takes_window) {
    return check_whole_hours(*gate.window_seconds, gate.window_span, fmt::format("the window of `{}`", gate.metric),
                             "over", context);
  }
  context.diagnostics
      .error(DiagnosticCode::invalid_gate, gate.window_span,
             fmt::format("`{}` is not measured over a window", gate.metric))
      .help(fmt::format("remove `over {}`; a window applies only to {}", compact_duration(*gate.window_seconds),
                        metric_list([](const GateMetricInfo& m) { return m.takes_window; })));
}

void check_gate(const ast::Gate& gate, const Scope& scope, const CheckContext& context) {
  check_operator(gate, context);
  const GateMetricInfo* metric = find_gate_metric(gate.metric);
  if (!metric) {
    std::vector<std::string> names;
    for (const auto& known : kGateMetrics) names.emplace_back(known.name);
    context.diagnostics
        .error(DiagnosticCode::unknown_gate, gate.metric_span, fmt::format("unknown gate metric `{}`", gate.metric))
        .help(suggest(gate.metric, names));
    return;
  }
  check_subject(gate, *metric, scope, context);
  check_threshold(gate, *metric, context);
  check_window(gate, *metric, context);
}

}  // namespace

void check_gates(const Program& program, const Scope& scope, const CheckContext& context) {
  if (program.modules.empty()) return;
  for (const auto& policy : program.modules.front().policies) {
    for (const auto& gates : policy.gates) {
      for (const auto& gate : gates.gates) check_gate(gate, scope, context);
    }
  }
}

}  // namespace allot
