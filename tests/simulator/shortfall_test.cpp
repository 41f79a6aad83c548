// Why a program was short: on one eight-GPU node, alpha fills every GPU at
// the start and beta (the same 50% share) asks for four GPUs an hour later.
// What held the four GPUs beta lacked depends only on alpha's contract and
// on the policy's `preempt`; the replay must name it, and its parts must add
// up to what beta was owed and did not receive.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "replay_support.h"

namespace replay_test {
namespace {

const char* kNode = R"([[group]]
prefix = "node-"
count = 1
digits = 2
gpu_type = "h100"
gpus = 8
cpus = 64
memory_gib = 512
block = "rack-1"
)";

// `contract` is alpha's class body; `preempt` the policy's predicate ("" for none).
std::string policy_with(const std::string& contract, const std::string& preempt) {
  return fmt::format(R"(policy shortfall {{
  unit gpu_hours {{ h100 = 1.0 }}
  window 7d
  tree {{
    alpha 50% {{ owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }}
    beta 50% {{ owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }}
  }}
  class long {{
{}
  }}
  class short {{
    max_runtime 12h
    checkpoint every 30m
    protect 30m
    resumable
  }}
  rank = 0
{}
}}
)",
                     contract, preempt.empty() ? "" : "  preempt when " + preempt);
}

struct Case {
  const char* name;
  std::string contract;
  std::string preempt;
  Shortfall cause;    // what held what beta lacked
  double lacked_min;  // unit-hours beta did not receive, at least and at most
  double lacked_max;
};

double total(const ShortfallHours& hours) { return std::accumulate(hours.begin(), hours.end(), 0.0); }

}  // namespace

TEST_CASE("the replay names what held the capacity a program below its share lacked", "[simulator][shortfall]") {
  const Case cases[] = {
      // Alpha's jobs run to completion: beta waits their 10 hours behind them (4 GPUs x 9 h).
      {"run to completion", "    preemptible false", "true", Shortfall::not_preemptible, 35, 37},
      // Protected for 3 hours, then beta takes its four GPUs back: 4 GPUs x 2 h behind protection.
      {"protected, then preempted", "    protect 3h\n    checkpoint every 30m\n    resumable", "true",
       Shortfall::protected_, 7.5, 8.5},
      // Preemptible from 30 minutes on, but the policy never preempts: 4 GPUs x 9 h on jobs it could have stopped.
      {"preemptible, no preempt", "    checkpoint every 30m\n    protect 30m\n    resumable", "", Shortfall::not_taken,
       35, 37},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      const auto policy = compile_text(policy_with(c.contract, c.preempt));
      std::vector<WorkloadJob> jobs;
      for (int i = 0; i < 8; ++i) jobs.push_back(job(fmt::format("alpha-{}", i), "alpha", "long", 1, 10 * kHour));
      for (int i = 0; i < 4; ++i) {
        jobs.push_back(job(fmt::format("beta-{}", i), "beta", "short", 1, 10 * kHour, kHour));
      }
      const Workload workload = workload_of(std::move(jobs));
      const SimulationResult result = simulate_or_fail(workload, cluster_text(kNode), *policy);

      REQUIRE(result.programs.size() == 2);
      const ProgramTotals& beta = result.programs[1];
      const double lacked = beta.owed - beta.delivered;
      CHECK(lacked >= c.lacked_min);
      CHECK(lacked <= c.lacked_max);
      // Every undelivered unit-hour is accounted for, and all of it by the one cause.
      CHECK(total(beta.shortfall) == Approx(lacked).margin(1e-6));
      CHECK(beta.shortfall[static_cast<std::size_t>(c.cause)] == Approx(lacked).margin(1e-6));
      // Alpha was never short, so nothing is undelivered to it.
      CHECK(total(result.programs[0].shortfall) == Approx(0).margin(1e-6));
      // The timeline's buckets carry the same hours.
      double in_buckets = 0;
      for (const ShortfallHours& bucket : result.timeline.program_shortfall[1]) in_buckets += total(bucket);
      CHECK(in_buckets == Approx(lacked).margin(1e-6));
    }
  }
}

// Alpha's eight ten-hour jobs hold the one node's GPUs (never preempted) from the
// start; beta's four arrive an hour later: under a policy with `gates`.
struct PinnedReplay {
  std::shared_ptr<const CompiledPolicy> policy;
  Workload workload;
  SimulationResult result;
};

PinnedReplay pinned_replay(const std::string& gates) {
  std::string text = policy_with("    preemptible false", "true");
  text.insert(text.rfind('}'), "  gates {\n" + gates + "  }\n");
  PinnedReplay pinned{compile_text(text), {}, {}};
  std::vector<WorkloadJob> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(job(fmt::format("alpha-{}", i), "alpha", "long", 1, 10 * kHour));
  for (int i = 0; i < 4; ++i) jobs.push_back(job(fmt::format("beta-{}", i), "beta", "short", 1, 10 * kHour, kHour));
  pinned.workload = workload_of(std::move(jobs));
  pinned.result = simulate_or_fail(pinned.workload, cluster_text(kNode), *pinned.policy);
  return pinned;
}

