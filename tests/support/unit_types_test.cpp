// The one rule for a unit's GPU types against a cluster's (support/unit_types.h).
#include <catch2/catch.hpp>

#include "allot/unit_types.h"

using allot::support::unit_type_gaps;

namespace {

std::vector<std::string> stray(const allot::support::UnitTypeGaps& gaps) {
  std::vector<std::string> lines;
  for (const auto& weight : gaps.stray) lines.push_back(weight.type + "->" + weight.nearest);
  return lines;
}

}  // namespace

TEST_CASE("a weight for a type the cluster lacks is stray only while a type of the cluster is unweighted",
          "[support][units]") {
  const std::vector<std::string> cluster = {"h100", "a100", "h100"};  // a type may repeat: said once
  CHECK(unit_type_gaps({"h100", "a100"}, cluster).unweighted.empty());
  CHECK(stray(unit_type_gaps({"h100", "a100", "b300"}, cluster)).empty());  // a fleet's policy
  CHECK(unit_type_gaps({"h100"}, cluster).unweighted == std::vector<std::string>{"a100"});
  CHECK(stray(unit_type_gaps({"h100"}, cluster)).empty());  // a100 counts 1.0, as the unit says
  const auto misspelt = unit_type_gaps({"h10O", "a100", "b300"}, cluster);
  CHECK(misspelt.unweighted == std::vector<std::string>{"h100"});
  CHECK(stray(misspelt) == std::vector<std::string>{"h10O->h100", "b300->"});
  CHECK(stray(unit_type_gaps({"zzzz"}, {})).empty());  // a cluster without GPUs: nothing to weigh
  CHECK(unit_type_gaps({}, cluster).unweighted == std::vector<std::string>{"h100", "a100"});
}
