// Failed victim searches remembered within a cycle (runtime/src/cycle/preemption.h):
// under a `preempt` with one fixed value a share-rule search that failed is
// not searched again for the same account and shape while the free capacity
// and the share balance are unchanged. The same policy with its `preempt`
// written as two operands (`true and true`) searches every time; the two
// replays of a saturated seeded workload must decide the same at every cycle.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "allot/audit.h"
#include "replay_support.h"

using namespace replay_test;

namespace {

constexpr int kDecember1st2026 = 20788;  // days since 1970-01-01

// large_org.allot, its `preempt when true` written as `replacement`.
std::shared_ptr<const CompiledPolicy> large_org(const std::string& replacement) {
  return compile_file_edited("policies/large_org.allot", "preempt when true", replacement, kDecember1st2026);
}

// Every decision of every cycle, in words: the starts, preemptions and skips
// with their nodes, whom a preemption is for, when it stops and why.
std::vector<std::string> decisions_of_replay(const Workload& workload, const runtime::Inventory& inventory,
                                             const CompiledPolicy& policy) {
  std::vector<std::string> lines;
  SimulationOptions options;
  options.on_cycle = [&](const runtime::ClusterState& state, const runtime::CycleResult& result) {
    for (const runtime::Decision& decision : result.all_decisions()) {
      lines.push_back(fmt::format(
          "{} {} {} [{}] for {} stops {} {}", state.now, runtime::decision_kind_name(decision.kind), decision.job_id,
          fmt::join(decision.nodes, ","), decision.for_job, decision.stops_at, decision.reason));
    }
  };
  simulate_or_fail(workload, inventory, policy, options);
  return lines;
}

}  // namespace

TEST_CASE("remembering failed victim searches changes no decision of a saturated replay", "[simulator][preemption]") {
  const auto remembered = large_org("preempt when true");
  const auto searched = large_org("preempt when true and true");
  REQUIRE(remembered->preempt_operands().size() == 1);
  REQUIRE(remembered->preempt_operands().front().constant);
  REQUIRE(searched->preempt_operands().size() == 2);  // not one fixed value: every search runs

  const runtime::Inventory cluster = scale_cluster(cluster_file("examples/clusters/research-640gpu.toml"), 0.125);
  ScenarioOptions options;
  options.seed = 11;
  options.days = 4;
  options.load = 1.3;
  const auto workload = generate_scenario(Scenario::normal, cluster, remembered->tables(), options);
  REQUIRE(workload.has_value());

  const std::vector<std::string> with_memory = decisions_of_replay(*workload, cluster, *remembered);
  const std::vector<std::string> without = decisions_of_replay(*workload, cluster, *searched);
  std::size_t preemptions = 0;
  for (const std::string& line : without) preemptions += line.find(" preempt ") != std::string::npos;
  INFO(without.size() << " decisions, " << preemptions << " preemptions");
  CHECK(preemptions > 20);  // the share rule found victims, so searches ran
  REQUIRE(with_memory.size() == without.size());
  for (std::size_t i = 0; i < without.size(); ++i) {
    if (with_memory[i] == without[i]) continue;
    FAIL("decision " << i << " differs:\n  remembered: " << with_memory[i] << "\n  searched:   " << without[i]);
  }
}
