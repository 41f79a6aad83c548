// A large job of an under-served program on a cluster saturated by small
// jobs: its hold keeps the nodes it needs from the jobs below it, backfill
// keeps them busy until then, and it starts within a bounded time, where with
// no hold it would never start.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "cycle_support.h"

namespace cycle_test {
namespace {

constexpr Seconds kCycle = 5 * kMinute;

// `big` 95%, `small` 5%; fair share orders the queue; nothing is preempted,
// so only holds and backfill can help the gang job.
std::shared_ptr<const CompiledPolicy> gang_policy() {
  static const auto policy = compile_text(R"(policy gang {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  fairshare fair_tree
  tree {
    big 95% { owner "b@example.com" review 2027-01-31 hypothesis "many small runs" }
    small 5% { owner "s@example.com" review 2027-01-31 hypothesis "one big run" }
  }
  class train { checkpoint every 30m protect 2h resumable }
  rank = 1000 * account.fair_tree
  preempt when false
}
)");
  return policy;
}

// Four nodes of eight GPUs; `big` keeps 40 one-GPU jobs of one to three hours
// queued, so the cluster stays full and GPUs free one or two at a time.
class Saturated {
 public:
  explicit Saturated(std::size_t holds) : driver(uniform_inventory(4, 8, "h100", 4), gang_policy(), kTuesday) {
    driver.options.blocked_holds = holds;
  }

  void run_until(Seconds until) {
    while (driver.state().now < until) {
      int waiting = 0;
      for (const JobRequest& pending : driver.state().pending) waiting += pending.account == "big";
      for (; waiting < 40; ++waiting, ++next_) {
        JobRequest request = job(fmt::format("small-run-{}", next_), "big", "train", 1, driver.state().now);
        request.expected_runtime = kHour + next_ % 5 * 30 * kMinute;
        driver.submit(request);
      }
      driver.step(kCycle);
    }
  }

  Driver driver;

 private:
  int next_ = 0;
};

JobRequest gang_job(Seconds submitted) {
  JobRequest request = job("gang-16", "small", "train", 8, submitted);
  request.nodes = 2;
  request.expected_runtime = 4 * kHour;
  return request;
}

int busy_gpus(Driver& driver) {
  int gpus = 0;
  for (const auto& [account, held] : driver.gpus_by_account()) gpus += held;
  return gpus;
}

}  // namespace

TEST_CASE("a 16-GPU gang job of a 5% program starts within its hold's time on a cluster full of small jobs",
          "[cycle][backfill][scenario]") {
  Saturated cluster(1);
  cluster.run_until(kTuesday + 4 * kHour);
  REQUIRE(busy_gpus(cluster.driver) == 32);
  const Seconds submitted = cluster.driver.state().now;
  cluster.driver.submit(gang_job(submitted));
  int backfilled = 0;
  while (cluster.driver.first_start("gang-16") == 0 && cluster.driver.state().now < submitted + kDay) {
    cluster.run_until(cluster.driver.state().now + kCycle);
    for (const Decision* start : decisions_of(cluster.driver.last(), DecisionKind::start)) {
      backfilled += start->reason.find("backfilled") != std::string::npos;
    }
  }
  // The longest small job runs 3 hours: by then two whole nodes have emptied.
  REQUIRE(cluster.driver.first_start("gang-16") != 0);
  CHECK(cluster.driver.first_start("gang-16") <= submitted + 3 * kHour + kCycle);
  // Meanwhile the held nodes were not left idle: short jobs backfilled them.
  CHECK(backfilled > 0);
}

TEST_CASE("without a hold the same gang job never starts: every freed GPU goes to a small job",
          "[cycle][backfill][scenario]") {
  Saturated cluster(0);
  cluster.run_until(kTuesday + 4 * kHour);
  const Seconds submitted = cluster.driver.state().now;
  cluster.driver.submit(gang_job(submitted));
  cluster.run_until(submitted + kDay);
  CHECK(cluster.driver.first_start("gang-16") == 0);
}

}  // namespace cycle_test
