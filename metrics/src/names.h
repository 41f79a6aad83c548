// The registration rules of metrics.h: Prometheus's name grammars and the
// naming conventions promtool's linter enforces, checked once per family.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace allot::metrics {

// The three kinds, as the exposition's TYPE line names them.
enum class Kind { counter, gauge, histogram };
std::string_view kind_name(Kind kind);

// Throws std::invalid_argument naming what is wrong with a family's name,
// help text or label names (the rules are listed at Registry in metrics.h).
void check_family(Kind kind, std::string_view name, std::string_view help, const std::vector<std::string>& label_names);

// Throws std::invalid_argument unless the bounds are finite and strictly increasing.
void check_upper_bounds(const std::vector<double>& upper_bounds);

}  // namespace allot::metrics
