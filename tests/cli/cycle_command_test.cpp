// `allot cycle` on the example snapshots: the decisions as a JSON document
// that matches tests/golden/cycle/ (the JIT and the interpreter print the
// same bytes), --now, --audit and --apply to step a cluster cycle by cycle,
// and the exit codes: 0 ok, 1 bad policy or snapshot, 2 usage or I/O.
// Set ALLOT_UPDATE_GOLDEN=1 to rewrite the goldens after an intended change.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

namespace fs = std::filesystem;
using allot_cli_test::read_text;
using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

struct Example {
  const char* state;  // examples/states/<state>.toml
  const char* policy;
};

const Example kExamples[] = {{"saas-wednesday", "policies/saas.allot"},
                             {"saas-debug-saturated", "policies/saas.allot"},
                             {"research-busy", "policies/large_org.allot"}};

std::string cycle_arguments(const Example& example) {
  return "cycle --policy " + source(example.policy) + " --state " +
         source(std::string("examples/states/") + example.state + ".toml");
}

const std::string kWednesday = allot_cli_test::saas_wednesday();

}  // namespace

TEST_CASE("allot cycle prints the decisions of the example snapshots", "[cli][cycle]") {
  const bool update = std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr;
  for (const Example& example : kExamples) {
    INFO(example.state);
    const auto jit = run_allot(cycle_arguments(example));
    REQUIRE(jit.exit_code == 0);
    const auto interpreted = run_allot(cycle_arguments(example) + " --engine interp");
    CHECK(interpreted.exit_code == 0);
    CHECK(interpreted.out == jit.out);  // the two engines decide alike
    const fs::path golden = fs::path(ALLOT_SOURCE_DIR) / "tests/golden/cycle" / (std::string(example.state) + ".json");
    if (update) std::ofstream(golden, std::ios::binary) << jit.out;
    CHECK(jit.out == read_text(golden));
  }
}

TEST_CASE("the cycle document says what happened and why", "[cli][cycle]") {
  const auto run = run_allot("cycle " + kWednesday);
  REQUIRE(run.exit_code == 0);
  const auto document = nlohmann::json::parse(run.out);
  CHECK(document["now"] == "2026-12-02T09:00:00Z");
  CHECK(document["policy"]["name"] == "saas");
  CHECK(document["ranked"][0]["job"] == "product-eval");  // the deadline evaluation first
  CHECK(document["summary"]["ranked"] == 7);
  const auto& first = document["decisions"][0];
  CHECK(first["kind"] == "preempt");
  CHECK(first["job"] == "exploration/ana-43");  // past its protection, nothing lost since its checkpoint
  CHECK(first["for_job"] == "product-eval");
  CHECK(first["stops_at"] == "2026-12-02T09:05:00Z");
  REQUIRE(document["reservations"].size() >= 1);
  CHECK(document["reservations"][0]["job"] == "product-eval");
  for (const auto& decision : document["decisions"]) {
    if (decision["kind"] != "preempt") continue;
    // No job is evicted inside the protection it started with.
    CHECK(decision["contract"]["protected_until"].get<std::string>() <= "2026-12-02T09:00:00Z");
  }
}

TEST_CASE("allot cycle --now runs the snapshot at another time", "[cli][cycle]") {
  // At 09:40 exploration/ana-41 (protected until 09:30) is past its protection too.
  const auto later = run_allot("cycle " + kWednesday + " --now 2026-12-02T09:40:00Z");
  REQUIRE(later.exit_code == 0);
  const auto document = nlohmann::json::parse(later.out);
  CHECK(document["now"] == "2026-12-02T09:40:00Z");
  for (const char* now : {"2026-12-02T10:40:00+01:00", "1796204400"}) {
    INFO(now);
    CHECK(nlohmann::json::parse(run_allot("cycle " + kWednesday + " --now " + now).out)["now"] ==
          "2026-12-02T09:40:00Z");
  }
}

TEST_CASE("allot cycle --apply writes the next state and --audit appends the records", "[cli][cycle]") {
  TempFolder folder("allot-cycle-cli");
  const std::string next = folder.file("next.toml");
  const std::string audit = folder.file("audit.jsonl");
  const auto first = run_allot("cycle " + kWednesday + " --apply '" + next + "' --audit '" + audit + "'");
  REQUIRE(first.exit_code == 0);
  const std::string state = read_text(next);
  CHECK_THAT(state, Catch::Contains("stopping_at = 2026-12-02T09:05:00Z"));
  CHECK_THAT(state, Catch::Contains("[[reservation]]\njob = \"product-eval\""));

  // Five minutes later the preempted runs have stopped and product's work starts where they were.
  const auto second = run_allot("cycle --policy " + source("policies/saas.allot") + " --state '" + next +
                                "' --now 2026-12-02T09:05:00Z --audit '" + audit + "'");
  REQUIRE(second.exit_code == 0);
  const auto document = nlohmann::json::parse(second.out);
  std::vector<std::string> started;
  for (const auto& decision : document["decisions"]) {
    if (decision["kind"] == "start") started.push_back(decision["job"]);
  }
  CHECK(std::find(started.begin(), started.end(), "product-eval") != started.end());
  CHECK(std::find(started.begin(), started.end(), "product-train-0") != started.end());

  std::ifstream log(audit);
  std::size_t lines = 0;
  for (std::string line; std::getline(log, line); ++lines) CHECK(nlohmann::json::parse(line).contains("reason"));
  CHECK(lines == nlohmann::json::parse(first.out)["decisions"].size() + document["decisions"].size());
}

