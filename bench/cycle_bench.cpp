// BM_Cycle: one full scheduling cycle (account fields, job tables, ranking,
// placement, victim search, decisions) on a large cluster of 8-GPU nodes with
// running jobs filling ~97% of the GPUs and a queue of pending jobs, under
// policies/large_org.allot (about a hundred researchers, seven classes, a
// `preempt` predicate). Arguments: nodes, running, pending. The rows: the
// issue-4 cluster (10,000 nodes, 60,000 running, 100,000 pending) scaled by
// 1/8, 1/4, 1/2 and 1 (the growth exponent), more pending on it, and 100,000
// GPUs with 1,000,000 pending (issue 34). Counters: decisions, and the heap
// bytes per pending job of the state and of one cycle's working memory (its
// peak above the state). BM_CycleAfterChange: one cycle after one typical
// change (an arrival, a completion, a charge in turn) on the issue-4 cluster,
// without and with a CycleCache kept between the cycles (as the simulator does).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "allot/compile.h"
#include "allot/cycle.h"
#include "allot/policy.h"
#include "heap_counter.h"

namespace {

using allot::CompiledPolicy;
using allot::Engine;
using namespace allot::runtime;

constexpr int kGpusPerNode = 8;
constexpr int kNodesPerBlock = 16;
constexpr Seconds kNow = 1'796'083'200;  // 2026-12-01T00:00:00Z
constexpr int kDecemberFirst2026 = 20788;

// What a cycle is given: nodes of 8 GPUs, running jobs (as many as fit in ~97%), pending jobs.
struct Shape {
  int nodes = 0, running = 0, pending = 0;
  auto key() const { return std::tuple(nodes, running, pending); }
};

Shape shape_of(const benchmark::State& bench) {
  return Shape{static_cast<int>(bench.range(0)), static_cast<int>(bench.range(1)), static_cast<int>(bench.range(2))};
}

std::shared_ptr<const CompiledPolicy> compile_large_org(Engine engine) {
  allot::CompileOptions options;
  options.engine = engine;
  options.check.today = allot::Date{kDecemberFirst2026};
  auto result = allot::compile_policy_file(std::string(ALLOT_SOURCE_DIR) + "/policies/large_org.allot", options);
  if (!result.policy) throw std::runtime_error("policies/large_org.allot does not compile");
  return result.policy;
}

// Compiled once per engine.
std::shared_ptr<const CompiledPolicy> large_org(Engine engine) {
  static const auto jit = compile_large_org(Engine::jit);
  static const auto interpreter = compile_large_org(Engine::interpreter);
  return engine == Engine::jit ? jit : interpreter;
}

Inventory big_cluster(int nodes) {
  Inventory inventory;
  inventory.name = "bench";
  inventory.gpu_types = {"h100", "a100", "b300"};
  for (int b = 0; b < (nodes + kNodesPerBlock - 1) / kNodesPerBlock; ++b) {
    inventory.blocks.push_back(fmt::format("rack-{}", b));
  }
  for (int n = 0; n < nodes; ++n) {
    // Three GPU types in contiguous thirds of the fleet, like three purchases.
    const int type = n * 3 / nodes;
    inventory.nodes.push_back(Node{fmt::format("gpu-{:05}", n),
                                   type,
                                   kGpusPerNode,
                                   128,
                                   2048,
                                   n / kNodesPerBlock,
                                   NodeState::up,
                                   std::nullopt,
                                   {}});
  }
  return inventory;
}

std::vector<std::string> leaf_accounts(const CompiledPolicy& policy) {
  std::vector<std::string> leaves;
  for (const auto& account : policy.tables().accounts) {
    if (account.leaf && !account.path.empty()) leaves.push_back(account.path);
  }
  return leaves;
}

// Mostly small jobs, like a research cluster's queue: 85% one GPU, then 2, 4, 8.
int job_gpus(std::mt19937_64& random) {
  const int draw = static_cast<int>(random() % 100);
  return draw < 85 ? 1 : draw < 95 ? 2 : draw < 99 ? 4 : 8;
}

JobRequest request(int id, const std::string& account, std::mt19937_64& random) {
  static const char* kClasses[] = {"train", "train", "train", "batch", "batch", "debug", "interactive", "eval"};
  JobRequest job;
  job.id = fmt::format("job-{}", id);
  job.account = account;
  job.job_class = kClasses[random() % 8];
  job.gpus_per_node = job_gpus(random);
  if (job.job_class == "debug") job.gpus_per_node = 1;
  if (job.job_class == "interactive") job.gpus_per_node = std::min(job.gpus_per_node, 2);
  job.cpus_per_node = 8.0 * job.gpus_per_node;
  job.memory_gib_per_node = 128.0 * job.gpus_per_node;
  job.submitted = kNow - static_cast<Seconds>(random() % (2 * 86400));
  job.requested_protect = static_cast<Seconds>(random() % 7200);
  job.expected_runtime = 3600 + static_cast<Seconds>(random() % (12 * 3600));
  if (job.job_class == "eval") job.deadline = kNow + static_cast<Seconds>(random() % (24 * 3600));
  job.revision = static_cast<std::uint64_t>(id) + 1;  // as a driver that keeps its requests numbers them
  return job;
}

// Running jobs packed first-fit onto the fleet until ~97% of the GPUs are
// held. Two in five belong to the ten last accounts of the tree (small
// shares), so those are well over their shares and the rest under: the
// situation preemption exists for.
void fill_running(ClusterState& state, const Shape& shape, const std::vector<std::string>& leaves,
                  std::mt19937_64& random) {
  std::vector<int> free(static_cast<std::size_t>(shape.nodes), kGpusPerNode);
  int node = 0;
  for (int i = 0; i < shape.running; ++i) {
    const bool heavy = random() % 5 < 2;
    const std::size_t leaf = heavy ? leaves.size() - 1 - random() % 10 : random() % leaves.size();
    JobRequest job = request(i, leaves[leaf], random);
    while (node < shape.nodes && free[static_cast<std::size_t>(node)] < job.gpus_per_node) ++node;
    if (node == shape.nodes) break;
    free[static_cast<std::size_t>(node)] -= job.gpus_per_node;
    RunningJob running;
    running.started = kNow - static_cast<Seconds>(random() % (6 * 3600));
    running.last_checkpoint = running.started;
    running.nodes = {node};
    running.contract.protected_until = running.started + job.requested_protect;
    running.contract.checkpoint_every = job.job_class == "train" ? 1800 : job.job_class == "batch" ? 1200 : 0;
    running.contract.resumable = job.job_class == "train" || job.job_class == "batch" || job.job_class == "debug";
    running.contract.preemptible = running.contract.resumable;
    running.request = std::move(job);
    state.running.push_back(std::move(running));
  }
}

// The state of `shape`, built once (the same for both engines: the policy's
// tree is), and the heap bytes it holds.
struct BuiltState {
  ClusterState state;
  std::int64_t bytes = 0;
};

ClusterState build_state(const CompiledPolicy& policy, const Shape& shape) {
  std::mt19937_64 random(2026);
  ClusterState built;
  built.now = kNow;
  built.inventory = big_cluster(shape.nodes);
  const std::vector<std::string> leaves = leaf_accounts(policy);
  fill_running(built, shape, leaves, random);
  built.pending.reserve(static_cast<std::size_t>(shape.pending));
  for (int i = 0; i < shape.pending; ++i) {
    JobRequest job = request(shape.running + i, leaves[random() % leaves.size()], random);
    if (random() % 100 == 0) {  // multi-node pretraining
      job.job_class = "pretrain";
      job.nodes = 2 + static_cast<int>(random() % 7);
      job.gpus_per_node = kGpusPerNode;
    }
    built.pending.push_back(std::move(job));
  }
  // Usage over the window follows what each account holds now (two days' worth), give or take.
  for (const RunningJob& job : built.running) built.usage[job.request.account] += 48.0 * job.request.gpus_per_node;
  for (const std::string& leaf : leaves) {
    built.usage[leaf] += static_cast<double>(random() % 500);
    built.debt[leaf] = static_cast<double>(random() % 400) - 100.0;
  }
  return built;
}

const BuiltState& big_state(const CompiledPolicy& policy, const Shape& shape) {
  static std::map<std::tuple<int, int, int>, std::unique_ptr<BuiltState>> built;
  std::unique_ptr<BuiltState>& slot = built[shape.key()];
  if (!slot) {
    slot = std::make_unique<BuiltState>();
    const allot::bench::HeapWatch watch;
    slot->state = build_state(policy, shape);
    slot->bytes = watch.live();
  }
  return *slot;
}

void count_decisions(benchmark::State& bench, const CycleResult& result) {
  std::size_t starts = 0, preemptions = 0;
  for (const Decision& decision : result.decisions) {
    starts += decision.kind == DecisionKind::start;
    preemptions += decision.kind == DecisionKind::preempt;
  }
  bench.counters["starts"] = static_cast<double>(starts);
  bench.counters["preemptions"] = static_cast<double>(preemptions);
  bench.counters["skips"] = static_cast<double>(result.skips.size());
}

void run(benchmark::State& bench, Engine engine) {
  const auto policy = large_org(engine);
  const BuiltState& built = big_state(*policy, shape_of(bench));
  const ClusterState& state = built.state;
  for (auto _ : bench) {
    const CycleResult result = run_cycle(state, *policy);
    benchmark::DoNotOptimize(result.skips.data());
  }
  // Once more, untimed, counting the heap: the cycle's working memory above the state.
  std::int64_t peak = 0;
  {
    const allot::bench::HeapWatch watch;
    const CycleResult result = run_cycle(state, *policy);
    peak = watch.peak();
    count_decisions(bench, result);
  }
  const auto pending = static_cast<double>(std::max<std::size_t>(state.pending.size(), 1));
  bench.counters["running"] = static_cast<double>(state.running.size());
  bench.counters["pending"] = static_cast<double>(state.pending.size());
  bench.counters["gpus"] = static_cast<double>(state.inventory.total_gpus());
  bench.counters["state_B/pending"] = static_cast<double>(built.bytes) / pending;
  bench.counters["cycle_B/pending"] = static_cast<double>(peak) / pending;
}

void BM_Cycle(benchmark::State& bench) { run(bench, Engine::jit); }
void BM_CycleInterpreter(benchmark::State& bench) { run(bench, Engine::interpreter); }

// The issue-4 cluster scaled (for the growth exponent), more pending on it, and 100,000 GPUs / 1,000,000 pending.
void shapes(benchmark::internal::Benchmark* bench) {
  bench->ArgNames({"nodes", "running", "pending"});
  for (const int eighths : {1, 2, 4, 8}) bench->Args({1250 * eighths, 7500 * eighths, 12500 * eighths});
  bench->Args({10000, 60000, 300000});
  bench->Args({12500, 75000, 1000000});
}

BENCHMARK(BM_Cycle)->Apply(shapes)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CycleInterpreter)->Args({10000, 60000, 100000})->Unit(benchmark::kMillisecond)->UseRealTime();

