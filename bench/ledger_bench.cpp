// BM_LedgerCharge: charges per second into the usage ledger. The in-memory
// path is what a scheduling cycle pays per running job; the durable paths add
// SQLite (WAL) with one transaction per batch of charges.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "allot/durable_ledger.h"
#include "allot/ledger.h"

namespace {

using allot::runtime::Charge;
using allot::runtime::Durability;
using allot::runtime::DurableLedger;
using allot::runtime::LedgerConfig;
using allot::runtime::RollingLedger;
using allot::runtime::Seconds;

constexpr int kAccounts = 1000;
constexpr int kJobs = 10000;
constexpr Seconds kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z
constexpr Seconds kChargeSeconds = 60;

LedgerConfig bench_config() {
  LedgerConfig config;
  config.unit.gpu_type_weights = {{"h100", 1.0}, {"b300", 2.5}};
  config.half_life_seconds = 2 * 86400.0;
  return config;
}

// One charge per running job, each job in one of kAccounts leaf accounts.
std::vector<Charge> running_jobs() {
  std::vector<Charge> jobs;
  jobs.reserve(kJobs);
  for (int i = 0; i < kJobs; ++i) {
    const std::string account = fmt::format("program-{}/user-{}", i % kAccounts % 10, i % kAccounts);
    jobs.push_back(Charge{account, fmt::format("job-{}", i), kStart, kStart, {i % 3 ? "h100" : "b300", 8, 64, 512}});
  }
  return jobs;
}

// Moves a job's charge one interval forward in time.
void advance(Charge& charge) {
  charge.from = charge.until;
  charge.until += kChargeSeconds;
}

void BM_LedgerCharge(benchmark::State& state) {
  RollingLedger ledger(bench_config());
  std::vector<Charge> jobs = running_jobs();
  std::size_t next = 0;
  for (auto _ : state) {
    advance(jobs[next]);
    benchmark::DoNotOptimize(ledger.charge(jobs[next]));
    next = next + 1 == jobs.size() ? 0 : next + 1;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LedgerCharge);

std::string fresh_database_path() {
  static int counter = 0;
  const auto folder = std::filesystem::temp_directory_path() / "allot-ledger-bench";
  std::filesystem::create_directories(folder);
  return (folder / fmt::format("ledger-{}.db", counter++)).string();
}

void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

// Arguments: charges per transaction, and 1 for power-loss durability (fsync each commit) or 0 for process-crash.
void BM_LedgerChargeDurable(benchmark::State& state) {
  const auto batch_size = static_cast<std::size_t>(state.range(0));
  const Durability durability = state.range(1) == 1 ? Durability::power_loss : Durability::process_crash;
  const std::string path = fresh_database_path();
  auto opened = DurableLedger::open(path, bench_config(), durability);
  if (!opened) {
    state.SkipWithError(opened.error().message.c_str());
    return;
  }
  DurableLedger& ledger = **opened;
  std::vector<Charge> jobs = running_jobs();
  std::vector<Charge> batch(batch_size);
  std::size_t next = 0;
  for (auto _ : state) {
    for (Charge& charge : batch) {
      advance(jobs[next]);
      charge = jobs[next];
      next = next + 1 == jobs.size() ? 0 : next + 1;
    }
    benchmark::DoNotOptimize(ledger.charge_batch(batch));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
  opened->reset();
  remove_database(path);
}
BENCHMARK(BM_LedgerChargeDurable)
    ->ArgNames({"batch", "fsync_each_commit"})
    ->Args({1, 1})
    ->Args({1, 0})
    ->Args({1000, 1})
    ->Args({1000, 0})
    ->Args({10000, 0});

}  // namespace
