// Times as people type them on a command line and as snapshots write them.
#include <charconv>
#include <chrono>

#include "allot/snapshot.h"

#include "allot/duration.h"
#include "cycle/reasons.h"

namespace allot::runtime {
namespace {

// 9999-12-31T23:59:59Z: later times have no four-digit year to write.
constexpr Seconds kLatest = support::kLatestEpochSeconds;

// Reads exactly `width` digits at `at` (advancing it), or nullopt.
std::optional<int> digits(std::string_view text, std::size_t& at, std::size_t width) {
  if (at + width > text.size()) return std::nullopt;
  int value = 0;
  const auto [end, error] = std::from_chars(text.data() + at, text.data() + at + width, value);
  if (error != std::errc() || end != text.data() + at + width) return std::nullopt;
  at += width;
  return value;
}

bool expect(std::string_view text, std::size_t& at, std::string_view choices) {
  if (at >= text.size() || choices.find(text[at]) == std::string_view::npos) return false;
  ++at;
  return true;
}

// Midnight UTC of YYYY-MM-DD at `at`, if it is a real day.
std::optional<Seconds> day_start(std::string_view text, std::size_t& at) {
  const auto year = digits(text, at, 4);
  if (!year || !expect(text, at, "-")) return std::nullopt;
  const auto month = digits(text, at, 2);
  if (!month || !expect(text, at, "-")) return std::nullopt;
  const auto day = digits(text, at, 2);
  if (!day) return std::nullopt;
  using namespace std::chrono;
  const year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                            std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) return std::nullopt;
  return sys_days(date).time_since_epoch().count() * Seconds{86400};
}

// HH:MM:SS then Z or ±HH:MM, as seconds after midnight UTC.
std::optional<Seconds> clock_time(std::string_view text, std::size_t& at) {
  const auto hours = digits(text, at, 2);
  if (!hours || !expect(text, at, ":")) return std::nullopt;
  const auto minutes = digits(text, at, 2);
  if (!minutes || !expect(text, at, ":")) return std::nullopt;
  const auto seconds = digits(text, at, 2);
  if (!seconds || *hours > 23 || *minutes > 59 || *seconds > 59) return std::nullopt;
  const Seconds local = *hours * 3600 + *minutes * 60 + *seconds;
  if (expect(text, at, "Zz")) return local;
  const bool east = at < text.size() && text[at] == '+';
  if (!expect(text, at, "+-")) return std::nullopt;
  const auto offset_hours = digits(text, at, 2);
  if (!offset_hours || !expect(text, at, ":")) return std::nullopt;
  const auto offset_minutes = digits(text, at, 2);
  if (!offset_minutes || *offset_hours > 23 || *offset_minutes > 59) return std::nullopt;
  const Seconds offset = *offset_hours * 3600 + *offset_minutes * 60;
  return east ? local - offset : local + offset;
}

}  // namespace

std::string format_timestamp(Seconds time) { return cycle::format_time(time); }

std::optional<Seconds> parse_timestamp(std::string_view text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    Seconds seconds = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (error != std::errc() || end != text.data() + text.size() || seconds > kLatest) return std::nullopt;
    return seconds;
  }
  std::size_t at = 0;
  const auto day = day_start(text, at);
  if (!day) return std::nullopt;
  if (at == text.size()) return day;
  if (!expect(text, at, "Tt ")) return std::nullopt;
  const auto time = clock_time(text, at);
  if (!time || at != text.size()) return std::nullopt;
  return *day + *time;
}

}  // namespace allot::runtime
