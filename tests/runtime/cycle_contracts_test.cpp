// Contracts are promises: the protection a job started with survives a hot
// swap to a stingier policy; a class's contract is what the job gets at
// start; exceptions end at their expiry with no recompile.
#include <catch2/catch.hpp>

#include "allot/account_columns.h"
#include "cycle_support.h"

namespace cycle_test {
namespace {

ClusterState busy_beta(int jobs, Seconds now) {
  ClusterState state;
  state.now = now;
  state.inventory = uniform_inventory(1, 8);
  for (int i = 0; i < jobs; ++i) state.pending.push_back(job("b" + std::to_string(i), "beta", "work", 1));
  return state;
}

const std::string kExceptionPolicy = R"(policy loans {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    alpha 40% { owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }
    beta 40% { owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }
    unallocated 20%
  }
  class work {
    checkpoint every 10m
    protect 10m
    resumable
  }
  exception crunch {
    grant alpha +10% from beta
    owner "cto@example.com"
    reason "release week"
    starts 2026-12-01
    expires 2026-12-20
  }
  exception spare {
    grant beta +5%
    owner "cto@example.com"
    reason "a short loan from the unallocated share"
    expires 2026-12-10
  }
  rank = account.share / 1%
}
)";

constexpr Seconds kDecember20 = kTuesday + 19 * kDay;

}  // namespace

TEST_CASE("a job keeps the protection it started with after a swap to a stingier policy", "[cycle][contracts]") {
  const auto generous = compile_text(two_team_policy("job.wait / 1h", "true", 50, "2h"));
  const auto stingy = compile_text(two_team_policy("job.wait / 1h", "true", 50, "10m"));
  REQUIRE(generous->source_hash() != stingy->source_hash());

  ClusterState state = busy_beta(8, kTuesday);
  const CycleResult started = run_cycle(state, *generous);
  REQUIRE(decisions_of(started, DecisionKind::start).size() == 8);
  CHECK(started.decisions[0].contract.protected_until == kTuesday + 2 * kHour);
  CHECK(started.decisions[0].contract.policy_hash == generous->source_hash());
  apply_decisions(state, started);

  // Half an hour later the stingy policy runs; alpha (holding nothing) wants a GPU.
  state.now = kTuesday + 30 * kMinute;
  state.pending.push_back(job("alpha-1", "alpha", "work", 1));
  const CycleResult swapped = run_cycle(state, *stingy);
  CHECK(decisions_of(swapped, DecisionKind::preempt).empty());
  CHECK(swapped.policy_hash == stingy->source_hash());

  // When the promise made under the generous policy ends, the GPU goes to alpha,
  // and alpha's job gets the stingy policy's contract.
  state.now = kTuesday + 2 * kHour;
  const CycleResult later = run_cycle(state, *stingy);
  CHECK(decisions_of(later, DecisionKind::preempt).size() == 1);
  const Decision* alpha = decision_for(later, "alpha-1", DecisionKind::start);
  REQUIRE(alpha != nullptr);
  CHECK(alpha->contract.protected_until == state.now + 10 * kMinute);
  CHECK(alpha->contract.policy_hash == stingy->source_hash());
}

