// The fast lane (`fast_lane up to N gpus per program`, docs/SCHEDULING.md):
// a short, wholly protected job stops a running job past its protection,
// share rule and `preempt` aside; never a job of a fast-lane class; never more
// than the program's quota at once; and no preemption loop comes of it.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <random>

#include "cycle_support.h"

namespace cycle_test {
namespace {

// `alpha` and `beta` (with users ana and bob) share the cluster evenly;
// `debug` has a fast lane of `lane` GPUs per program, `work` is preemptible
// after 10 minutes, `pinned` never. `preempt` is the share rule's predicate.
std::string lane_policy(int lane, const std::string& preempt) {
  return fmt::format(R"(policy lanes {{
  unit gpu_hours {{ h100 = 1.0 }}
  window 7d
  tree {{
    alpha 50% {{ owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }}
    beta 50% {{
      owner "b@example.com" review 2027-01-31 hypothesis "beta's bet"
      user ana 50%
      user bob 50%
    }}
  }}
  class debug {{ max_gpus 1 max_runtime 15m protect 15m resumable fast_lane up to {} gpus per program }}
  class work {{ checkpoint every 10m protect 10m resumable }}
  class pinned {{ preemptible false }}
  rank = match job.class {{ debug => 1000, _ => 0 }} + job.wait / 1h
  preempt when {}
}}
)",
                     lane, preempt);
}

Contract past_protection(Seconds started) {
  Contract contract;
  contract.protected_until = started + 10 * kMinute;
  contract.checkpoint_every = 10 * kMinute;
  contract.resumable = true;
  return contract;
}

// `nodes` 8-GPU nodes full of alpha's one-GPU `work` jobs, an hour in, each
// last checkpointed i+1 minutes ago (so `a0` loses the least).
ClusterState alpha_full(std::vector<JobRequest> pending, int nodes = 1) {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(nodes, 8);
  for (int i = 0; i < 8 * nodes; ++i) {
    RunningJob job = running(cycle_test::job(fmt::format("a{}", i), "alpha", "work", 1, kTuesday - 2 * kHour), {i / 8},
                             kTuesday - kHour, past_protection(kTuesday - kHour));
    job.last_checkpoint = kTuesday - (i + 1) * kMinute;
    state.running.push_back(std::move(job));
  }
  state.pending = std::move(pending);
  return state;
}

JobRequest debug_job(const std::string& id, const std::string& account, Seconds submitted = kTuesday) {
  JobRequest request = job(id, account, "debug", 1, submitted);
  request.expected_runtime = 10 * kMinute;
  return request;
}

}  // namespace

TEST_CASE("a fast-lane job stops the running job that loses least, share rule or not", "[cycle][fast_lane]") {
  // `preempt when false`: the share rule never preempts, only the lane can.
  const auto policy = compile_text(lane_policy(2, "false"));
  const CycleResult result = run_cycle(alpha_full({debug_job("d1", "beta/ana")}), *policy);
  REQUIRE(preempted_ids(result) == std::set<std::string>{"a0"});
  const Decision* stop = decision_for(result, "a0", DecisionKind::preempt);
  CHECK(stop->for_job == "d1");
  CHECK_THAT(stop->reason, Catch::Contains("through the fast lane of class `debug`"));
  CHECK_THAT(stop->reason, Catch::Contains("`beta` may hold up to 2 GPUs this way"));
  const Decision* start = decision_for(result, "d1", DecisionKind::start);
  REQUIRE(start != nullptr);
  CHECK_THAT(start->reason, Catch::Contains("through the fast lane of class `debug` after preempting 1 job"));
}

TEST_CASE("a job of a class without a fast lane waits, whatever its rank", "[cycle][fast_lane]") {
  const auto policy = compile_text(lane_policy(2, "false"));
  JobRequest request = job("w1", "beta/ana", "work", 1);
  const CycleResult result = run_cycle(alpha_full({request}), *policy);
  CHECK(preempted_ids(result).empty());
  CHECK(decision_for(result, "w1", DecisionKind::start) == nullptr);
}

