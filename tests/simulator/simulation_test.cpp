// The event loop on small hand-made workloads: jobs start, finish, stop at a
// drain's checkpoint or deadline, resume from a checkpoint or from zero, and
// the lost work is what a person would count by hand.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "replay_support.h"

namespace replay_test {
namespace {

// Two teams, a checkpointing resumable class and a run-to-completion one.
const char* kPolicy = R"(policy lost_work {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    alpha 50% { owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }
    beta 50% { owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }
  }
  class ckpt {
    checkpoint every 30m
    protect 30m
    resumable
  }
  class pinned {
    preemptible false
  }
  rank = 0
}
)";

// Both nodes drain 35 minutes in, must be empty at 50 minutes, return at 2 hours.
Workload drained(std::vector<WorkloadJob> jobs) {
  Workload workload = workload_of(std::move(jobs));
  workload.maintenance.push_back(
      Maintenance{{0, 1}, kDefaultStart + 35 * kMinute, kDefaultStart + 50 * kMinute, kDefaultStart + 2 * kHour});
  return workload;
}

}  // namespace

TEST_CASE("a job that is never interrupted waits, runs and finishes on time", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  const Workload workload = workload_of({job("a", "alpha", "ckpt", 2, 3 * kHour, 10 * kMinute)});
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy);
  const JobOutcome& a = outcome(workload, result, "a");
  CHECK(a.first_start == kDefaultStart + 10 * kMinute);
  CHECK(a.first_progress == kDefaultStart + 40 * kMinute);  // its first checkpoint
  CHECK(a.completed == kDefaultStart + 10 * kMinute + 3 * kHour);
  CHECK(a.gpu_seconds == Approx(2.0 * 3 * kHour));
  CHECK(a.lost_gpu_seconds == 0);
  CHECK(a.stops == 0);
}

TEST_CASE("a drain stops a resumable job at its checkpoint and loses nothing", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  // Started at 10m: checkpoints at 40m, 70m; the drain (35m) stops it at 40m, before the deadline.
  const Workload workload = drained({job("a", "alpha", "ckpt", 2, 3 * kHour, 10 * kMinute)});
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy);
  const JobOutcome& a = outcome(workload, result, "a");
  CHECK(a.stops == 1);
  CHECK(a.lost_gpu_seconds == 0);
  // Back at 2h with 30 minutes saved: 2h30m of work left.
  CHECK(a.completed == kDefaultStart + 2 * kHour + 150 * kMinute);
  CHECK(a.gpu_seconds == Approx(2.0 * (30 * kMinute + 150 * kMinute)));
}

TEST_CASE("lost work: a resumable job keeps its last checkpoint, a non-resumable one starts over", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  // Both start at 0. The drain (35m) finds `resumable`'s next checkpoint (60m)
  // after the deadline (50m), so both stop at the deadline.
  const Workload workload =
      drained({job("resumable", "alpha", "ckpt", 1, 3 * kHour), job("fragile", "beta", "pinned", 1, 3 * kHour)});
  std::vector<runtime::Decision> stops;
  SimulationOptions options;
  options.on_cycle = [&](const runtime::ClusterState&, const runtime::CycleResult& cycle) {
    for (const runtime::Decision& decision : cycle.decisions) {
      if (decision.kind == runtime::DecisionKind::preempt) stops.push_back(decision);
    }
  };
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy, options);

  REQUIRE(stops.size() == 2);
  for (const runtime::Decision& stop : stops) CHECK(stop.stops_at == kDefaultStart + 50 * kMinute);

  const JobOutcome& resumable = outcome(workload, result, "resumable");
  CHECK(resumable.lost_gpu_seconds == Approx(20.0 * kMinute));  // since its checkpoint at 30m
  CHECK(resumable.completed == kDefaultStart + 2 * kHour + 150 * kMinute);
  CHECK(resumable.first_progress == kDefaultStart + 30 * kMinute);

  const JobOutcome& fragile = outcome(workload, result, "fragile");
  CHECK(fragile.lost_gpu_seconds == Approx(50.0 * kMinute));  // everything it had done
  CHECK(fragile.completed == kDefaultStart + 2 * kHour + 3 * kHour);
  CHECK(fragile.first_progress == fragile.completed);  // no checkpoint counts: only finishing does

  CHECK(result.timeline.lost_gpu_seconds[0] == Approx(70.0 * kMinute));
}

