// BM_CompilePolicy: policy source to callable native code (parse, check,
// lower, LLVM at the default level 2, JIT load), for the seed's policy and the
// large one; BM_FrontEnd is the part before LLVM.
// BM_RankBatch: one rank_batch call over 1,000,000 jobs with the large policy,
// by the JIT, by the interpreter, and by the same rank written by hand in C++;
// BM_RankBatchInCache the same over 8,192 jobs. Every ranking is checked bit
// for bit against the hand-written one. The *AtLevel variants measure what
// each optimisation level (CompileOptions::optimization_level) costs and buys.
#include <benchmark/benchmark.h>

#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "allot/compile.h"
#include "allot/policy.h"
#include "native_rank.h"

namespace {

using namespace allot;

constexpr std::size_t kJobs = 1'000'000;

std::string policy_path(const char* name) { return std::string(ALLOT_SOURCE_DIR) + "/policies/" + name; }

CompileResult compile(const std::string& path, Engine engine, int level = 2) {
  CompileOptions options;
  options.engine = engine;
  options.optimization_level = level;
  options.check.today = parse_date("2026-12-01");
  return compile_policy_file(path, options);
}

// A compiled policy, or null with the first diagnostic's message in `error`.
std::shared_ptr<const CompiledPolicy> compile_or_explain(const std::string& path, Engine engine, int level,
                                                         std::string& error) {
  CompileResult result = compile(path, engine, level);
  if (!result.policy) error = result.diagnostics.empty() ? "no policy" : result.diagnostics.front().message;
  if (result.policy && result.policy->engine() != engine) error = "the JIT is unavailable";
  return error.empty() ? result.policy : nullptr;
}

// ---------------------------------------------------------------- workload

// 1,000,000 pending jobs of the large organisation spread over its leaf
// accounts, with the rank computed by the hand-written code as the reference.
struct Workload {
  std::vector<std::vector<double>> job_columns;
  std::vector<std::int32_t> account_rows;
  std::vector<std::vector<double>> account_columns;
  std::vector<double> class_boost;
  abi::JobTable jobs{};
  abi::AccountTable accounts{};
  abi::ClusterView cluster{};
  std::vector<double> reference;
};

// The large policy's `class_boost` match, by class index.
std::vector<double> class_boosts(const PolicyTables& tables) {
  const std::map<std::string, double> boost = {{"debug", 400}, {"interactive", 300}, {"eval", 250}, {"service", 200},
                                               {"train", 0},   {"pretrain", 0},      {"batch", -50}};
  std::vector<double> result;
  for (const ClassInfo& c : tables.classes) result.push_back(boost.count(c.name) ? boost.at(c.name) : -50);
  return result;
}

void fill_jobs(Workload& w, const PolicyTables& tables, std::mt19937_64& random) {
  std::vector<std::int32_t> leaves;
  for (std::size_t a = 0; a < tables.accounts.size(); ++a)
    if (tables.accounts[a].leaf) leaves.push_back(static_cast<std::int32_t>(a));
  std::uniform_real_distribution<double> unit(0, 1);
  w.job_columns.assign(abi::kJobFieldCount, std::vector<double>(kJobs, 0.0));
  w.account_rows.resize(kJobs);
  auto& c = w.job_columns;
  for (std::size_t i = 0; i < kJobs; ++i) {
    w.account_rows[i] = leaves[random() % leaves.size()];
    c[abi::job_class][i] = static_cast<double>(random() % tables.classes.size());
    c[abi::job_nodes][i] = unit(random) < 0.8 ? 1 : static_cast<double>(2 + random() % 7);
    c[abi::job_gpus][i] = static_cast<double>(1 + random() % 64);
    c[abi::job_wait][i] = unit(random) * 5 * 86400;
    c[abi::job_has_deadline][i] = unit(random) < 0.1 ? 1 : 0;
    c[abi::job_deadline_slack][i] = c[abi::job_has_deadline][i] != 0 ? unit(random) * 2 * 86400 : 1000 * 86400.0;
    c[abi::job_restarts][i] = static_cast<double>(random() % 7);
  }
}

void fill_accounts(Workload& w, const PolicyTables& tables, std::mt19937_64& random) {
  std::uniform_real_distribution<double> unit(0, 1);
  w.account_columns.assign(abi::kAccountFieldCount, std::vector<double>(tables.accounts.size(), 0.0));
  for (double& v : w.account_columns[abi::account_fair_tree]) v = unit(random);
  for (double& v : w.account_columns[abi::account_debt]) v = (unit(random) - 0.5) * 600;
}

Workload make_workload(const PolicyTables& tables) {
  Workload w;
  std::mt19937_64 random(20261201);
  fill_jobs(w, tables, random);
  fill_accounts(w, tables, random);
  w.class_boost = class_boosts(tables);
  w.jobs.count = kJobs;
  for (std::size_t f = 0; f < abi::kJobFieldCount; ++f) w.jobs.columns[f] = w.job_columns[f].data();
  w.jobs.account = w.account_rows.data();
  w.accounts.count = tables.accounts.size();
  for (std::size_t f = 0; f < abi::kAccountFieldCount; ++f) w.accounts.columns[f] = w.account_columns[f].data();
  w.cluster.values[abi::cluster_now] = 1'796'083'200;  // 2026-12-01
  w.reference.resize(kJobs);
  bench::native_rank_batch(w.jobs, w.accounts, 0, kJobs, w.class_boost.data(), w.reference.data());
  return w;
}

// Built once, from the large policy's tree and classes; null if it does not compile.
const Workload* workload(std::string& error) {
  static const std::unique_ptr<Workload> shared = [&]() -> std::unique_ptr<Workload> {
    auto policy = compile_or_explain(policy_path("large_org.allot"), Engine::interpreter, 0, error);
    return policy ? std::make_unique<Workload>(make_workload(policy->tables())) : nullptr;
  }();
  if (!shared && error.empty()) error = "the large policy does not compile";
  return shared.get();
}

// Fails the benchmark unless `out` has the reference's exact bits.
void check_against_reference(benchmark::State& state, const Workload& w, const std::vector<double>& out) {
  if (std::memcmp(out.data(), w.reference.data(), out.size() * sizeof(double)) != 0)
    state.SkipWithError("the ranking differs from the hand-written rank");
}

// ---------------------------------------------------------------- benchmarks

void compile_repeatedly(benchmark::State& state, const std::string& path, Engine engine, int level) {
  for (auto _ : state) {
    std::string error;
    auto policy = compile_or_explain(path, engine, level, error);
    if (!policy) {
      state.SkipWithError(error.c_str());
      return;
    }
    benchmark::DoNotOptimize(policy.get());
  }
}

void BM_CompilePolicy(benchmark::State& state, const char* file) {
  compile_repeatedly(state, policy_path(file), Engine::jit, 2);
}
BENCHMARK_CAPTURE(BM_CompilePolicy, saas, "saas.allot")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CompilePolicy, large_org, "large_org.allot")->Unit(benchmark::kMillisecond);

