#include "allot/nearest_name.h"

#include <algorithm>
#include <numeric>

namespace allot::support {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows: a swap looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

namespace {

template <class Name>
std::string nearest(std::string_view name, const std::vector<Name>& candidates) {
  std::string best;
  std::size_t best_distance = max_typo_distance(name.size()) + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace

std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates) {
  return nearest(name, candidates);
}

std::string nearest_name(std::string_view name, const std::vector<std::string_view>& candidates) {
  return nearest(name, candidates);
}

}  // namespace allot::support