TEST_CASE("failed share_delivery and wait gates say what held the capacity", "[simulator][shortfall]") {
  const PinnedReplay pinned =
      pinned_replay("    share_delivery >= 95%\n    p90_wait short <= 5m\n    p90_wait long <= 5m\n");
  const Workload& workload = pinned.workload;
  const PolicyMetrics metrics = measure(workload, pinned.result, *pinned.policy, "pinned", MetricOptions{});

  REQUIRE(metrics.gates.size() == 3);
  const GateResult& gate = metrics.gates[0];
  CHECK_FALSE(gate.passed);
  CHECK_THAT(gate.why, Catch::StartsWith("`beta` received"));
  CHECK_THAT(gate.why, Catch::Contains("100.0% was on jobs that may not be preempted"));
  // Beta's four jobs waited nine hours each while alpha's pinned jobs held every GPU.
  CHECK_FALSE(metrics.gates[1].passed);
  CHECK_THAT(metrics.gates[1].why, Catch::StartsWith("while `short` jobs waited (36."));
  CHECK_THAT(
      metrics.gates[1].why,
      Catch::EndsWith("job-hours in all), of the cluster's capacity 100.0% was on jobs that may not be preempted"));
  CHECK(metrics.gates[2].passed);  // alpha's jobs never waited
  CHECK(metrics.gates[2].why.empty());
  REQUIRE(metrics.worst_window_delivery);
  CHECK(metrics.worst_window_delivery->program == "beta");
  CHECK(total(metrics.worst_window_delivery->shortfall) ==
        Approx(metrics.worst_window_delivery->owed * (1 - metrics.worst_window_delivery->delivery)).margin(1e-6));

  // The terminal report and the JSON document say it after the gates.
  ReplayReport report;
  report.scenarios.push_back(
      ScenarioReport{"pinned", "", workload.start, workload.end, workload.jobs.size(), {}, {metrics}, {}});
  const std::string table = render_table(report, false);
  CHECK_THAT(table, Catch::Contains("why `pinned` fails `share_delivery >= 95%`: `beta` received"));
  CHECK_THAT(table, Catch::Contains("on jobs never preempted"));
  CHECK_THAT(render_json(report), Catch::Contains("\"why\": \"`beta` received"));
}

TEST_CASE("a failed deadline_slo gate says how the deadline jobs missed", "[simulator][shortfall]") {
  std::string text = policy_with("    preemptible false", "true");
  text.insert(text.find("  rank = 0"),
              "  class due {\n    max_runtime 4h\n    preemptible false\n    deadline required\n    slo 95%\n  }\n");
  text.insert(text.rfind('}'), "  gates {\n    deadline_slo >= 95%\n  }\n");
  const auto policy = compile_text(text);
  std::vector<WorkloadJob> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(job(fmt::format("alpha-{}", i), "alpha", "long", 1, 10 * kHour));
  // Two evaluations due two hours after they arrive, behind ten hours of pinned work.
  for (int i = 0; i < 2; ++i) {
    WorkloadJob due = job(fmt::format("beta-due-{}", i), "beta", "due", 1, kHour, kHour);
    due.deadline = due.submitted + 2 * kHour;
    jobs.push_back(due);
  }
  const Workload workload = workload_of(std::move(jobs));
  const SimulationResult result = simulate_or_fail(workload, cluster_text(kNode), *policy);
  const PolicyMetrics metrics = measure(workload, result, *policy, "pinned", MetricOptions{});

  REQUIRE(metrics.gates.size() == 1);
  CHECK_FALSE(metrics.gates[0].passed);
  CHECK(metrics.all.deadline_started_late == 2);
  CHECK(metrics.gates[0].why ==
        "2 of 2 deadline jobs missed: 2 started too late to finish by their deadline; while jobs of deadline classes "
        "waited (18.0 job-hours in all), of the cluster's capacity 100.0% was on jobs that may not be preempted");
}

TEST_CASE("a share_delivery gate keeps each program's delivery over its windows; the worst is the gate's value",
          "[simulator][shortfall][report]") {
  const PinnedReplay pinned = pinned_replay("    share_delivery >= 95% over 4h\n");
  const Workload& workload = pinned.workload;
  // Every window of the day (21 of 4h, ending at 4h ... 24h), then at most 5 points, each its windows' worst.
  for (const std::size_t max_points : {std::size_t{240}, std::size_t{5}}) {
    INFO(max_points);
    MetricOptions options;
    options.max_points = max_points;
    const PolicyMetrics metrics = measure(workload, pinned.result, *pinned.policy, "pinned", options);
    const GateResult& gate = metrics.gates.at(0);
    REQUIRE(gate.windows);
    REQUIRE(gate.value);
    CHECK_FALSE(gate.passed);
    CHECK(gate.windows->window_hours == 4);
    CHECK(gate.windows->window_end_hours.size() == std::min<std::size_t>(21, max_points));
    CHECK(gate.windows->window_end_hours.back() == 24);
    REQUIRE(gate.windows->programs.size() == 2);
    CHECK(gate.windows->programs[1].first == "beta");
    double lowest = 2;
    for (const auto& [program, delivery] : gate.windows->programs) {
      CHECK(delivery.size() == gate.windows->window_end_hours.size());
      for (double y : delivery) lowest = std::isnan(y) ? lowest : std::min(lowest, y);
    }
    CHECK(lowest == Approx(*gate.value));

    ReplayReport report;
    report.scenarios.push_back(
        ScenarioReport{"pinned", "", workload.start, workload.end, workload.jobs.size(), {}, {metrics}, {}});
    const std::string html = render_html(report);
    const std::size_t chart = html.find(R"(<span id="scenario-1-gate-1-1-chart">)");
    REQUIRE(chart != std::string::npos);
    const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
    CHECK_THAT(svg, Catch::Contains("pinned: share delivered over each 4h window"));
    CHECK_THAT(svg, Catch::Contains(R"(class="threshold-label">share_delivery &gt;= 95% over 4h<)"));
    CHECK_THAT(svg, Catch::Contains("<title>beta</title>"));
    CHECK_THAT(html,
               Catch::Contains(R"(failed: <a href="#scenario-1-gate-1-1"><code>share_delivery &gt;= 95% over 4h)"));
  }
}

}  // namespace replay_test
