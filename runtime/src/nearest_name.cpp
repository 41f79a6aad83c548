#include "nearest_name.h"

#include <algorithm>
#include <numeric>

namespace allot::runtime {
namespace {

// Levenshtein distance with one rolling row.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_name(std::string_view typo, const std::vector<std::string_view>& candidates) {
  std::string best;
  std::size_t best_distance = typo.size() / 3 + 1;
  for (std::string_view candidate : candidates) {
    const std::size_t distance = edit_distance(typo, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

}  // namespace allot::runtime
