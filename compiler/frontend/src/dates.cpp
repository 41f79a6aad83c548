// Calendar dates of policies as day counts (support/dates.h).
#include "allot/dates.h"

#include "allot/frontend.h"

namespace allot {

std::optional<Date> parse_date(const std::string& text) {
  const auto days = support::parse_date(text);
  if (!days) return std::nullopt;
  return Date{static_cast<int>(*days)};
}

std::string format_date(Date date) { return support::format_date(date.days_since_epoch); }

}  // namespace allot
