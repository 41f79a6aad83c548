// The account table a policy reads (allot/account_columns.h), checked by hand
// on the seed's company during the release crunch (product 50%, platform 35%,
// exploration 15% split evenly between ana and ben).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "allot/account_columns.h"
#include "cycle_support.h"

namespace cycle_test {
namespace {

// Rows of policies/saas.allot's tree, in its depth-first order.
enum Row : std::size_t { root, product, platform, exploration, ana, ben };

ClusterState crunch_week() {
  ClusterState state;
  state.now = kTuesday + 2 * kDay;  // inside `release_crunch`
  state.inventory = uniform_inventory(1, 8);
  state.usage = {{"product", 0}, {"platform", 60}, {"exploration/ana", 30}, {"exploration/ben", 10}};
  state.debt = {{"product", 12}, {"exploration/ana", 3}, {"exploration/ben", 4}};
  state.running = {running(job("ana-1", "exploration/ana", "train", 2), {0}, kTuesday),
                   running(job("ben-1", "exploration/ben", "train", 1), {0}, kTuesday)};
  state.pending = {job("p-1", "product", "train", 1), job("p-2", "product", "train", 1),
                   job("ana-2", "exploration/ana", "train", 1)};
  return state;
}

std::string saas_with_fairshare(const std::string& algorithm) {
  std::ifstream file(std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot");
  std::stringstream text;
  text << file.rdbuf();
  std::string source = text.str();
  const std::string declared = "fairshare fair_tree";
  source.replace(source.find(declared), declared.size(), "fairshare " + algorithm);
  return source;
}

}  // namespace

TEST_CASE("account columns: shares with the exceptions in force", "[cycle][accounts]") {
  const auto policy = compile_file("policies/saas.allot");
  REQUIRE(policy->tables().accounts[ana].path == "exploration/ana");
  const AccountColumns columns = account_columns(*policy, crunch_week());

  CHECK(columns.value(abi::account_share, product) == Approx(0.50));
  CHECK(columns.value(abi::account_share, exploration) == Approx(0.15));
  CHECK(columns.value(abi::account_share, ana) == Approx(0.075));
  CHECK(columns.value(abi::account_level_share, ana) == Approx(0.5));
  CHECK(columns.value(abi::account_norm_share, ana) == Approx(0.075));
  CHECK(columns.value(abi::account_depth, ana) == 2);
  CHECK(columns.shares().exceptions == std::vector<std::string>{"release_crunch"});
}

TEST_CASE("account columns: usage, Fair Tree and debt", "[cycle][accounts]") {
  const auto policy = compile_file("policies/saas.allot");
  const AccountColumns columns = account_columns(*policy, crunch_week());

  CHECK(columns.value(abi::account_usage, exploration) == Approx(40));
  CHECK(columns.value(abi::account_usage, root) == Approx(100));
  CHECK(columns.value(abi::account_effective_usage, exploration) == Approx(0.4));
  CHECK(columns.value(abi::account_usage_ratio, exploration) == Approx(0.4 / 0.15));
  CHECK(columns.value(abi::account_usage_ratio, product) == 0);
  // Level FS among the programs: product unused (infinite), platform 0.35/0.6,
  // exploration 0.15/0.4; inside exploration ben (0.5/0.25) before ana (0.5/0.75).
  CHECK(columns.value(abi::account_level_fs, platform) == Approx(0.35 / 0.6));
  CHECK(columns.value(abi::account_fair_tree, product) == 1.0);
  CHECK(columns.value(abi::account_fair_tree, platform) == 0.75);
  CHECK(columns.value(abi::account_fair_tree, ben) == 0.5);
  CHECK(columns.value(abi::account_fair_tree, ana) == 0.25);
  CHECK(columns.value(abi::account_fair_tree, exploration) == 0.5);  // its best leaf's
  CHECK(columns.value(abi::account_debt, product) == 12);
  CHECK(columns.value(abi::account_debt, exploration) == 7);  // ana's and ben's
}

TEST_CASE("account columns: what accounts hold and wait for", "[cycle][accounts]") {
  const auto policy = compile_file("policies/saas.allot");
  const AccountColumns columns = account_columns(*policy, crunch_week());

  CHECK(columns.value(abi::account_running_gpus, ana) == 2);
  CHECK(columns.value(abi::account_running_gpus, exploration) == 3);
  CHECK(columns.value(abi::account_running_gpus, root) == 3);
  CHECK(columns.value(abi::account_pending_jobs, product) == 2);
  CHECK(columns.value(abi::account_pending_jobs, exploration) == 1);
  CHECK(columns.value(abi::account_dominant_share, ana) == Approx(2.0 / 8));
}

// The cycle fills account.dominant_share only for a policy that reads it; one
// that does must see what account_columns() computes.
TEST_CASE("a cycle whose rank reads account.dominant_share ranks by it", "[cycle][accounts]") {
  const auto policy = compile_text(two_team_policy("-(account.dominant_share / 100%)", "false"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(2, 8);
  state.running = {running(job("alpha-runs", "alpha", "work", 6), {0}, kTuesday - kHour),
                   running(job("beta-runs", "beta", "work", 2), {1}, kTuesday - kHour)};
  // alpha's job waited longer: without dominant shares the tie goes to it.
  state.pending = {job("alpha-waits", "alpha", "work", 8, kTuesday - 2 * kHour),
                   job("beta-waits", "beta", "work", 8, kTuesday)};
  const CycleResult result = run_cycle(state, *policy);

  CHECK(result.ranked_job_ids == std::vector<std::string>{"beta-waits", "alpha-waits"});
  REQUIRE(result.ranks.size() == 2);
  CHECK(result.ranks[0] == Approx(-2.0 / 16));
  CHECK(result.ranks[1] == Approx(-6.0 / 16));
}

TEST_CASE("account columns: classic fair share changes effective usage", "[cycle][accounts]") {
  const auto policy = compile_text(saas_with_fairshare("classic"));
  const AccountColumns columns = account_columns(*policy, crunch_week());

  // Slurm's U_E: ana's own 30% moves halfway (her share of the level) towards exploration's 40%.
  CHECK(columns.value(abi::account_effective_usage, ana) == Approx(0.35));
  CHECK(columns.value(abi::account_usage_ratio, ana) == Approx(0.35 / 0.075));
  CHECK(columns.value(abi::account_fair_tree, ana) == 0.25);  // Fair Tree's factor is always there
}

}  // namespace cycle_test
