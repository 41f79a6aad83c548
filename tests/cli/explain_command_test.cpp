// `allot explain` as a person reads it: where the job is, why it waits, when
// it can run and what its account is owed; JSON for dashboards with --json;
// exit 1 for a job the state does not have, 2 for usage problems.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli/run_allot.h"

using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

const std::string kWednesday = allot_cli_test::saas_wednesday();

}  // namespace

TEST_CASE("allot explain tells a person why a job waits and when it can run", "[cli][explain]") {
  const auto run = run_allot("explain " + kWednesday + " product-train-3");
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith("Job `product-train-3` (product, class `train`) is waiting: 5th of 7 in the "
                                        "queue, rank 2000.17.\n"));
  CHECK_THAT(run.out, Catch::Contains("Why it is not running: no node has 1 free GPU (the most on one node is 0).\n"));
  CHECK_THAT(run.out, Catch::Contains("Next opportunity to run: 2026-12-02T11:05:00Z on `gpu-01`, when `product-eval` "
                                      "is expected to end.\n"));
  CHECK_THAT(run.out, Catch::Contains("  account.fair_tree         1\n"));
  CHECK_THAT(run.out, Catch::Contains("  product: share 50% of its parent (policy 40%), 50% of the cluster\n"
                                      "    `release_crunch` grants it +10% from `exploration` until 2026-12-20\n"
                                      "    usage 60 (ratio 0.138), fair-share factor 1, debt 0.5\n"));
}

TEST_CASE("allot explain tells a running job's contract and preemption standing", "[cli][explain]") {
  const auto run = run_allot("explain " + kWednesday + " exploration/ben-19");
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("Contract: protected until 2026-12-02T10:40:00Z (1h40m left); checkpoint every "
                                      "30m; grace 5m; resumable, preemptible.\n"));
  CHECK_THAT(run.out, Catch::Contains("Preemption: not a candidate: its contract protects it until "
                                      "2026-12-02T10:40:00Z (another 1h40m).\n"));
}

TEST_CASE("allot explain --json and --now", "[cli][explain]") {
  const auto run = run_allot("explain " + kWednesday + " product-eval --json --now 2026-12-02T09:01:00Z");
  REQUIRE(run.exit_code == 0);
  const auto document = nlohmann::json::parse(run.out);
  CHECK(document["now"] == "2026-12-02T09:01:00Z");
  CHECK(document["queue"]["position"] == 0);
  CHECK(document["next_opportunity"]["at"] == "2026-12-02T09:06:00Z");  // the victim's 5-minute grace
  CHECK(document["decision"]["reason"].get<std::string>().find("reserved for it") != std::string::npos);

  // The research cluster: a multi-node pretraining run waits for a rack's worth of H100s.
  const auto large = run_allot("explain --json --policy " + source("policies/large_org.allot") + " --state " +
                               source("examples/states/research-busy.toml") + " pretrain-183");
  REQUIRE(large.exit_code == 0);
  const auto waiting = nlohmann::json::parse(large.out);
  CHECK(waiting["state"] == "waiting");
  CHECK(waiting["next_opportunity"]["nodes"].size() == 4);
  CHECK_FALSE(waiting["next_opportunity"]["at"].is_null());
}

TEST_CASE("allot explain exits 1 for an unknown job and 2 for usage problems", "[cli][explain]") {
  const auto unknown = run_allot("explain " + kWednesday + " product-train-9", true);
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.out ==
        "allot: no job `product-train-9` is waiting or running in the state; did you mean `product-train-0`?\n");
  CHECK(run_allot("explain " + kWednesday).exit_code == 2);  // no job named
  CHECK(run_allot("explain " + kWednesday + " product-eval --now noon").exit_code == 2);
}
