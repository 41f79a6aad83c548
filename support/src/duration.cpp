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
  if (which == std::string_view::npos || point > 18) return std::nullopt;  // more digits than any limit allows
  const double seconds = std::strtod(std::string(text.substr(0, unit)).c_str(), nullptr) * kUnitSeconds[which];
  if (!(seconds <= static_cast<double>(kMaxDurationSeconds))) return std::nullopt;
  return seconds;
}

// "1h30m": whole numbers, units largest first, each once.
std::optional<std::int64_t> whole_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t total = 0;
  std::size_t next_unit = 0, at = 0;
  while (at < text.size()) {
    std::int64_t number = 0;
    const std::size_t digits_start = at;
    // Each number is below kMaxDurationSeconds, so number * 10 + 9 never overflows.
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at) {
      number = number * 10 + (text[at] - '0');
      if (number > kMaxDurationSeconds) return std::nullopt;
    }
    if (at == digits_start || at == text.size()) return std::nullopt;
    const std::size_t unit = kUnits.find(text[at++], next_unit);
    if (unit == std::string_view::npos) return std::nullopt;
    if (number > (kMaxDurationSeconds - total) / kUnitSeconds[unit]) return std::nullopt;
    total += number * kUnitSeconds[unit];
    next_unit = unit + 1;
  }
  return total;
}

}  // namespace

std::optional<double> parse_duration_seconds(std::string_view text) {
  if (text.find('.') != std::string_view::npos) return decimal_duration(text);
  const auto whole = whole_duration(text);
  if (!whole) return std::nullopt;
  return static_cast<double>(*whole);
}

std::optional<std::int64_t> parse_duration(std::string_view text) {
  if (text.find('.') == std::string_view::npos) return whole_duration(text);
  const auto seconds = decimal_duration(text);
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
