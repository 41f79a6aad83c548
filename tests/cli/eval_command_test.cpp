// `allot eval` as a policy author uses it (docs/TESTING.md "One job at a
// time"): one job, given as JSON, TOML or standard input, or a job of the
// state, against a policy: its rank term by term and `preempt`'s verdict
// operand by operand; bad input is an error naming the field.
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

const std::string kWednesday = allot_cli_test::saas_wednesday();

}  // namespace

TEST_CASE("allot eval ranks a new job term by term and asks preempt for it", "[cli][eval]") {
  const TempFolder folder("allot-eval");
  const std::string job =
      folder.write("job.json",
                   R"({"id": "new-train", "account": "product", "class": "train", "gpus_per_node": 1,
                                    "submitted": "2026-12-02T08:00:00Z"})");
  const auto run = run_allot("eval " + job + " " + kWednesday, true);
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith("Job `new-train` (product, class `train`) is waiting: "));
  CHECK_THAT(run.out, Catch::Contains(", the sum of 5 terms of `rank` ("));
  CHECK_THAT(run.out, Catch::Contains("  share = 1000 * fair_tree(account)  "));
  CHECK_THAT(run.out, Catch::Contains("  capped_wait_hours(job, 48h)  "));
  CHECK_THAT(run.out, Catch::Contains("`new-train` as the requester: `preempt` accepts "));
  CHECK_THAT(run.out, Catch::Contains("holds_over_share_by(victim.account, cluster, 0.1) = "));
  CHECK_THAT(run.out, Catch::Contains(" and holds_below_share(requester.account, cluster) = true"));

  // The same job as TOML on standard input, and as JSON: the same answer.
  const std::string toml =
      folder.write("job.toml",
                   "id = \"new-train\"\naccount = \"product\"\nclass = \"train\"\ngpus_per_node = 1\n"
                   "submitted = 2026-12-02T08:00:00Z\n");
  const auto piped = run_allot("eval - " + kWednesday + " < " + toml + " #", true);
  // run_allot redirects standard input from /dev/null after the arguments; the `#` comments that out.
  CHECK(piped.out == run.out);
  const auto json = run_allot("eval " + job + " --json " + kWednesday);
  REQUIRE(json.exit_code == 0);
  const auto document = nlohmann::json::parse(json.out);
  CHECK(document["schema"] == "allot.eval/1");
  CHECK(document["explain"]["job"] == "new-train");
  CHECK(document["explain"]["contributions"].size() == 5);
  CHECK(document["preempt"]["as"] == "requester");
  CHECK(document["preempt"]["joined_by"] == "and");
  REQUIRE(document["preempt"]["operands"].size() == 2);
  CHECK(document["preempt"]["operands"][1]["operand"] == "holds_below_share(requester.account, cluster)");
  for (const auto& pair : document["preempt"]["pairs"]) {
    CHECK(pair["requester"] == "new-train");
    CHECK(pair["accepted"] == (pair["operands"][0].get<bool>() && pair["operands"][1].get<bool>()));
  }
}

TEST_CASE("allot eval --id asks preempt about a running job as the victim", "[cli][eval]") {
  const auto run = run_allot("eval --id exploration/ana-43 " + kWednesday, true);
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith("Job `exploration/ana-43` (exploration/ana, class `train`) is running"));
  CHECK_THAT(run.out, Catch::Contains("`exploration/ana-43` as the victim: "));
  CHECK_THAT(run.out, Catch::Contains("  yes  product-eval: holds_over_share_by(victim.account, cluster, 0.1) = true "
                                      "and holds_below_share(requester.account, cluster) = true\n"));
}

TEST_CASE("allot eval refuses a bad job with the field, and a usage problem with exit 2", "[cli][eval]") {
  const TempFolder folder("allot-eval");
  const struct {
    const char* job;
    const char* says;
  } cases[] = {
      {R"({"account": "product", "class": "train", "gpus_per_nod": 1})", "did you mean `gpus_per_node`?"},
      {R"({"account": "product", "class": "train", "gpus_per_node": {"a": 1}})", "`gpus_per_node` must be a string"},
      {R"({"account": "product", "class": "train",)", "not valid JSON"},
      {"account = \"product\"\nclass = \n", "not valid TOML"},
      {R"({"id": "product-eval", "account": "product", "class": "train", "gpus_per_node": 1})",
       "the state has a job `product-eval` already"},
  };
  for (const auto& c : cases) {
    INFO(c.job);
    const auto run = run_allot("eval " + folder.write("job.json", c.job) + " " + kWednesday, true);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains(c.says));
  }
  CHECK(run_allot("eval " + kWednesday).exit_code == 2);  // neither a job nor --id
  CHECK(run_allot("eval " + folder.write("job.json", "{}") + " --id product-eval " + kWednesday).exit_code == 2);
  CHECK(run_allot("eval " + folder.file("missing.json") + " " + kWednesday).exit_code == 2);
  const auto unknown = run_allot("eval --id product-evl " + kWednesday, true);
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.out, Catch::Contains("did you mean `product-eval`?"));
}
