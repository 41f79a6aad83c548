// Not a test: prints a replay's cycles for a person to read ([.explore] is hidden).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <iostream>

#include "replay_support.h"

namespace replay_test {

TEST_CASE("print the cycles of the normal scenario on saas", "[.explore]") {
  const auto policy = compile_file("policies/saas.allot");
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  ScenarioOptions scenario;
  auto workload = generate_scenario(Scenario::normal, cluster, policy->tables(), scenario);
  REQUIRE(workload);
  SimulationOptions options;
  options.cycle.record_skips = true;
  int shown = 0;
  options.on_cycle = [&](const runtime::ClusterState& state, const runtime::CycleResult& result) {
    if (state.now < kDefaultStart + 3 * kDay + 10 * kHour || ++shown > 12) return;
    for (const auto& [a, u] : state.usage) std::cout << fmt::format(" usage {}={:.1f}", a, u);
    std::cout << "\n";
    std::cout << fmt::format("t={:.2f}h running={} pending={}\n", (state.now - kDefaultStart) / 3600.0,
                             state.running.size(), state.pending.size());
    for (const auto& r : state.running)
      std::cout << fmt::format("   run {} {} {}x{} since {:.2f}h\n", r.request.id, r.request.account, r.nodes.size(),
                               r.request.gpus_per_node, (r.started - kDefaultStart) / 3600.0);
    for (const auto& d : result.decisions)
      std::cout << fmt::format("   {} {} {} {}\n", static_cast<int>(d.kind), d.job_id, d.account, d.reason);
  };
  simulate_or_fail(*workload, cluster, *policy, options);
}

}  // namespace replay_test

namespace replay_test {

TEST_CASE("print product's daily delivery in the normal scenario", "[.explore]") {
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  for (std::uint64_t seed = 1; seed <= 4; ++seed)
  for (const char* file : {"policies/baseline_labels.allot", "policies/saas.allot"}) {
    const auto policy = compile_file(file);
    ScenarioOptions scenario;
    scenario.seed = seed;
    auto workload = generate_scenario(Scenario::normal, cluster, policy->tables(), scenario);
    REQUIRE(workload);
    const SimulationResult result = simulate_or_fail(*workload, cluster, *policy);
    std::cout << file << " seed " << seed << "\n";
    for (std::size_t p = 0; p < result.programs.size(); ++p) {
      std::cout << "  " << result.programs[p].name << ":";
      const auto& owed = result.timeline.program_owed[p];
      const auto& delivered = result.timeline.program_delivered[p];
      for (std::size_t day = 0; day * 24 < owed.size(); ++day) {
        double o = 0, d = 0;
        for (std::size_t h = day * 24; h < std::min(owed.size(), day * 24 + 24); ++h) o += owed[h], d += delivered[h];
        std::cout << fmt::format(" d{} {:.0f}/{:.0f}", day + 1, d, o);
      }
      std::cout << "\n";
    }
  }
}

}  // namespace replay_test
