// Reports: the JSON is byte-identical for the same inputs and seed and follows
// docs/REPLAY.md; the HTML page needs nothing from the network; the terminal
// table puts the policies side by side.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "replay_support.h"

namespace replay_test {
namespace {

// The seed's comparison: baseline labels vs the budget policy on two scenarios.
ReplayReport compare(std::uint64_t seed) {
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  const std::vector<ReplayPolicy> policies = {
      {"baseline", "policies/baseline_labels.allot", compile_file("policies/baseline_labels.allot")},
      {"saas", "policies/saas.allot", compile_file("policies/saas.allot")}};
  ReplayReport report;
  report.cluster = cluster.name;
  report.cluster_gpus = cluster.total_gpus();
  report.cluster_nodes = static_cast<int>(cluster.nodes.size());
  report.seed = seed;
  for (const auto& policy : policies) report.policies.emplace_back(policy.name, policy.file);
  ScenarioOptions options;
  options.seed = seed;
  options.days = 3;
  for (Scenario which : {Scenario::burst, Scenario::drain}) {
    auto workload = generate_scenario(which, cluster, policies[0].policy->tables(), options);
    REQUIRE(workload);
    auto scenario = replay_workload(*workload, cluster, policies, SimulationOptions{}, MetricOptions{});
    REQUIRE(scenario);
    report.scenarios.push_back(std::move(*scenario));
  }
  return report;
}

}  // namespace

TEST_CASE("the same inputs and seed give byte-identical JSON", "[simulator][report]") {
  const std::string first = render_json(compare(3));
  const std::string second = render_json(compare(3));
  CHECK(first == second);
  CHECK(first != render_json(compare(4)));
}

TEST_CASE("the JSON document follows the documented schema", "[simulator][report]") {
  const auto json = nlohmann::json::parse(render_json(compare(1)));
  CHECK(json["schema"] == "allot.replay/1");
  CHECK(json["cluster"]["gpus"] == 8);
  CHECK(json["seed"] == 1);
  REQUIRE(json["workloads"].size() == 2);
  const auto& burst = json["workloads"][0];
  CHECK(burst["name"] == "burst");
  CHECK(burst["start"] == "2026-11-30T00:00:00Z");
  CHECK(burst["end"] == "2026-12-03T00:00:00Z");
  REQUIRE(burst["results"].size() == 2);
  for (const auto& result : burst["results"]) {
    for (const char* key : {"policy", "policy_name", "cluster", "all", "classes", "programs", "sizes", "gates",
                            "gates_passed", "series", "events", "cycles"}) {
      INFO(key);
      CHECK(result.contains(key));
    }
    CHECK(result["all"]["jobs"] == burst["jobs"]);  // every policy saw every job
    CHECK(result["programs"].size() == 3);
    CHECK(result["programs"][0]["share"].contains("delivery"));
    CHECK(result["gates"].size() == 4);
    CHECK(result["series"]["hours"].size() == result["series"]["occupancy"].size());
    CHECK(result["series"]["program_delivery"].contains("exploration"));
  }
  CHECK(burst["results"][1]["gates"][3]["gate"] == "p90_wait debug <= 5m");
  CHECK(burst["results"][1]["gates"][3]["threshold"] == 300);
}

TEST_CASE("the HTML page is self-contained and shows every plot", "[simulator][report]") {
  const std::string html = render_html(compare(1));
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
  for (const char* title : {"wait-time CDF: debug", "share delivered / owed: product", "occupancy", "fragmented GPUs",
                            "work lost to preemption by class"}) {
    INFO(title);
    CHECK(html.find(title) != std::string::npos);
  }
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("FAIL") != std::string::npos);  // the label queue misses gates
}

TEST_CASE("the terminal table shows the policies side by side", "[simulator][report]") {
  const std::string table = render_table(compare(1), false);
  CHECK(table.find("burst: ") == 0);
  CHECK(table.find("baseline") != std::string::npos);
  CHECK(table.find("saas") != std::string::npos);
  CHECK(table.find("share delivered / owed") != std::string::npos);
  CHECK(table.find("p90_wait debug <= 5m") != std::string::npos);
  CHECK(table.find("\x1b[") == std::string::npos);  // no colour unless asked
}

namespace {

GroupMetrics waits(const std::string& name, double p90) {
  GroupMetrics group;
  group.name = name;
  group.jobs = 10;
  group.started = 10;
  group.completed = 9;
  group.p90_wait = p90;
  return group;
}

GroupMetrics program(const std::string& name, double owed, double delivered) {
  GroupMetrics group = waits(name, 0);
  group.share = ProgramTotals{name, 0.5, owed, delivered, 0};
  return group;
}

PolicyMetrics policy_metrics(const std::string& name, double all_p90, double debug_p90, double train_p90,
                             double worst_delivery, double occupancy, bool gate_passed) {
  PolicyMetrics metrics;
  metrics.name = name;
  metrics.all = waits("all", all_p90);
  metrics.classes = {waits("debug", debug_p90), waits("train", train_p90)};
  metrics.programs = {program("product", 100, 100 * worst_delivery), program("research", 100, 100)};
  metrics.occupancy = occupancy;
  metrics.lost_work = 0.01;
  GateResult gate;
  gate.text = "p90_wait debug <= 5m";
  gate.gate.metric = "p90_wait";
  gate.value = debug_p90;
  gate.passed = gate_passed;
  metrics.gates = {gate};
  return metrics;
}

}  // namespace

TEST_CASE("the verdict says, per measure, whether each policy is better or worse than the first",
          "[simulator][report]") {
  ReplayReport report;
  report.cluster = "test";
  report.cluster_gpus = 60;
  report.cluster_gpus_down = 4;
  ScenarioReport scenario;
  scenario.workload = "busy";
  scenario.policies = {policy_metrics("labels", 3600, 7200, 3600, 0.6, 0.90, false),
                       policy_metrics("budget", 1800, 30, 7200, 0.97, 0.95, true)};
  report.scenarios = {scenario};

  const std::string table = render_table(report, false);
  CHECK_THAT(table, Catch::Matchers::Contains("(60 GPUs up, 4 on nodes down or draining)"));
  CHECK_THAT(table, Catch::Matchers::Contains(
                        "verdict: `budget` against `labels`: better on 4 of 7 measures (p90 wait, all jobs; p90 wait, "
                        "debug; worst program's delivered / owed; occupancy), worse on 1 (p90 wait, train); its own "
                        "gates: 1 of 1 passed, `labels`'s: 0 of 1."));
  CHECK_THAT(table, Catch::Matchers::Contains("against `labels`"));
  CHECK_THAT(table, Catch::Matchers::Contains("(+5.0 pts, better)"));
  CHECK_THAT(table, Catch::Matchers::Contains("(+37.0 pts, better)"));
  CHECK_THAT(table, Catch::Matchers::Contains("1.0% (same)"));
  CHECK_THAT(table, Catch::Matchers::Contains("wait p50 / p90 by program"));
  CHECK_THAT(table, Catch::Matchers::Contains("1 started, 0 never started"));

  const std::string html = render_html(report);
  CHECK_THAT(html, Catch::Matchers::Contains("<h3>verdict</h3><p>`budget` against `labels`: better on 4 of 7"));
  CHECK_THAT(html, Catch::Matchers::Contains(R"(<span class="fail">+1.0h, worse</span>)"));

  // One policy alone has nothing to be compared with.
  report.scenarios[0].policies.pop_back();
  CHECK_THAT(render_table(report, false), !Catch::Matchers::Contains("verdict:"));
}

}  // namespace replay_test
