// Preemption victims: who may be chosen (past protection, preemptible,
// requeueable, accepted by `preempt`), which set is chosen (least lost work),
// the shares it must keep, the capacity it reserves, and no preemption loops.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>

#include "allot/contracts.h"
#include "cycle_support.h"

namespace cycle_test {
namespace {

// A contract protected for `protect` from `started`, resumable, no periodic checkpoint.
Contract contract_from(Seconds started, Seconds protect = 0, Seconds grace = 0) {
  Contract contract;
  contract.protected_until = started + protect;
  contract.grace = grace;
  contract.resumable = true;
  return contract;
}

// Beta's one-GPU job started an hour ago, last checkpointed `minutes_ago`.
RunningJob beta_job(const std::string& id, int gpus, int minutes_ago,
                    Contract contract = contract_from(kTuesday - kHour)) {
  RunningJob job = running(cycle_test::job(id, "beta", "work", gpus, kTuesday - 2 * kHour), {0}, kTuesday - kHour,
                           std::move(contract));
  job.last_checkpoint = kTuesday - minutes_ago * kMinute;
  return job;
}

ClusterState one_node(std::vector<RunningJob> jobs, std::vector<JobRequest> pending) {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  state.running = std::move(jobs);
  state.pending = std::move(pending);
  return state;
}

std::shared_ptr<const CompiledPolicy> always_preempt() {
  static const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));
  return policy;
}

// A preemption between two groups (accounts or programs), and a time a group
// lost capacity other than by such a preemption (a job finished, a lane took it).
struct Preemption {
  Seconds at;
  std::string taker;   // the requester's group
  std::string victim;  // the victim's group
};
using Loss = std::pair<Seconds, std::string>;

// How many preemptions were reversed (the victim taking from the taker) with no
// loss of the first victim's in between: preemption undoing preemption.
std::size_t reversals_without_cause(const std::vector<Preemption>& preemptions, const std::vector<Loss>& losses) {
  std::size_t reversals = 0;
  for (std::size_t i = 0; i < preemptions.size(); ++i) {
    const Preemption& first = preemptions[i];
    if (first.taker == first.victim) continue;
    for (std::size_t j = i + 1; j < preemptions.size(); ++j) {
      const Preemption& later = preemptions[j];
      if (later.taker != first.victim || later.victim != first.taker) continue;
      const bool cause = std::any_of(losses.begin(), losses.end(), [&](const Loss& loss) {
        return loss.second == first.victim && loss.first > first.at && loss.first <= later.at;
      });
      if (!cause) {
        UNSCOPED_INFO(first.victim << " took back from " << first.taker << " at " << later.at);
        ++reversals;
      }
      break;  // only the next reversal of this preemption matters
    }
  }
  return reversals;
}

std::vector<RunningJob> full_of_beta(int minutes_ago_base = 1) {
  std::vector<RunningJob> jobs;
  for (int i = 0; i < 8; ++i) jobs.push_back(beta_job("b" + std::to_string(i), 1, minutes_ago_base + i));
  return jobs;
}

}  // namespace

TEST_CASE("a protected job is never chosen", "[cycle][victims]") {
  std::vector<RunningJob> jobs;
  for (int i = 0; i < 8; ++i) {
    jobs.push_back(beta_job("b" + std::to_string(i), 1, 1, contract_from(kTuesday - 5 * kMinute, 10 * kMinute)));
  }
  ClusterState state = one_node(jobs, {job("alpha-1", "alpha", "work", 1)});

  const CycleResult protected_now = run_cycle(state, *always_preempt());
  CHECK(decisions_of(protected_now, DecisionKind::preempt).empty());
  CHECK(decision_for(protected_now, "alpha-1", DecisionKind::skip) != nullptr);

  state.now = kTuesday + 5 * kMinute;  // protection over
  const CycleResult unprotected = run_cycle(state, *always_preempt());
  CHECK(decisions_of(unprotected, DecisionKind::preempt).size() == 1);
  CHECK(decision_for(unprotected, "alpha-1", DecisionKind::start) != nullptr);
}

