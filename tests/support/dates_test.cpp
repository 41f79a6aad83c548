// One calendar for every input and report (support/dates.h).
#include <catch2/catch.hpp>

#include "allot/dates.h"
#include "allot/duration.h"

#include <vector>

namespace support = allot::support;

TEST_CASE("dates read and write as ISO text on the proleptic Gregorian calendar", "[support][dates]") {
  CHECK(support::days_from_civil(1970, 1, 1) == 0);
  CHECK(support::days_from_civil(2026, 11, 30) == 20'787);
  CHECK(support::days_from_civil(1969, 12, 31) == -1);
  CHECK(support::parse_date("2024-02-29") == support::days_from_civil(2024, 2, 29));
  CHECK_FALSE(support::parse_date("2023-02-29"));
  CHECK_FALSE(support::parse_date("2026-1-30"));
  CHECK_FALSE(support::parse_date("-026-11-30"));
  CHECK_FALSE(support::parse_date("2026-11-30T00:00:00Z"));
  CHECK(support::format_date(20'787) == "2026-11-30");
  CHECK(support::format_date(-1) == "1969-12-31");
  CHECK(support::format_timestamp(20'787 * 86400 + 34'200) == "2026-11-30T09:30:00Z");
}

TEST_CASE("timestamps take RFC 3339 times, dates and epoch seconds", "[support][dates]") {
  const std::int64_t day = 20'787 * std::int64_t{86400};
  CHECK(support::parse_timestamp("2026-11-30") == day);
  CHECK(support::parse_timestamp("2026-11-30T09:30:00Z") == day + 34'200);
  CHECK(support::parse_timestamp("2026-11-30 09:30:00+02:00") == day + 34'200 - 7200);
  CHECK(support::parse_timestamp("1796031000") == 1'796'031'000);
  CHECK(support::parse_timestamp("9999-12-31T23:59:59Z") == 253'402'300'799);
  CHECK_FALSE(support::parse_timestamp("253402300800"));
  CHECK_FALSE(support::parse_timestamp("2026-11-30T24:00:00Z"));
  CHECK_FALSE(support::parse_timestamp("2026-11-30T09:30:00"));
}

TEST_CASE("one duration grammar: compound whole units largest first, or one unit with a decimal", "[support][dates]") {
  struct Case {
    const char* text;
    std::optional<double> seconds;      // parse_duration_seconds
    std::optional<std::int64_t> whole;  // parse_duration
    std::optional<double> unbounded;    // parse_duration_unbounded: the same grammar, no limit
  };
  const Case cases[] = {
      {"90s", 90, 90, 90},
      {"1h30m", 5400, 5400, 5400},
      {"2w3d", 17 * 86400, 17 * 86400, 17 * 86400},
      {"1.5h", 5400, 5400, 5400},
      {"0.5s", 0.5, std::nullopt, 0.5},
      {"0.25d", 21600, 21600, 21600},
      {"30m1h", std::nullopt, std::nullopt, std::nullopt},    // largest first
      {"1h1h", std::nullopt, std::nullopt, std::nullopt},     // each unit once
      {"1.5h30m", std::nullopt, std::nullopt, std::nullopt},  // a decimal only alone
      {"1.h", std::nullopt, std::nullopt, std::nullopt},
      {".5h", std::nullopt, std::nullopt, std::nullopt},
      {"1.5", std::nullopt, std::nullopt, std::nullopt},
      {"1.5.5h", std::nullopt, std::nullopt, std::nullopt},
      {"h", std::nullopt, std::nullopt, std::nullopt},
      {"", std::nullopt, std::nullopt, std::nullopt},
      {"36600.5d", std::nullopt, std::nullopt, 36600.5 * 86400},  // past 100 years
      {"99999999999999999999999.5s", std::nullopt, std::nullopt, 99999999999999999999999.5},
      {"1000000w1d", std::nullopt, std::nullopt, 1000000.0 * 7 * 86400 + 86400},  // past 100 years, in the grammar
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK(support::parse_duration_seconds(c.text) == c.seconds);
    CHECK(support::parse_duration(c.text) == c.whole);
    CHECK(support::parse_duration_unbounded(c.text) == c.unbounded);
  }
}

TEST_CASE("durations print exactly for snapshots and messages, rounded for reports", "[support][dates]") {
  CHECK(support::format_duration(5400) == "1h30m");
  CHECK(support::format_duration(86400 + 61) == "1d1m1s");
  CHECK(support::format_duration(7 * 86400) == "7d");
  CHECK(support::format_duration(0) == "0s");
  CHECK(support::format_duration(-5) == "0s");
  for (const std::int64_t seconds : std::vector<std::int64_t>{1, 59, 3600, 5400, 90061, support::kMaxDurationSeconds}) {
    CHECK(support::parse_duration(support::format_duration(seconds)) == seconds);  // what is written reads back
  }
  CHECK(support::format_duration_rounded(45) == "45s");
  CHECK(support::format_duration_rounded(720) == "12m");
  CHECK(support::format_duration_rounded(5400) == "1.5h");
  CHECK(support::format_duration_rounded(3.2 * 86400) == "3.2d");
  CHECK(support::format_day(20'787 * std::int64_t{86400} + 34'200) == "2026-11-30");
}
