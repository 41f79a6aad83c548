// The cycle as the simulator runs it (with its CycleCache, allot/cycle.h, and,
// when nobody reads them, without skip decisions) against a fresh cycle: at
// every cycle of long seeded replays (arrivals, completions, preemptions,
// drains, the ledger charged every ten minutes, exceptions starting and
// ending), every decision, reason, rank term, ranked job and reservation of the
// one equal the other's on the same state.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "allot/audit.h"
#include "replay_support.h"

using namespace replay_test;

namespace {

constexpr int kDecember1st2026 = 20788;  // days since 1970-01-01

// large_org.allot as written, or with `fairshare classic` in place of Fair Tree.
std::shared_ptr<const CompiledPolicy> large_org(bool classic) {
  const std::string fair_tree = "fairshare fair_tree";
  return compile_file_edited("policies/large_org.allot", fair_tree, classic ? "fairshare classic" : fair_tree,
                             kDecember1st2026);
}

// A cycle's result without its skips.
runtime::CycleResult without_skips(runtime::CycleResult result) {
  result.skips.clear();
  result.unranked_job_ids.clear();
  result.skip_names.clear();
  result.skip_reasons.clear();
  result.skip_terms.clear();
  return result;
}

// Replays `workload`, running a fresh cycle (recording skips) beside each
// cached one (recording skips or not, as `skips` says); returns the cycles compared.
std::size_t compare_each_cycle(const Workload& workload, const runtime::Inventory& inventory,
                               const CompiledPolicy& policy, bool skips) {
  std::size_t cycles = 0, differing = 0;
  SimulationOptions options;
  options.cycle.record_skips = skips;
  options.on_cycle = [&](const runtime::ClusterState& state, const runtime::CycleResult& cached) {
    runtime::CycleOptions fresh_options = options.cycle;
    fresh_options.record_skips = true;
    runtime::CycleResult fresh = runtime::run_cycle(state, policy, fresh_options);
    if (!skips) fresh = without_skips(std::move(fresh));
    ++cycles;
    // Every field of every decision (its reason and rank terms too), the ranked queue and ranks, the reservations.
    if (cached == fresh) return;
    if (++differing == 1) {  // the first difference, in words
      INFO("the first cycle that differs, at " << state.now);
      CHECK(runtime::audit_lines(cached, state.inventory) == runtime::audit_lines(fresh, state.inventory));
      CHECK(cached.ranked_job_ids == fresh.ranked_job_ids);
      CHECK(cached.reservations.size() == fresh.reservations.size());
    }
  };
  simulate_or_fail(workload, inventory, policy, options);
  CHECK(differing == 0);
  return cycles;
}

}  // namespace

TEST_CASE("a cycle with a cache decides what a fresh cycle decides, at every cycle of seeded replays",
          "[simulator][cache]") {
  const runtime::Inventory cluster = scale_cluster(cluster_file("examples/clusters/research-640gpu.toml"), 0.125);
  for (const bool classic : {false, true}) {
    const auto policy = large_org(classic);
    for (const Scenario scenario : {Scenario::normal, Scenario::drain}) {
      DYNAMIC_SECTION((classic ? "classic, " : "fair tree, ") << scenario_name(scenario)) {
        ScenarioOptions options;
        options.seed = classic ? 7 : 3;
        options.days = 5;  // 2026-12-12 to 12-17: robotics_pilot starts on the 15th
        options.start = kDefaultStart + 12 * kDay;
        options.load = 1.3;
        const auto workload = generate_scenario(scenario, cluster, policy->tables(), options);
        REQUIRE(workload.has_value());
        // Skips recorded on one policy, left out (as a replay does) on the other.
        // About 2,300 jobs and 4,000-4,700 cycles each, on 80 GPUs: the queue grows.
        CHECK(compare_each_cycle(*workload, cluster, *policy, !classic) > 3000);
      }
    }
  }
}