TEST_CASE("non-preemptible and non-requeueable jobs are never chosen", "[cycle][victims]") {
  std::vector<RunningJob> jobs = full_of_beta();
  for (int i = 0; i < 3; ++i) jobs[static_cast<std::size_t>(i)].contract.preemptible = false;
  for (int i = 3; i < 6; ++i) jobs[static_cast<std::size_t>(i)].request.requeueable = false;

  SECTION("one GPU comes from a job that may be preempted") {
    const CycleResult result = run_cycle(one_node(jobs, {job("alpha-1", "alpha", "work", 1)}), *always_preempt());
    const auto victims = preempted_ids(result);
    REQUIRE(victims.size() == 1);
    CHECK((victims.count("b6") || victims.count("b7")));
  }
  SECTION("three GPUs cannot be freed from the two jobs that may be preempted") {
    const CycleResult result = run_cycle(one_node(jobs, {job("alpha-3", "alpha", "work", 3)}), *always_preempt());
    CHECK(decisions_of(result, DecisionKind::preempt).empty());
    CHECK(decision_for(result, "alpha-3", DecisionKind::skip) != nullptr);
  }
}

TEST_CASE("the set that loses the least work is chosen", "[cycle][victims]") {
  SECTION("one GPU: the job that checkpointed last") {
    const CycleResult result =
        run_cycle(one_node(full_of_beta(3), {job("alpha-1", "alpha", "work", 1)}), *always_preempt());
    const Decision* victim = decision_for(result, "b0", DecisionKind::preempt);
    REQUIRE(victim != nullptr);
    CHECK(victim->lost_gpu_seconds == 3 * kMinute);
    CHECK(victim->for_job == "alpha-1");
    CHECK(preempted_ids(result).size() == 1);
  }
  SECTION("two GPUs: two one-GPU jobs that lose less together than one two-GPU job") {
    std::vector<RunningJob> jobs = {beta_job("two-gpus", 2, 5), beta_job("one-a", 1, 4), beta_job("one-b", 1, 4),
                                    beta_job("four-gpus", 4, 60)};
    const CycleResult result = run_cycle(one_node(jobs, {job("alpha-2", "alpha", "work", 2)}), *always_preempt());
    CHECK(preempted_ids(result) == std::set<std::string>{"one-a", "one-b"});
    const Decision* start = decision_for(result, "alpha-2", DecisionKind::start);
    REQUIRE(start != nullptr);
    CHECK_THAT(start->reason, Catch::Contains("after preempting 2 jobs"));
  }
}

TEST_CASE("a multi-node job gets the block whose jobs lose the least work", "[cycle][victims]") {
  // Two blocks of two 8-GPU nodes, full of beta's one-GPU jobs. Per job, work
  // since the last checkpoint: node 0 1m, node 1 10m (rack-1: 88 GPU-minutes
  // for both nodes), nodes 2 and 3 4m each (rack-2: 64 GPU-minutes).
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(4, 8, "h100", 2);
  const int minutes_on_node[] = {1, 10, 4, 4};
  for (int node = 0; node < 4; ++node) {
    for (int i = 0; i < 8; ++i) {
      RunningJob victim = beta_job(fmt::format("b{}-{}", node, i), 1, minutes_on_node[node]);
      victim.nodes = {node};
      state.running.push_back(victim);
    }
  }
  JobRequest wide = job("alpha-wide", "alpha", "work", 8);
  wide.nodes = 2;
  state.pending = {wide};

  const CycleResult result = run_cycle(state, *always_preempt());

  const Decision* start = decision_for(result, "alpha-wide", DecisionKind::start);
  REQUIRE(start != nullptr);
  CHECK(std::set<int>(start->nodes.begin(), start->nodes.end()) == std::set<int>{2, 3});
  const auto victims = decisions_of(result, DecisionKind::preempt);
  CHECK(victims.size() == 16);
  for (const Decision* victim : victims) CHECK((victim->nodes[0] == 2 || victim->nodes[0] == 3));
}

TEST_CASE("the policy's preempt predicate has the last word", "[cycle][victims]") {
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "victim.restarts < 1"));
  std::vector<RunningJob> jobs = full_of_beta(1);
  for (int i = 0; i < 7; ++i) jobs[static_cast<std::size_t>(i)].request.restarts = 1;  // b7 lost the most work

  const CycleResult result = run_cycle(one_node(jobs, {job("alpha-1", "alpha", "work", 1)}), *policy);

  CHECK(preempted_ids(result) == std::set<std::string>{"b7"});
}