// The front end alone (parse, check, lower; the interpreter needs nothing more).
void BM_FrontEnd(benchmark::State& state, const char* file) {
  compile_repeatedly(state, policy_path(file), Engine::interpreter, 2);
}
BENCHMARK_CAPTURE(BM_FrontEnd, saas, "saas.allot")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FrontEnd, large_org, "large_org.allot")->Unit(benchmark::kMillisecond);

void BM_CompilePolicyAtLevel(benchmark::State& state) {
  compile_repeatedly(state, policy_path("large_org.allot"), Engine::jit, static_cast<int>(state.range(0)));
}
BENCHMARK(BM_CompilePolicyAtLevel)->ArgName("O")->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

// Ranks the first `jobs` jobs per iteration with `policy`; checked against the reference.
void rank_repeatedly(benchmark::State& state, const Workload& w, const CompiledPolicy& policy, std::size_t jobs) {
  std::vector<double> out(jobs);
  for (auto _ : state) {
    policy.rank_batch(w.jobs, w.accounts, w.cluster, 0, jobs, out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(jobs));
  check_against_reference(state, w, out);
}

void rank_with_engine(benchmark::State& state, Engine engine, int level, std::size_t jobs = kJobs) {
  std::string error;
  const Workload* w = workload(error);
  auto policy = w ? compile_or_explain(policy_path("large_org.allot"), engine, level, error) : nullptr;
  if (!policy) {
    state.SkipWithError(error.c_str());
    return;
  }
  rank_repeatedly(state, *w, *policy, jobs);
}

// The hand-written rank over the first `jobs` jobs per iteration.
void native_repeatedly(benchmark::State& state, std::size_t jobs) {
  std::string error;
  const Workload* w = workload(error);
  if (!w) {
    state.SkipWithError(error.c_str());
    return;
  }
  std::vector<double> out(jobs);
  for (auto _ : state) {
    bench::native_rank_batch(w->jobs, w->accounts, 0, jobs, w->class_boost.data(), out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(jobs));
  check_against_reference(state, *w, out);
}

void BM_RankBatch(benchmark::State& state, Engine engine) { rank_with_engine(state, engine, 2); }
void BM_RankBatch_native(benchmark::State& state) { native_repeatedly(state, kJobs); }
BENCHMARK_CAPTURE(BM_RankBatch, jit, Engine::jit)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RankBatch, interp, Engine::interpreter)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RankBatch_native)->Name("BM_RankBatch/native")->Unit(benchmark::kMillisecond);

// 8,192 jobs stay in L2: what the code computes, rather than how fast memory
// streams the columns, decides the time.
constexpr std::size_t kJobsInCache = 8192;
void BM_RankBatchInCache(benchmark::State& state, Engine engine) { rank_with_engine(state, engine, 2, kJobsInCache); }
void BM_RankBatchInCache_native(benchmark::State& state) { native_repeatedly(state, kJobsInCache); }
BENCHMARK_CAPTURE(BM_RankBatchInCache, jit, Engine::jit)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_RankBatchInCache, interp, Engine::interpreter)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_RankBatchInCache_native)->Name("BM_RankBatchInCache/native")->Unit(benchmark::kMicrosecond);

// Arguments: the -O level, and the jobs per call (in cache, or all 1,000,000).
void BM_RankBatchAtLevel(benchmark::State& state) {
  rank_with_engine(state, Engine::jit, static_cast<int>(state.range(0)), static_cast<std::size_t>(state.range(1)));
}
BENCHMARK(BM_RankBatchAtLevel)
    ->ArgNames({"O", "jobs"})
    ->ArgsProduct({{0, 1, 2, 3}, {kJobsInCache, kJobs}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
