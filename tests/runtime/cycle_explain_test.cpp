// `explain JOB` answers what a person asks about a job: where it is in the
// queue and why, what its account is owed, why it does not run and when it
// next can if nothing else changes, or, for a running job, what it was
// promised and whether it can be preempted now. Also the audit records a
// cycle writes (docs/AUDIT.md).
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "allot/account_columns.h"
#include "allot/audit.h"
#include "allot/explain.h"
#include "allot/snapshot.h"
#include "cycle_support.h"
#include "temp_folder.h"

namespace cycle_test {
namespace {

// 2026-12-02T09:00:00Z, Wednesday morning in the seed's story.
constexpr Seconds kWednesday9 = kTuesday + kDay + 9 * kHour;

ClusterState example(const std::string& name) {
  auto snapshot = load_snapshot(std::string(ALLOT_SOURCE_DIR) + "/examples/states/" + name);
  INFO((snapshot ? std::string() : snapshot.error().to_string()));
  REQUIRE(snapshot);
  return std::move(snapshot->state);
}

Explanation explained(const ClusterState& state, const CompiledPolicy& policy, const std::string& job) {
  auto explanation = explain_job(state, policy, job);
  INFO((explanation ? std::string() : explanation.error()));
  REQUIRE(explanation);
  return std::move(*explanation);
}

double term(const Explanation& explanation, const std::string& name) {
  for (const RankTerm& t : explanation.terms) {
    if (t.name == name) return t.value;
  }
  FAIL("no rank term " << name);
  return 0;
}

// One GPU node, a running `work` job of alpha holding all of it, and a waiting job.
ClusterState one_full_node(Seconds running_for, Seconds expected_runtime) {
  ClusterState state;
  state.now = kWednesday9;
  state.inventory = uniform_inventory(1, 8);
  JobRequest holder = job("holder", "alpha", "work", 8, kWednesday9 - running_for);
  holder.expected_runtime = expected_runtime;
  state.running.push_back(
      running(holder, {0}, kWednesday9 - running_for, Contract{kWednesday9 + kDay, 600, 0, true, true, "test", {}}));
  state.pending.push_back(job("waiting", "alpha", "work", 4, kWednesday9 - kHour));
  return state;
}

}  // namespace

TEST_CASE("a waiting job learns its place, why it waits and when it can run", "[cycle][explain]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-wednesday.toml");
  const Explanation e = explained(state, *policy, "product-train-3");

  CHECK_FALSE(e.running);
  CHECK(e.now == kWednesday9);
  REQUIRE(e.position);
  CHECK(*e.position == 4);  // behind the evaluation and product's three other runs
  CHECK(e.queue_length == 7);
  REQUIRE(e.decision);
  CHECK(e.decision->kind == DecisionKind::skip);
  CHECK(e.decision->reason == "no node has 1 free GPU (the most on one node is 0)");
  CHECK(term(e, "account.fair_tree") == 1.0);
  CHECK(term(e, "job.wait") == 10 * kMinute);

  // Product holds its 50% (four GPUs) once the evaluation and three runs
  // start, so this run does not preempt anyone: it takes the evaluation's
  // GPU when the evaluation's two hours end (it starts at 09:05).
  REQUIRE(e.next);
  REQUIRE(e.next->at);
  CHECK(*e.next->at == kWednesday9 + 2 * kHour + 5 * kMinute);
  CHECK(e.next->nodes == std::vector<int>{0});
  CHECK(e.next->why == "when `product-eval` is expected to end");

  REQUIRE(e.accounts.size() == 1);
  const AccountStanding& product = e.accounts[0];
  CHECK(product.path == "product");
  CHECK(product.policy_share == Approx(0.4));
  CHECK(product.level_share == Approx(0.5));  // release_crunch lends it 10 points
  CHECK(product.cluster_share == Approx(0.5));
  REQUIRE(product.exceptions.size() == 1);
  CHECK(product.exceptions[0] == "`release_crunch` grants it +10% from `exploration` until 2026-12-20");
  CHECK(product.usage == 60);
  CHECK(product.debt == 0.5);
  CHECK(product.pending_jobs == 5);