// One cycle after one change, in turn: an arrival (a job joins the queue), a completion (a running job
// ends and frees its GPUs), a charge (an account's usage grows). Each iteration leaves its change in
// place, so the queue and the running set drift by a job every three iterations.
void BM_CycleAfterChange(benchmark::State& bench) {
  const auto policy = large_org(Engine::jit);
  const Shape shape{10000, 60000, 100000};
  ClusterState state = big_state(*policy, shape).state;
  const std::vector<std::string> leaves = leaf_accounts(*policy);
  std::mt19937_64 random(34);
  int next_id = shape.running + shape.pending;
  std::int64_t step = 0;
  const bool cached = bench.range(0) != 0;
  CycleCache cache;
  if (cached) run_cycle(state, *policy, CycleOptions{}, cache);  // the cache's first fill is not a change
  for (auto _ : bench) {
    switch (step++ % 3) {
      case 0:
        state.pending.push_back(request(next_id++, leaves[random() % leaves.size()], random));
        break;
      case 1:
        if (!state.running.empty()) state.running.pop_back();
        break;
      default:
        state.usage[leaves[random() % leaves.size()]] += 1.0;
    }
    CycleResult result = cached ? run_cycle(state, *policy, CycleOptions{}, cache) : run_cycle(state, *policy);
    benchmark::DoNotOptimize(result.skips.data());
    if (cached) cache.give_back(std::move(result));
  }
  bench.counters["pending"] = static_cast<double>(state.pending.size());
}

BENCHMARK(BM_CycleAfterChange)->ArgName("cache")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
