// The seed's story on its eight-GPU SaaS company (policies/saas.allot):
// product idles on Tuesday and exploration uses the cycles as unassigned
// capacity; product returns on Wednesday and its fair share and the share it
// lacks now lift it to the front without evicting any job before its
// protected window ends; a debug
// job gets a GPU within one cycle on a saturated cluster; a deadline
// evaluation meets its deadline.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cycle_support.h"

namespace cycle_test {
namespace {

constexpr Seconds kCycle = 5 * kMinute;
constexpr Seconds kWednesday = kTuesday + kDay;

Inventory saas_cluster() {
  std::ifstream file(std::string(ALLOT_SOURCE_DIR) + "/examples/clusters/saas-8gpu.toml");
  std::stringstream text;
  text << file.rdbuf();
  return inventory_from(text.str());
}

JobRequest training(const std::string& id, const std::string& account, Seconds runtime) {
  JobRequest request = job(id, account, "train", 1);
  request.expected_runtime = runtime;
  request.requested_protect = 2 * kHour;
  return request;
}

// The story's cast: exploration's researchers keep six training runs queued
// each (three to five hours of work apiece), platform runs two day-long retrainings.
class Story {
 public:
  explicit Story(std::shared_ptr<const CompiledPolicy> policy) : driver(saas_cluster(), std::move(policy), kTuesday) {
    driver.submit(training("platform-retrain-1", "platform", 30 * kHour));
    driver.submit(training("platform-retrain-2", "platform", 30 * kHour));
  }

  // Runs cycles until `until`, keeping exploration's queue full.
  void run_until(Seconds until) {
    while (driver.state().now < until) {
      top_up("exploration/ana");
      top_up("exploration/ben");
      driver.step(kCycle);
    }
  }

  // Runs cycles until every GPU is busy and none will free up within the next cycle.
  void run_until_saturated() {
    while (held_by("") < 8 || driver.any_job_ends_within(kCycle)) run_until(driver.state().now + kCycle);
  }

  int held_by(const std::string& prefix) {
    int gpus = 0;
    for (const auto& [account, held] : driver.gpus_by_account()) {
      if (account.rfind(prefix, 0) == 0) gpus += held;
    }
    return gpus;
  }

  Driver driver;

