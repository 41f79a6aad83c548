// How the tree and exception checks print numbers: percentages without
// trailing zeros (40%, 12.5%) and sums with their terms ("ana 45% + ben 50% = 95%").
#pragma once

#include <string>
#include <vector>

#include "../ast.h"
#include "../source.h"

namespace allot {

// Shares are compared with this tolerance so 33.3% + 33.3% + 33.4% is 100%.
inline constexpr double kShareTolerance = 1e-9;

// `40%`, `12.5%`, `-5%`: at most six decimals, no trailing zeros.
std::string format_percent(double percent);

// "today", "in 1 day", "in 12 days": when a review or an expiry comes.
std::string days_from_now(int days);

// A sum of shares: as format_percent, but with the digits that show a sum just
// off 100% (three times `33.3333333%`) is not 100%.
std::string format_sum_percent(double total);

// `42`, `2.5`: a number as `format_percent` prints one, without the `%`.
std::string format_number(double value);

// A tree node's share as written: `40%`, `shares 50`, `share parent`.
std::string format_share(const ast::TreeNode& node);

// One term of a printed sum: a label (may be empty) and a percentage.
struct ShareTerm {
  std::string label;
  double percent = 0;
};

// "ana 45% + ben 50% = 95%"; a negative term is printed as "- 5%".
std::string format_sum(const std::vector<ShareTerm>& terms, double total);

// Columns of a written date, `YYYY-MM-DD`.
inline constexpr int kDateWidth = 10;

// The last `width` columns of a one-line span: the date of `review 2026-12-31`.
// A span over several lines is returned whole.
Span trailing_columns(Span span, int width);

}  // namespace allot