TEST_CASE("preemption never pushes an account below its share", "[cycle][victims]") {
  // 8 GPUs, 50/50: beta holds 5 (one over its 4), alpha holds 3.
  std::vector<RunningJob> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(beta_job("b" + std::to_string(i), 1, 1));
  for (int i = 0; i < 3; ++i) {
    jobs.push_back(running(job("a" + std::to_string(i), "alpha", "pinned", 1), {0}, kTuesday - kHour, Contract{}));
    jobs.back().contract.preemptible = false;
  }

  SECTION("taking one GPU leaves beta at its share") {
    const CycleResult result = run_cycle(one_node(jobs, {job("alpha-1", "alpha", "work", 1)}), *always_preempt());
    CHECK(preempted_ids(result).size() == 1);
  }
  SECTION("taking two would leave beta below it") {
    const CycleResult result = run_cycle(one_node(jobs, {job("alpha-2", "alpha", "work", 2)}), *always_preempt());
    CHECK(decisions_of(result, DecisionKind::preempt).empty());
  }
  SECTION("an account at its share preempts nobody") {
    ClusterState state = one_node(jobs, {job("beta-1", "beta", "work", 1)});
    const CycleResult result = run_cycle(state, *always_preempt());
    CHECK(decisions_of(result, DecisionKind::preempt).empty());
    const Decision* skip = decision_for(result, "beta-1", DecisionKind::skip);
    REQUIRE(skip != nullptr);
    CHECK_THAT(skip->reason, Catch::Contains("`beta` holds its share already"));
  }
}

TEST_CASE("a victim in its grace is counted once: each waiting job preempts only what it needs", "[cycle][victims]") {
  std::vector<RunningJob> jobs;
  for (int i = 0; i < 8; ++i) {
    jobs.push_back(beta_job("b" + std::to_string(i), 1, 1 + i, contract_from(kTuesday - kHour, 0, 5 * kMinute)));
  }
  ClusterState state = one_node(jobs, {job("first", "alpha", "work", 1), job("second", "alpha", "work", 1)});

  const CycleResult result = run_cycle(state, *always_preempt());
  // One victim per one-GPU job: the GPU the first victim frees is the first
  // job's, not a shortfall the second job must make up with an extra victim.
  const auto preempted = decisions_of(result, DecisionKind::preempt);
  REQUIRE(preempted.size() == 2);
  CHECK(preempted[0]->for_job != preempted[1]->for_job);
  CHECK(result.reservations.size() == 2);

  SECTION("and in the next cycle, while both victims checkpoint, nobody preempts again") {
    apply_decisions(state, result);
    state.now = kTuesday + 2 * kMinute;
    const CycleResult waiting = run_cycle(state, *always_preempt());
    CHECK(decisions_of(waiting, DecisionKind::preempt).empty());
    CHECK(waiting.reservations.size() == 2);
  }
}

