// BM_ReplayPhilly: the whole Philly trace (82,247 jobs over 109 days, from
// data/traces/philly_pollux) replayed on the 1,000-GPU research
// cluster under policies/large_org.allot, with the mapping of
// examples/workloads/philly_large_org_map.toml. One iteration is one full
// replay: every arrival, completion, stop and cycle. Target (issue 5): under
// 20 s per policy. Counters: events and cycles per second of CPU time.
// Arguments: engine (0 JIT, 1 interpreter) and the minimum gap between cycles
// in seconds (0: a cycle after every batch of events; 60: rounds of a minute).
// BM_ReplaySaturated (issue 34): the README's replay, the same trace on the
// 640-GPU cluster sized for its busy weeks (weeks 3-9 offer 80-111% of its
// capacity, so the queue grows), under the budget policy and the label queue.
#include <benchmark/benchmark.h>

#include <map>
#include <stdexcept>
#include <string>

#include "allot/compile.h"
#include "allot/simulator.h"

namespace {

using namespace allot;
using namespace allot::simulator;

constexpr int kNovember29th2026 = 20786;  // days since 1970-01-01

std::string source(const std::string& relative) { return std::string(ALLOT_SOURCE_DIR) + "/" + relative; }

std::shared_ptr<const CompiledPolicy> compile(const std::string& policy, Engine engine) {
  CompileOptions options;
  options.engine = engine;
  options.check.today = Date{kNovember29th2026};
  auto result = compile_policy_file(source(policy), options);
  if (!result.policy) throw std::runtime_error(policy + " does not compile");
  return result.policy;
}

std::shared_ptr<const CompiledPolicy> large_org(Engine engine) { return compile("policies/large_org.allot", engine); }

// The cluster and the trace's workload, read once.
struct PhillyReplay {
  runtime::Inventory cluster;
  Workload workload;
};

// The trace's workload on `cluster`, read once per cluster.
const PhillyReplay* philly(const std::string& cluster_file = "examples/clusters/research-1000gpu.toml") {
  static std::map<std::string, const PhillyReplay*> read;
  const auto found = read.find(cluster_file);
  if (found != read.end()) return found->second;
  const PhillyReplay* replay = [&]() -> const PhillyReplay* {
    auto cluster = runtime::load_inventory(source(cluster_file));
    auto rows = read_trace(source("data/traces/philly_pollux/philly_pollux.csv"));
    auto map = load_trace_map(source("examples/workloads/philly_large_org_map.toml"));
    if (!cluster || !rows || !map) return nullptr;
    auto workload = trace_workload(*rows, *map, *cluster, "philly_pollux.csv", std::nullopt);
    if (!workload) return nullptr;
    return new PhillyReplay{std::move(*cluster), std::move(*workload)};
  }();
  read.emplace(cluster_file, replay);
  return replay;
}

// Replays `replay` under `policy` once per iteration; counters for events and cycles.
void replay_each_iteration(benchmark::State& state, const PhillyReplay& replay, const CompiledPolicy& policy,
                           const SimulationOptions& options) {
  std::uint64_t events = 0, cycles = 0;
  for (auto _ : state) {
    auto result = simulate(replay.workload, replay.cluster, policy, options);
    if (!result) {
      state.SkipWithError(result.error().c_str());
      return;
    }
    events += result->events;
    cycles += result->cycles;
    benchmark::DoNotOptimize(result->jobs.data());
  }
  state.counters["jobs"] = static_cast<double>(replay.workload.jobs.size());
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["cycles/s"] = benchmark::Counter(static_cast<double>(cycles), benchmark::Counter::kIsRate);
}

void BM_ReplayPhilly(benchmark::State& state) {
  const PhillyReplay* replay = philly();
  if (!replay) {
    state.SkipWithError("the Philly trace, the research cluster or the mapping could not be read");
    return;
  }
  const auto policy = large_org(state.range(0) == 0 ? Engine::jit : Engine::interpreter);
  SimulationOptions options;
  options.min_cycle_gap = state.range(1);
  replay_each_iteration(state, *replay, *policy, options);
  state.SetLabel(state.range(0) == 0 ? "jit" : "interpreter");
}

BENCHMARK(BM_ReplayPhilly)
    ->ArgNames({"interpreter", "gap"})
    ->Args({0, 0})
    ->Args({1, 0})
    ->Args({0, 60})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// One policy (0: the budget policy, 1: the label queue) over the whole trace on 640 GPUs.
void BM_ReplaySaturated(benchmark::State& state) {
  const PhillyReplay* replay = philly("examples/clusters/research-640gpu.toml");
  if (!replay) {
    state.SkipWithError("the Philly trace, the 640-GPU cluster or the mapping could not be read");
    return;
  }
  const bool labels = state.range(0) == 1;
  const auto policy = compile(labels ? "policies/large_org_labels.allot" : "policies/large_org.allot", Engine::jit);
  replay_each_iteration(state, *replay, *policy, SimulationOptions{});
  state.SetLabel(labels ? "large_org_labels" : "large_org");
}

BENCHMARK(BM_ReplaySaturated)->ArgName("labels")->Arg(0)->Arg(1)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
