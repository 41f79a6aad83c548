#include "reasons.h"

#include <fmt/format.h>

namespace allot::runtime::cycle {

std::string node_list(const Inventory& inventory, const std::vector<int>& nodes) {
  constexpr std::size_t kShown = 3;
  std::string text;
  for (std::size_t i = 0; i < nodes.size() && i < kShown; ++i) {
    if (i > 0) text += ", ";
    text += fmt::format("`{}`", inventory.nodes[static_cast<std::size_t>(nodes[i])].name);
  }
  if (nodes.size() > kShown) text += fmt::format(" and {} more", nodes.size() - kShown);
  return text;
}

std::string ordinal(std::size_t position) {
  const std::size_t n = position % 100;
  const char* suffix = (n >= 11 && n <= 13) ? "th"
                       : n % 10 == 1        ? "st"
                       : n % 10 == 2        ? "nd"
                       : n % 10 == 3        ? "rd"
                                            : "th";
  return fmt::format("{}{}", position, suffix);
}

}  // namespace allot::runtime::cycle
