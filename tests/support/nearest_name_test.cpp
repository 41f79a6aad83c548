// One "did you mean" rule for every input (support/nearest_name.h).
#include <catch2/catch.hpp>

#include "allot/nearest_name.h"

using allot::support::edit_distance;
using allot::support::nearest_name;

TEST_CASE("edit distance counts a swap of neighbours as one edit", "[support][nearest]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("pirority", "priority") == 1);
  CHECK(edit_distance("ab", "ba") == 1);
  CHECK(edit_distance("ca", "abc") == 3);  // optimal string alignment: no substring edited twice
}

TEST_CASE("nearest name allows a third of the name to differ, at least one character", "[support][nearest]") {
  const std::vector<std::string> names = {"priority", "partition", "gpu", "cpu"};
  CHECK(nearest_name("pirority", names) == "priority");
  CHECK(nearest_name("prioirty", names) == "priority");
  CHECK(nearest_name("xpu", names) == "gpu");  // the first on ties
  CHECK(nearest_name("xyz", names).empty());
  CHECK(nearest_name("partitoin", std::vector<std::string_view>{"partition"}) == "partition");
  CHECK(nearest_name("zzzzzzzz", names).empty());
}
