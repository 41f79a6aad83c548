// `allot shares` as a Slurm administrator reads it: the sshare -l columns for
// every account of the policy's tree (tests/golden/shares/), the same numbers
// `allot explain` shows and the rank expression reads, JSON for scripts, and
// clear exits on bad input. Set ALLOT_UPDATE_GOLDEN=1 to rewrite the goldens.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::read_text;
using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace fs = std::filesystem;

TEST_CASE("allot shares prints every account as sshare -l does, in sshare's order", "[cli][shares]") {
  const bool update = std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr;
  for (const char* state : {"saas-wednesday", "research-busy", "saas-debug-saturated", "campus-monday"}) {
    INFO(state);
    const std::string name = state;
    const std::string policy = name.rfind("saas", 0) == 0 ? "policies/saas.allot"
                               : name == "campus-monday"  ? "policies/slurm_site.allot"
                                                          : "policies/large_org.allot";
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
    CHECK(row["raw_shares"] == Approx(40));  // percentage points, as Slurm would hold 40%
    CHECK(row["share_form"] == "percent");
    CHECK(row["policy_share"] == Approx(0.4));
    CHECK(row["owed"].is_null());  // the state has no [owed]
    CHECK(row["delivered"].is_null());
  }
  CHECK(found);
}

TEST_CASE("allot shares shows Slurm's raw shares and what each account was owed and received", "[cli][shares]") {
  const auto shares = run_allot("shares --format json --policy " + source("policies/slurm_site.allot") + " --state " +
                                source("examples/states/campus-monday.toml"));
  REQUIRE(shares.exit_code == 0);
  std::map<std::string, nlohmann::json> rows;
  const auto document = nlohmann::json::parse(shares.out);
  for (const auto& row : document["accounts"]) rows[row["path"].get<std::string>()] = row;
  // sacctmgr's Fairshare=N, Fairshare=parent and a 0% guest project, as sshare's RawShares shows them.
  CHECK(rows.at("science")["share_form"] == "shares");
  CHECK(rows.at("science")["raw_shares"] == 70);
  CHECK(rows.at("science")["policy_share"] == Approx(0.7));
  CHECK(rows.at("science/biology")["share_form"] == "parent");
  CHECK(rows.at("science/biology")["raw_shares"].is_null());
  CHECK(rows.at("science/biology")["level_fs"].is_null());  // sshare prints none for FairShare=parent
  CHECK(rows.at("engineering/guests")["share_form"] == "percent");
  CHECK(rows.at("engineering/guests")["raw_shares"] == 0);
  CHECK(rows.at("")["raw_shares"].is_null());
  // A listed user: delivered is owed minus debt.
  const auto& ben = rows.at("science/physics/cosmology/lensing/ben");
  CHECK(ben["owed"] == 140);
  CHECK(ben["debt"] == 20);
  CHECK(ben["delivered"] == 120);
  // An unlisted account: its users' sums.
  const auto& lensing = rows.at("science/physics/cosmology/lensing");
  CHECK(lensing["owed"] == 290);
  CHECK(lensing["debt"] == 20);
  CHECK(lensing["delivered"] == 270);
  const auto& robotics = rows.at("engineering/robotics");
  CHECK(robotics["owed"] == 490);
  CHECK(robotics["delivered"] == 390);
  // A user with no demand in the window was owed nothing.
  CHECK(rows.at("science/physics/cosmology/simulations/chen")["owed"] == 0);
}

TEST_CASE("allot shares shows the time a snapshot says was held without progress", "[cli][shares]") {
  TempFolder folder("allot-shares-cli");
  const std::string state = folder.file("stalled.toml");
  const std::string tables = "now = 2026-12-02T09:00:00Z\ninventory = \"" + std::string(ALLOT_SOURCE_DIR) +
                             "/examples/clusters/saas-8gpu.toml\"\n\n[usage]\nproduct = 60\n\"exploration/ana\" = "
                             "246\n\n[without_progress]\n";
  const std::string shares = "shares --policy " + source("policies/saas.allot") + " --state '" + state + "'";
  std::ofstream(state) << tables << "\"exploration/ana\" = 2.5\n";
  const auto text = run_allot(shares);
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("Debt NoProgress\n"));
  // The column comes last, after Debt (0.00 in this state).
  const auto row = [&](const std::string& start) {
    std::istringstream lines(text.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(start)) return line;
    }
    return std::string();
  };
  CHECK_THAT(row("exploration ana "), Catch::EndsWith("       0.00       2.50"));
  CHECK_THAT(row("root        product "), Catch::EndsWith("       0.00       0.00"));
  const auto json = run_allot(shares + " --format json");
  REQUIRE(json.exit_code == 0);
  std::map<std::string, nlohmann::json> rows;
  const auto document = nlohmann::json::parse(json.out);
  for (const auto& account : document["accounts"]) rows[account["path"].get<std::string>()] = account;
  CHECK(rows.at("exploration/ana")["without_progress"] == 2.5);
  CHECK(rows.at("exploration")["without_progress"] == 2.5);  // an inner account: its accounts' sum
  CHECK(rows.at("product")["without_progress"] == 0);

  // A key that is no account is refused as in [usage]; more than the usage, with its line.
  std::ofstream(state) << tables << "\"exploraton/ana\" = 0\n";
  const auto typo = run_allot(shares, true);
  CHECK(typo.exit_code == 1);
  CHECK_THAT(typo.out, Catch::Contains(state + ":9:20: without_progress.exploraton/ana: `exploraton/ana` is not an "
                                               "account of policy `saas`; did you mean `exploration/ana`?"));
  std::ofstream(state) << tables << "product = 61\n";
  const auto above = run_allot(shares, true);
  CHECK(above.exit_code == 1);
  CHECK_THAT(above.out, Catch::Contains(state + ":9:11: without_progress.product: `product` held 61 without progress, "
                                                "more than its usage 60 in `[usage]`"));
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
