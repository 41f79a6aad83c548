// Maintenance: jobs on a draining node stop at their next checkpoint (after
// their protection) or at the drain deadline, whichever comes first; the
// node takes no new work; a down node's jobs have stopped.
#include <catch2/catch.hpp>

#include "cycle_support.h"

namespace cycle_test {
namespace {

const auto& policy() {
  static const auto compiled = compile_text(two_team_policy("job.wait / 1h", "false"));
  return compiled;
}

// A resumable job checkpointing every `every`, protected for an hour, started `started`.
RunningJob checkpointing(const std::string& id, Seconds started, Seconds every) {
  Contract contract;
  contract.protected_until = started + kHour;
  contract.checkpoint_every = every;
  contract.resumable = true;
  return running(job(id, "alpha", "work", 2), {0}, started, contract);
}

// A job that runs to completion (no checkpoint, not preemptible).
RunningJob pinned(const std::string& id, Seconds started) {
  Contract contract;
  contract.preemptible = false;
  return running(job(id, "beta", "pinned", 2), {0}, started, contract);
}

ClusterState draining(std::optional<Seconds> deadline) {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(2, 8);
  state.inventory.nodes[0].state = NodeState::drain;
  state.inventory.nodes[0].drain_deadline = deadline;
  return state;
}

}  // namespace

TEST_CASE("jobs on a draining node stop at their next checkpoint or the deadline", "[cycle][drain]") {
  ClusterState state = draining(kTuesday + 2 * kHour);
  state.running = {checkpointing("ckpt-30m", kTuesday - 40 * kMinute, 30 * kMinute),
                   checkpointing("ckpt-3h", kTuesday - 40 * kMinute, 3 * kHour), pinned("pinned", kTuesday - kHour)};
  state.pending = {job("newcomer", "beta", "work", 2)};

  const CycleResult result = run_cycle(state, *policy());

  // Protected until +20m, and checkpoints at +20m: it stops there and loses nothing.
  const Decision* ckpt = decision_for(result, "ckpt-30m", DecisionKind::preempt);
  REQUIRE(ckpt != nullptr);
  CHECK(ckpt->stops_at == kTuesday + 20 * kMinute);
  CHECK(ckpt->lost_gpu_seconds == 0);
  CHECK(ckpt->for_job.empty());
  CHECK(ckpt->reason == "node `node-01` is draining; the job stops at its next checkpoint");
  // Its next checkpoint would come after the deadline.
  const Decision* slow = decision_for(result, "ckpt-3h", DecisionKind::preempt);
  REQUIRE(slow != nullptr);
  CHECK(slow->stops_at == kTuesday + 2 * kHour);
  CHECK(slow->lost_gpu_seconds == 2.0 * (2 * kHour + 40 * kMinute));
  // Not preemptible, but the node must be empty by the deadline.
  const Decision* fixed = decision_for(result, "pinned", DecisionKind::preempt);
  REQUIRE(fixed != nullptr);
  CHECK(fixed->stops_at == kTuesday + 2 * kHour);
  CHECK(fixed->lost_gpu_seconds == 2.0 * 3 * kHour);
  CHECK(fixed->reason == "node `node-01` is draining and must be empty by its deadline");
  // New work goes elsewhere.
  const Decision* newcomer = decision_for(result, "newcomer", DecisionKind::start);
  REQUIRE(newcomer != nullptr);
  CHECK(newcomer->nodes == std::vector<int>{1});
}

TEST_CASE("a drain stop is decided once and carried out at its time", "[cycle][drain]") {
  ClusterState state = draining(kTuesday + 2 * kHour);
  state.running = {checkpointing("ckpt-30m", kTuesday - 40 * kMinute, 30 * kMinute)};

  apply_decisions(state, run_cycle(state, *policy()));
  REQUIRE(state.running.size() == 1);
  CHECK(state.running[0].stopping_at == kTuesday + 20 * kMinute);

  state.now = kTuesday + 10 * kMinute;
  const CycleResult meanwhile = run_cycle(state, *policy());
  CHECK(decisions_of(meanwhile, DecisionKind::preempt).empty());
  apply_decisions(state, meanwhile);
  CHECK(state.running.size() == 1);

  state.now = kTuesday + 20 * kMinute;
  const CycleResult stopped = run_cycle(state, *policy());
  // It leaves in this cycle (its GPUs are free to others) and apply_decisions
  // queues it again; resumable, it starts next on the node that is up.
  CHECK(decision_for(stopped, "ckpt-30m", DecisionKind::start) == nullptr);
  apply_decisions(state, stopped);
  CHECK(state.running.empty());
  REQUIRE(state.pending.size() == 1);
  CHECK(state.pending[0].restarts == 1);
  CHECK(state.pending[0].queued == kTuesday + 20 * kMinute);

  const CycleResult next = run_cycle(state, *policy());
  const Decision* again = decision_for(next, "ckpt-30m", DecisionKind::start);
  REQUIRE(again != nullptr);
  CHECK(again->nodes == std::vector<int>{1});
}

TEST_CASE("a drain without a deadline lets work without checkpoints finish", "[cycle][drain]") {
  ClusterState state = draining(std::nullopt);
  state.running = {pinned("pinned", kTuesday - kHour), checkpointing("ckpt", kTuesday - 2 * kHour, 30 * kMinute)};

  const CycleResult result = run_cycle(state, *policy());

  CHECK(decision_for(result, "pinned", DecisionKind::preempt) == nullptr);
  const Decision* ckpt = decision_for(result, "ckpt", DecisionKind::preempt);
  REQUIRE(ckpt != nullptr);
  CHECK(ckpt->stops_at == kTuesday);  // a checkpoint is due right now
}

TEST_CASE("jobs on a node that is down have stopped", "[cycle][drain]") {
  ClusterState state = draining(std::nullopt);
  state.inventory.nodes[0].state = NodeState::down;
  RunningJob job = checkpointing("lost", kTuesday - 50 * kMinute, 30 * kMinute);
  state.running = {job};

  const CycleResult result = run_cycle(state, *policy());

  const Decision* stop = decision_for(result, "lost", DecisionKind::preempt);
  REQUIRE(stop != nullptr);
  CHECK(stop->stops_at == kTuesday);
  CHECK(stop->lost_gpu_seconds == 2.0 * 20 * kMinute);  // since the checkpoint at -20m
  CHECK(stop->reason == "node `node-01` is down");
}

}  // namespace cycle_test
