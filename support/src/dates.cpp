#include "allot/dates.h"

#include <charconv>
#include <chrono>

#include <fmt/format.h>

#include "allot/duration.h"

namespace allot::support {
namespace {

constexpr std::int64_t kDaySeconds = 86400;

// Reads exactly `width` decimal digits at `at` (advancing it), or nullopt.
std::optional<int> digits(std::string_view text, std::size_t& at, std::size_t width) {
  if (at + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  at += width;
  return value;
}

bool expect(std::string_view text, std::size_t& at, std::string_view choices) {
  if (at >= text.size() || choices.find(text[at]) == std::string_view::npos) return false;
  ++at;
  return true;
}

// YYYY-MM-DD at `at` as days since the epoch, if it is a real day.
std::optional<std::int64_t> date_at(std::string_view text, std::size_t& at) {
  const auto year = digits(text, at, 4);
  if (!year || !expect(text, at, "-")) return std::nullopt;
  const auto month = digits(text, at, 2);
  if (!month || !expect(text, at, "-")) return std::nullopt;
  const auto day = digits(text, at, 2);
  if (!day) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                                         std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days{date}.time_since_epoch().count();
}

// HH:MM:SS then Z or ±HH:MM, as seconds after midnight UTC.
std::optional<std::int64_t> clock_time(std::string_view text, std::size_t& at) {
  const auto hours = digits(text, at, 2);
  if (!hours || !expect(text, at, ":")) return std::nullopt;
  const auto minutes = digits(text, at, 2);
  if (!minutes || !expect(text, at, ":")) return std::nullopt;
  const auto seconds = digits(text, at, 2);
  if (!seconds || *hours > 23 || *minutes > 59 || *seconds > 59) return std::nullopt;
  const std::int64_t local = *hours * 3600 + *minutes * 60 + *seconds;
  if (expect(text, at, "Zz")) return local;
  const bool east = at < text.size() && text[at] == '+';
  if (!expect(text, at, "+-")) return std::nullopt;
  const auto offset_hours = digits(text, at, 2);
  if (!offset_hours || !expect(text, at, ":")) return std::nullopt;
  const auto offset_minutes = digits(text, at, 2);
  if (!offset_minutes || *offset_hours > 23 || *offset_minutes > 59) return std::nullopt;
  const std::int64_t offset = *offset_hours * 3600 + *offset_minutes * 60;
  return east ? local - offset : local + offset;
}

}  // namespace

std::int64_t days_from_civil(int year, unsigned month, unsigned day) {
  using namespace std::chrono;
  const sys_days first{std::chrono::year{year} / std::chrono::month{month} / 1};
  return first.time_since_epoch().count() + static_cast<std::int64_t>(day) - 1;
}

std::optional<std::int64_t> parse_date(std::string_view text) {
  std::size_t at = 0;
  const auto days = date_at(text, at);
  if (!days || at != text.size()) return std::nullopt;
  return days;
}

std::string format_date(std::int64_t days) { return format_timestamp(days * kDaySeconds).substr(0, 10); }

std::string format_day(std::int64_t seconds) { return format_timestamp(seconds).substr(0, 10); }

std::string format_timestamp(std::int64_t seconds) {
  using namespace std::chrono;
  const sys_seconds point{std::chrono::seconds{seconds}};
  const auto day = std::chrono::floor<std::chrono::days>(point);
  const year_month_day date{day};
  const hh_mm_ss clock{point - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                     static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), clock.hours().count(),
                     clock.minutes().count(), clock.seconds().count());
}

std::optional<std::int64_t> parse_timestamp(std::string_view text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    std::int64_t seconds = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (error != std::errc() || end != text.data() + text.size() || seconds > kLatestEpochSeconds) return std::nullopt;
    return seconds;
  }
  std::size_t at = 0;
  const auto day = date_at(text, at);
  if (!day) return std::nullopt;
  if (at == text.size()) return *day * kDaySeconds;
  if (!expect(text, at, "Tt ")) return std::nullopt;
  const auto time = clock_time(text, at);
  if (!time || at != text.size()) return std::nullopt;
  return *day * kDaySeconds + *time;
}

}  // namespace allot::support
