// Hot swap (allot/policy_slot.h). A scheduling cycle's only contact with a swap
// is PolicySlot::current() when it starts, so "the time the decision path is
// blocked by a swap" is that call's latency while another thread swaps.
//
// BM_HotSwap/<load>: current() latency, one sample per call, with the other
//   thread idle, swapping two compiled policies back and forth as fast as it
//   can (far more often than any operator), or compiling policies/saas.allot
//   and swapping it in over and over (swap_from_file). Counters p50/p99/p999/max
//   in nanoseconds, and how many reads took over 100 microseconds. Target
//   (issue 4): p99 under 100 microseconds.
// BM_SharedPointerRead/<primitive>: the two ways to publish a shared_ptr that
//   PolicySlot chose between, read under the same continuous swapping.
// BM_SwapFromFile: the whole off-path swap of policies/saas.allot: read,
//   check, lower, JIT, swap, release of the replaced policy.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "allot/hot_swap.h"
#include "allot/policy_slot.h"

namespace {

using allot::CompiledPolicy;
using allot::CompileOptions;
using allot::runtime::PolicySlot;
using Clock = std::chrono::steady_clock;
using PolicyPointer = std::shared_ptr<const CompiledPolicy>;

constexpr int kDecemberFirst2026 = 20788;
constexpr std::int64_t kSamples = 1 << 21;

std::string source(const std::string& relative) { return std::string(ALLOT_SOURCE_DIR) + "/" + relative; }

CompileOptions jit_options() {
  CompileOptions options;
  options.engine = allot::Engine::jit;
  options.check.today = allot::Date{kDecemberFirst2026};
  return options;
}

PolicyPointer compile(const std::string& relative) {
  auto result = allot::compile_policy_file(source(relative), jit_options());
  if (!result.policy) throw std::runtime_error(relative + " does not compile");
  return result.policy;
}

// Runs `swap` in a loop on another thread while it lives.
class BackgroundSwapper {
 public:
  template <class Swap>
  explicit BackgroundSwapper(Swap swap)
      : thread_([this, swap]() mutable {
          while (!stop_.load(std::memory_order_relaxed)) {
            swap();
            swaps_.fetch_add(1, std::memory_order_relaxed);
          }
        }) {}
  ~BackgroundSwapper() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  long swaps() const { return swaps_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<long> swaps_{0};
  std::thread thread_;
};

// Times every call of `read` and reports the distribution as counters.
template <class Read>
void time_reads(benchmark::State& state, Read read) {
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(state.max_iterations));
  for (auto _ : state) {
    const auto start = Clock::now();
    PolicyPointer policy = read();
    const auto end = Clock::now();
    benchmark::DoNotOptimize(policy.get());
    samples.push_back(std::chrono::duration<double, std::nano>(end - start).count());
  }
  std::sort(samples.begin(), samples.end());
  const auto at = [&](double quantile) {
    return samples[std::min(samples.size() - 1,
                            static_cast<std::size_t>(quantile * static_cast<double>(samples.size())))];
  };
  state.counters["p50_ns"] = at(0.50);
  state.counters["p99_ns"] = at(0.99);
  state.counters["p999_ns"] = at(0.999);
  state.counters["max_ns"] = samples.back();
  // Reads slower than the target (issue 4: p99 under 100 microseconds).
  state.counters["over_100us"] =
      static_cast<double>(samples.end() - std::upper_bound(samples.begin(), samples.end(), 100'000.0));
}

enum class SwapLoad { idle, swap, swap_from_file };

void BM_HotSwap(benchmark::State& state, SwapLoad load) {
  const PolicyPointer saas = compile("policies/saas.allot");
  const PolicyPointer large_org = compile("policies/large_org.allot");
  PolicySlot slot(saas);
  bool flip = false;
  std::optional<BackgroundSwapper> swapper;
  if (load == SwapLoad::swap) swapper.emplace([&] { slot.swap((flip = !flip) ? large_org : saas); });
  if (load == SwapLoad::swap_from_file) {
    swapper.emplace([&] { swap_from_file(slot, source("policies/saas.allot"), jit_options()); });
  }
  time_reads(state, [&] { return slot.current(); });
  state.counters["swaps"] = swapper ? static_cast<double>(swapper->swaps()) : 0.0;
}
BENCHMARK_CAPTURE(BM_HotSwap, idle, SwapLoad::idle)->Iterations(kSamples)->UseRealTime();
BENCHMARK_CAPTURE(BM_HotSwap, swap, SwapLoad::swap)->Iterations(kSamples)->UseRealTime();
BENCHMARK_CAPTURE(BM_HotSwap, swap_from_file, SwapLoad::swap_from_file)->Iterations(kSamples)->UseRealTime();

// The C++20 primitive; GCC 12's is a spin lock on the control-block pointer.
class AtomicPointer {
 public:
  explicit AtomicPointer(PolicyPointer initial) : pointer_(std::move(initial)) {}
  PolicyPointer load() const { return pointer_.load(); }
  void store(PolicyPointer next) { pointer_.store(std::move(next)); }

 private:
  std::atomic<PolicyPointer> pointer_;
};

// What PolicySlot does: a mutex held for a pointer copy or exchange.
class MutexPointer {
 public:
  explicit MutexPointer(PolicyPointer initial) : pointer_(std::move(initial)) {}
  PolicyPointer load() const {
    std::lock_guard lock(mutex_);
    return pointer_;
  }
  void store(PolicyPointer next) {
    {
      std::lock_guard lock(mutex_);
      pointer_.swap(next);
    }
  }  // the replaced pointer is released outside the lock

 private:
  mutable std::mutex mutex_;
  PolicyPointer pointer_;
};

template <class Pointer>
void BM_SharedPointerRead(benchmark::State& state) {
  const PolicyPointer saas = compile("policies/saas.allot");
  const PolicyPointer large_org = compile("policies/large_org.allot");
  Pointer pointer(saas);
  bool flip = false;
  const BackgroundSwapper swapper([&] { pointer.store((flip = !flip) ? large_org : saas); });
  time_reads(state, [&] { return pointer.load(); });
  state.counters["swaps"] = static_cast<double>(swapper.swaps());
}
BENCHMARK_TEMPLATE(BM_SharedPointerRead, AtomicPointer)
    ->Name("BM_SharedPointerRead/atomic")
    ->Iterations(kSamples)
    ->UseRealTime();
BENCHMARK_TEMPLATE(BM_SharedPointerRead, MutexPointer)
    ->Name("BM_SharedPointerRead/mutex")
    ->Iterations(kSamples)
    ->UseRealTime();

void BM_SwapFromFile(benchmark::State& state) {
  PolicySlot slot(compile("policies/saas.allot"));
  for (auto _ : state) {
    const auto outcome = swap_from_file(slot, source("policies/saas.allot"), jit_options());
    if (!outcome.swapped) state.SkipWithError(outcome.message.c_str());
  }
}
BENCHMARK(BM_SwapFromFile)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