  const std::string text = explanation_text(e, state.inventory);
  CHECK_THAT(text, Catch::Contains("is waiting: 5th of 7 in the queue"));
  CHECK_THAT(text, Catch::Contains("Why it is not running: no node has 1 free GPU"));
  CHECK_THAT(text, Catch::Contains("Next opportunity to run: 2026-12-02T11:05:00Z on `gpu-01`, when `product-eval` is "
                                   "expected to end."));
  CHECK_THAT(text, Catch::Contains("`release_crunch` grants it +10% from `exploration` until 2026-12-20"));
}

TEST_CASE("explain shows what each rank term contributed, as written, adding up to the rank", "[cycle][explain]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-wednesday.toml");
  const Explanation e = explained(state, *policy, "product-train-3");
  std::vector<std::string> terms;
  double sum = 0;
  for (const RankContribution& contribution : e.contributions) {
    terms.push_back(contribution.term.text);
    sum += contribution.value;
  }
  CHECK(terms == std::vector<std::string>{"share", "2000 * share_gap(account, cluster)", "class_boost(job.class)",
                                          "200 * deadline_urgency(job)", "capped_wait_hours(job, 48h)"});
  REQUIRE(e.contributions.size() == 5);
  CHECK(e.contributions[0].term.definition == "1000 * fair_tree(account)");
  CHECK(e.contributions[0].value == 1000 * term(e, "account.fair_tree"));
  CHECK(e.contributions[4].value == Approx(10.0 / 60));  // ten minutes waited, in hours
  CHECK(sum == Approx(e.rank).epsilon(1e-12));
  // Only the inputs a waiting job without a deadline has.
  for (const RankTerm& input : e.terms) {
    CHECK(input.name != "job.runtime");
    CHECK(input.name != "job.deadline_slack");
  }
  const std::string text = explanation_text(e, state.inventory);
  CHECK_THAT(text, Catch::Contains(", the sum of 5 terms of `rank` ("));
  CHECK_THAT(text, Catch::Contains("  share = 1000 * fair_tree(account)  "));
  CHECK_THAT(text, Catch::Contains("  job.class                 `train`\n"));
  const auto json = nlohmann::json::parse(explanation_json(e, state.inventory));
  REQUIRE(json["contributions"].size() == 5);
  CHECK(json["contributions"][1]["term"] == "2000 * share_gap(account, cluster)");
  CHECK(json["contributions"][0]["definition"] == "1000 * fair_tree(account)");
}

TEST_CASE("explain says how ties on rank are broken", "[cycle][explain]") {
  const auto policy = compile_text(two_team_policy("1", "true"));
  ClusterState state = one_full_node(kHour, 2 * kHour);
  state.pending.push_back(job("early", "beta", "work", 4, kWednesday9 - 2 * kHour));
  state.pending.push_back(job("late", "beta", "work", 4, kWednesday9 - kMinute));
  const Explanation e = explained(state, *policy, "waiting");
  REQUIRE(e.position);
  CHECK(*e.position == 1);
  CHECK(e.ties ==
        "2 other waiting jobs have the same rank; ties go to the job submitted first, then to the smaller id, so 1 of "
        "them is ahead of it");
  CHECK_THAT(explanation_text(e, state.inventory), Catch::Contains("\nTies: 2 other waiting jobs"));
}

TEST_CASE("a job whose capacity is being freed starts when its victims stop", "[cycle][explain]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-debug-saturated.toml");
  const Explanation e = explained(state, *policy, "platform-debug");
  REQUIRE(e.decision);
  CHECK_THAT(e.decision->reason, Catch::Contains("capacity on `gpu-01` is reserved for it after preempting 1 job"));
  REQUIRE(e.next);
  REQUIRE(e.next->at);
  CHECK(*e.next->at == state.now + 5 * kMinute);  // the victim's grace
  CHECK(e.next->why == "when `exploration/ana-21` stops");
}

