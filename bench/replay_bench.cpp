// BM_ReplayPhilly: the whole Philly trace (82,247 jobs over 109 days, from
// data/traces/philly_pollux) replayed on the 1,000-GPU research
// cluster under policies/large_org.allot, with the mapping of
// examples/workloads/philly_large_org_map.toml. One iteration is one full
// replay: every arrival, completion, stop and cycle. Target (issue 5): under
// 20 s per policy. Counters: events and cycles per second of CPU time.
// Arguments: engine (0 JIT, 1 interpreter) and the minimum gap between cycles
// in seconds (0: a cycle after every batch of events; 60: rounds of a minute).
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

#include "allot/compile.h"
#include "allot/simulator.h"

namespace {

using namespace allot;
using namespace allot::simulator;

constexpr int kNovember29th2026 = 20786;  // days since 1970-01-01

std::string source(const std::string& relative) { return std::string(ALLOT_SOURCE_DIR) + "/" + relative; }

std::shared_ptr<const CompiledPolicy> large_org(Engine engine) {
  CompileOptions options;
  options.engine = engine;
  options.check.today = Date{kNovember29th2026};
  auto result = compile_policy_file(source("policies/large_org.allot"), options);
  if (!result.policy) throw std::runtime_error("policies/large_org.allot does not compile");
  return result.policy;
}

// The cluster and the trace's workload, read once.
struct PhillyReplay {
  runtime::Inventory cluster;
  Workload workload;
};

const PhillyReplay* philly() {
  static const PhillyReplay* replay = []() -> const PhillyReplay* {
    auto cluster = runtime::load_inventory(source("examples/clusters/research-1000gpu.toml"));
    auto rows = read_trace(source("data/traces/philly_pollux/philly_pollux.csv"));
    auto map = load_trace_map(source("examples/workloads/philly_large_org_map.toml"));
    if (!cluster || !rows || !map) return nullptr;
    auto workload = trace_workload(*rows, *map, *cluster, "philly_pollux.csv", std::nullopt);
    if (!workload) return nullptr;
    return new PhillyReplay{std::move(*cluster), std::move(*workload)};
  }();
  return replay;
}

void BM_ReplayPhilly(benchmark::State& state) {
  const PhillyReplay* replay = philly();
  if (!replay) {
    state.SkipWithError("the Philly trace, the research cluster or the mapping could not be read");
    return;
  }
  const auto policy = large_org(state.range(0) == 0 ? Engine::jit : Engine::interpreter);
  std::uint64_t events = 0, cycles = 0;
  for (auto _ : state) {
    SimulationOptions options;
    options.min_cycle_gap = state.range(1);
    auto result = simulate(replay->workload, replay->cluster, *policy, options);
    if (!result) {
      state.SkipWithError(result.error().c_str());
      return;
    }
    events += result->events;
    cycles += result->cycles;
    benchmark::DoNotOptimize(result->jobs.data());
  }
  state.counters["jobs"] = static_cast<double>(replay->workload.jobs.size());
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
  state.SetLabel(state.range(0) == 0 ? "jit" : "interpreter");
}

BENCHMARK(BM_ReplayPhilly)
    ->ArgNames({"interpreter", "gap"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 60})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

}  // namespace
