#include "suggest.h"

#include <algorithm>

namespace allot {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

}  // namespace

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, name.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(name, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string suggest(const std::string& name, const std::vector<std::string>& candidates) {
  if (std::string best = closest_name(name, candidates); !best.empty()) return "did you mean `" + best + "`?";
  if (candidates.empty() || candidates.size() > 12) return "";
  std::string list;
  for (const auto& candidate : candidates) list += (list.empty() ? "`" : ", `") + candidate + "`";
  return "expected one of " + list;
}

}  // namespace allot
