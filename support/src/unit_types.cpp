#include "allot/unit_types.h"

#include <algorithm>

#include "allot/nearest_name.h"

namespace allot::support {

UnitTypeGaps unit_type_gaps(const std::vector<std::string>& weighted, const std::vector<std::string>& cluster_types) {
  const auto holds = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  UnitTypeGaps gaps;
  for (const std::string& type : cluster_types) {
    if (!holds(weighted, type) && !holds(gaps.unweighted, type)) gaps.unweighted.push_back(type);
  }
  if (gaps.unweighted.empty()) return gaps;
  for (const std::string& type : weighted) {
    if (!holds(cluster_types, type)) gaps.stray.push_back({type, nearest_name(type, gaps.unweighted)});
  }
  return gaps;
}

}  // namespace allot::support
