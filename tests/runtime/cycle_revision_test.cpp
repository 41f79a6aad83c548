// Request revisions (JobRequest::revision): a cycle with a CycleCache resolves
// a request's account and class once per revision, so a driver that changes a
// request and gives it a new revision sees the change at the next cycle, and a
// request without a revision (0) is resolved at every cycle.
#include <catch2/catch.hpp>

#include "cycle_support.h"

namespace cycle_test {
namespace {

JobRequest revised(JobRequest request, std::uint64_t revision) {
  request.revision = revision;
  return request;
}

// One full 8-GPU node: every pending job waits and is skipped.
ClusterState full_node() {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  state.running.push_back(running(revised(job("busy", "beta", "work", 8), 1), {0}, kTuesday));
  return state;
}

std::shared_ptr<const CompiledPolicy> no_preemption() {
  static const auto policy = compile_text(two_team_policy("job.gpus", "false"));
  return policy;
}

// The same policy with its accounts and its classes declared in the other
// order: each name has the other index.
std::shared_ptr<const CompiledPolicy> reordered() {
  std::string text = two_team_policy("job.gpus", "false");
  const auto alpha = text.find("    alpha");
  const auto beta = text.find("    beta");
  const auto tree_end = text.find("  }", beta);
  const std::string alpha_line = text.substr(alpha, beta - alpha);
  text.insert(tree_end, alpha_line);
  text.erase(alpha, alpha_line.size());
  const auto work = text.find("  class work");
  const auto pinned = text.find("  class pinned");
  const auto classes_end = text.find("  rank");
  const std::string work_block = text.substr(work, pinned - work);
  text.insert(classes_end, work_block);
  text.erase(work, work_block.size());
  static const auto policy = compile_text(text);
  return policy;
}

// The cycle with `cache`, checked against a cycle without one.
CycleResult cached_cycle(const ClusterState& state, CycleCache& cache,
                         const CompiledPolicy& policy = *no_preemption()) {
  const CycleResult cached = run_cycle(state, policy, CycleOptions{}, cache);
  CHECK(cached == run_cycle(state, policy, CycleOptions{}));
  return cached;
}

std::string account_of(const CycleResult& result, const std::string& id) {
  const std::optional<Decision> skip = result.skip_for(id);
  REQUIRE(skip.has_value());
  return skip->account;
}

TEST_CASE("a request given a new revision is resolved again; one without a revision, at every cycle",
          "[cycle][cache]") {
  ClusterState state = full_node();
  state.pending = {revised(job("moved", "alpha", "work", 1), 2), job("unrevised", "alpha", "work", 1),
                   revised(job("stray", "nobody", "work", 1), 3)};
  CycleCache cache;

  CycleResult result = cached_cycle(state, cache);
  CHECK(account_of(result, "moved") == "alpha");
  CHECK(account_of(result, "unrevised") == "alpha");
  CHECK(result.skip_for("stray")->position == -1);  // not ranked: the policy has no account `nobody`

  // The driver moves two requests to another account and gives them new
  // revisions, and changes the third without one.
  state.pending[0].account = "beta";
  state.pending[0].revision = 4;
  state.pending[1].account = "beta";
  state.pending[2].account = "alpha";
  state.pending[2].revision = 5;
  result = cached_cycle(state, cache);
  CHECK(account_of(result, "moved") == "beta");
  CHECK(account_of(result, "unrevised") == "beta");
  CHECK(account_of(result, "stray") == "alpha");
  CHECK(result.skip_for("stray")->position >= 0);  // ranked now

  // Jobs leave the list and others join, with revisions: still each its own.
  state.pending.erase(state.pending.begin());
  state.pending.push_back(revised(job("late", "alpha", "pinned", 2), 6));
  state.running.front().request.job_class = "pinned";
  state.running.front().request.revision = 7;
  result = cached_cycle(state, cache);
  CHECK(account_of(result, "late") == "alpha");
  CHECK(result.skip_for("late")->job_class == "pinned");
  CHECK_FALSE(result.skip_for("moved").has_value());
}

TEST_CASE("a cache that serves another policy resolves every request again", "[cycle][cache]") {
  ClusterState state = full_node();
  state.pending = {revised(job("a", "alpha", "work", 1), 2), revised(job("b", "beta", "pinned", 1), 3)};
  CycleCache cache;
  cached_cycle(state, cache);
  REQUIRE(reordered()->tables().accounts[1].path == "beta");
  REQUIRE(reordered()->tables().classes[0].name == "pinned");

  const CycleResult result = cached_cycle(state, cache, *reordered());
  CHECK(account_of(result, "a") == "alpha");
  CHECK(result.skip_for("a")->job_class == "work");
  CHECK(account_of(result, "b") == "beta");
  CHECK(result.skip_for("b")->job_class == "pinned");
}

}  // namespace
}  // namespace cycle_test
