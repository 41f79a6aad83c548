#include "suggest.h"

#include "allot/nearest_name.h"

namespace allot {

std::string closest_name(const std::string& name, const std::vector<std::string>& candidates) {
  return support::nearest_name(name, candidates);
}

std::string suggest(const std::string& name, const std::vector<std::string>& candidates) {
  if (std::string best = closest_name(name, candidates); !best.empty()) return "did you mean `" + best + "`?";
  if (candidates.empty() || candidates.size() > 12) return "";
  std::string list;
  for (const auto& candidate : candidates) list += (list.empty() ? "`" : ", `") + candidate + "`";
  return "expected one of " + list;
}

}  // namespace allot
