// Calendar dates and times of day as every part of Allot reads and writes them:
// UTC, the proleptic Gregorian calendar of <chrono> (year_month_day, sys_days),
// ISO 8601 / RFC 3339 text. Times are whole seconds since 1970-01-01T00:00:00Z.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace allot::support {

// Days from 1970-01-01 to `year`-`month`-`day` (negative before). A day past
// the end of its month counts on into the next month.
std::int64_t days_from_civil(int year, unsigned month, unsigned day);

// "2026-11-30" (exactly four, two and two digits, a real day) as days since
// 1970-01-01; nullopt for anything else.
std::optional<std::int64_t> parse_date(std::string_view text);

// Days since 1970-01-01 as "2026-11-30".
std::string format_date(std::int64_t days);

// Seconds since the epoch as "2026-11-30T09:30:00Z".
std::string format_timestamp(std::int64_t seconds);

// The day (UTC) of seconds since the epoch: "2026-11-30".
std::string format_day(std::int64_t seconds);

// A time as people type it and snapshots write it: an RFC 3339 time
// ("2026-12-02T09:30:00Z", "t" or a space for "T", or a "+02:00" offset), a
// date (its midnight, UTC), or whole seconds since the epoch up to
// kLatestEpochSeconds (duration.h). nullopt for anything else.
std::optional<std::int64_t> parse_timestamp(std::string_view text);

}  // namespace allot::support
