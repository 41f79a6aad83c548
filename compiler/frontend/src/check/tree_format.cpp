#include "tree_format.h"

#include <fmt/format.h>

#include <cmath>

#include "allot/text.h"

namespace allot {

// Six decimals hide the binary noise of sums like 33.3 + 33.3 + 33.3.
std::string format_number(double value) { return support::format_decimal(value, 6); }

std::string format_percent(double percent) { return format_number(percent) + "%"; }

std::string format_share(const ast::TreeNode& node) {
  switch (node.share_form) {
    case ast::ShareForm::percent:
      return format_percent(node.percent);
    case ast::ShareForm::raw:
      return "shares " + format_number(node.raw_shares);
    case ast::ShareForm::parent:
      return "share parent";
  }
  return "";
}

std::string format_sum(const std::vector<ShareTerm>& terms, double total) {
  std::string text;
  for (const auto& term : terms) {
    const bool negative = term.percent < 0;
    if (!text.empty()) text += negative ? " - " : " + ";
    if (text.empty() && negative) text += "-";
    if (!term.label.empty()) text += term.label + " ";
    text += format_percent(std::fabs(term.percent));
  }
  return text + " = " + format_sum_percent(total);
}

std::string days_from_now(int days) {
  if (days == 0) return "today";
  return days == 1 ? "in 1 day" : fmt::format("in {} days", days);
}

std::string format_sum_percent(double total) {
  const std::string text = format_percent(total);
  return text == "100%" && total != 100 ? fmt::format("{:.12g}%", total) : text;
}

Span trailing_columns(Span span, int width) {
  if (span.begin.line != span.end.line || span.end.column - width < span.begin.column) return span;
  span.begin.column = span.end.column - width;
  return span;
}

}  // namespace allot