TEST_CASE("a running job learns its contract and whether it can be preempted now", "[cycle][explain]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-wednesday.toml");

  SECTION("inside its protection") {
    const Explanation e = explained(state, *policy, "exploration/ben-19");
    CHECK(e.running);
    REQUIRE(e.run);
    CHECK(e.run->contract.protected_until == kWednesday9 + kHour + 40 * kMinute);
    REQUIRE(e.expected_end);
    CHECK(*e.expected_end == kWednesday9 - 20 * kMinute + 4 * kHour);
    CHECK(e.lost_if_stopped_now == 20 * kMinute);  // one GPU since 08:40, no checkpoint yet
    REQUIRE(e.preemption);
    CHECK_FALSE(e.preemption->candidate);
    CHECK(e.preemption->why == "not a candidate: its contract protects it until 2026-12-02T10:40:00Z (another 1h40m)");
    REQUIRE(e.accounts.size() == 2);  // exploration, then exploration/ben
    CHECK(e.accounts[0].level_share == Approx(0.15));
    CHECK(e.accounts[1].path == "exploration/ben");
  }
  SECTION("preempted in this cycle") {
    const Explanation e = explained(state, *policy, "exploration/ana-43");
    REQUIRE(e.preemption);
    CHECK(e.preemption->chosen);
    CHECK_THAT(e.preemption->why, Catch::StartsWith("this cycle stops it (preempted for `product-eval`"));
    CHECK_THAT(e.preemption->why, Catch::Contains("it stops at 2026-12-02T09:05:00Z, losing 0 GPU-seconds"));
  }
  SECTION("past its protection, but its account is below its share") {
    const Explanation e = explained(state, *policy, "platform-retrain-1");
    REQUIRE(e.preemption);
    CHECK(e.preemption->candidate);
    CHECK_FALSE(e.preemption->chosen);
    CHECK_THAT(e.preemption->why,
               Catch::Contains("for `product-eval` (1st in the queue), stopping it would leave `platform` below its "
                               "share"));
  }
  SECTION("past its protection, and debug's fast lane may stop it") {
    const Explanation e = explained(state, *policy, "platform-retrain-1");
    REQUIRE(e.preemption);
    CHECK(e.preemption->candidate);
    CHECK_THAT(e.preemption->why, Catch::EndsWith("; the fast lane of class `debug` may also stop it, share rule and "
                                                  "`preempt` aside (docs/SCHEDULING.md)"));
  }
  SECTION("the text") {
    const std::string text = explanation_text(explained(state, *policy, "exploration/ben-19"), state.inventory);
    CHECK_THAT(text, Catch::StartsWith("Job `exploration/ben-19` (exploration/ben, class `train`) is running on "
                                       "`gpu-01` since 2026-12-02T08:40:00Z"));
    CHECK_THAT(text, Catch::Contains("protected until 2026-12-02T10:40:00Z (1h40m left)"));
    CHECK_THAT(text, Catch::Contains("Preemption: not a candidate"));
  }
}

