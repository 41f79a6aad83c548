#include "allot/duration.h"

#include <fmt/format.h>

#include <utility>

namespace allot::support {

std::optional<std::int64_t> parse_duration(std::string_view text) {
  constexpr std::string_view kUnits = "wdhms";
  constexpr std::int64_t kUnitSeconds[] = {7 * 86400, 86400, 3600, 60, 1};
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