TEST_CASE("a job starts under its class's contract", "[cycle][contracts]") {
  const auto saas = compile_file("policies/saas.allot");
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  JobRequest asks_one_hour = job("train-1h", "platform", "train", 1);
  asks_one_hour.requested_protect = kHour;
  JobRequest asks_too_much = job("train-3h", "platform", "train", 1);
  asks_too_much.requested_protect = 3 * kHour;
  JobRequest asks_nothing = job("train-default", "platform", "train", 1);
  JobRequest evaluation = job("eval", "product", "eval", 1);
  evaluation.deadline = kTuesday + 6 * kHour;
  JobRequest no_deadline = job("eval-undated", "product", "eval", 1);
  JobRequest too_big = job("debug-2", "product", "debug", 2);
  state.pending = {asks_one_hour, asks_too_much, asks_nothing, evaluation, no_deadline, too_big};

  const CycleResult result = run_cycle(state, *saas);

  const Decision* one_hour = decision_for(result, "train-1h", DecisionKind::start);
  REQUIRE(one_hour != nullptr);
  CHECK(one_hour->contract.protected_until == kTuesday + kHour);
  CHECK(one_hour->contract.checkpoint_every == 30 * kMinute);
  CHECK(one_hour->contract.grace == 5 * kMinute);
  CHECK(one_hour->contract.resumable);
  CHECK(one_hour->contract.preemptible);
  CHECK(one_hour->contract.policy_hash == saas->source_hash());
  CHECK(decision_for(result, "train-3h", DecisionKind::start)->contract.protected_until == kTuesday + 2 * kHour);
  CHECK(decision_for(result, "train-default", DecisionKind::start)->contract.protected_until == kTuesday + 2 * kHour);
  const Decision* eval = decision_for(result, "eval", DecisionKind::start);
  REQUIRE(eval != nullptr);
  CHECK_FALSE(eval->contract.preemptible);
  CHECK(decision_for(result, "eval-undated", DecisionKind::skip)->reason ==
        "class `eval` requires a deadline and the job has none");
  CHECK(decision_for(result, "debug-2", DecisionKind::skip)->reason ==
        "asks for 2 GPUs; class `debug` allows at most 1");
}

TEST_CASE("a deadline class is not preemptible unless it says so", "[cycle][contracts]") {
  const auto policy = compile_text(R"(policy deadlines {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    alpha 100% { owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }
  }
  class release_eval {
    deadline required
    slo 95%
  }
  rank = 1
}
)");
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  JobRequest evaluation = job("eval", "alpha", "release_eval", 1);
  evaluation.deadline = kTuesday + kDay;
  state.pending = {evaluation};

  const CycleResult result = run_cycle(state, *policy);

  const Decision* start = decision_for(result, "eval", DecisionKind::start);
  REQUIRE(start != nullptr);
  CHECK_FALSE(start->contract.preemptible);
}

TEST_CASE("exceptions stop at their expiry without a recompile", "[cycle][contracts]") {
  const auto policy = compile_text(kExceptionPolicy);
  ClusterState state;
  state.inventory = uniform_inventory(1, 8);
  state.pending = {job("a", "alpha", "work", 1), job("b", "beta", "work", 1)};
  auto share_at = [&](Seconds now, const std::string& account) {
    state.now = now;
    const AccountColumns columns = account_columns(*policy, state);
    const std::size_t row = account == "alpha" ? 1 : 2;
    return columns.value(abi::account_share, row);
  };

  SECTION("before the first exception starts") {
    CHECK(share_at(kTuesday - 1, "alpha") == Approx(0.40));
    CHECK(share_at(kTuesday - 1, "beta") == Approx(0.45));  // `spare` has no start date
  }
  SECTION("while both are in force") {
    CHECK(share_at(kTuesday, "alpha") == Approx(0.50));
    CHECK(share_at(kTuesday, "beta") == Approx(0.35));
    CHECK(shares_in_force(policy->tables(), kTuesday).exceptions == std::vector<std::string>{"crunch", "spare"});
    CHECK(shares_in_force(policy->tables(), kTuesday).unallocated[0] == Approx(0.15));
  }
  SECTION("after `spare` expires") { CHECK(share_at(kTuesday + 9 * kDay, "beta") == Approx(0.30)); }
  SECTION("the last second of `crunch`, and the first after it") {
    CHECK(share_at(kDecember20 - 1, "alpha") == Approx(0.50));
    CHECK(share_at(kDecember20, "alpha") == Approx(0.40));
    CHECK(share_at(kDecember20, "beta") == Approx(0.40));
  }
  SECTION("the same compiled policy ranks by the shares in force") {
    state.now = kDecember20 - 1;
    const CycleResult during = run_cycle(state, *policy);
    state.now = kDecember20;
    const CycleResult after = run_cycle(state, *policy);
    REQUIRE(during.ranks.size() == 2);
    CHECK(during.ranks[0] == Approx(50));
    CHECK(after.ranks[0] == Approx(40));
    CHECK(after.ranks[1] == Approx(40));
  }
}

}  // namespace cycle_test
