// Governance dates that pass while a policy runs (allot/accounting.h).
#include <cmath>

#include <fmt/format.h>

#include "allot/accounting.h"
#include "allot/dates.h"

namespace allot::runtime {
namespace {

constexpr std::int64_t kDay = 86400;

std::int64_t day_of(Seconds time) { return time >= 0 ? time / kDay : (time - kDay + 1) / kDay; }

}  // namespace

std::vector<GovernanceNotice> governance_notices(const PolicyTables& tables, Seconds now) {
  std::vector<GovernanceNotice> notices;
  const std::int64_t today = day_of(now);
  for (const AccountInfo& account : tables.accounts) {
    if (!account.review || account.review->days_since_epoch >= today) continue;
    const std::int64_t day = account.review->days_since_epoch;
    notices.push_back({"review_date_passed", account.path, day,
                       fmt::format("review of `{}` was due on {}", account.path, support::format_date(day))});
  }
  for (const ExceptionInfo& exception : tables.exceptions) {
    if (exception.expires <= 0 || static_cast<double>(now) < exception.expires) continue;
    const std::int64_t day = day_of(static_cast<Seconds>(std::floor(exception.expires)));
    notices.push_back(
        {"exception_expired", exception.name, day,
         fmt::format("exception `{}` expired on {} and no longer applies", exception.name, support::format_date(day))});
  }
  return notices;
}

}  // namespace allot::runtime