TEST_CASE("capacity freed by a preemption with a grace is reserved for its job", "[cycle][victims]") {
  std::vector<RunningJob> jobs;
  for (int i = 0; i < 8; ++i) {
    jobs.push_back(beta_job("b" + std::to_string(i), 1, 1 + i, contract_from(kTuesday - kHour, 0, 5 * kMinute)));
  }
  ClusterState state = one_node(jobs, {job("owner", "alpha", "work", 1)});

  const CycleResult first = run_cycle(state, *always_preempt());
  const Decision* victim = decision_for(first, "b0", DecisionKind::preempt);
  REQUIRE(victim != nullptr);
  CHECK(victim->stops_at == kTuesday + 5 * kMinute);
  CHECK(decision_for(first, "owner", DecisionKind::start) == nullptr);
  REQUIRE(first.reservations.size() == 1);
  CHECK(first.reservations[0].job_id == "owner");
  CHECK(first.reservations[0].until == kTuesday + 15 * kMinute);  // victims' stop + reservation_ttl (10m)
  apply_decisions(state, first);
  REQUIRE(state.running.size() == 8);  // b0 still checkpoints
  CHECK(state.running[0].stopping_at == kTuesday + 5 * kMinute);

  SECTION("while the victim checkpoints, nobody preempts again for the same job") {
    state.now = kTuesday + 2 * kMinute;
    const CycleResult waiting = run_cycle(state, *always_preempt());
    CHECK(decisions_of(waiting, DecisionKind::preempt).empty());
    CHECK(waiting.reservations.size() == 1);
  }
  SECTION("once it stops, the job it was freed for starts there, ahead of a higher-ranked job") {
    state.now = kTuesday + 5 * kMinute;
    state.pending.push_back(job("intruder", "beta", "work", 1, kTuesday - kDay));  // waited longest: ranks first
    const CycleResult second = run_cycle(state, *always_preempt());
    CHECK(second.ranked_job_ids.front() == "intruder");
    CHECK(decision_for(second, "intruder", DecisionKind::skip) != nullptr);
    const Decision* start = decision_for(second, "owner", DecisionKind::start);
    REQUIRE(start != nullptr);
    CHECK(start->nodes == std::vector<int>{0});
    CHECK(second.reservations.empty());
    apply_decisions(state, second);
    CHECK(state.running.size() == 8);
    REQUIRE(!state.pending.empty());
    CHECK(state.pending.back().id == "b0");  // requeued
    CHECK(state.pending.back().restarts == 1);
  }
}

// Under a `preempt` with one fixed value a cycle remembers a failed search for
// an account and shape (runtime/src/cycle/preemption.h), but only while the
// free capacity and the share balance are what it failed with.
TEST_CASE("a search that failed runs again once a start changed the balance", "[cycle][victims]") {
  // 24 GPUs: alpha's share 85% (20.4), beta's 15% (3.6). Alpha holds 17, beta 4.
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(3, 8);
  for (int i = 0; i < 4; ++i) state.running.push_back(beta_job("b" + std::to_string(i), 1, 1 + i));
  const auto alpha_job = [](const std::string& id, int gpus, int node) {
    return running(job(id, "alpha", "work", gpus, kTuesday - 2 * kHour), {node}, kTuesday - kHour,
                   contract_from(kTuesday - kHour));
  };
  state.running.push_back(alpha_job("a0", 2, 0));  // node 0: 2 GPUs free
  state.running.push_back(alpha_job("a1", 8, 1));  // node 1: full
  state.running.push_back(alpha_job("a2", 7, 2));  // node 2: 1 GPU free
  // Oldest first: alpha-first fits nowhere and may take no beta job (beta would
  // fall to 3, below 3.6); beta-small starts on node 2 (beta holds 5); then
  // alpha-second, of the same shape, may take one (beta keeps 4).
  state.pending = {job("alpha-first", "alpha", "work", 3, kTuesday - 3 * kHour),
                   job("beta-small", "beta", "work", 1, kTuesday - 2 * kHour),
                   job("alpha-second", "alpha", "work", 3, kTuesday - kHour)};
  CycleOptions options;
  options.blocked_holds = 0;

  const auto fixed = compile_text(two_team_policy("job.wait / 1h", "true", 85));
  const auto searched = compile_text(two_team_policy("job.wait / 1h", "true and true", 85));
  REQUIRE(fixed->preempt_operands().size() == 1);
  REQUIRE(searched->preempt_operands().size() == 2);
  for (const auto& policy : {fixed, searched}) {
    const CycleResult result = run_cycle(state, *policy, options);
    CHECK(decision_for(result, "alpha-first", DecisionKind::skip) != nullptr);
    CHECK(decision_for(result, "beta-small", DecisionKind::start) != nullptr);
    const Decision* second = decision_for(result, "alpha-second", DecisionKind::start);
    REQUIRE(second != nullptr);
    CHECK(second->nodes == std::vector<int>{0});
    REQUIRE(decisions_of(result, DecisionKind::preempt).size() == 1);
    CHECK(decisions_of(result, DecisionKind::preempt).front()->for_job == "alpha-second");
  }
}

