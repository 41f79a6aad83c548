// A calendar day as policies hold them (review dates, exception dates in
// PolicyTables). Header-only, part of allot_policy_abi; reading and writing
// dates is the front end's (allot/frontend.h: parse_date, format_date).
#pragma once

namespace allot {

// A calendar day, counted from 1970-01-01 (proleptic Gregorian).
struct Date {
  int days_since_epoch = 0;
  friend bool operator==(Date, Date) = default;
  friend auto operator<=>(Date, Date) = default;
};

}  // namespace allot
