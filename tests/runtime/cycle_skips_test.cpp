// Skips: a cycle over a long queue skips nearly every job, so a skip is a few
// bytes pointing into the result's tables (allot/cycle.h `Skip`); what a
// person, an audit record or `allot explain` reads is the Decision made from it.
#include <catch2/catch.hpp>

#include "cycle_support.h"

namespace cycle_test {
namespace {

// One 8-GPU node with `busy` GPUs held by a beta job.
ClusterState one_busy_node(int busy) {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  state.running.push_back(running(job("busy", "beta", "work", busy), {0}, kTuesday));
  return state;
}

// Bigger jobs first; nothing is preempted.
std::shared_ptr<const CompiledPolicy> biggest_first() {
  static const auto policy = compile_text(two_team_policy("job.gpus", "false"));
  return policy;
}

TEST_CASE("a skip made a Decision says what the cycle decided of the job", "[cycle][skips]") {
  ClusterState state = one_busy_node(6);
  // Two GPUs are free: `fits` starts, the two 4-GPU jobs wait for one reason,
  // and `stray` is not ranked (its account is not the policy's).
  state.pending = {job("four-a", "alpha", "work", 4, kTuesday), job("four-b", "alpha", "work", 4, kTuesday + 1),
                   job("fits", "beta", "work", 2), job("stray", "nobody", "work", 1)};
  CycleOptions options;
  options.blocked_holds = 0;
  options.explained_skips = 1;

  const CycleResult result = run_cycle(state, *biggest_first(), options);

  REQUIRE(result.decisions.size() == 1);  // starts and preemptions only
  CHECK(result.decisions[0].kind == DecisionKind::start);
  CHECK(result.decisions[0].job_id == "fits");
  REQUIRE(result.skips.size() == 3);
  CHECK(result.skips[0].reason == result.skips[1].reason);
  CHECK(result.skip_reasons.size() == 2);  // each distinct reason once

  const Decision first = result.skip_decision(0);
  CHECK(first.kind == DecisionKind::skip);
  CHECK(first.job_id == "four-a");
  CHECK(first.account == "alpha");
  CHECK(first.job_class == "work");
  CHECK(first.position == 0);
  CHECK(first.rank == 4);
  CHECK_FALSE(first.terms.empty());  // within explained_skips
  CHECK_THAT(first.reason, Catch::Contains("4 free"));
  CHECK(first.nodes.empty());

  const Decision second = result.skip_decision(1);
  CHECK(second.job_id == "four-b");
  CHECK(second.position == 1);
  CHECK(second.terms.empty());  // past explained_skips: the rank only
  CHECK(second.reason == first.reason);

  const Decision stray = result.skip_decision(2);
  CHECK(stray.job_id == "stray");
  CHECK(result.skip_job_id(2) == "stray");
  CHECK(stray.position == -1);
  CHECK(stray.account == "nobody");
  CHECK(stray.rank == 0);
  CHECK_THAT(stray.reason, Catch::Contains("`nobody` is not in policy"));

  const std::vector<Decision> all = result.all_decisions();
  REQUIRE(all.size() == 4);
  CHECK(all[0] == result.decisions[0]);
  CHECK(all[1] == first);
  CHECK(all[2] == second);
  CHECK(all[3] == stray);
  CHECK(result.skip_for("four-b") == second);
  CHECK_FALSE(result.skip_for("fits").has_value());
  CHECK_FALSE(result.skip_for("nobody-here").has_value());
}

TEST_CASE("a cycle that records no skips leaves their tables empty", "[cycle][skips]") {
  ClusterState state = one_busy_node(8);
  state.pending = {job("waits", "alpha", "work", 4), job("stray", "nobody", "work", 1)};
  CycleOptions options;
  options.record_skips = false;

  const CycleResult result = run_cycle(state, *biggest_first(), options);

  CHECK(result.decisions.empty());
  CHECK(result.skips.empty());
  CHECK(result.unranked_job_ids.empty());
  CHECK(result.skip_names.empty());
  CHECK(result.skip_reasons.empty());
  CHECK(result.skip_terms.empty());
  CHECK(result.ranked_job_ids == std::vector<std::string>{"waits"});
}

}  // namespace
}  // namespace cycle_test
