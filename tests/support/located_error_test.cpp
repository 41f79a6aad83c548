// One located error for every input file (support/located_error.h).
#include <catch2/catch.hpp>

#include "allot/located_error.h"

using allot::support::LocatedError;

TEST_CASE("a located error reads FILE:LINE:COLUMN: FIELD: MESSAGE, leaving out what is unknown", "[support][error]") {
  CHECK(LocatedError{"cluster.toml", 9, "node[0].gpus", "missing field `gpus`", 11}.to_string() ==
        "cluster.toml:9:11: node[0].gpus: missing field `gpus`");
  CHECK(LocatedError{"jobs.csv", 2, "gpus", "expected a whole number, found `two`"}.to_string() ==
        "jobs.csv:2: gpus: expected a whole number, found `two`");
  CHECK(LocatedError{"map.toml", 0, "", "cannot read the file: No such file or directory", 3}.to_string() ==
        "map.toml: cannot read the file: No such file or directory");
  CHECK(LocatedError{"a\x1b.toml", 1, "", "bad"}.to_string() == "a\u241b.toml:1: bad");
}