 private:
  void top_up(const std::string& account) {
    int waiting = 0;
    for (const JobRequest& pending : driver.state().pending) waiting += pending.account == account;
    // Three to five hours of work, so runs end at different times.
    for (; waiting < 6; ++waiting, ++next_) {
      driver.submit(training(fmt::format("{}-{}", account, next_), account, 3 * kHour + next_ % 5 * 30 * kMinute));
    }
  }
  int next_ = 0;
};

// No preemption (one made for another job) cut a job short of the protection it started with.
void check_no_eviction_inside_protection(const Driver& driver) {
  for (const Decision& decision : driver.history()) {
    if (decision.kind != DecisionKind::preempt || decision.for_job.empty()) continue;
    const Seconds decided = decision.stops_at - decision.contract.grace;
    INFO(decision.job_id << " preempted for " << decision.for_job);
    CHECK(decided >= decision.contract.protected_until);
  }
}

}  // namespace

TEST_CASE("Tuesday: product idles and exploration uses its cycles as unassigned capacity", "[cycle][scenario]") {
  Story story(compile_file("policies/saas.allot"));
  story.run_until(kTuesday + 12 * kHour);

  CHECK(story.held_by("") == 8);  // work-conserving: every GPU runs something
  CHECK(story.held_by("product") == 0);
  CHECK(story.held_by("exploration") == 6);
  const EntitlementReport report = story.driver.entitlements();
  const Entitlement& exploration = story.driver.entitlement(report, "exploration");
  const Entitlement& product = story.driver.entitlement(report, "product");
  CHECK(exploration.borrowed > 0);  // beyond its 25%: lent, not owned
  CHECK(report.unassigned_hours > 0);
  CHECK(product.owed == 0);  // no demand, no claim
  CHECK(product.debt == 0);
}

TEST_CASE("Wednesday: product returns and rises to the front without early evictions", "[cycle][scenario]") {
  Story story(compile_file("policies/saas.allot"));
  story.run_until(kWednesday);
  for (int i = 0; i < 4; ++i) story.driver.submit(training(fmt::format("product-{}", i), "product", 24 * kHour));
  JobRequest evaluation = job("product-eval", "product", "eval", 1);
  evaluation.deadline = kWednesday + 6 * kHour;
  evaluation.expected_runtime = 2 * kHour;
  story.driver.submit(evaluation);

  story.run_until(kWednesday + kCycle);
  const CycleResult& first = story.driver.last();
  REQUIRE(first.ranked_job_ids.size() >= 5);
  // The evaluation (deadline, class boost) first, then product's training: all ahead of exploration.
  CHECK(first.ranked_job_ids[0] == "product-eval");
  for (std::size_t i = 1; i < 5; ++i) CHECK(first.ranked_job_ids[i].rfind("product-", 0) == 0);

  story.run_until(kWednesday + 12 * kHour);
  // Product got its share back: the evaluation finished in time, and its four
  // training runs started as exploration's protections ran out.
  CHECK(story.driver.finished("product-eval"));
  const Seconds eval_start = story.driver.first_start("product-eval");
  CHECK(eval_start > 0);
  CHECK(eval_start + 2 * kHour <= kWednesday + 6 * kHour);
  for (int i = 0; i < 4; ++i) {
    const Seconds started = story.driver.first_start(fmt::format("product-{}", i));
    CHECK(started > 0);
    CHECK(started <= kWednesday + 2 * kHour + 10 * kMinute);
  }
  CHECK(story.held_by("product") >= 4);
  check_no_eviction_inside_protection(story.driver);
  std::size_t preemptions = 0;
  for (const Decision& decision : story.driver.history()) preemptions += decision.kind == DecisionKind::preempt;
  CHECK(preemptions > 0);
}

namespace {

// Tuesday 11:00 on a saturated cluster (exploration far above its share):
// submits a ten-minute debug job and runs one cycle; returns when it was submitted.
Seconds submit_debug_when_saturated(Story& story, const std::string& id, const std::string& account) {
  story.run_until(kTuesday + 11 * kHour);
  story.run_until_saturated();
  JobRequest debug = job(id, account, "debug", 1);
  debug.expected_runtime = 10 * kMinute;
  story.driver.submit(debug);
  const Seconds submitted = story.driver.state().now;
  story.run_until(submitted + kCycle);
  return submitted;
}

}  // namespace

TEST_CASE("a debug job gets a GPU within one cycle on a saturated cluster", "[cycle][scenario]") {
  Story story(compile_file("policies/saas.allot"));
  const Seconds submitted = submit_debug_when_saturated(story, "platform-debug", "platform");

  // The first cycle that sees it preempts an over-served training run past its
  // protection; the run gets its 5-minute grace to checkpoint, and the GPU is
  // held for the debug job meanwhile.
  const CycleResult& first = story.driver.last();
  const auto victims = decisions_of(first, DecisionKind::preempt);
  REQUIRE(victims.size() == 1);
  CHECK(victims[0]->for_job == "platform-debug");
  CHECK(victims[0]->account.rfind("exploration/", 0) == 0);
  REQUIRE(first.reservations.size() == 1);
  CHECK(first.reservations[0].job_id == "platform-debug");

  story.run_until(submitted + 3 * kCycle);
  const Seconds started = story.driver.first_start("platform-debug");
  CHECK(started > 0);
  CHECK(started - submitted <= 5 * kMinute + kCycle);  // the gate: p90_wait debug <= 5m
  check_no_eviction_inside_protection(story.driver);
}

TEST_CASE("without a grace on training, the debug job starts in the same cycle", "[cycle][scenario]") {
  std::string source = source_text("policies/saas.allot");
  const std::size_t grace = source.find("    grace 5m\n");
  REQUIRE(grace != std::string::npos);
  source.erase(grace, std::string("    grace 5m\n").size());

  Story story(compile_text(source));
  story.run_until(kTuesday + 11 * kHour);
  story.run_until_saturated();
  story.driver.submit(job("platform-debug", "platform", "debug", 1));
  story.run_until(story.driver.state().now + kCycle);

  const Decision* start = decision_for(story.driver.last(), "platform-debug", DecisionKind::start);
  REQUIRE(start != nullptr);
  CHECK_THAT(start->reason, Catch::Contains("after preempting 1 job"));
}

TEST_CASE("an over-served program's debug job starts within the grace through its fast lane; without one it waits",
          "[cycle][scenario][fast_lane]") {
  // Exploration holds far more than its share, so the share rule lets none of its jobs preempt.
  Story without(compile_text(saas_without_fast_lane()));
  submit_debug_when_saturated(without, "ana-debug", "exploration/ana");
  CHECK(decisions_of(without.driver.last(), DecisionKind::preempt).empty());
  const Decision* waits = decision_for(without.driver.last(), "ana-debug", DecisionKind::skip);
  REQUIRE(waits != nullptr);
  CHECK_THAT(waits->reason, Catch::Contains("`exploration/ana` holds its share already"));

  Story with(compile_file("policies/saas.allot"));
  const Seconds submitted = submit_debug_when_saturated(with, "ana-debug", "exploration/ana");
  const auto victims = decisions_of(with.driver.last(), DecisionKind::preempt);
  REQUIRE(victims.size() == 1);
  CHECK(victims[0]->for_job == "ana-debug");
  CHECK_THAT(victims[0]->reason, Catch::Contains("through the fast lane of class `debug`"));
  with.run_until(submitted + 3 * kCycle);
  const Seconds started = with.driver.first_start("ana-debug");
  CHECK(started > 0);
  CHECK(started - submitted <= 5 * kMinute + kCycle);  // the training run's grace, then the next cycle
  check_no_eviction_inside_protection(with.driver);
}

TEST_CASE("the JIT and the interpreter make the same decisions", "[cycle][scenario][jit]") {
  Story interpreted(compile_file("policies/saas.allot", Engine::interpreter));
  const auto jit = compile_file("policies/saas.allot", Engine::jit);
  REQUIRE(jit->engine() == Engine::jit);
  Story compiled(jit);
  for (Story* story : {&interpreted, &compiled}) {
    story->run_until(kWednesday);
    for (int i = 0; i < 4; ++i) story->driver.submit(training(fmt::format("product-{}", i), "product", 6 * kHour));
    story->run_until(kWednesday + 6 * kHour);
  }

  REQUIRE(interpreted.driver.history().size() == compiled.driver.history().size());
  for (std::size_t i = 0; i < interpreted.driver.history().size(); ++i) {
    const Decision& a = interpreted.driver.history()[i];
    const Decision& b = compiled.driver.history()[i];
    CHECK(a.kind == b.kind);
    CHECK(a.job_id == b.job_id);
    CHECK(a.nodes == b.nodes);
    CHECK(a.rank == b.rank);
  }
  CHECK(interpreted.driver.last().ranks == compiled.driver.last().ranks);
}

}  // namespace cycle_test
