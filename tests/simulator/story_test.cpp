// The seed's story, end to end on its eight-GPU company: the same arrivals
// (the normal scenario: product idles on Tuesday and returns on Wednesday)
// under the label queue and under the budget policy.
#include <catch2/catch.hpp>

#include "replay_support.h"

namespace replay_test {
namespace {

struct Replayed {
  Workload workload;
  SimulationResult result;
  PolicyMetrics metrics;
  std::vector<runtime::Decision> preemptions;
};

Replayed replay(const std::shared_ptr<const CompiledPolicy>& policy, const std::string& name) {
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  auto workload = generate_scenario(Scenario::normal, cluster, policy->tables(), ScenarioOptions{});
  REQUIRE(workload);
  Replayed replayed{std::move(*workload), {}, {}, {}};
  SimulationOptions options;
  options.on_cycle = [&](const runtime::ClusterState&, const runtime::CycleResult& cycle) {
    for (const runtime::Decision& decision : cycle.decisions) {
      if (decision.kind == runtime::DecisionKind::preempt) replayed.preemptions.push_back(decision);
    }
  };
  replayed.result = simulate_or_fail(replayed.workload, cluster, *policy, options);
  replayed.metrics = measure(replayed.workload, replayed.result, *policy, name, MetricOptions{});
  return replayed;
}

Replayed replay(const std::string& policy_file) { return replay(compile_file(policy_file), policy_file); }

// What a program received of what it was owed over [from_day, to_day).
double delivery(const SimulationResult& result, const std::string& program, int from_day, int to_day) {
  for (std::size_t p = 0; p < result.programs.size(); ++p) {
    if (result.programs[p].name != program) continue;
    double owed = 0, delivered = 0;
    for (std::size_t hour = static_cast<std::size_t>(from_day) * 24; hour < static_cast<std::size_t>(to_day) * 24;
         ++hour) {
      owed += result.timeline.program_owed[p][hour];
      delivered += result.timeline.program_delivered[p][hour];
    }
    return owed > 0 ? delivered / owed : 1.0;
  }
  FAIL("no program " << program);
  return 0;
}

}  // namespace

TEST_CASE("the budget policy gives product its share back after Tuesday; the label queue does not",
          "[simulator][story]") {
  const Replayed budget = replay("policies/saas.allot");
  const Replayed labels = replay("policies/baseline_labels.allot");
  REQUIRE(budget.workload.jobs.size() == labels.workload.jobs.size());  // the same arrivals

  // Tuesday: product asks for nothing, so it is owed nothing, and the others
  // use its cycles as unassigned capacity.
  const auto product_owed_on_tuesday = [](const SimulationResult& result) {
    double owed = 0;
    for (std::size_t hour = 24; hour < 48; ++hour) owed += result.timeline.program_owed[0][hour];
    return owed;
  };
  REQUIRE(budget.result.programs[0].name == "product");
  CHECK(product_owed_on_tuesday(budget.result) < 1.0);
  CHECK(budget.metrics.unassigned_share > 0.1);

  // From Wednesday on: the budget policy delivers product (nearly) all it is
  // owed; under labels product queues behind everyone's backlog.
  const double with_budget = delivery(budget.result, "product", 2, 7);
  const double with_labels = delivery(labels.result, "product", 2, 7);
  CHECK(with_budget >= 0.9);
  CHECK(with_labels <= 0.7);
  CHECK(delivery(budget.result, "product", 2, 3) >= 0.85);  // on the day it returns
  CHECK(delivery(labels.result, "product", 2, 3) <= 0.6);

  // Getting it back took preemptions, and none cut a job short of its protection.
  CHECK_FALSE(budget.preemptions.empty());
  for (const runtime::Decision& preemption : budget.preemptions) {
    const Seconds decided = preemption.stops_at - preemption.contract.grace;
    CHECK(decided >= preemption.contract.protected_until);
  }
  CHECK(labels.preemptions.empty());  // the label queue never preempts
}

// Exploration borrows product's idle GPUs on Tuesday. saas's `preempt` and rank
// read what each program holds now, so from Wednesday on exploration is
// preempted only while it holds more than its share, and its jobs rank with
// everyone's once it holds less; the same policy with `preempt` keyed on usage
// over the week (`over_served_by(victim.account, 0.1) and
// under_served(requester.account)`) keeps treating it as over-served for days.
TEST_CASE("a program that borrowed idle GPUs on Tuesday is not held below its share for the rest of the week",
          "[simulator][story]") {
  std::string history_keyed = read_source("policies/saas.allot");
  const std::size_t preempt = history_keyed.find("  preempt when");
  const std::size_t gates = history_keyed.find("  // The rollout gates");
  REQUIRE(preempt != std::string::npos);
  REQUIRE(gates != std::string::npos);
  history_keyed.replace(preempt, gates - preempt,
                        "  preempt when over_served_by(victim.account, 0.1) and under_served(requester.account)\n\n");
  const std::string gap_term = "+ 2000 * share_gap(account, cluster)";
  const std::size_t gap = history_keyed.find(gap_term);
  REQUIRE(gap != std::string::npos);
  history_keyed.erase(gap, gap_term.size());

  const Replayed now = replay("policies/saas.allot");
  const Replayed history = replay(compile_text(history_keyed), "history-keyed");
  const double with_now = delivery(now.result, "exploration", 2, 7);
  const double with_history = delivery(history.result, "exploration", 2, 7);
  // At the scenario's default load (weekdays at 130% of capacity) nobody gets
  // all it is owed; measured: 79% keyed on holdings, 68% keyed on history.
  INFO("exploration from Wednesday: " << with_now << " keyed on holdings, " << with_history << " keyed on history");
  CHECK(with_now >= 0.75);
  CHECK(with_now >= with_history + 0.08);
  // Product still gets its share back from Wednesday on.
  CHECK(delivery(now.result, "product", 2, 7) >= 0.9);
}

TEST_CASE("the report's program rows and gates carry the story's numbers", "[simulator][story]") {
  const Replayed budget = replay("policies/saas.allot");
  const GroupMetrics& product = program(budget.metrics, "product");
  REQUIRE(product.share);
  CHECK(product.share->delivered / product.share->owed >= 0.9);
  CHECK(product.share->share == Approx(0.4));
  // The gates are the policy's four, in its order, each with a measured value.
  REQUIRE(budget.metrics.gates.size() == 4);
  CHECK(budget.metrics.gates[0].text == "share_delivery >= 95% over 7d");
  CHECK(budget.metrics.gates[1].text == "lost_work <= 2%");
  CHECK(budget.metrics.gates[3].text == "p90_wait debug <= 5m");
  const GroupMetrics* debug = job_class(budget.metrics, "debug");
  REQUIRE(debug);
  REQUIRE(budget.metrics.gates[3].value);
  CHECK(*budget.metrics.gates[3].value == debug->p90_wait);
  CHECK(budget.metrics.gates[3].passed == (debug->p90_wait <= 300));
  REQUIRE(budget.metrics.gates[1].value);
  CHECK(*budget.metrics.gates[1].value == Approx(budget.metrics.lost_work));
  CHECK(budget.metrics.lost_work > 0);  // preemption cost some work since checkpoints
  CHECK(budget.metrics.gates[1].passed == (budget.metrics.lost_work <= 0.02));
}

}  // namespace replay_test