TEST_CASE("the forecast says when a start cannot be known or will never come", "[cycle][explain]") {
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));

  SECTION("the capacity is held by a job with no expected runtime") {
    const ClusterState state = one_full_node(kHour, 0);
    const Explanation e = explained(state, *policy, "waiting");
    REQUIRE(e.next);
    CHECK_FALSE(e.next->at);
    CHECK(e.next->why ==
          "it cannot be known: it waits for capacity held by 1 job with no expected runtime (`holder`), and when it "
          "will end is unknown");
  }
  SECTION("the holder's expected end frees it") {
    const ClusterState state = one_full_node(kHour, 3 * kHour);
    const Explanation e = explained(state, *policy, "waiting");
    REQUIRE(e.next);
    REQUIRE(e.next->at);
    CHECK(*e.next->at == kWednesday9 + 2 * kHour);
    CHECK(e.next->why == "when `holder` is expected to end");
  }
  SECTION("beyond the horizon") {
    const ClusterState state = one_full_node(kHour, 30 * kDay);
    const Explanation e = explained(state, *policy, "waiting");
    REQUIRE(e.next);
    CHECK_FALSE(e.next->at);
    CHECK(e.next->why == "not within the next 14d (the forecast stops at 2026-12-16T09:00:00Z)");
  }
  SECTION("room now") {
    ClusterState state = one_full_node(kHour, 3 * kHour);
    state.running.clear();
    const Explanation e = explained(state, *policy, "waiting");
    REQUIRE(e.next);
    CHECK(e.next->at == kWednesday9);
    CHECK(e.next->cycles == 0);
    CHECK_THAT(explanation_text(e, state.inventory),
               Catch::Contains("\nThis cycle starts it: it starts on `node-01`, 1st in the queue.\n"));
  }
  SECTION("more GPUs than any node has") {
    ClusterState state = one_full_node(kHour, 3 * kHour);
    state.pending[0].gpus_per_node = 16;
    const Explanation e = explained(state, *policy, "waiting");
    REQUIRE(e.next);
    CHECK_FALSE(e.next->at);
    CHECK(e.next->why ==
          "never, as things stand: even with every job gone, no node has 16 free GPUs (the most on one node is 8)");
  }
  SECTION("an account the policy does not know") {
    ClusterState state = one_full_node(kHour, 3 * kHour);
    state.pending[0].account = "gamma";
    const Explanation e = explained(state, *policy, "waiting");
    CHECK_FALSE(e.position);
    CHECK(e.accounts.empty());
    REQUIRE(e.next);
    CHECK(e.next->why == "never, as things stand: account `gamma` is not in policy `two_teams`'s tree");
  }
}

// explain reads the cycle's own context (runtime/src/cycle/context.h): a
// running job past its stop time, or on a node the inventory lacks, holds
// nothing in the account table the rank reads, so explain does not count it
// either (it used to: `running_gpus` 24 here, while `rank` read 8).
TEST_CASE("explain shows the account table the rank read, without jobs that hold nothing", "[cycle][explain]") {
  const auto policy = compile_text(two_team_policy("account.running_gpus", "true"));
  ClusterState state;
  state.now = kWednesday9;
  state.inventory = uniform_inventory(2, 8);
  const Contract contract{kWednesday9, 600, 0, true, true, "test", {}};
  state.running.push_back(
      running(job("live", "alpha", "work", 8, kWednesday9 - kDay), {0}, kWednesday9 - kHour, contract));
  RunningJob stopped =
      running(job("stopped", "alpha", "work", 8, kWednesday9 - kDay), {1}, kWednesday9 - kHour, contract);
  stopped.stopping_at = kWednesday9 - kMinute;
  state.running.push_back(stopped);
  state.running.push_back(
      running(job("lost-node", "alpha", "work", 8, kWednesday9 - kDay), {7}, kWednesday9 - kHour, contract));
  state.pending.push_back(job("waiting", "alpha", "work", 8, kWednesday9 - kHour));

  const Explanation e = explained(state, *policy, "waiting");
  REQUIRE(e.accounts.size() == 1);
  CHECK(e.accounts[0].path == "alpha");
  CHECK(e.accounts[0].running_gpus == 8);
  CHECK(e.accounts[0].pending_jobs == 1);
  CHECK(term(e, "account.running_gpus") == 8);  // what the rank read
  REQUIRE(e.decision);
  CHECK(e.decision->kind == DecisionKind::start);  // node 1's stopped job left its 8 GPUs free
  // allot shares reads the same table.
  const AccountColumns columns = account_columns(*policy, state);
  CHECK(columns.value(abi::account_running_gpus, 1) == 8);
}

TEST_CASE("explain names a job it does not know and suggests one it does", "[cycle][explain]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-wednesday.toml");
  auto missing = explain_job(state, *policy, "product-train-9");
  REQUIRE_FALSE(missing);
  CHECK(missing.error() ==
        "no job `product-train-9` is waiting or running in the state; did you mean `product-train-0`?");
}