TEST_CASE("no job runs on drained nodes while they are down; work resumes when they return", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  std::vector<WorkloadJob> jobs;
  for (int i = 0; i < 6; ++i)
    jobs.push_back(job(fmt::format("j{}", i), i % 2 ? "alpha" : "beta", "ckpt", 1, kHour, i * kMinute));
  const Workload workload = drained(std::move(jobs));
  bool ran_while_down = false;
  SimulationOptions options;
  options.on_cycle = [&](const runtime::ClusterState& state, const runtime::CycleResult& cycle) {
    const bool down = state.now > kDefaultStart + 50 * kMinute && state.now < kDefaultStart + 2 * kHour;
    for (const runtime::Decision& decision : cycle.decisions) {
      ran_while_down |= down && decision.kind == runtime::DecisionKind::start;
    }
  };
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy, options);
  CHECK_FALSE(ran_while_down);
  for (const JobOutcome& job : result.jobs) CHECK(job.completed > 0);
  // The capacity series shows the hour the nodes were down.
  CHECK(result.timeline.capacity_gpu_seconds[1] < 4.0 * kHour);
}

TEST_CASE("jobs that wait past the end count with the wait so far", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  // Three two-GPU day-long jobs on two nodes of two GPUs: the third waits until the end.
  const Workload workload =
      workload_of({job("a", "alpha", "pinned", 2, 2 * kDay), job("b", "beta", "pinned", 2, 2 * kDay),
                   job("c", "alpha", "pinned", 2, 2 * kDay, kHour)});
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy);
  CHECK(outcome(workload, result, "c").first_start == -1);
  const PolicyMetrics metrics = measure(workload, result, *policy, "p", MetricOptions{});
  CHECK(metrics.all.started == 2);
  CHECK(metrics.all.max_wait == Approx(23.0 * kHour));
  CHECK(metrics.occupancy == Approx(1.0));
}

TEST_CASE("cycles run at every batch of events, and every 5 minutes while jobs wait", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  // Two nodes of two GPUs: `c` waits for `a` to finish at 1h.
  const Workload workload =
      workload_of({job("a", "alpha", "pinned", 2, kHour), job("b", "beta", "pinned", 2, 3 * kHour),
                   job("c", "alpha", "pinned", 2, kHour, 7)});
  std::vector<Seconds> cycles;
  SimulationOptions options;
  options.on_cycle = [&](const runtime::ClusterState& state, const runtime::CycleResult&) {
    cycles.push_back(state.now - kDefaultStart);
  };
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy, options);
  REQUIRE(cycles.size() >= 3);
  CHECK(cycles[0] == 0);  // `a` and `b` arrive
  CHECK(cycles[1] == 7);  // `c` arrives
  for (std::size_t i = 2; i < cycles.size() && cycles[i] < kHour; ++i) CHECK(cycles[i] - cycles[i - 1] <= 5 * kMinute);
  CHECK(outcome(workload, result, "c").first_start == kDefaultStart + kHour);  // at `a`'s completion
}

TEST_CASE("a minimum gap between cycles makes arrivals wait for the next round", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  const Workload workload = workload_of({job("a", "alpha", "ckpt", 1, kHour), job("b", "beta", "ckpt", 1, kHour, 10)});
  SimulationOptions options;
  options.min_cycle_gap = 60;
  const SimulationResult result = simulate_or_fail(workload, two_nodes(), *policy, options);
  CHECK(outcome(workload, result, "a").first_start == kDefaultStart);
  CHECK(outcome(workload, result, "b").first_start == kDefaultStart + 60);
}

TEST_CASE("a policy missing a workload's account is refused with the job named", "[simulator]") {
  const auto policy = compile_text(kPolicy);
  const Workload workload = workload_of({job("x", "gamma", "ckpt", 1, kHour)});
  auto result = simulate(workload, two_nodes(), *policy, SimulationOptions{});
  REQUIRE_FALSE(result);
  CHECK(result.error() == "job `x`: policy `lost_work` has no account `gamma`");
}

}  // namespace replay_test
