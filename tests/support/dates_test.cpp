// One calendar for every input and report (support/dates.h).
#include <catch2/catch.hpp>

#include "allot/dates.h"

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
