// Where a job may run (JobRequest's partitions, features, node list,
// exclusions, advance reservation, exclusivity) and jobs that cannot start
// whatever the policy decides (JobRequest::blocked): placement, preemption and
// holds happen only where the scheduler underneath would actually run the job.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "cycle_support.h"

namespace cycle_test {
namespace {

// Four 8-GPU nodes: node-01 and node-02 have InfiniBand, node-04 is the only
// one in partition `small`; `maint` reserves node-03 when `reserved`.
Inventory constrained_inventory(bool reserved = false) {
  std::string toml = R"(
[[node]]
name = "node-01"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"
features = ["ib", "nvme"]

[[node]]
name = "node-02"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"
features = ["ib"]

[[node]]
name = "node-03"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"

[[node]]
name = "node-04"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"

[[partition]]
name = "all"
nodes = ["node-01", "node-02", "node-03", "node-04"]

[[partition]]
name = "small"
nodes = ["node-04"]
)";
  if (reserved) toml += "\n[[advance_reservation]]\nname = \"maint\"\nnodes = [\"node-03\"]\n";
  return inventory_from(toml);
}

std::shared_ptr<const CompiledPolicy> always_preempt() {
  static const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));
  return policy;
}

Contract past_protection(Seconds started) {
  Contract contract;
  contract.protected_until = started;
  contract.resumable = true;
  return contract;
}

// Beta's preemptible job of `gpus` GPUs on `node`, last checkpointed `minutes_ago`.
RunningJob beta_on(const std::string& id, int node, int gpus, int minutes_ago) {
  RunningJob job = running(cycle_test::job(id, "beta", "work", gpus, kTuesday - 2 * kHour), {node}, kTuesday - kHour,
                           past_protection(kTuesday - kHour));
  job.last_checkpoint = kTuesday - minutes_ago * kMinute;
  return job;
}

ClusterState state_of(Inventory inventory, std::vector<RunningJob> running, std::vector<JobRequest> pending) {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = std::move(inventory);
  state.running = std::move(running);
  state.pending = std::move(pending);
  return state;
}

std::string node_name(const ClusterState& state, int node) {
  return state.inventory.nodes[static_cast<std::size_t>(node)].name;
}

}  // namespace

