// apply_decisions: what the simulator does with a cycle's result. Started jobs
// move to running (after the running jobs that stay, in queue-list order); a
// preempted job stops now (back to pending, after the jobs that wait, with one
// more restart) or later (stopping_at); reservations are the cycle's.
#include <catch2/catch.hpp>

#include "cycle_support.h"

namespace cycle_test {
namespace {

std::vector<std::string> ids(const std::vector<JobRequest>& jobs) {
  std::vector<std::string> out;
  for (const JobRequest& job : jobs) out.push_back(job.id);
  return out;
}

std::vector<std::string> ids(const std::vector<RunningJob>& jobs) {
  std::vector<std::string> out;
  for (const RunningJob& job : jobs) out.push_back(job.request.id);
  return out;
}

Decision decided(DecisionKind kind, const std::string& id, std::vector<int> nodes = {}, Seconds stops_at = 0) {
  Decision decision;
  decision.kind = kind;
  decision.job_id = id;
  decision.nodes = std::move(nodes);
  decision.stops_at = stops_at;
  return decision;
}

// Skips for `jobs`, ranked in that order (a skip changes nothing in the state).
void skipped(CycleResult& result, const std::vector<std::string>& jobs) {
  result.skip_names = {"beta", "work"};
  result.skip_reasons = {"it waits"};
  for (const std::string& id : jobs) {
    result.skips.push_back(Skip{static_cast<int>(result.ranked_job_ids.size()), 0, 0, 1, 0});
    result.ranked_job_ids.push_back(id);
    result.ranks.push_back(0);
  }
}

ClusterState busy() {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(4, 8);
  for (const char* id : {"r1", "r2", "r3", "r4"}) {
    state.running.push_back(running(job(id, "alpha", "work", 2), {0}, kTuesday - kHour));
  }
  for (const char* id : {"p1", "p2", "p3", "p4", "p5"}) state.pending.push_back(job(id, "beta", "work", 2));
  return state;
}

TEST_CASE("apply_decisions keeps the order of the jobs that stay and appends the ones that move", "[cycle][apply]") {
  ClusterState state = busy();
  state.running[3].stopping_at = kTuesday;  // r4's grace ended: it stops in this cycle
  CycleResult result;
  result.now = kTuesday;
  result.decisions = {decided(DecisionKind::start, "p4", {1}), decided(DecisionKind::start, "p2", {2}),
                      decided(DecisionKind::preempt, "r1", {0}, kTuesday),
                      decided(DecisionKind::preempt, "r3", {0}, kTuesday + 300)};
  result.decisions[0].contract.protected_until = kTuesday + kHour;
  skipped(result, {"p1", "p3"});
  result.reservations = {Reservation{"p5", {0}, kTuesday + 900, 2, 0, 0}};
  apply_decisions(state, result);

  CHECK(ids(state.running) == std::vector<std::string>{"r2", "r3", "p2", "p4"});
  CHECK(ids(state.pending) == std::vector<std::string>{"p1", "p3", "p5", "r1", "r4"});
  // The started jobs run on the nodes and under the contract the cycle chose, from now.
  CHECK(state.running[3].nodes == std::vector<int>{1});
  CHECK(state.running[3].started == kTuesday);
  CHECK(state.running[3].contract.protected_until == kTuesday + kHour);
  CHECK(state.running[2].nodes == std::vector<int>{2});
  // r3 keeps running until its grace ends; r2 is untouched.
  CHECK(state.running[1].stopping_at == std::optional<Seconds>(kTuesday + 300));
  CHECK_FALSE(state.running[0].stopping_at);
  // The stopped jobs wait again from now, one restart more.
  CHECK(state.pending[3].restarts == 1);
  CHECK(state.pending[3].queued == kTuesday);
  CHECK(state.pending[4].restarts == 1);
  CHECK(state.pending[0].restarts == 0);
  REQUIRE(state.reservations.size() == 1);
  CHECK(state.reservations[0].job_id == "p5");
}

TEST_CASE("apply_decisions with nothing to start or stop leaves the lists as they were", "[cycle][apply]") {
  ClusterState state = busy();
  CycleResult result;
  result.now = kTuesday;
  skipped(result, {"p1"});
  apply_decisions(state, result);
  CHECK(ids(state.running) == std::vector<std::string>{"r1", "r2", "r3", "r4"});
  CHECK(ids(state.pending) == std::vector<std::string>{"p1", "p2", "p3", "p4", "p5"});
  CHECK(state.reservations.empty());
}

}  // namespace
}  // namespace cycle_test
