// Reports: the JSON is byte-identical for the same inputs and seed and follows
// docs/REPLAY.md; the HTML page needs nothing from the network; the terminal
// table puts the policies side by side.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include <fmt/format.h>

#include "replay_support.h"

namespace replay_test {
namespace {

// The seed's comparison: baseline labels vs the budget policy on two scenarios.
ReplayReport compare(std::uint64_t seed, std::size_t threads = 0) {
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
    auto scenario = replay_workload(*workload, cluster, policies, SimulationOptions{}, MetricOptions{}, {}, threads);
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

TEST_CASE("policies replayed on parallel threads give the JSON of a sequential replay, byte for byte",
          "[simulator][report]") {
  const std::string sequential = render_json(compare(5, 1));
  CHECK(render_json(compare(5, 2)) == sequential);
  CHECK(render_json(compare(5, 8)) == sequential);  // more threads than policies
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
  CHECK(html.find("href=\"http") == std::string::npos);  // links only inside the page
  CHECK(html.find("@import") == std::string::npos);
  // One GPU node never fragments: that plot is left out, and a line says so.
  for (const char* title : {"wait-time CDF: debug", "share delivered / owed: product", "occupancy",
                            "no GPU was fragmented", "work lost to preemption by class"}) {
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
  gate.gate.metric = GateMetric::p90_wait;
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
  CHECK_THAT(html, Catch::Matchers::Contains(
                       R"(<h3 id="scenario-1-verdict">verdict</h3><p>`budget` against `labels`: better on 4 of 7)"));
  CHECK_THAT(html, Catch::Matchers::Contains(R"(<span class="fail">+1.0h, worse</span>)"));

  // One policy alone has nothing to be compared with.
  report.scenarios[0].policies.pop_back();
  CHECK_THAT(render_table(report, false), !Catch::Matchers::Contains("verdict:"));
}

}  // namespace replay_test

namespace replay_test {
namespace {

// The seed's company at each load, two days of the normal scenario: the sweep `allot replay --load` runs.
ScenarioReport sweep(const std::vector<double>& loads) {
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  const std::vector<ReplayPolicy> policies = {
      {"baseline", "policies/baseline_labels.allot", compile_file("policies/baseline_labels.allot")},
      {"saas", "policies/saas.allot", compile_file("policies/saas.allot")}};
  ScenarioReport combined;
  for (double load : loads) {
    ScenarioOptions options;
    options.days = 2;
    options.load = load;
    auto workload = generate_scenario(Scenario::normal, cluster, policies[0].policy->tables(), options);
    REQUIRE(workload);
    auto scenario = replay_workload(*workload, cluster, policies, SimulationOptions{}, MetricOptions{});
    REQUIRE(scenario);
    const SweepPoint point = sweep_point(*scenario, *workload, cluster, load, std::nullopt);
    if (combined.sweep.empty()) combined = std::move(*scenario);
    combined.sweep.push_back(point);
  }
  return combined;
}

double p90_of(const SweepResult& result, const std::string& job_class) {
  for (const auto& [name, wait] : result.p90_waits) {
    if (name == job_class) return wait;
  }
  FAIL("no class " << job_class);
  return 0;
}

// Each href="#..." of a page whose id the page does not have.
std::vector<std::string> unresolved_links(const std::string& html) {
  std::set<std::string> ids;
  for (std::size_t at = html.find(" id=\""); at != std::string::npos; at = html.find(" id=\"", at + 1)) {
    ids.insert(html.substr(at + 5, html.find('"', at + 5) - at - 5));
  }
  std::vector<std::string> missing;
  std::size_t links = 0;
  for (std::size_t at = html.find("href=\"#"); at != std::string::npos; at = html.find("href=\"#", at + 1), ++links) {
    const std::string target = html.substr(at + 7, html.find('"', at + 7) - at - 7);
    if (!ids.count(target)) missing.push_back(target);
  }
  if (links == 0) missing.push_back("(the page has no links at all)");
  return missing;
}

// The number in `attribute="..."` of the first element at or after `at` that has it.
double number_after(const std::string& svg, std::size_t at, const std::string& attribute) {
  const std::size_t start = svg.find(attribute + "=\"", at);
  REQUIRE(start != std::string::npos);
  return std::stod(svg.substr(start + attribute.size() + 2));
}

// Every <svg>...</svg> of a page.
std::vector<std::string> plots_of(const std::string& html) {
  std::vector<std::string> plots;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    plots.push_back(html.substr(at, html.find("</svg>", at) - at));
  }
  return plots;
}

SweepResult sweep_result(const std::string& policy, double debug_p90, double train_p90, double delivery,
                         std::vector<std::string> failed) {
  SweepResult result;
  result.policy = policy;
  result.p90_waits = {{"debug", debug_p90}, {"train", train_p90}};
  result.worst_delivery = WindowDelivery{delivery, "exploration", 48};
  result.delivery_gate = 0.95;
  result.occupancy = 0.5 + delivery / 4;
  result.gates = 4;
  result.gates_passed = 4 - static_cast<int>(failed.size());
  result.failed_gates = std::move(failed);
  return result;
}

SweepPoint sweep_at(double load, std::vector<SweepResult> results) {
  SweepPoint point;
  point.load = load;
  point.offered_load = load * 0.9;
  point.gpus = 8;
  point.nodes = 1;
  point.policies = std::move(results);
  return point;
}

}  // namespace

TEST_CASE("a load sweep has one row per load, and the label queue's waits grow with the load",
          "[simulator][report][sweep]") {
  const ScenarioReport report = sweep({0.6, 1.0, 1.4});
  REQUIRE(report.sweep.size() == 3);
  for (const SweepPoint& point : report.sweep) {
    INFO(point.load);
    REQUIRE(point.policies.size() == 2);
    CHECK(point.policies[0].policy == "baseline");
    CHECK(point.policies[0].gates == 4);
    CHECK(point.offered_load > 0);
  }
  CHECK(report.sweep[0].offered_load < report.sweep[2].offered_load);
  const SweepResult& light = report.sweep.front().policies[0];
  const SweepResult& heavy = report.sweep.back().policies[0];
  for (const char* job_class : {"debug", "train"}) {
    INFO(job_class);
    CHECK(p90_of(heavy, job_class) >= p90_of(light, job_class));
  }
  CHECK(p90_of(heavy, "train") > p90_of(light, "train"));
  ReplayReport replay;
  replay.scenarios = {report};
  const std::string table = render_table(replay, false);
  CHECK_THAT(table, Catch::Matchers::Contains("load sweep: the same seed at each load"));
  CHECK_THAT(table, Catch::Matchers::Contains("load 0.6") && Catch::Matchers::Contains("load 1.4"));
  const auto json = nlohmann::json::parse(render_json(replay));
  REQUIRE(json["workloads"][0]["sweep"].size() == 3);
  CHECK(json["workloads"][0]["sweep"][2]["load"] == 1.4);
  CHECK(json["workloads"][0]["sweep"][2]["results"][1]["policy"] == "saas");
  CHECK(json["workloads"][0]["sweep"][2]["results"][0]["p90_wait_s"].contains("debug"));
}

TEST_CASE("the sweep's text: one row per load and policy, and where each policy first fails a gate",
          "[simulator][report][sweep]") {
  ScenarioReport scenario;
  scenario.workload = "normal";
  scenario.sweep = {
      sweep_at(0.6, {sweep_result("baseline", 600, 3600, 0.97, {}), sweep_result("budget", 30, 1800, 1, {})}),
      sweep_at(1.0,
               {sweep_result("baseline", 1800, 20000, 0.9, {"share_delivery >= 95% over 7d", "p90_wait debug <= 5m"}),
                sweep_result("budget", 60, 7200, 0.99, {})}),
      sweep_at(1.4, {sweep_result("baseline", 5000, 90000, 0.7, {"p90_wait debug <= 5m"}),
                     sweep_result("budget", 240, 30000, 0.96, {"p90_wait train <= 6h"})})};
  ReplayReport report;
  report.scenarios = {scenario};
  const std::string table = render_table(report, false);
  const std::string text = table.substr(table.find("  load sweep:"));
  const auto golden = std::filesystem::path(ALLOT_SOURCE_DIR) / "tests/golden/replay/sweep.txt";
  if (std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr) std::ofstream(golden, std::ios::binary) << text;
  CHECK(text == read_source("tests/golden/replay/sweep.txt"));

  // In the HTML page: a p90 plot per class and the delivery plot, with the same sentences.
  const std::string html = render_html(report);
  CHECK_THAT(html, Catch::Matchers::Contains("p90 wait against load: debug"));
  CHECK_THAT(html, Catch::Matchers::Contains("p90 wait (minutes)"));  // debug waits stay under two hours
  CHECK_THAT(html, Catch::Matchers::Contains("p90 wait (hours)"));
  CHECK_THAT(html, Catch::Matchers::Contains("worst program's share delivered against load"));
  CHECK_THAT(html, Catch::Matchers::Contains(R"(stroke-dasharray="6 4")"));  // the gate
  CHECK_THAT(html, Catch::Matchers::Contains("gate 95%"));
  CHECK_THAT(html,
             Catch::Matchers::Contains("`baseline` first fails a gate at load 1: share_delivery &gt;= 95% over 7d"));
  CHECK_THAT(html, Catch::Matchers::Contains("`budget` first fails a gate at load 1.4: p90_wait train &lt;= 6h."));
}

TEST_CASE("no plot of the HTML page is empty, and every axis says its unit or dates", "[simulator][report]") {
  const std::string html = render_html(compare(1));
  const std::vector<std::string> plots = plots_of(html);
  REQUIRE(plots.size() > 5);
  for (const std::string& plot : plots) {
    INFO(plot.substr(0, 160));
    const bool line = plot.find(R"(<path d="M)") != std::string::npos;
    const bool bar = plot.find(R"(<rect x=)") != std::string::npos && plot.find("<title>") != std::string::npos;
    CHECK((line || bar));
    CHECK(plot.find(R"(class="unit")") != std::string::npos);  // the y axis's unit
  }
  // Scenarios start on Monday 2026-11-30: time axes show weekdays and dates.
  CHECK_THAT(html, Catch::Matchers::Contains(">Mon 11-30<") && Catch::Matchers::Contains(">Wed 12-02<"));
  CHECK_THAT(html, Catch::Matchers::Contains(">date (UTC)<") && Catch::Matchers::Contains(">% of jobs<") &&
                       Catch::Matchers::Contains(">% of GPUs up<") && Catch::Matchers::Contains(">GPU-hours<"));
  CHECK_THAT(html, !Catch::Matchers::Contains(">day 1<"));
}

TEST_CASE("a plot with nothing to show is left out and one line says so", "[simulator][report]") {
  ReplayReport report;
  ScenarioReport scenario;
  scenario.workload = "quiet";
  PolicyMetrics metrics;
  metrics.name = "only";
  GroupMetrics debug;
  debug.name = "debug";
  debug.jobs = 2;
  debug.waits = {0, 0};
  metrics.classes = {debug};
  metrics.all = debug;
  metrics.all.name = "all";
  metrics.series.hours = {0, 1, 2};
  metrics.series.occupancy = {0.5, 0.5, 0.5};
  metrics.series.fragmented_gpus = {0, 0, 0};
  metrics.series.waiting_jobs = {0, 0, 0};
  metrics.series.lost_gpu_hours = {0, 0, 0};
  scenario.policies = {metrics};
  report.scenarios = {scenario};
  const std::string html = render_html(report);
  for (const char* line :
       {"no jobs of class debug waited", "no job waited", "no work was lost to preemption", "no GPU was fragmented"}) {
    INFO(line);
    CHECK_THAT(html, Catch::Matchers::Contains(std::string("<p class=note>") + line));
  }
  CHECK(plots_of(html).size() == 1);  // occupancy alone
  CHECK_THAT(html, Catch::Matchers::Contains("aria-label=\"occupancy\""));
  CHECK_THAT(html, Catch::Matchers::Contains("<p class=note>no gate measures share delivery</p>"));
  CHECK_THAT(html,
             Catch::Matchers::Contains(R"(<td><a href="#scenario-1">quiet</a></td><td><span class=note>no gates)"));
  CHECK(unresolved_links(html).empty());
}

TEST_CASE("the HTML page reads summary first: each scenario's verdicts and gates, failing gates named and linked",
          "[simulator][report]") {
  const ReplayReport report = compare(1);
  const std::string html = render_html(report);
  const std::size_t summary = html.find(R"(<h2 id="summary">)");
  const std::size_t first_section = html.find(R"(<h2 id="scenario-1">)");
  REQUIRE(summary != std::string::npos);
  REQUIRE(first_section != std::string::npos);
  CHECK(summary < first_section);
  CHECK(html.find("<h2") == summary);  // nothing of a scenario comes before it
  const std::string table = html.substr(summary, first_section - summary);
  CHECK_THAT(table, Catch::Matchers::Contains(R"(<a href="#scenario-1">burst</a>)") &&
                        Catch::Matchers::Contains(R"(<a href="#scenario-2">drain</a>)"));
  CHECK_THAT(table, Catch::Matchers::Contains(R"(<a href="#scenario-1-verdict">better on )"));
  std::size_t failing = 0;
  for (std::size_t s = 0; s < report.scenarios.size(); ++s) {
    for (std::size_t p = 0; p < report.scenarios[s].policies.size(); ++p) {
      const PolicyMetrics& metrics = report.scenarios[s].policies[p];
      for (std::size_t g = 0; g < metrics.gates.size(); ++g) {
        const std::string link = fmt::format(R"(<a href="#scenario-{}-gate-{}-{}"><code>)", s + 1, p + 1, g + 1);
        INFO(metrics.name << " " << metrics.gates[g].text);
        CHECK((table.find(link) != std::string::npos) == !metrics.gates[g].passed);
        failing += metrics.gates[g].passed ? 0 : 1;
      }
    }
  }
  CHECK(failing > 0);  // the label queue misses gates: the summary names them
  CHECK(unresolved_links(html).empty());
}

TEST_CASE("the share delivery gate is drawn over time with its threshold at the gate's value", "[simulator][report]") {
  const ReplayReport report = compare(1);
  const std::string html = render_html(report);
  const PolicyMetrics& saas = report.scenarios[0].policies[1];
  REQUIRE(saas.gates[0].text == "share_delivery >= 95% over 7d");
  REQUIRE(saas.gates[0].windows);
  REQUIRE(saas.gates[0].value);
  // The chart shows what the gate judged: its lowest point is the gate's measured value.
  double lowest = 1e9;
  for (const auto& [program, delivery] : saas.gates[0].windows->programs) {
    for (double y : delivery) lowest = std::isnan(y) ? lowest : std::min(lowest, y);
  }
  CHECK(lowest == Approx(*saas.gates[0].value));

  const std::size_t at = html.find(R"(<span id="scenario-1-gate-2-1-chart">)");
  REQUIRE(at != std::string::npos);
  const std::string chart = html.substr(at, html.find("</svg>", at) - at);
  CHECK_THAT(chart, Catch::Matchers::Contains("saas: share delivered over each 3d window"));  // the replay is shorter
  CHECK_THAT(chart, Catch::Matchers::Contains(">share_delivery &gt;= 95% over 7d</text>"));
  // The threshold sits at 95% of the way from the 0% grid line to the 100% one.
  const double zero = number_after(chart, chart.rfind("<line", chart.find(">0%</text>")), "y1");
  const double full = number_after(chart, chart.rfind("<line", chart.find(">100%</text>")), "y1");
  const double threshold = number_after(chart, chart.rfind("<line", chart.find(R"(class="threshold")")), "y1");
  CHECK(threshold == Approx(zero + 0.95 * (full - zero)).margin(0.1));
  // The gates table links each charted gate to its chart.
  CHECK_THAT(html, Catch::Matchers::Contains(R"(<a href="#scenario-1-gate-2-1-chart">over time</a>)"));
}

}  // namespace replay_test