TEST_CASE("a job starts only on the nodes its constraints allow", "[cycle][constraints]") {
  struct Case {
    const char* what;
    std::vector<std::string> partitions, features, nodelist, exclude;
    std::set<std::string> allowed;
  };
  const std::vector<Case> cases = {
      {"a partition", {"small"}, {}, {}, {}, {"node-04"}},
      {"any of two partitions", {"small", "all"}, {}, {}, {}, {"node-01", "node-02", "node-03", "node-04"}},
      {"a feature", {}, {"ib"}, {}, {}, {"node-01", "node-02"}},
      {"every feature", {}, {"ib", "nvme"}, {}, {}, {"node-01"}},
      {"a node list", {}, {}, {"node-03"}, {}, {"node-03"}},
      {"exclusions", {}, {}, {}, {"node-01", "node-02", "node-04"}, {"node-03"}},
      {"a partition and exclusions", {"all"}, {"ib"}, {}, {"node-01"}, {"node-02"}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    JobRequest request = job("j", "alpha", "work", 4);
    request.partitions = c.partitions;
    request.features = c.features;
    request.nodelist = c.nodelist;
    request.exclude = c.exclude;
    const ClusterState state = state_of(constrained_inventory(), {}, {request});
    const CycleResult result = run_cycle(state, *always_preempt());
    const Decision* start = decision_for(result, "j", DecisionKind::start);
    REQUIRE(start != nullptr);
    REQUIRE(start->nodes.size() == 1);
    CHECK(c.allowed.count(node_name(state, start->nodes[0])) == 1);
  }
}

TEST_CASE("a job whose constraints no node meets waits and says why", "[cycle][constraints]") {
  struct Case {
    const char* what;
    JobRequest request;
    const char* reason;
  };
  JobRequest unknown_partition = job("j", "alpha", "work", 1);
  unknown_partition.partitions = {"huge"};
  JobRequest unknown_node = job("j", "alpha", "work", 1);
  unknown_node.nodelist = {"node-99"};
  JobRequest nothing_left = job("j", "alpha", "work", 1);
  nothing_left.partitions = {"small"};
  nothing_left.features = {"ib"};
  JobRequest no_reservation = job("j", "alpha", "work", 1);
  no_reservation.reservation = "friday";
  const std::vector<Case> cases = {
      {"unknown partition", unknown_partition, "its partition `huge` is not in the cluster's inventory"},
      {"unknown node", unknown_node, "node `node-99` of its node list is not in the cluster's inventory"},
      {"no node meets all", nothing_left, "no node of the cluster meets all of its constraints"},
      {"reservation not in force", no_reservation, "its advance reservation `friday` is not in force"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const CycleResult result = run_cycle(state_of(constrained_inventory(), {}, {c.request}), *always_preempt());
    const Decision* skip = decision_for(result, "j", DecisionKind::skip);
    REQUIRE(skip != nullptr);
    CHECK_THAT(skip->reason, Catch::Contains(c.reason));
    CHECK(skip->position == 0);  // ranked all the same
  }
}

TEST_CASE("advance reservations take only the jobs that name them", "[cycle][constraints]") {
  // node-03 is reserved; node-01, node-02 and node-04 are full.
  const std::vector<RunningJob> full = {beta_on("b1", 0, 8, 1), beta_on("b2", 1, 8, 1), beta_on("b4", 3, 8, 1)};
  JobRequest outside = job("outside", "beta", "work", 8);
  JobRequest inside = job("inside", "beta", "work", 8, kTuesday + 1);
  inside.reservation = "maint";
  const ClusterState state = state_of(constrained_inventory(true), full, {outside, inside});
  const CycleResult result = run_cycle(state, *always_preempt());
  const Decision* start = decision_for(result, "inside", DecisionKind::start);
  REQUIRE(start != nullptr);
  CHECK(start->nodes == std::vector<int>{2});
  const Decision* skip = decision_for(result, "outside", DecisionKind::skip);
  REQUIRE(skip != nullptr);
  CHECK_THAT(skip->reason, Catch::Contains("no node it may use has 8 free GPUs"));
}

TEST_CASE("preemption frees capacity only where the job may run", "[cycle][constraints]") {
  // Every node full of beta's jobs; the cheapest to stop (1 minute since its
  // checkpoint) is on node-01, but alpha's job may run only in `small` (node-04).
  const std::vector<RunningJob> full = {beta_on("b1", 0, 8, 1), beta_on("b2", 1, 8, 30), beta_on("b3", 2, 8, 30),
                                        beta_on("b4", 3, 8, 45)};
  JobRequest small = job("alpha-small", "alpha", "work", 8);
  small.partitions = {"small"};
  const CycleResult constrained = run_cycle(state_of(constrained_inventory(), full, {small}), *always_preempt());
  CHECK(preempted_ids(constrained) == std::set<std::string>{"b4"});

  // Without the partition it would have stopped the cheapest.
  const CycleResult free =
      run_cycle(state_of(constrained_inventory(), full, {job("alpha-any", "alpha", "work", 8)}), *always_preempt());
  CHECK(preempted_ids(free) == std::set<std::string>{"b1"});

  // Excluding node-04 as well leaves nowhere: nobody is preempted.
  small.exclude = {"node-04"};
  const CycleResult nowhere = run_cycle(state_of(constrained_inventory(), full, {small}), *always_preempt());
  CHECK(preempted_ids(nowhere).empty());
}

TEST_CASE("a job that cannot start is ranked but preempts and holds nothing", "[cycle][constraints]") {
  const std::vector<RunningJob> full = {beta_on("b1", 0, 8, 1), beta_on("b2", 1, 8, 1), beta_on("b3", 2, 8, 1),
                                        beta_on("b4", 3, 8, 1)};
  JobRequest waiting = job("dependent", "alpha", "work", 8);
  waiting.blocked = "it waits for its dependency `afterok:17`";
  const CycleResult result = run_cycle(state_of(constrained_inventory(), full, {waiting}), *always_preempt());
  CHECK(preempted_ids(result).empty());
  CHECK(result.reservations.empty());
  CHECK(result.ranked_job_ids == std::vector<std::string>{"dependent"});
  const Decision* skip = decision_for(result, "dependent", DecisionKind::skip);
  REQUIRE(skip != nullptr);
  CHECK_THAT(skip->reason, Catch::StartsWith("it cannot start: it waits for its dependency `afterok:17`"));

  // On an empty cluster it does not start either.
  const CycleResult empty = run_cycle(state_of(constrained_inventory(), {}, {waiting}), *always_preempt());
  CHECK(decisions_of(empty, DecisionKind::start).empty());
}

TEST_CASE("an exclusive job takes whole nodes and gets one emptied for it", "[cycle][constraints]") {
  JobRequest exclusive = job("alpha-x", "alpha", "work", 1);
  exclusive.exclusive = true;
  exclusive.partitions = {"small"};

  SECTION("a node with one small job on it is not free for it: the small job is preempted") {
    // beta holds far more than its share (25 of 32 GPUs), so the share rule may take from it.
    const std::vector<RunningJob> beta_over = {beta_on("b1", 0, 8, 1), beta_on("b2", 1, 8, 1), beta_on("b3", 2, 8, 1),
                                               beta_on("b4", 3, 1, 5)};
    const CycleResult result = run_cycle(state_of(constrained_inventory(), beta_over, {exclusive}), *always_preempt());
    CHECK(preempted_ids(result) == std::set<std::string>{"b4"});
    const Decision* start = decision_for(result, "alpha-x", DecisionKind::start);
    REQUIRE(start != nullptr);  // no grace: it starts in the same cycle
    CHECK(start->nodes == std::vector<int>{3});
  }
  SECTION("once it runs, no other job shares its node") {
    JobRequest small = job("beta-1", "beta", "work", 1, kTuesday + 1);
    small.partitions = {"small"};
    const CycleResult result = run_cycle(state_of(constrained_inventory(), {}, {exclusive, small}), *always_preempt());
    REQUIRE(decision_for(result, "alpha-x", DecisionKind::start) != nullptr);
    const Decision* skip = decision_for(result, "beta-1", DecisionKind::skip);
    REQUIRE(skip != nullptr);
    CHECK_THAT(skip->reason, Catch::Contains("no node it may use has 1 free GPU"));

    RunningJob held = running(exclusive, {3}, kTuesday - kHour, past_protection(kTuesday + kHour));
    const CycleResult later = run_cycle(state_of(constrained_inventory(), {held}, {small}), *always_preempt());
    CHECK(decision_for(later, "beta-1", DecisionKind::start) == nullptr);
  }
  SECTION("without a victim to stop it says it needs a whole node") {
    RunningJob pinned = beta_on("b4", 3, 1, 5);
    pinned.contract.preemptible = false;
    const CycleResult result = run_cycle(state_of(constrained_inventory(), {pinned}, {exclusive}), *always_preempt());
    const Decision* skip = decision_for(result, "alpha-x", DecisionKind::skip);
    REQUIRE(skip != nullptr);
    CHECK_THAT(skip->reason, Catch::Contains("it asks for a whole node and no node it may use is free of other jobs"));
  }
}

}  // namespace cycle_test