TEST_CASE("the fast lane holds at most its GPUs per program, across the program's users", "[cycle][fast_lane]") {
  const auto policy = compile_text(lane_policy(2, "false"));
  std::vector<JobRequest> pending;
  for (int i = 0; i < 3; ++i) {
    pending.push_back(debug_job(fmt::format("ana-{}", i), "beta/ana", kTuesday - (10 - i) * kMinute));
    pending.push_back(debug_job(fmt::format("bob-{}", i), "beta/bob", kTuesday - (10 - i) * kMinute));
  }
  pending.push_back(debug_job("alpha-0", "alpha", kTuesday - kMinute));
  const CycleResult result = run_cycle(alpha_full(pending, 2), *policy);
  // Two of beta's six (its quota) and alpha's one: three victims, one each.
  // (The first of beta's blocked jobs holds capacity; alpha's lane job may take
  // it rather than stop a second job to fill the hold.)
  CHECK(preempted_ids(result).size() == 3);
  int beta_started = 0;
  for (const Decision* start : decisions_of(result, DecisionKind::start)) beta_started += start->account != "alpha";
  CHECK(beta_started == 2);
  CHECK(decision_for(result, "alpha-0", DecisionKind::start) != nullptr);
  const Decision* waiting = decision_for(result, "bob-2", DecisionKind::skip);
  REQUIRE(waiting != nullptr);
  CHECK_THAT(
      waiting->reason,
      Catch::Contains("the fast lane of class `debug` is full for `beta`: its jobs of the class hold 2 of its 2"));
}

TEST_CASE("running fast-lane jobs count against the quota", "[cycle][fast_lane]") {
  const auto policy = compile_text(lane_policy(1, "false"));
  ClusterState state = alpha_full({debug_job("d2", "beta/bob")});
  // ana's debug job replaces a0 on the node.
  state.running.erase(state.running.begin());
  Contract whole_run;
  whole_run.protected_until = kTuesday + 10 * kMinute;
  whole_run.resumable = true;
  state.running.push_back(running(debug_job("d1", "beta/ana"), {0}, kTuesday - 5 * kMinute, whole_run));
  const CycleResult result = run_cycle(state, *policy);
  CHECK(preempted_ids(result).empty());
  const Decision* waiting = decision_for(result, "d2", DecisionKind::skip);
  REQUIRE(waiting != nullptr);
  CHECK_THAT(waiting->reason, Catch::Contains("hold 1 of its 1 GPU"));
}