TEST_CASE("a job never preempts work of its own account", "[cycle][victims]") {
  // alpha (90%) holds 4 of 8 GPUs, well below its share; the rest are beta's and cannot be preempted.
  std::vector<RunningJob> jobs;
  for (int i = 0; i < 4; ++i) {
    jobs.push_back(running(job("a" + std::to_string(i), "alpha", "work", 1), {0}, kTuesday - kHour,
                           contract_from(kTuesday - kHour)));
    jobs.push_back(beta_job("b" + std::to_string(i), 1, 1));
    jobs.back().contract.preemptible = false;
  }
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "true", 90));
  const CycleResult result = run_cycle(one_node(jobs, {job("alpha-new", "alpha", "work", 1)}), *policy);
  CHECK(decisions_of(result, DecisionKind::preempt).empty());
  CHECK(decision_for(result, "alpha-new", DecisionKind::skip) != nullptr);
}

// Two teams with endless queues on 5 GPUs (2.5 each), with an adversarial
// policy: the team that already holds more ranks first, and `preempt` accepts
// anything. Jobs finish at random, so the teams keep crossing their shares.
// Capacity taken from one team may only flow back after that team lost some
// for another reason (one of its jobs finished): never preemption undoing preemption.
TEST_CASE("adversarial queues show no preemption loop over 1,000 cycles", "[cycle][victims]") {
  const auto policy = compile_text(two_team_policy("account.running_gpus", "true"));
  Driver driver(uniform_inventory(1, 5), policy, kTuesday);
  std::mt19937 random(7);
  std::uniform_int_distribution<int> runtime_minutes(10, 180);
  int submitted = 0;
  auto top_up = [&] {
    std::map<std::string, int> waiting;
    for (const JobRequest& pending : driver.state().pending) ++waiting[pending.account];
    for (const std::string team : {"alpha", "beta"}) {
      for (int i = waiting[team]; i < 4; ++i) {
        JobRequest request = job(fmt::format("{}-{}", team, submitted++), team, "work", 1);
        request.expected_runtime = runtime_minutes(random) * kMinute;
        driver.submit(request);
      }
    }
  };

  std::vector<Preemption> preemptions;
  std::map<std::string, std::string> account_of;
  for (int cycle = 0; cycle < 1000; ++cycle) {
    top_up();
    for (const JobRequest& pending : driver.state().pending) account_of[pending.id] = pending.account;
    const CycleResult& result = driver.step(10 * kMinute);
    for (const Decision* decision : decisions_of(result, DecisionKind::preempt)) {
      preemptions.push_back({result.now, account_of.at(decision->for_job), decision->account});
      // The victim's team keeps at least its share (2.5 GPUs, so 3) after the preemption.
      CHECK(driver.gpus_by_account()[decision->account] >= 3);
    }
  }

  // The adversarial policy does make preemptions happen...
  CHECK(preemptions.size() >= 20);
  // ...but a preemption is never reversed unless the taker's victim lost capacity by a job finishing in between.
  CHECK(reversals_without_cause(preemptions, driver.completions()) == 0);
}

namespace {

// policies/saas.allot with its rank replaced by `rank` (its `preempt`, keyed on
// what each account holds now, stays as shipped).
std::string saas_ranked_by(const std::string& rank) {
  std::string source = source_text("policies/saas.allot");
  const std::size_t from = source.find("  rank =");
  const std::size_t to = source.find("  // When product returns");
  if (from == std::string::npos || to == std::string::npos) FAIL("policies/saas.allot's rank is not where expected");
  return source.replace(from, to - from, "  rank = " + rank + "\n\n");
}

// The program of a leaf account ("exploration/ana" -> "exploration").
std::string program_of(const std::string& account) { return account.substr(0, account.find('/')); }

}  // namespace

