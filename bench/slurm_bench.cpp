// BM_SlurmPass: one reconcile pass of the Slurm adapter against a real
// slurmctld through libslurm: read nodes and jobs, map, charge the ledger
// (SQLite), record contracts, run the cycle, write priorities. bench/slurm_bench.sh
// starts a sandbox holding 1,000 running and 5,000 pending jobs and runs these
// with SLURM_CONF set; without a reachable cluster they are skipped.
//   first:  a fresh adapter's pass, which gives all 5,000 pending jobs a priority,
//           with 1, 4, 8 (the default) and 16 writes in flight (`write_threads`);
//   steady: a pass over an unchanged cluster (no priority changes, no writes).
// Counters: the pass's phases in milliseconds, Slurm writes, jobs seen.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "allot/compile.h"
#include "allot/parallel.h"
#include "allot/policy.h"
#include "allot/slurm.h"

namespace {

using allot::slurm::Adapter;
using allot::slurm::PassReport;

constexpr int kDecemberFirst2026 = 20788;

// The cluster and what a pass needs, set up once; `skip` says why there is none.
struct SlurmSetup {
  std::unique_ptr<allot::slurm::SlurmBackend> backend;
  std::shared_ptr<const allot::CompiledPolicy> policy;
  std::optional<allot::slurm::JobMap> map;
  std::string skip;
};

SlurmSetup connect() {
  SlurmSetup setup;
  if (std::getenv("SLURM_CONF") == nullptr) {
    setup.skip = "no Slurm cluster: set SLURM_CONF (bench/slurm_bench.sh starts one with 1,000 running jobs)";
    return setup;
  }
  auto backend = allot::slurm::connect_libslurm();
  if (!backend) {
    setup.skip = backend.error();
    return setup;
  }
  if (auto nodes = (*backend)->read_nodes(); !nodes) {
    setup.skip = "no Slurm cluster reachable: " + nodes.error();
    return setup;
  }
  setup.backend = std::move(*backend);
  const std::string data = std::string(ALLOT_SOURCE_DIR) + "/tests/slurm/data";
  allot::CompileOptions options;
  options.check.today = allot::Date{kDecemberFirst2026};
  setup.policy = allot::compile_policy_file(data + "/three_teams.allot", options).policy;
  auto map = allot::slurm::load_job_map(data + "/three_teams_map.toml");
  if (!setup.policy || !map) {
    setup.skip = "tests/slurm/data/three_teams.allot or its map does not load";
    return setup;
  }
  map->settings.charge_every = 60;  // as in production, not the integration test's 1 s
  setup.map = std::move(*map);
  return setup;
}

SlurmSetup& slurm_setup() {
  static SlurmSetup setup = connect();
  return setup;
}

std::string fresh_state_file() {
  const auto folder = std::filesystem::temp_directory_path() / ("allot-slurm-bench-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return (folder / "state.db").string();
}

std::unique_ptr<Adapter> open_adapter(SlurmSetup& setup, const std::string& state) {
  auto adapter = Adapter::open(*setup.backend, *setup.map, {state, false, {}, allot::slurm::ChargeFrom::slurm_history});
  return adapter ? std::move(*adapter) : nullptr;
}

// Gives every pending job Slurm's default priority back, so a pass writes them all again.
void reset_priorities(SlurmSetup& setup) {
  auto jobs = setup.backend->read_jobs();
  if (!jobs) return;
  std::vector<std::uint32_t> ids;
  for (const auto& job : *jobs) {
    if (job.phase == allot::slurm::JobPhase::pending && job.priority > 1) ids.push_back(job.id);
  }
  allot::support::parallel_for(ids.size(), 8, [&](std::size_t i) { setup.backend->set_priority(ids[i], 1); });
}

// Sums of the passes' phases, reported per pass (Google Benchmark divides by the iterations).
struct PassTotals {
  double reading = 0, ledger = 0, cycle = 0, writing = 0, writes = 0;
  int pending = 0, running = 0;

  void add(const PassReport& report) {
    reading += report.timings.reading;
    ledger += report.timings.ledger;
    cycle += report.timings.cycle;
    writing += report.timings.writing;
    writes += report.writes;
    pending = report.pending;
    running = report.running;
  }

  void report(benchmark::State& state) const {
    const auto per_pass = [](double value) { return benchmark::Counter(value, benchmark::Counter::kAvgIterations); };
    state.counters["read_ms"] = per_pass(reading * 1000);
    state.counters["ledger_ms"] = per_pass(ledger * 1000);
    state.counters["cycle_ms"] = per_pass(cycle * 1000);
    state.counters["write_ms"] = per_pass(writing * 1000);
    state.counters["writes"] = per_pass(writes);
    state.counters["pending"] = pending;
    state.counters["running"] = running;
  }
};

// The cluster, or false after telling the benchmark why there is none.
bool have_cluster(benchmark::State& state, SlurmSetup& setup) {
  if (setup.skip.empty()) return true;
  state.SkipWithError(setup.skip.c_str());
  return false;
}

// One pass, added to `totals`; false after telling the benchmark why it failed.
bool timed_pass(benchmark::State& state, SlurmSetup& setup, Adapter* adapter, PassTotals& totals) {
  if (adapter == nullptr) {
    state.SkipWithError("cannot open the adapter's state file");
    return false;
  }
  auto report = adapter->reconcile(*setup.policy, std::time(nullptr));
  if (!report) {
    state.SkipWithError(report.error().c_str());
    return false;
  }
  totals.add(*report);
  return true;
}

void BM_SlurmPassFirst(benchmark::State& state) {
  SlurmSetup& setup = slurm_setup();
  if (!have_cluster(state, setup)) return;
  setup.map->settings.write_threads = static_cast<int>(state.range(0));
  PassTotals totals;
  for (auto _ : state) {
    state.PauseTiming();
    reset_priorities(setup);
    std::unique_ptr<Adapter> adapter = open_adapter(setup, fresh_state_file());
    state.ResumeTiming();
    if (!timed_pass(state, setup, adapter.get(), totals)) return;
  }
  totals.report(state);
}
BENCHMARK(BM_SlurmPassFirst)
    ->ArgName("write_threads")
    ->Arg(1)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_SlurmPassSteady(benchmark::State& state) {
  SlurmSetup& setup = slurm_setup();
  if (!have_cluster(state, setup)) return;
  setup.map->settings.write_threads = 8;
  std::unique_ptr<Adapter> adapter = open_adapter(setup, fresh_state_file());
  PassTotals first;
  if (!timed_pass(state, setup, adapter.get(), first)) return;  // priorities written; the rest find nothing to change
  PassTotals totals;
  for (auto _ : state) {
    if (!timed_pass(state, setup, adapter.get(), totals)) return;
  }
  totals.report(state);
}
BENCHMARK(BM_SlurmPassSteady)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
