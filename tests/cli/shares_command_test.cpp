// `allot shares` as a Slurm administrator reads it: the sshare -l columns for
// every account of the policy's tree (tests/golden/shares/), the same numbers
// `allot explain` shows and the rank expression reads, JSON for scripts, and
// clear exits on bad input. Set ALLOT_UPDATE_GOLDEN=1 to rewrite the goldens.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/run_allot.h"

using allot_cli_test::read_text;
using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace fs = std::filesystem;

TEST_CASE("allot shares prints every account as sshare -l does, in sshare's order", "[cli][shares]") {
  const bool update = std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr;
  for (const char* state : {"saas-wednesday", "research-busy", "saas-debug-saturated"}) {
    INFO(state);
    const std::string policy =
        std::string(state).rfind("saas", 0) == 0 ? "policies/saas.allot" : "policies/large_org.allot";
    const auto run = run_allot("shares --policy " + source(policy) + " --state " +
                               source(std::string("examples/states/") + state + ".toml"));
    REQUIRE(run.exit_code == 0);
    const fs::path golden = fs::path(ALLOT_SOURCE_DIR) / "tests/golden/shares" / (std::string(state) + ".txt");
    if (update) std::ofstream(golden, std::ios::binary) << run.out;
    CHECK(run.out == read_text(golden));
  }
}

TEST_CASE("allot shares gives the numbers allot explain shows and the rank reads", "[cli][shares]") {
  const std::string inputs =
      " --policy " + source("policies/saas.allot") + " --state " + source("examples/states/saas-wednesday.toml");
  const auto shares = run_allot("shares --format json" + inputs);
  REQUIRE(shares.exit_code == 0);
  const auto document = nlohmann::json::parse(shares.out);
  CHECK(document["algorithm"] == "fair_tree");
  const auto explain = run_allot("explain --json" + inputs + " product-train-3");
  REQUIRE(explain.exit_code == 0);
  const auto explanation = nlohmann::json::parse(explain.out);
  nlohmann::json standing;
  for (const auto& account : explanation["accounts"]) {
    if (account["path"] == "product") standing = account;
  }
  REQUIRE(standing.is_object());
  bool found = false;
  for (const auto& row : document["accounts"]) {
    if (row["path"] != "product") continue;
    found = true;
    CHECK(row["user"] == "product");
    CHECK(row["account"] == "root");
    CHECK(row["fair_share"] == standing["fair_share"]);
    CHECK(row["fair_share"] == explanation["terms"]["account.fair_tree"]);
    CHECK(row["rank_fields"]["fair_tree"] == explanation["terms"]["account.fair_tree"]);
    CHECK(row["rank_fields"]["level_fs"] == row["level_fs"]);
    CHECK(row["rank_fields"]["debt"] == row["debt"]);
    CHECK(row["debt"] == standing["debt"]);
    CHECK(row["share_in_force"] == Approx(0.5));
    CHECK(row["raw_shares"] == Approx(0.4));
  }
  CHECK(found);
}

TEST_CASE("allot shares refuses bad input with a clear exit", "[cli][shares]") {
  const auto missing =
      run_allot("shares --policy " + source("policies/saas.allot") + " --state /nonexistent.toml", true);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.out, Catch::Contains("/nonexistent.toml"));
  const auto format = run_allot("shares --format xml --policy " + source("policies/saas.allot") + " --state " +
                                    source("examples/states/saas-wednesday.toml"),
                                true);
  CHECK(format.exit_code == 2);
}
