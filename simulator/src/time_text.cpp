#include "time_text.h"

#include <fmt/format.h>

namespace allot::simulator {
namespace {

struct Civil {
  long long year;
  unsigned month;
  unsigned day;
};

// The civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
Civil civil_from_days(long long days) {
  days += 719468;
  const long long era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned shifted_month = (5 * day_of_year + 2) / 153;
  const unsigned day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
  const unsigned month = shifted_month < 10 ? shifted_month + 3 : shifted_month - 9;
  return {static_cast<long long>(year_of_era) + era * 400 + (month <= 2 ? 1 : 0), month, day};
}

long long floor_div(long long a, long long b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

}  // namespace

std::string format_timestamp(runtime::Seconds seconds) {
  const long long days = floor_div(seconds, 86400);
  const long long rest = seconds - days * 86400;
  const Civil date = civil_from_days(days);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", date.year, date.month, date.day, rest / 3600,
                     rest % 3600 / 60, rest % 60);
}

std::string format_day(runtime::Seconds seconds) { return format_timestamp(seconds).substr(0, 10); }

}  // namespace allot::simulator