// The seed's three programs on its eight GPUs with endless queues of training
// runs (random work and protection) and debug jobs, under saas's `preempt`
// ("the victim's account holds more than 110% of its share now, the
// requester's less than its share"), once with saas's rank and once with an
// adversarial one (the account that holds more ranks first). Capacity moves
// by preemption, but never back by preemption alone: a preemption between two
// programs is reversed only after the first victim lost capacity otherwise in
// between (a job of it finished, or a debug job took a GPU through its lane).
TEST_CASE("saas's preempt, keyed on what accounts hold now, shows no preemption loop over 1,000 cycles",
          "[cycle][victims]") {
  for (const std::string& rank : {std::string(), std::string("account.running_gpus")}) {
    DYNAMIC_SECTION((rank.empty() ? "saas's rank" : "rank = " + rank)) {
      const auto policy = rank.empty() ? compile_file("policies/saas.allot") : compile_text(saas_ranked_by(rank));
      Driver driver(uniform_inventory(1, 8), policy, kTuesday);
      std::mt19937 random(11);
      std::uniform_int_distribution<int> work_minutes(10, 240);
      std::uniform_int_distribution<int> protect_minutes(0, 120);
      std::bernoulli_distribution debug_now(0.05);
      const std::vector<std::string> accounts = {"product", "platform", "exploration/ana", "exploration/ben"};
      int submitted = 0;
      auto top_up = [&] {
        std::map<std::string, int> waiting;
        for (const JobRequest& pending : driver.state().pending) ++waiting[pending.account];
        for (const std::string& account : accounts) {
          for (int i = waiting[account]; i < 3; ++i) {
            JobRequest request = job(fmt::format("{}-{}", account, submitted++), account, "train", 1);
            request.expected_runtime = work_minutes(random) * kMinute;
            request.requested_protect = protect_minutes(random) * kMinute;
            driver.submit(request);
          }
          if (debug_now(random)) {
            JobRequest request = job(fmt::format("{}-debug-{}", account, submitted++), account, "debug", 1);
            request.expected_runtime = 10 * kMinute;
            driver.submit(request);
          }
        }
      };

      std::vector<Preemption> preemptions;  // between programs
      std::vector<Loss> losses;             // (time, program): jobs finished, lane preemptions
      std::map<std::string, std::string> account_of;
      std::map<std::string, std::string> class_of;
      for (int cycle = 0; cycle < 1000; ++cycle) {
        top_up();
        for (const JobRequest& pending : driver.state().pending) {
          account_of[pending.id] = pending.account;
          class_of[pending.id] = pending.job_class;
        }
        const CycleResult& result = driver.step(10 * kMinute);
        for (const Decision* decision : decisions_of(result, DecisionKind::preempt)) {
          if (decision->for_job.empty()) continue;
          // A debug job's fast lane takes capacity regardless of shares (bounded by its quota).
          if (class_of.at(decision->for_job) == "debug") {
            losses.emplace_back(result.now, program_of(decision->account));
            continue;
          }
          preemptions.push_back(
              {result.now, program_of(account_of.at(decision->for_job)), program_of(decision->account)});
        }
      }

      for (const auto& [at, account] : driver.completions()) losses.emplace_back(at, program_of(account));
      CHECK(preemptions.size() >= 10);  // the queues do make capacity move by preemption
      CHECK(reversals_without_cause(preemptions, losses) == 0);
    }
  }
}

// The one rule for "may this running job be stopped now" (runtime/contracts.h),
// which the cycle, explain, the replay and the Slurm adapter all ask: the first
// reason that holds, in the order a person needs them.
TEST_CASE("stop_refusal says why a running job may not be stopped, first reason first", "[cycle][victims]") {
  using allot::runtime::stop_refusal;
  using allot::runtime::StopRefusal;
  struct Case {
    const char* what;
    bool preemptible, requeueable, stopping;
    Seconds protect_left;
    std::optional<StopRefusal> expected;
  };
  const Case cases[] = {
      {"protection over an hour ago", true, true, false, -kHour, std::nullopt},
      {"protection ends now", true, true, false, 0, std::nullopt},
      {"protected another second", true, true, false, 1, StopRefusal::protected_now},
      {"never requeued", true, false, false, 0, StopRefusal::not_requeueable},
      {"runs to completion", false, true, false, 0, StopRefusal::not_preemptible},
      {"runs to completion and never requeued", false, false, false, kHour, StopRefusal::not_preemptible},
      {"stopping already", false, false, true, kHour, StopRefusal::stopping},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    RunningJob job = beta_job("b", 1, 10, contract_from(kTuesday - kHour, kHour + c.protect_left));
    job.contract.preemptible = c.preemptible;
    job.request.requeueable = c.requeueable;
    if (c.stopping) job.stopping_at = kTuesday + 5 * kMinute;
    CHECK(stop_refusal(job, kTuesday) == c.expected);
    CHECK(stop_refusal(job.contract, c.requeueable, c.stopping, kTuesday) == c.expected);
  }
}

}  // namespace cycle_test