TEST_CASE("the fast lane never stops a fast-lane job, a protected job or a run-to-completion job",
          "[cycle][fast_lane]") {
  // (The share rule may stop a fast-lane job that overran its limit; here it is off.)
  const auto policy = compile_text(lane_policy(4, "false"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 4);
  // A debug job past its protection (it started under an older policy that
  // protected it for 7 minutes) but within its 15-minute limit: still in a fast lane.
  Contract older;
  older.protected_until = kTuesday - 5 * kMinute;
  older.resumable = true;
  JobRequest alpha_debug = debug_job("alpha-debug", "alpha");
  alpha_debug.expected_runtime = 0;
  state.running.push_back(running(alpha_debug, {0}, kTuesday - 12 * kMinute, older));
  // A work job still in its protection.
  state.running.push_back(running(job("alpha-new", "alpha", "work", 1), {0}, kTuesday - 5 * kMinute,
                                  past_protection(kTuesday - 5 * kMinute)));
  // A pinned job, and a work job that asked never to be requeued.
  Contract pinned;
  pinned.preemptible = false;
  state.running.push_back(running(job("alpha-pinned", "alpha", "pinned", 1), {0}, kTuesday - kHour, pinned));
  JobRequest stay = job("alpha-stay", "alpha", "work", 1);
  stay.requeueable = false;
  state.running.push_back(running(stay, {0}, kTuesday - kHour, past_protection(kTuesday - kHour)));
  state.pending.push_back(debug_job("d1", "beta/ana"));
  const CycleResult result = run_cycle(state, *policy);
  CHECK(preempted_ids(result).empty());
  const Decision* waiting = decision_for(result, "d1", DecisionKind::skip);
  REQUIRE(waiting != nullptr);
  CHECK_THAT(waiting->reason,
             Catch::Contains("its fast lane (class `debug`) finds no running job past its protection"));
}

// Both teams keep work and debug jobs queued on a small node; the share rule
// preempts whatever it may (`preempt when true`). Over 1,000 cycles: no
// fast-lane job is ever stopped, no program exceeds its lane, every debug job
// starts within two cycles and runs to its end, and a share-rule preemption
// is reversed only after something took capacity from the first victim's team
// (one of its jobs ended, or the fast lane took from it).
TEST_CASE("adversarial queues with a fast lane show no preemption loop over 1,000 cycles", "[cycle][fast_lane]") {
  constexpr int kLane = 2;
  const auto policy = compile_text(lane_policy(kLane, "true"));
  Driver driver(uniform_inventory(1, 6), policy, kTuesday);
  std::mt19937 random(11);
  std::uniform_int_distribution<int> work_minutes(10, 180);
  std::uniform_int_distribution<int> debug_minutes(2, 14);
  std::bernoulli_distribution wants_debug(0.3);
  int submitted = 0;
  std::map<std::string, std::string> account_of, class_of;
  std::map<std::string, Seconds> submitted_at;
  auto top_up = [&] {
    std::map<std::string, int> work_waiting, debug_waiting;
    for (const JobRequest& pending : driver.state().pending) {
      const std::string team = pending.account.substr(0, pending.account.find('/'));
      ++(pending.job_class == "debug" ? debug_waiting : work_waiting)[team];
    }
    for (const std::string team : {"alpha", "beta/ana"}) {
      const std::string program = team.substr(0, team.find('/'));
      for (int i = work_waiting[program]; i < 4; ++i) {
        JobRequest request = job(fmt::format("{}-work-{}", program, submitted++), team, "work", 1);
        request.expected_runtime = work_minutes(random) * kMinute;
        driver.submit(request);
      }
      if (debug_waiting[program] == 0 && wants_debug(random)) {
        JobRequest request = debug_job(fmt::format("{}-debug-{}", program, submitted++), team, driver.state().now);
        request.expected_runtime = debug_minutes(random) * kMinute;
        driver.submit(request);
      }
    }
    for (const JobRequest& pending : driver.state().pending) {
      account_of[pending.id] = pending.account.substr(0, pending.account.find('/'));
      class_of[pending.id] = pending.job_class;
      submitted_at.emplace(pending.id, pending.submitted);
    }
  };

  struct Preemption {
    Seconds at;
    std::string taker, victim;  // programs
    bool fast_lane = false;
  };
  std::vector<Preemption> preemptions;
  int fast_lane_preemptions = 0, debug_started = 0;
  std::set<std::string> through_lane;
  Seconds longest_debug_wait = 0;
  for (int cycle = 0; cycle < 1000; ++cycle) {
    top_up();
    const CycleResult& result = driver.step(5 * kMinute);
    for (const Decision* decision : decisions_of(result, DecisionKind::preempt)) {
      // No fast-lane job is ever stopped.
      CHECK(class_of.at(decision->job_id) != "debug");
      const bool lane = decision->reason.find("fast lane") != std::string::npos;
      fast_lane_preemptions += lane;
      preemptions.push_back({result.now, account_of.at(decision->for_job), account_of.at(decision->job_id), lane});
    }
    for (const Decision* start : decisions_of(result, DecisionKind::start)) {
      if (class_of.at(start->job_id) != "debug") continue;
      if (start->reason.find("through the fast lane") != std::string::npos) through_lane.insert(start->job_id);
      ++debug_started;
      longest_debug_wait = std::max(longest_debug_wait, result.now - submitted_at.at(start->job_id));
    }
    // What a program took through the lane never exceeds it.
    std::map<std::string, int> debug_gpus;
    for (const RunningJob& running : driver.state().running) {
      if (through_lane.count(running.request.id)) debug_gpus[account_of.at(running.request.id)] += 1;
    }
    for (const auto& [program, gpus] : debug_gpus) CHECK(gpus <= kLane);
  }

  CHECK(debug_started >= 100);
  CHECK(fast_lane_preemptions >= 20);
  // The lane is what it is for: debug work starts at once (the cycle after it is submitted, or the next).
  CHECK(longest_debug_wait <= 2 * 5 * kMinute);
  // Every debug job that started ran to its end: nothing took its GPU back.
  for (const auto& [id, job_class] : class_of) {
    if (job_class == "debug" && driver.first_start(id) != 0 && driver.first_start(id) < driver.state().now - kHour) {
      CHECK(driver.finished(id));
    }
  }
  std::size_t reversals_without_cause = 0;
  for (std::size_t i = 0; i < preemptions.size(); ++i) {
    const Preemption& first = preemptions[i];
    if (first.fast_lane) continue;
    for (std::size_t j = i + 1; j < preemptions.size(); ++j) {
      const Preemption& later = preemptions[j];
      if (later.fast_lane || later.taker != first.victim || later.victim != first.taker) continue;
      const bool ended = std::any_of(driver.completions().begin(), driver.completions().end(), [&](const auto& done) {
        return done.second.substr(0, done.second.find('/')) == first.victim && done.first > first.at &&
               done.first <= later.at;
      });
      const bool taken = std::any_of(preemptions.begin(), preemptions.end(), [&](const Preemption& p) {
        return p.fast_lane && p.victim == first.victim && p.at >= first.at && p.at <= later.at;
      });
      if (!ended && !taken) ++reversals_without_cause;
      break;
    }
  }
  CHECK(reversals_without_cause == 0);
}

}  // namespace cycle_test
