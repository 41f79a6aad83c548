#include "allot/duration.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include <utility>

namespace allot::support {

namespace {

constexpr std::string_view kUnits = "wdhms";
constexpr std::int64_t kUnitSeconds[] = {7 * 86400, 86400, 3600, 60, 1};

// "1.5h": digits, a point, digits, one unit.
std::optional<double> decimal_duration(std::string_view text) {
  const std::size_t point = text.find('.');
  const std::size_t unit = text.size() - 1;
  if (point == 0 || point + 1 >= unit) return std::nullopt;
  for (std::size_t i = 0; i < unit; ++i) {
    if (i != point && (text[i] < '0' || text[i] > '9')) return std::nullopt;
  }
  const std::size_t which = kUnits.find(text[unit]);
  if (which == std::string_view::npos) return std::nullopt;
  return std::strtod(std::string(text.substr(0, unit)).c_str(), nullptr) * static_cast<double>(kUnitSeconds[which]);
}

// "1h30m": whole numbers, units largest first, each once. In double: every
// duration within kMaxDurationSeconds (each number and the sum below 2^53) is
// exact, and a longer one is still a value the checker can say is too long.
std::optional<double> whole_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  std::size_t next_unit = 0, at = 0;
  while (at < text.size()) {
    const std::size_t digits_start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    if (at == digits_start || at == text.size()) return std::nullopt;
    const std::size_t unit = kUnits.find(text[at], next_unit);
    if (unit == std::string_view::npos) return std::nullopt;
    const double number = std::strtod(std::string(text.substr(digits_start, at - digits_start)).c_str(), nullptr);
    total += number * static_cast<double>(kUnitSeconds[unit]);
    next_unit = unit + 1;
    ++at;
  }
  return total;
}

}  // namespace

std::optional<double> parse_duration_unbounded(std::string_view text) {
  return text.find('.') != std::string_view::npos ? decimal_duration(text) : whole_duration(text);
}

std::optional<double> parse_duration_seconds(std::string_view text) {
  const auto seconds = parse_duration_unbounded(text);
  if (!seconds || !(*seconds <= static_cast<double>(kMaxDurationSeconds))) return std::nullopt;
  return seconds;
}

std::optional<std::int64_t> parse_duration(std::string_view text) {
  const auto seconds = parse_duration_seconds(text);
  if (!seconds || *seconds != std::floor(*seconds)) return std::nullopt;
  return static_cast<std::int64_t>(*seconds);
}

std::string format_duration(std::int64_t seconds) {
  if (seconds <= 0) return "0s";
  std::string text;
  for (const auto& [unit, length] : {std::pair{'d', std::int64_t{86400}}, {'h', 3600}, {'m', 60}, {'s', 1}}) {
    if (seconds >= length) text += fmt::format("{}{}", seconds / length, unit);
    seconds %= length;
  }
  return text;
}

std::string format_duration_rounded(double seconds) {
  if (seconds < 60) return fmt::format("{:.0f}s", seconds);
  if (seconds < 3600) return fmt::format("{:.0f}m", seconds / 60);
  if (seconds < 86400) return fmt::format("{:.1f}h", seconds / 3600);
  return fmt::format("{:.1f}d", seconds / 86400);
}

}  // namespace allot::support