TEST_CASE("explain's JSON carries the same answers", "[cycle][explain]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-wednesday.toml");
  const auto json =
      nlohmann::json::parse(explanation_json(explained(state, *policy, "product-train-3"), state.inventory));
  CHECK(json["job"] == "product-train-3");
  CHECK(json["state"] == "waiting");
  CHECK(json["queue"]["position"] == 4);
  CHECK(json["queue"]["length"] == 7);
  CHECK(json["decision"]["kind"] == "skip");
  CHECK(json["next_opportunity"]["at"] == "2026-12-02T11:05:00Z");
  CHECK(json["next_opportunity"]["nodes"] == nlohmann::json::array({"gpu-01"}));
  CHECK(json["terms"]["account.fair_tree"] == 1.0);
  CHECK(json["accounts"][0]["path"] == "product");
  CHECK(json["accounts"][0]["exceptions"].size() == 1);
  CHECK(json["running"].is_null());

  const auto running =
      nlohmann::json::parse(explanation_json(explained(state, *policy, "exploration/ben-19"), state.inventory));
  CHECK(running["state"] == "running");
  CHECK(running["running"]["contract"]["protected_until"] == "2026-12-02T10:40:00Z");
  CHECK(running["running"]["protection_left"] == 100 * kMinute);
  CHECK(running["preemption"]["candidate"] == false);
  CHECK(running["next_opportunity"].is_null());
}

TEST_CASE("every decision of a cycle is one audit record", "[cycle][audit]") {
  const auto policy = compile_file("policies/saas.allot");
  const ClusterState state = example("saas-wednesday.toml");
  const CycleResult result = run_cycle(state, *policy);
  const std::string lines = audit_lines(result, state.inventory);

  std::istringstream stream(lines);
  std::vector<nlohmann::ordered_json> records;
  for (std::string line; std::getline(stream, line);) records.push_back(nlohmann::ordered_json::parse(line));
  REQUIRE(records.size() == result.decisions.size() + result.skips.size());
  for (const auto& record : records) {
    CHECK(record["time"] == "2026-12-02T09:00:00Z");
    CHECK(record["policy"] == policy->source_hash());
    CHECK(record.begin().key() == "time");  // the documented order
  }
  const auto preempt =
      std::find_if(records.begin(), records.end(), [](const auto& r) { return r["kind"] == "preempt"; });
  REQUIRE(preempt != records.end());
  CHECK((*preempt)["job"] == "exploration/ana-43");
  CHECK((*preempt)["for_job"] == "product-eval");
  CHECK((*preempt)["stops_at"] == "2026-12-02T09:05:00Z");
  CHECK((*preempt)["nodes"] == nlohmann::json::array({"gpu-01"}));
  CHECK((*preempt)["contract"]["grace"] == 300);
  CHECK((*preempt)["rank"].is_null());
  const auto skip = std::find_if(records.begin(), records.end(), [](const auto& r) { return r["kind"] == "skip"; });
  REQUIRE(skip != records.end());
  CHECK((*skip)["job"] == "product-eval");
  CHECK((*skip)["position"] == 0);
  CHECK((*skip)["terms"]["job.deadline_slack"] == 4 * kHour);
  CHECK((*skip)["nodes"].is_null());
  CHECK((*skip)["contract"].is_null());

  SECTION("the audit log appends each cycle whole") {
    TempFolder folder("allot-audit-test");
    const std::string path = folder.file("audit.jsonl");
    for (int cycle = 0; cycle < 2; ++cycle) {
      auto log = AuditLog::open(path);
      REQUIRE(log);
      CHECK_FALSE(log->append(result, state.inventory));
    }
    std::ifstream file(path);
    std::stringstream contents;
    contents << file.rdbuf();
    CHECK(contents.str() == lines + lines);
    CHECK_FALSE(AuditLog::open(folder.file("no/such/folder/audit.jsonl")));
  }
}

}  // namespace cycle_test
