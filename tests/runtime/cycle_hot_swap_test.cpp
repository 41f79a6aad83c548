// Hot swap (allot/policy_slot.h, allot/hot_swap.h): a new policy is compiled and checked off the
// decision path and swapped in atomically; a cycle in flight finishes on the
// code it started with; a policy that does not compile is refused with its
// diagnostics and the old one keeps running; a dry run shows how the queue
// would move; jobs keep the contract they started under; and cycles on many
// threads lose no decision while policies swap continuously.
//
// Policies: policies/saas.allot and variants of it written by the test (one
// line changed each, so a reader sees exactly what differs), plus
// tests/runtime/data/broken_shares.allot.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "allot/hot_swap.h"
#include "allot/policy_slot.h"
#include "cycle_support.h"
#include "temp_folder.h"

namespace cycle_test {
namespace {

// The JIT, also in the ThreadSanitizer build (scripts/test.sh). TSan does not
// instrument libLLVM or the code it generates, but that code only reads the
// tables its caller filled and writes the caller's own output array, and
// loading and unloading code is serialised by a mutex TSan intercepts
// (compiler/backend/src/codegen/jit.cpp). No false report appears; and the stress test
// has teeth under TSan: a slot without its lock is reported at once (tried).
constexpr Engine kEngine = Engine::jit;

constexpr int kDecemberFirst2026 = 20788;  // days since 1970-01-01

std::string source_path(const std::string& relative) { return std::string(ALLOT_SOURCE_DIR) + "/" + relative; }

CompileOptions swap_options() {
  CompileOptions options;
  options.engine = kEngine;
  options.check.today = Date{kDecemberFirst2026};
  return options;
}

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// policies/saas.allot with each `from` replaced by its `to` (each must occur),
// written to `folder`. Its `stdlib/` imports are found in the import path.
std::string saas_variant(const TempFolder& folder, const std::string& name,
                         const std::vector<std::pair<std::string, std::string>>& replacements) {
  std::string text = read_file(source_path("policies/saas.allot"));
  for (const auto& [from, to] : replacements) {
    const std::size_t at = text.find(from);
    INFO("policies/saas.allot no longer contains `" << from << "`");
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  const std::string path = folder.file(name);
  std::ofstream(path) << text;
  return path;
}

// Training first: the class boosts of saas.allot turned around.
std::string train_first(const TempFolder& folder) {
  return saas_variant(
      folder, "train_first.allot",
      {{"match c { debug => 500, eval => 300, train => 0 }", "match c { debug => 0, eval => 300, train => 500 }"}});
}

// Training protected for at most 30 minutes instead of 2 hours.
std::string short_protection(const TempFolder& folder) {
  return saas_variant(folder, "short_protection.allot", {{"protect up to 2h", "protect up to 30m"}});
}

std::shared_ptr<const CompiledPolicy> compiled(const std::string& path) {
  CompileResult result = compile_policy_file(path, swap_options());
  INFO(render_text(result.diagnostics, result.sources, {}));
  REQUIRE(result.policy != nullptr);
  return result.policy;
}

Inventory saas_cluster() { return inventory_from(read_file(source_path("examples/clusters/saas-8gpu.toml"))); }

JobRequest training(const std::string& id, const std::string& account, int gpus, Seconds submitted) {
  JobRequest request = job(id, account, "train", gpus, submitted);
  request.requested_protect = 2 * kHour;
  request.expected_runtime = 10 * kHour;
  return request;
}

// The seed's company at 10:00 on Tuesday: exploration holds six GPUs (ana's
// run past its protection), and a mixed queue waits for the two free ones.
ClusterState live_state() {
  ClusterState state;
  state.now = kTuesday + 10 * kHour;
  state.inventory = saas_cluster();
  state.running.push_back(
      running(training("ana-long", "exploration/ana", 4, kTuesday), {0}, kTuesday + kHour,
              Contract{kTuesday + 3 * kHour, 30 * kMinute, 5 * kMinute, true, true, "earlier", {}}));
  state.running.push_back(
      running(training("ben-run", "exploration/ben", 2, kTuesday), {0}, kTuesday + 9 * kHour,
              Contract{kTuesday + 11 * kHour, 30 * kMinute, 5 * kMinute, true, true, "earlier", {}}));
  state.usage = {{"exploration/ana", 36}, {"exploration/ben", 2}, {"platform", 10}};
  const Seconds morning = kTuesday + 8 * kHour;
  for (int i = 0; i < 4; ++i) {
    state.pending.push_back(job(fmt::format("product-debug-{}", i), "product", "debug", 1, morning + i * kMinute));
    state.pending.push_back(training(fmt::format("platform-train-{}", i), "platform", 2, morning + i * kMinute));
    state.pending.push_back(training(fmt::format("product-train-{}", i), "product", 1, morning + 30 * kMinute));
  }
  JobRequest evaluation = job("product-eval", "product", "eval", 2, morning);
  evaluation.deadline = state.now + 4 * kHour;
  evaluation.expected_runtime = kHour;
  state.pending.push_back(evaluation);
  return state;
}

// Everything a decision says, as one comparable line.
std::vector<std::string> signature(const CycleResult& result) {
  std::vector<std::string> lines;
  for (const Decision& d : result.all_decisions()) {
    lines.push_back(fmt::format("{} {} [{}] for={} rank={:.17g} at={} protected_until={} policy={} reason={}",
                                static_cast<int>(d.kind), d.job_id, fmt::join(d.nodes, ","), d.for_job, d.rank,
                                d.position, d.contract.protected_until, d.contract.policy_hash, d.reason));
  }
  return lines;
}

std::string short_hash(const CompiledPolicy& policy) { return policy.source_hash().substr(0, 12); }

bool has_code(const std::vector<Diagnostic>& diagnostics, const std::string& code) {
  return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
}

// A policy whose release records the thread it happened on.
std::shared_ptr<const CompiledPolicy> tracked(std::shared_ptr<const CompiledPolicy> policy,
                                              std::promise<std::thread::id>& released_on) {
  const CompiledPolicy* raw = policy.get();
  return {raw, [policy = std::move(policy), &released_on](const CompiledPolicy*) mutable {
            policy.reset();
            released_on.set_value(std::this_thread::get_id());
          }};
}

}  // namespace

TEST_CASE("a swap changes the policy the next cycle runs", "[hot_swap]") {
  TempFolder folder("allot-hot-swap");
  const auto saas = compiled(source_path("policies/saas.allot"));
  const ClusterState state = live_state();
  PolicySlot slot(saas);
  REQUIRE(slot.generation() == 1);

  const SwapOutcome outcome = swap_from_file(slot, train_first(folder), swap_options());

  INFO(render_swap_outcome(outcome));
  REQUIRE(outcome.swapped);
  CHECK(outcome.generation == 2);
  CHECK(slot.generation() == 2);
  CHECK(slot.current()->source_hash() == outcome.policy_hash);
  CHECK(outcome.policy_hash != saas->source_hash());
  CHECK(outcome.message == fmt::format("swapped to {} (generation 2), replacing {}", outcome.policy_hash.substr(0, 12),
                                       short_hash(*saas)));
  const CycleResult next = run_cycle(state, *slot.current());
  CHECK(next.policy_hash == outcome.policy_hash);
  CHECK(signature(next) != signature(run_cycle(state, *saas)));
}

TEST_CASE("a cycle in flight finishes on the policy it started with", "[hot_swap]") {
  TempFolder folder("allot-hot-swap");
  const auto saas = compiled(source_path("policies/saas.allot"));
  const auto other = compiled(train_first(folder));
  const ClusterState state = live_state();
  PolicySlot slot(saas);
  std::promise<void> holding, swapped;
  std::future<void> swap_done = swapped.get_future();

  // The cycle takes the policy, then the swap happens, then the cycle runs.
  auto cycle = std::async(std::launch::async, [&] {
    const std::shared_ptr<const CompiledPolicy> policy = slot.current();
    holding.set_value();
    swap_done.wait();
    return run_cycle(state, *policy);
  });
  holding.get_future().wait();
  const SwapOutcome outcome = slot.swap(other);
  swapped.set_value();
  const CycleResult in_flight = cycle.get();

  REQUIRE(outcome.swapped);
  CHECK(in_flight.policy_hash == saas->source_hash());
  CHECK(signature(in_flight) == signature(run_cycle(state, *saas)));
  CHECK(run_cycle(state, *slot.current()).policy_hash == other->source_hash());
}

TEST_CASE("a replaced policy is released by the swapping thread once no cycle holds it", "[hot_swap]") {
  TempFolder folder("allot-hot-swap");
  std::promise<std::thread::id> released_on;
  std::future<std::thread::id> release = released_on.get_future();
  PolicySlot slot(tracked(compiled(source_path("policies/saas.allot")), released_on));
  std::shared_ptr<const CompiledPolicy> held_by_cycle = slot.current();

  REQUIRE(slot.swap(compiled(train_first(folder))).swapped);
  CHECK(slot.retired_count() == 1);
  CHECK(slot.release_retired() == 0);  // the cycle still runs it

  // The cycle ends on its own thread and lets go; that does not release the policy.
  std::thread([held = std::move(held_by_cycle)]() mutable { held.reset(); }).join();
  CHECK(release.wait_for(std::chrono::seconds(0)) == std::future_status::timeout);

  CHECK(slot.release_retired() == 1);
  CHECK(release.get() == std::this_thread::get_id());
  CHECK(slot.retired_count() == 0);
}

TEST_CASE("a policy that does not compile is refused and the old one keeps running", "[hot_swap]") {
  const auto saas = compiled(source_path("policies/saas.allot"));
  const ClusterState state = live_state();
  PolicySlot slot(saas);
  const std::string keeps_running = fmt::format("; {} keeps running (generation 1)", short_hash(*saas));

  SECTION("errors are refused with their location") {
    const std::string path = source_path("tests/runtime/data/broken_shares.allot");
    const SwapOutcome outcome = swap_from_file(slot, path, swap_options());
    CHECK_FALSE(outcome.swapped);
    CHECK(outcome.policy_hash == saas->source_hash());
    CHECK(outcome.generation == 1);
    REQUIRE(outcome.diagnostics.size() == 1);
    const Diagnostic& error = outcome.diagnostics[0];
    CHECK(error.code == "share_sum_mismatch");
    CHECK(error.span.line == 10);
    CHECK(error.span.column == 3);
    CHECK(outcome.message ==
          fmt::format("refused: {}:10:3: error[share_sum_mismatch]: shares of the programs sum to 95%, not 100%{}",
                      path, keeps_running));
    const std::string rendered = render_swap_outcome(outcome);
    CHECK_THAT(rendered, Catch::Contains("10 |   tree {\n   |   ^^^^"));
    CHECK_THAT(rendered, Catch::Contains("product 35% + platform 35% + exploration 25% = 95%"));
  }
  SECTION("a file that cannot be read is refused") {
    const SwapOutcome outcome = swap_from_file(slot, source_path("tests/runtime/data/missing.allot"), swap_options());
    CHECK_FALSE(outcome.swapped);
    CHECK(has_code(outcome.diagnostics, "io_error"));
    CHECK_THAT(outcome.message,
               Catch::StartsWith("refused: ") && Catch::Contains("error[io_error]") && Catch::EndsWith(keeps_running));
  }
  SECTION("no policy at all is refused") {
    const SwapOutcome outcome = slot.swap(nullptr);
    CHECK_FALSE(outcome.swapped);
    CHECK(outcome.message == "refused: no policy to swap to" + keeps_running);
  }
  CHECK(slot.generation() == 1);
  CHECK(slot.current() == saas);
  CHECK(run_cycle(state, *slot.current()).policy_hash == saas->source_hash());
}

TEST_CASE("a policy with warnings is swapped in and its warnings are reported", "[hot_swap]") {
  TempFolder folder("allot-hot-swap");
  PolicySlot slot(compiled(source_path("policies/saas.allot")));
  const std::string review_soon =
      saas_variant(folder, "review_soon.allot", {{"review 2026-12-31", "review 2026-12-10"}});

  const SwapOutcome outcome = swap_from_file(slot, review_soon, swap_options());

  CHECK(outcome.swapped);
  CHECK(has_code(outcome.diagnostics, "review_date_near"));
  CHECK_THAT(outcome.message, Catch::EndsWith("with 1 warning"));
  CHECK_THAT(render_swap_outcome(outcome), Catch::Contains("warning[review_date_near]"));
}

TEST_CASE("swapping in the policy that already runs changes nothing", "[hot_swap]") {
  const auto saas = compiled(source_path("policies/saas.allot"));
  PolicySlot slot(saas);

  const SwapOutcome outcome = slot.swap(saas);

  CHECK_FALSE(outcome.swapped);
  CHECK(outcome.message == fmt::format("unchanged: {} is already running (generation 1)", short_hash(*saas)));
  CHECK(slot.generation() == 1);
}

TEST_CASE("a dry run shows how the queue would move and swaps nothing", "[hot_swap]") {
  TempFolder folder("allot-hot-swap");
  const auto saas = compiled(source_path("policies/saas.allot"));
  const ClusterState state = live_state();
  PolicySlot slot(saas);

  const DryRun dry_run = dry_run_from_file(slot, train_first(folder), swap_options(), state);

  INFO(dry_run.outcome.message);
  REQUIRE(dry_run.candidate != nullptr);
  REQUIRE(dry_run.diff.has_value());
  CHECK_FALSE(dry_run.outcome.swapped);
  CHECK(slot.current() == saas);
  CHECK(dry_run.base_generation == 1);
  const RankDiff& diff = *dry_run.diff;
  CHECK(diff.before_hash == saas->source_hash());
  CHECK(diff.after_hash == dry_run.candidate->source_hash());
  CHECK(diff.jobs.size() == state.pending.size());
  CHECK(diff.ranked_by_both == state.pending.size());
  CHECK(diff.moved > 0);
  CHECK(diff.kendall_tau < 1);
  // Debug jobs led the queue and took the two free GPUs; training leads now.
  const auto find = [&](const std::string& id) {
    const auto found =
        std::find_if(diff.jobs.begin(), diff.jobs.end(), [&](const RankChange& job) { return job.job_id == id; });
    REQUIRE(found != diff.jobs.end());
    return *found;
  };
  CHECK(find("product-debug-0").before_position == 0u);
  CHECK(find("product-debug-0").places_gained() < 0);
  CHECK(find("product-debug-0").starts_before);
  CHECK_FALSE(find("product-debug-0").starts_after);
  CHECK_THAT(diff.jobs.front().job_id, Catch::Contains("-train-"));
  CHECK(diff.jobs.front().places_gained() > 0);
  CHECK_THAT(diff.starts_lost, Catch::VectorContains(std::string("product-debug-0")));
  CHECK_FALSE(diff.starts_gained.empty());
  CHECK_FALSE(diff.entering_top(3).empty());
  CHECK(diff.entering_top(3).size() == diff.leaving_top(3).size());
  CHECK_THAT(dry_run.outcome.message,
             Catch::StartsWith(fmt::format(
                 "dry run: {} would replace {} (generation 1): ", short_hash(*dry_run.candidate), short_hash(*saas))));

  SECTION("the candidate runs only while the slot still runs the generation it was compared with") {
    const SwapOutcome swapped = slot.swap_if(dry_run.candidate, dry_run.base_generation);
    CHECK(swapped.swapped);
    CHECK(slot.current() == dry_run.candidate);
    const SwapOutcome stale = slot.swap_if(saas, dry_run.base_generation);
    CHECK_FALSE(stale.swapped);
    CHECK_THAT(stale.message, Catch::Contains("the dry run was made against generation 1, but generation 2 runs now"));
  }
  SECTION("a candidate that does not compile has no diff") {
    const DryRun refused =
        dry_run_from_file(slot, source_path("tests/runtime/data/broken_shares.allot"), swap_options(), state);
    CHECK(refused.candidate == nullptr);
    CHECK_FALSE(refused.diff.has_value());
    CHECK_THAT(refused.outcome.message, Catch::StartsWith("refused: ") && Catch::Contains("share_sum_mismatch"));
  }
}

TEST_CASE("a ranking diff counts the pairs two policies order differently", "[hot_swap]") {
  const auto oldest_first = compile_text(two_team_policy("job.wait / 1h", "true"), kEngine);
  const auto newest_first = compile_text(two_team_policy("100 - job.wait / 1h", "true"), kEngine);
  ClusterState state;
  state.now = kTuesday + kHour;
  state.inventory = uniform_inventory(1, 2);
  for (int i = 0; i < 4; ++i)
    state.pending.push_back(job(fmt::format("j{}", i), i % 2 ? "alpha" : "beta", "work", 1, kTuesday + i * kMinute));

  SECTION("the same policy") {
    const RankDiff same = diff_rankings(state, *oldest_first, *oldest_first);
    CHECK(same.moved == 0);
    CHECK(same.kendall_tau == 1);
    CHECK(same.discordant_pairs == 0);
    CHECK(same.starts_gained.empty());
    CHECK(same.starts_lost.empty());
  }
  SECTION("the reversed order") {
    const RankDiff reversed = diff_rankings(state, *oldest_first, *newest_first);
    CHECK(reversed.compared_pairs == 6);
    CHECK(reversed.discordant_pairs == 6);
    CHECK(reversed.kendall_tau == -1);
    CHECK(reversed.moved == 4);
    CHECK(reversed.starts_lost == std::vector<std::string>{"j0", "j1"});
    CHECK(reversed.starts_gained == std::vector<std::string>{"j2", "j3"});
    CHECK(render_rank_diff(reversed, 2) ==
          fmt::format(R"(ranking diff at 2026-12-01T01:00:00Z: {} (running) -> {} (candidate)
  4 pending jobs, 4 ranked by both: 4 move; Kendall tau -1.000 (6 of 6 pairs swap order)
  starts this cycle: 2 gained (j2, j3), 2 lost (j0, j1)
  preemptions this cycle: no change
first 2 places after the swap:
   after before   change  rank before   rank after  job (account)
       1      4       +3         0.95        99.05  j3 (alpha) starts
       2      3       +1     0.966667      99.0333  j2 (beta) starts
entering the first 2: j3 (4 -> 1), j2 (3 -> 2)
leaving the first 2: j0 (1 -> 4), j1 (2 -> 3)
)",
                      short_hash(*oldest_first), short_hash(*newest_first)));
  }
}

TEST_CASE("a ranking diff names the jobs the candidate cannot rank", "[hot_swap]") {
  TempFolder folder("allot-hot-swap");
  const auto saas = compiled(source_path("policies/saas.allot"));
  const auto without_ben =
      compiled(saas_variant(folder, "without_ben.allot", {{"user ana 50%\n      user ben 50%", "user ana 100%"}}));
  ClusterState state = live_state();
  state.pending.push_back(training("ben-next", "exploration/ben", 1, kTuesday));

  const RankDiff diff = diff_rankings(state, *saas, *without_ben);

  const auto found =
      std::find_if(diff.jobs.begin(), diff.jobs.end(), [](const RankChange& job) { return job.job_id == "ben-next"; });
  REQUIRE(found != diff.jobs.end());
  const RankChange& ben = *found;
  CHECK(ben.before_position.has_value());
  CHECK_FALSE(ben.after_position.has_value());
  CHECK_FALSE(ben.unranked_reason.empty());
  CHECK(diff.jobs.back().job_id == "ben-next");
  CHECK_THAT(render_rank_diff(diff, 5),
             Catch::Contains("not ranked after the swap: 1 job (ben-next): " + ben.unranked_reason));
}

TEST_CASE("a job started before a swap keeps the protection it started with", "[hot_swap][contracts]") {
  TempFolder folder("allot-hot-swap");
  PolicySlot slot(compiled(source_path("policies/saas.allot")));
  const std::string generous = slot.current()->source_hash();
  Driver driver(saas_cluster(), slot.current(), kTuesday);
  // Exploration's ana fills the cluster under the generous policy: 2 hours of protection.
  for (int i = 0; i < 4; ++i) driver.submit(training(fmt::format("ana-{}", i), "exploration/ana", 2, kTuesday));
  driver.step(kMinute);
  REQUIRE(driver.state().running.size() == 4);
  const Seconds protected_until = kTuesday + kMinute + 2 * kHour;
  for (const RunningJob& job : driver.state().running) {
    CHECK(job.contract.protected_until == protected_until);
    CHECK(job.contract.policy_hash == generous);
  }

  // Ten minutes in, the operator swaps to 30 minutes of protection, and product
  // (owed half the cluster, holding nothing) starts asking for GPUs.
  driver.step(9 * kMinute);
  const SwapOutcome outcome = swap_from_file(slot, short_protection(folder), swap_options());
  REQUIRE(outcome.swapped);
  driver.swap(slot.current());
  driver.submit(training("product-1", "product", 2, kTuesday));

  // Under the new policy's terms ana's runs would be fair game after 30
  // minutes; they keep their two hours.
  while (driver.state().now + 5 * kMinute < protected_until) {
    const CycleResult& cycle = driver.step(5 * kMinute);
    INFO("at " << (driver.state().now - kTuesday) / kMinute << " minutes");
    CHECK(decisions_of(cycle, DecisionKind::preempt).empty());
    CHECK(cycle.policy_hash == outcome.policy_hash);
  }
  CHECK(driver.first_start("product-1") == 0);

  // Once their promise ends, one of ana's runs yields to product, whose own
  // run starts under the new policy's contract.
  while (driver.first_start("product-1") == 0 && driver.state().now < protected_until + kHour) driver.step(5 * kMinute);
  const Seconds started = driver.first_start("product-1");
  REQUIRE(started >= protected_until);
  const RunningJob* product = driver.find_running("product-1");
  REQUIRE(product != nullptr);
  CHECK(product->contract.protected_until == started + 30 * kMinute);
  CHECK(product->contract.policy_hash == outcome.policy_hash);
  for (const Decision& decision : driver.history()) {
    if (decision.kind == DecisionKind::preempt) CHECK(decision.job_id.rfind("ana-", 0) == 0);
  }
}

TEST_CASE("cycles on many threads lose no decision while policies swap continuously", "[hot_swap][stress]") {
  TempFolder folder("allot-hot-swap");
  const std::vector<std::string> files = {source_path("policies/saas.allot"), train_first(folder),
                                          short_protection(folder)};
  std::vector<std::shared_ptr<const CompiledPolicy>> policies;
  for (const std::string& file : files) policies.push_back(compiled(file));
  const ClusterState state = live_state();
  // What each policy decides on this state: the answer every cycle must give.
  std::map<std::string, std::vector<std::string>> expected;
  for (const auto& policy : policies) expected[policy->source_hash()] = signature(run_cycle(state, *policy));
  REQUIRE(expected.size() == 3);
  REQUIRE(expected[policies[0]->source_hash()] != expected[policies[1]->source_hash()]);
  REQUIRE(expected[policies[0]->source_hash()] != expected[policies[2]->source_hash()]);
  REQUIRE(expected[policies[1]->source_hash()] != expected[policies[2]->source_hash()]);

  constexpr int kCycleThreads = 3;
  constexpr long kSwaps = 3000;
  constexpr long kMinimumRunsPerPolicy = 20;
  PolicySlot slot(policies[0]);
  std::atomic<bool> stop{false};
  std::array<std::atomic<long>, 3> runs_by_policy{};
  std::atomic<int> threads_cycling{0};  // cycle threads that finished a first cycle
  // Written by one cycle thread each, read after it is joined.
  struct Tally {
    long cycles = 0;
    long wrong = 0;  // decisions that differ from their policy's
    long generation_went_back = 0;
  };
  std::vector<Tally> tallies(kCycleThreads);
  std::vector<std::thread> cycle_threads;
  for (int t = 0; t < kCycleThreads; ++t) {
    cycle_threads.emplace_back([&, t] {
      Tally& tally = tallies[static_cast<std::size_t>(t)];
      std::uint64_t last_generation = 0;
      while (!stop.load()) {
        const PolicySlot::Running running = slot.running();
        const CycleResult result = run_cycle(state, *running.policy);
        const auto found = expected.find(result.policy_hash);
        if (found == expected.end() || found->second != signature(result) ||
            result.policy_hash != running.policy->source_hash()) {
          ++tally.wrong;
        }
        if (running.generation < last_generation) ++tally.generation_went_back;
        last_generation = running.generation;
        for (std::size_t p = 0; p < policies.size(); ++p) {
          if (policies[p] == running.policy) ++runs_by_policy[p];
        }
        if (++tally.cycles == 1) ++threads_cycling;
      }
    });
  }

  // One thread swaps: thousands of swaps between the three compiled policies,
  // now and then a file compiled on this thread, or a broken one (refused).
  long swaps = 0, refusals_missed = 0, file_swaps_failed = 0;
  std::thread swapper([&] {
    const auto enough = [&] {
      if (swaps < kSwaps || threads_cycling.load() < kCycleThreads) return false;
      for (const auto& runs : runs_by_policy) {
        if (runs.load() < kMinimumRunsPerPolicy) return false;
      }
      return true;
    };
    for (long i = 0; !enough(); ++i) {
      if (i % 1000 == 999) {
        refusals_missed +=
            swap_from_file(slot, source_path("tests/runtime/data/broken_shares.allot"), swap_options()).swapped;
      } else if (i % 1000 == 500) {
        file_swaps_failed +=
            !swap_from_file(slot, files[static_cast<std::size_t>(i / 1000) % files.size()], swap_options()).swapped;
      } else {
        swaps += slot.swap(policies[static_cast<std::size_t>(i) % policies.size()]).swapped;
      }
    }
    stop = true;
  });
  swapper.join();
  for (std::thread& thread : cycle_threads) thread.join();

  long cycles = 0;
  for (const Tally& tally : tallies) {
    CHECK(tally.wrong == 0);
    CHECK(tally.generation_went_back == 0);
    CHECK(tally.cycles > 0);
    cycles += tally.cycles;
  }
  INFO(cycles << " cycles during " << swaps << " swaps");
  CHECK(swaps >= kSwaps);
  CHECK(refusals_missed == 0);
  CHECK(file_swaps_failed == 0);
  for (const auto& runs : runs_by_policy) CHECK(runs.load() >= kMinimumRunsPerPolicy);
  // Replaced policies no cycle holds are released: only the two this test keeps remain.
  slot.release_retired();
  CHECK(slot.retired_count() <= 2);
}

}  // namespace cycle_test