TEST_CASE("allot cycle exits 1 on a bad snapshot or policy and 2 on usage or I/O problems", "[cli][cycle]") {
  TempFolder folder("allot-cycle-cli");
  const std::string bad = folder.file("bad.toml");
  std::ofstream(bad) << "now = 2026-12-02T09:00:00Z\ninventory = \"" << ALLOT_SOURCE_DIR
                     << "/examples/clusters/saas-8gpu.toml\"\n\n[[job]]\nid = \"a\"\naccount = \"product\"\n"
                        "class = \"train\"\ngpus_per_node = -1\nsubmitted = 2026-12-02T08:00:00Z\n";
  const auto malformed = run_allot("cycle --policy " + source("policies/saas.allot") + " --state '" + bad + "'", true);
  CHECK(malformed.exit_code == 1);
  CHECK_THAT(malformed.out, Catch::Contains(bad + ":8:17: job[0].gpus_per_node: `gpus_per_node` must be between 0 and "
                                                  "1024, not -1"));
  const std::string policy = folder.file("broken.allot");
  std::ofstream(policy) << "policy p {\n  rank = job.wait + 1\n}\n";
  const auto broken =
      run_allot("cycle --policy '" + policy + "' --state " + source("examples/states/saas-wednesday.toml"), true);
  CHECK(broken.exit_code == 1);
  CHECK_THAT(broken.out, Catch::Contains("error[type_mismatch]"));
  CHECK(run_allot("cycle " + kWednesday + " --now yesterday").exit_code == 2);
  CHECK(run_allot("cycle --policy " + source("policies/saas.allot") + " --state /no/such/state.toml").exit_code == 2);
  CHECK(run_allot("cycle --policy /no/such/policy.allot --state " + source("examples/states/saas-wednesday.toml"))
            .exit_code == 2);
  CHECK(run_allot("cycle --state " + source("examples/states/saas-wednesday.toml")).exit_code == 2);
  CHECK(run_allot("cycle " + kWednesday + " --apply /no/such/folder/next.toml").exit_code == 2);
}

TEST_CASE("allot cycle refuses a usage or debt key that is not an account of the policy", "[cli][cycle]") {
  TempFolder folder("allot-cycle-cli");
  const std::string state = folder.file("typo.toml");
  std::ofstream(state) << "now = 2026-12-02T09:00:00Z\ninventory = \"" << ALLOT_SOURCE_DIR
                       << "/examples/clusters/saas-8gpu.toml\"\n\n[usage]\nproduct = 60\n\"exploraton/ana\" = 246\n";
  const auto typo = run_allot("cycle --policy " + source("policies/saas.allot") + " --state '" + state + "'", true);
  CHECK(typo.exit_code == 1);
  CHECK_THAT(typo.out, Catch::Contains(state + ":6:20: usage.exploraton/ana: `exploraton/ana` is not an account of "
                                               "policy `saas`; did you mean `exploration/ana`?"));
}

TEST_CASE("a failed --apply writes no audit record and leaves the old state", "[cli][cycle]") {
  TempFolder folder("allot-cycle-cli");
  const std::string audit = folder.file("audit.jsonl");
  const auto failed = run_allot("cycle " + kWednesday + " --apply /no/such/folder/next.toml --audit '" + audit + "'");
  CHECK(failed.exit_code == 2);
  CHECK(read_text(audit).empty());
  // --apply onto the state it read: the file is replaced whole, through a new file.
  const std::string same = folder.file("state.toml");
  std::string text = read_text(std::string(ALLOT_SOURCE_DIR) + "/examples/states/saas-wednesday.toml");
  const std::string reference = "\"../clusters/saas-8gpu.toml\"";
  REQUIRE(text.find(reference) != std::string::npos);
  text.replace(text.find(reference), reference.size(),
               "\"" + std::string(ALLOT_SOURCE_DIR) + "/examples/clusters/saas-8gpu.toml\"");
  std::ofstream(same) << text;
  const auto applied =
      run_allot("cycle --policy " + source("policies/saas.allot") + " --state '" + same + "' --apply '" + same + "'");
  CHECK(applied.exit_code == 0);
  CHECK_THAT(read_text(same), Catch::Contains("stopping_at = 2026-12-02T09:05:00Z"));
}

TEST_CASE("allot cycle --format text prints the decisions as a table in queue order", "[cli][cycle]") {
  const auto run = run_allot("cycle " + kWednesday + " --format text");
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith("Cycle at 2026-12-02T09:00:00Z, policy `saas` ("));
  CHECK_THAT(run.out, Catch::Contains(": 0 starts, 3 preemptions, 7 ranked\n"));
  CHECK_THAT(run.out, Catch::Contains("  place job "));
  // The first place is the evaluation, for which a job on gpu-01 is preempted; preemptions come after the queue.
  const auto first = run.out.find("  1     product-eval");
  const auto preempt = run.out.find(" preempt ");
  CHECK(first != std::string::npos);
  CHECK(preempt != std::string::npos);
  CHECK(first < preempt);
  CHECK_THAT(run.out, Catch::Contains("Reserved for `product-eval`: 1 GPU per node on gpu-01 until "));
}
