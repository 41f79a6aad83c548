// Placement: GPU type, memory, multi-node jobs all-or-nothing in one block,
// best fit that keeps whole nodes free, and fragmented capacity that is free
// but useless to a large job.
#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include <catch2/catch.hpp>

#include "allot/audit.h"
#include "allot/explain.h"

#include "cycle_support.h"

namespace cycle_test {
namespace {

// `text` without its `preempt` line: a policy that never preempts.
std::string without_preempt(std::string text) {
  const std::size_t at = text.find("  preempt when ");
  REQUIRE(at != std::string::npos);
  return text.erase(at, text.find('\n', at) + 1 - at);
}

// Bigger jobs first, so each test controls the order by size; no `preempt`, so
// nothing is preempted but what backfill lent (and held jobs wait for their holds).
std::shared_ptr<const CompiledPolicy> biggest_first() {
  static const auto policy = compile_text(without_preempt(two_team_policy("job.gpus", "false")));
  return policy;
}

// Smaller jobs first.
std::shared_ptr<const CompiledPolicy> smallest_first() {
  static const auto policy = compile_text(two_team_policy("0 - job.gpus", "false"));
  return policy;
}

JobRequest typed(const std::string& id, int gpus, const std::string& gpu_type) {
  JobRequest request = job(id, "alpha", "work", gpus);
  request.gpu_type = gpu_type;
  return request;
}

JobRequest multi_node(const std::string& id, int nodes, int gpus_per_node) {
  JobRequest request = job(id, "alpha", "work", gpus_per_node);
  request.nodes = nodes;
  return request;
}

// Busies `gpus` GPUs of each listed node with one beta job per node.
void occupy(ClusterState& state, const std::vector<std::pair<int, int>>& node_gpus) {
  for (const auto& [node, gpus] : node_gpus) {
    state.running.push_back(running(job("busy-" + std::to_string(node), "beta", "work", gpus), {node}, kTuesday));
  }
}

const Inventory& mixed_cluster() {
  static const Inventory inventory = inventory_from(R"(
[[node]]
name = "a100-01"
gpu_type = "a100"
gpus = 8
cpus = 64
memory_gib = 512
block = "rack-1"

[[node]]
name = "h100-01"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"
)");
  return inventory;
}

}  // namespace

TEST_CASE("a job runs only on the GPU type it asks for", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = mixed_cluster();
  occupy(state, {{1, 6}});  // h100-01 has 2 free
  state.pending = {typed("wants-h100", 2, "h100"), typed("wants-4-h100", 4, "h100"), typed("any-8", 8, ""),
                   typed("wants-l40s", 1, "l40s")};

  const CycleResult result = run_cycle(state, *smallest_first());

  const Decision* h100 = decision_for(result, "wants-h100", DecisionKind::start);
  REQUIRE(h100 != nullptr);
  CHECK(h100->nodes == std::vector<int>{1});
  const Decision* any = decision_for(result, "any-8", DecisionKind::start);
  REQUIRE(any != nullptr);
  CHECK(any->nodes == std::vector<int>{0});  // the only node with 8 free GPUs is an a100
  const Decision* too_big = decision_for(result, "wants-4-h100", DecisionKind::skip);
  REQUIRE(too_big != nullptr);
  CHECK_THAT(too_big->reason, Catch::Contains("4 free h100 GPUs"));
  const Decision* unknown = decision_for(result, "wants-l40s", DecisionKind::skip);
  REQUIRE(unknown != nullptr);
  CHECK(unknown->reason == "no node has GPU type `l40s`");
}

TEST_CASE("a job whose memory does not fit next to free GPUs waits", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  RunningJob memory_hog = running(job("hog", "beta", "work", 1), {0}, kTuesday);
  memory_hog.request.memory_gib_per_node = 1000;
  state.running.push_back(memory_hog);
  JobRequest wants_memory = job("wants-memory", "alpha", "work", 1);
  wants_memory.memory_gib_per_node = 64;
  JobRequest small = job("small", "alpha", "work", 1);
  small.memory_gib_per_node = 16;
  state.pending = {wants_memory, small};

  const CycleResult result = run_cycle(state, *smallest_first());

  const Decision* waits = decision_for(result, "wants-memory", DecisionKind::skip);
  REQUIRE(waits != nullptr);
  CHECK_THAT(waits->reason, Catch::Contains("64 GiB of memory"));
  CHECK(decision_for(result, "small", DecisionKind::start) != nullptr);
}

TEST_CASE("a multi-node job starts on one block when one block can hold it", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(8, 8, "h100", 4);  // rack-1: nodes 0-3, rack-2: nodes 4-7
  occupy(state, {{0, 8}, {1, 8}, {4, 8}});               // rack-1 has 2 whole nodes free, rack-2 has 3
  state.pending = {multi_node("three-nodes", 3, 8)};

  const CycleResult result = run_cycle(state, *biggest_first());

  const Decision* start = decision_for(result, "three-nodes", DecisionKind::start);
  REQUIRE(start != nullptr);
  REQUIRE(start->nodes.size() == 3);
  for (int node : start->nodes) CHECK(state.inventory.nodes[static_cast<std::size_t>(node)].block == 1);
}

TEST_CASE("a multi-node job spans blocks only when no block can hold it", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(8, 8, "h100", 4);
  occupy(state, {{0, 8}, {1, 8}, {4, 8}});  // 2 + 3 whole nodes free
  state.pending = {multi_node("four-nodes", 4, 8)};

  const CycleResult result = run_cycle(state, *biggest_first());

  const Decision* start = decision_for(result, "four-nodes", DecisionKind::start);
  REQUIRE(start != nullptr);
  std::set<int> blocks;
  for (int node : start->nodes) blocks.insert(state.inventory.nodes[static_cast<std::size_t>(node)].block);
  CHECK(start->nodes.size() == 4);
  CHECK(blocks.size() == 2);
}

TEST_CASE("a multi-node job starts on all its nodes or on none", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(8, 8, "h100", 4);
  occupy(state, {{0, 8}, {1, 8}, {4, 8}});  // 5 whole nodes free
  state.pending = {multi_node("six-nodes", 6, 8), job("one-gpu", "alpha", "work", 1)};

  CycleOptions no_holds;
  no_holds.blocked_holds = 0;
  const CycleResult result = run_cycle(state, *biggest_first(), no_holds);

  const Decision* skipped = decision_for(result, "six-nodes", DecisionKind::skip);
  REQUIRE(skipped != nullptr);
  CHECK(skipped->reason == "needs 6 nodes with 8 free GPUs each; 5 nodes have them now");
  CHECK(decision_for(result, "six-nodes", DecisionKind::start) == nullptr);
  // Without a hold, nothing is kept back for the job that did not fit.
  CHECK(decision_for(result, "one-gpu", DecisionKind::start) != nullptr);
}

TEST_CASE("the best blocked job holds the nodes it fits on soonest from the jobs below it", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(8, 8, "h100", 4);
  occupy(state, {{0, 8}, {1, 8}, {4, 8}});            // 5 whole nodes free
  state.running[1].request.expected_runtime = kHour;  // node-02 frees an hour after its start
  // A job of a class that runs to completion and gives no limit can neither end
  // nor yield by the hold's time.
  state.pending = {multi_node("six-nodes", 6, 8), job("one-gpu", "alpha", "pinned", 1)};

  const CycleResult result = run_cycle(state, *biggest_first());

  const Decision* skipped = decision_for(result, "six-nodes", DecisionKind::skip);
  REQUIRE(skipped != nullptr);
  // The five free nodes and node-02, whose job has an end in sight; not the nodes
  // whose jobs may run for ever.
  CHECK_THAT(skipped->reason, Catch::Matchers::Contains("needs 6 nodes with 8 free GPUs each; 5 nodes have them now; "
                                                        "`node-02`, `node-03`, `node-04` and 3 more are held for it"));
  CHECK_THAT(skipped->reason, Catch::Matchers::Contains("held for it from 2026-12-01T01:00:00Z (when it is expected "
                                                        "to fit); until then a job ranked below it may start there "
                                                        "only if its runtime limit ends by then (backfill)"));
  // A small job ranked below would take a GPU the big one needs: it waits too.
  const Decision* small = decision_for(result, "one-gpu", DecisionKind::skip);
  REQUIRE(small != nullptr);
  CHECK_THAT(small->reason, Catch::Matchers::Contains("no node has 1 free GPU"));
}

// Backfill: the held job of the test above (six whole nodes, expected to fit
// in an hour) and one-GPU jobs below it with different runtime limits.
ClusterState held_six_nodes(std::vector<JobRequest> below) {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(8, 8, "h100", 4);
  occupy(state, {{0, 8}, {1, 8}, {4, 8}});
  state.running[1].request.expected_runtime = kHour;
  state.pending = {multi_node("six-nodes", 6, 8)};
  for (JobRequest& request : below) state.pending.push_back(std::move(request));
  return state;
}

JobRequest limited(const std::string& id, Seconds limit, int gpus = 1) {
  JobRequest request = job(id, "alpha", "work", gpus);
  request.expected_runtime = limit;
  return request;
}

// The cluster of held_six_nodes in a driver, its time moving: node-02's job
// ends after an hour, the others run for a month; the six-node job is queued.
void start_held_six_nodes(Driver& driver) {
  for (int node : {0, 1, 4}) {
    JobRequest busy = job("busy-" + std::to_string(node), "beta", "work", 8);
    busy.expected_runtime = node == 1 ? kHour : 30 * kDay;
    driver.state().running.push_back(running(busy, {node}, kTuesday));
  }
  JobRequest six = multi_node("six-nodes", 6, 8);
  six.expected_runtime = 2 * kHour;
  driver.submit(six);
}

TEST_CASE("a job whose runtime limit ends before the hold's time backfills the held nodes", "[cycle][backfill]") {
  JobRequest pinned = job("pinned-long", "alpha", "pinned", 1);
  pinned.expected_runtime = 2 * kHour;
  JobRequest unknown = job("pinned-unknown", "alpha", "pinned", 1);
  const ClusterState state = held_six_nodes({limited("short", 30 * kMinute), limited("exact", kHour), pinned, unknown});

  const CycleResult result = run_cycle(state, *biggest_first());

  REQUIRE(decision_for(result, "six-nodes", DecisionKind::skip) != nullptr);
  for (const std::string id : {"short", "exact"}) {
    const Decision* started = decision_for(result, id, DecisionKind::start);
    REQUIRE(started != nullptr);
    CHECK_THAT(started->reason, Catch::Matchers::Contains("backfilled: its runtime limit"));
    CHECK_THAT(started->reason, Catch::Matchers::Contains("ends by 2026-12-01T01:00:00Z, when the capacity held there "
                                                          "for `six-nodes` is needed; it must end by then"));
  }
  // A limit past the hold's time, or no limit at all, would delay the held job,
  // and a job that runs to completion cannot give the capacity back.
  CHECK(decision_for(result, "pinned-long", DecisionKind::skip) != nullptr);
  CHECK(decision_for(result, "pinned-unknown", DecisionKind::skip) != nullptr);
}

// CycleOptions::yield_backfill on.
CycleOptions yielding() {
  CycleOptions options;
  options.yield_backfill = true;
  return options;
}

TEST_CASE("a preemptible, resumable job whose limit runs past the hold's time backfills and yields then",
          "[cycle][backfill]") {
  const ClusterState state = held_six_nodes({limited("long", 2 * kHour), job("unknown", "alpha", "work", 1)});

  const CycleResult result = run_cycle(state, *biggest_first(), yielding());

  const Decision* held = decision_for(result, "six-nodes", DecisionKind::skip);
  REQUIRE(held != nullptr);
  CHECK_THAT(held->reason, Catch::Matchers::Contains("only if its runtime limit ends by then, or if it may yield the "
                                                     "capacity back then (backfill)"));
  for (const std::string id : {"long", "unknown"}) {
    const Decision* started = decision_for(result, id, DecisionKind::start);
    REQUIRE(started != nullptr);
    CHECK(started->contract.yields_at == kTuesday + kHour);
    CHECK_THAT(started->reason, Catch::Matchers::Contains("backfilled until 2026-12-01T01:00:00Z: "));
    CHECK_THAT(started->reason, Catch::Matchers::Contains("when the capacity held there for `six-nodes` is needed; "
                                                          "it is preemptible and resumable, so it yields then"));
  }
  CHECK_THAT(decision_for(result, "long", DecisionKind::start)->reason,
             Catch::Matchers::Contains("its runtime limit (2h) runs past"));
  // The audit log carries the promise (docs/AUDIT.md); a start that ends in time carries none.
  std::istringstream lines(audit_lines(result, state.inventory));
  int yielding = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record["kind"] != "start") continue;
    CHECK(record["contract"].value("yields_at", "") == "2026-12-01T01:00:00Z");
    ++yielding;
  }
  CHECK(yielding == 2);
  CHECK_THAT(decision_for(result, "unknown", DecisionKind::start)->reason,
             Catch::Matchers::Contains("it has no runtime limit, so it may run past"));
}

TEST_CASE(
    "a job yields only when asked to, it keeps progress, its protection ends by the hold's time, and the policy "
    "does not preempt",
    "[cycle][backfill]") {
  std::shared_ptr<const CompiledPolicy> policy = biggest_first();
  ClusterState state = held_six_nodes({limited("long", 2 * kHour)});
  CycleOptions options = yielding();
  SECTION("without CycleOptions::yield_backfill (the default)") { options = CycleOptions{}; }
  SECTION("protected for longer than the hold's window") {
    policy = compile_text(without_preempt(two_team_policy("job.gpus", "false", 50, "2h")));
  }
  SECTION("a window shorter than its checkpoint interval (10m)") {
    state.running[1].started = kTuesday - 55 * kMinute;  // the hold's time is five minutes away
  }
  SECTION("under a policy that preempts") {
    // The held job may start sooner by preemption, which a yielding job's own protection would put off.
    policy = compile_text(two_team_policy("job.gpus", "true"));
    state.running[0].contract.preemptible = false;
    state.running[2].contract.preemptible = false;
    state.running[1].contract.protected_until = kTuesday + 30 * kMinute;
  }

  const CycleResult result = run_cycle(state, *policy, options);

  REQUIRE(decision_for(result, "six-nodes", DecisionKind::skip) != nullptr);
  CHECK(decision_for(result, "long", DecisionKind::skip) != nullptr);
}

TEST_CASE("a yielding job stops for the held job when its time comes, and keeps its checkpointed work",
          "[cycle][backfill]") {
  Driver driver(uniform_inventory(8, 8, "h100", 4), biggest_first(), kTuesday);
  driver.options.yield_backfill = true;
  start_held_six_nodes(driver);
  driver.submit(limited("long", 3 * kHour, 4));

  const CycleResult& first = driver.step(kMinute);
  const Decision* backfilled = decision_for(first, "long", DecisionKind::start);
  REQUIRE(backfilled != nullptr);
  CHECK(backfilled->contract.yields_at == kTuesday + kHour);
  // explain shows the window on the running job.
  ExplainOptions explain_options;
  explain_options.cycle = driver.options;
  const auto explained = explain_job(driver.state(), *biggest_first(), "long", explain_options);
  REQUIRE(explained);
  CHECK_THAT(explanation_text(*explained, driver.state().inventory),
             Catch::Matchers::Contains("backfilled onto held capacity, yields it at 2026-12-01T01:00:00Z"));

  while (driver.state().now < kTuesday + 2 * kHour && driver.first_start("six-nodes") == 0) driver.step(5 * kMinute);

  // The held job starts in the first cycle at its time, not later for the backfilled job.
  CHECK(driver.first_start("six-nodes") == kTuesday + kHour + kMinute);
  const auto yielded = std::find_if(driver.history().begin(), driver.history().end(), [](const Decision& d) {
    return d.kind == DecisionKind::preempt && d.job_id == "long";
  });
  REQUIRE(yielded != driver.history().end());
  CHECK(yielded->for_job == "six-nodes");
  CHECK_THAT(yielded->reason, Catch::Matchers::Contains("yields the capacity it was backfilled onto: it was held "
                                                        "for `six-nodes`"));
  // It ran an hour and checkpoints every 10 minutes: it loses at most one interval on its 4 GPUs.
  CHECK(yielded->lost_gpu_seconds <= 4.0 * 10 * kMinute);
}

TEST_CASE("backfilled jobs never delay the held job: it starts when its hold's time comes", "[cycle][backfill]") {
  // Time moves: the blocking job on node-02 ends after an hour; short jobs keep
  // arriving below the held one and backfill until then.
  Driver driver(uniform_inventory(8, 8, "h100", 4), biggest_first(), kTuesday);
  driver.options.blocked_holds = 1;
  start_held_six_nodes(driver);
  int backfilled = 0;
  for (int minute = 1; minute <= 90; ++minute) {
    driver.submit(limited("short-" + std::to_string(minute), 20 * kMinute, 4));
    const CycleResult& result = driver.step(kMinute);
    for (const Decision* start : decisions_of(result, DecisionKind::start)) {
      if (start->reason.find("backfilled") != std::string::npos) ++backfilled;
    }
    if (driver.first_start("six-nodes") != 0) break;
  }
  CHECK(backfilled > 0);
  // It fits once node-02's job ends (an hour in), and the backfilled jobs
  // have all ended by then: it starts within a cycle of that time.
  REQUIRE(driver.first_start("six-nodes") != 0);
  CHECK(driver.first_start("six-nodes") <= kTuesday + kHour + kMinute);
}

TEST_CASE("a class's max_runtime is the limit backfill trusts when the job gives none", "[cycle][backfill]") {
  const auto policy = compile_text(R"(policy limits {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    alpha 50% { owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }
    beta 50% { owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }
  }
  class work { preemptible false }
  class debug { max_gpus 1 max_runtime 15m resumable }
  rank = job.gpus
  preempt when false
}
)");
  ClusterState state = held_six_nodes({job("debug-1", "alpha", "debug", 1), job("work-1", "alpha", "work", 1)});

  const CycleResult result = run_cycle(state, *policy);

  const Decision* debug = decision_for(result, "debug-1", DecisionKind::start);
  REQUIRE(debug != nullptr);
  CHECK_THAT(debug->reason, Catch::Matchers::Contains("backfilled: its runtime limit (15m)"));
  // No limit, and it runs to completion, so it cannot yield either.
  CHECK(decision_for(result, "work-1", DecisionKind::skip) != nullptr);
}

TEST_CASE("a job that ran past its runtime limit on held capacity stops for the held job when its time comes",
          "[cycle][backfill]") {
  ClusterState state = held_six_nodes({});
  // node-02's job was given an hour (it backfilled) two hours ago.
  state.running[1].started = kTuesday - 2 * kHour;
  state.running[1].contract.grace = 0;

  const CycleResult result = run_cycle(state, *biggest_first());

  const Decision* stopped = decision_for(result, "busy-1", DecisionKind::preempt);
  REQUIRE(stopped != nullptr);
  CHECK(stopped->for_job == "six-nodes");
  CHECK_THAT(stopped->reason, Catch::Matchers::Contains("ran past its runtime limit on capacity held for `six-nodes`"));
  const Decision* started = decision_for(result, "six-nodes", DecisionKind::start);
  REQUIRE(started != nullptr);
  CHECK_THAT(started->reason, Catch::Matchers::Contains("after stopping 1 job past what it promised backfill"));
  // With a grace, the capacity is reserved until the job has checkpointed.
  state.running[1].contract.grace = 5 * kMinute;
  const CycleResult graceful = run_cycle(state, *biggest_first());
  REQUIRE(decision_for(graceful, "busy-1", DecisionKind::preempt) != nullptr);
  REQUIRE(graceful.reservations.size() == 1);
  CHECK(graceful.reservations[0].job_id == "six-nodes");
}

TEST_CASE("an overrunning job its contract does not let stop keeps running, and the held job waits",
          "[cycle][backfill]") {
  ClusterState state = held_six_nodes({});
  state.running[1].started = kTuesday - 2 * kHour;
  SECTION("not preemptible") { state.running[1].contract.preemptible = false; }
  SECTION("still protected") { state.running[1].contract.protected_until = kTuesday + kMinute; }
  SECTION("not requeueable") { state.running[1].request.requeueable = false; }

  const CycleResult result = run_cycle(state, *biggest_first());

  CHECK(decisions_of(result, DecisionKind::preempt).empty());
  const Decision* waiting = decision_for(result, "six-nodes", DecisionKind::skip);
  REQUIRE(waiting != nullptr);
  CHECK_THAT(waiting->reason, Catch::Matchers::Contains("it should fit by now, but jobs there ran past their runtime "
                                                        "limit and may not be stopped"));
}

TEST_CASE("without holds nothing is backfilled, and a hold without a known time lends nothing", "[cycle][backfill]") {
  ClusterState state = held_six_nodes({limited("short", 30 * kMinute)});
  CycleOptions no_holds;
  no_holds.blocked_holds = 0;
  const CycleResult free_for_all = run_cycle(state, *biggest_first(), no_holds);
  const Decision* plain = decision_for(free_for_all, "short", DecisionKind::start);
  REQUIRE(plain != nullptr);
  CHECK_THAT(plain->reason, !Catch::Matchers::Contains("backfilled"));

  state.running[1].request.expected_runtime = 0;  // no job in the way has an end in sight
  const CycleResult unknown = run_cycle(state, *biggest_first());
  CHECK(decision_for(unknown, "short", DecisionKind::skip) != nullptr);
}

TEST_CASE("a hold never keeps a job ranked above the held one waiting", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(2, 8);
  occupy(state, {{0, 4}});  // node-01 has 4 free, node-02 8
  // Ranked: eight-gpus (fits node-02), sixteen (blocked: holds both nodes), then one-gpu.
  state.pending = {job("one-gpu", "alpha", "work", 1), multi_node("sixteen", 2, 8),
                   job("eight-gpus", "alpha", "work", 8)};

  const CycleResult result = run_cycle(state, *biggest_first());
  CHECK(result.ranked_job_ids == std::vector<std::string>{"sixteen", "eight-gpus", "one-gpu"});
  CHECK(decision_for(result, "sixteen", DecisionKind::skip) != nullptr);
  CHECK(decision_for(result, "eight-gpus", DecisionKind::skip) != nullptr);
  CHECK(decision_for(result, "one-gpu", DecisionKind::skip) != nullptr);

  // The same queue where the big job ranks below the others: they start.
  const CycleResult later = run_cycle(state, *smallest_first());
  CHECK(decision_for(later, "one-gpu", DecisionKind::start) != nullptr);
  CHECK(decision_for(later, "eight-gpus", DecisionKind::start) != nullptr);
}

TEST_CASE("best fit keeps a whole node free for an eight-GPU job", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(2, 8);
  occupy(state, {{1, 6}});  // node-01 is empty, node-02 has 2 free
  // The small job ranks first; first fit would put it on node-01 and leave no
  // node with eight free GPUs.
  state.pending = {job("one-gpu", "alpha", "work", 1), job("eight-gpus", "alpha", "work", 8)};

  const CycleResult result = run_cycle(state, *smallest_first());

  const Decision* small = decision_for(result, "one-gpu", DecisionKind::start);
  const Decision* large = decision_for(result, "eight-gpus", DecisionKind::start);
  REQUIRE(small != nullptr);
  REQUIRE(large != nullptr);
  CHECK(small->nodes == std::vector<int>{1});
  CHECK(large->nodes == std::vector<int>{0});
}

TEST_CASE("eight free GPUs on four nodes do not fit an eight-GPU job", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(4, 8);
  occupy(state, {{0, 6}, {1, 6}, {2, 6}, {3, 6}});  // 2 free on each node: 8 in total
  state.pending = {job("eight-gpus", "alpha", "work", 8), job("two-gpus", "alpha", "work", 2)};

  const CycleResult result = run_cycle(state, *biggest_first());

  const Decision* large = decision_for(result, "eight-gpus", DecisionKind::skip);
  REQUIRE(large != nullptr);
  CHECK(large->reason ==
        "no node has 8 free GPUs (the most on one node is 2); `node-01` is held for it, so no job ranked below it "
        "starts there, until the jobs there end");
  const Decision* small = decision_for(result, "two-gpus", DecisionKind::start);
  REQUIRE(small != nullptr);
  CHECK(small->nodes != std::vector<int>{0});
  CHECK(result.ranked_job_ids == std::vector<std::string>{"eight-gpus", "two-gpus"});
}

TEST_CASE("drained and down nodes take no new work", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(3, 8);
  state.inventory.nodes[0].state = NodeState::drain;
  state.inventory.nodes[1].state = NodeState::down;
  state.pending = {job("first", "alpha", "work", 8), job("second", "alpha", "work", 8)};

  const CycleResult result = run_cycle(state, *biggest_first());

  const Decision* first = decision_for(result, "first", DecisionKind::start);
  REQUIRE(first != nullptr);
  CHECK(first->nodes == std::vector<int>{2});
  CHECK(decision_for(result, "second", DecisionKind::skip) != nullptr);
}

TEST_CASE("reserved capacity is used only by the job it is reserved for", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 8);
  occupy(state, {{0, 4}});
  // Four GPUs are held for `owner` (freed for it earlier); a bigger job ranks first.
  state.reservations.push_back(Reservation{"owner", {0}, kTuesday + 10 * kMinute, 4, 0, 0});
  state.pending = {job("owner", "alpha", "work", 4), job("bigger", "alpha", "work", 8),
                   job("other", "beta", "work", 4)};

  const CycleResult result = run_cycle(state, *biggest_first());

  CHECK(decision_for(result, "bigger", DecisionKind::skip) != nullptr);
  const Decision* owner = decision_for(result, "owner", DecisionKind::start);
  REQUIRE(owner != nullptr);
  CHECK(owner->nodes == std::vector<int>{0});
  CHECK(decision_for(result, "other", DecisionKind::skip) != nullptr);  // the node is full now
  CHECK(result.reservations.empty());
}

TEST_CASE("a reservation lapses when its time is up or its job is gone", "[cycle][placement]") {
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(2, 8);
  state.reservations.push_back(Reservation{"late", {0}, kTuesday, 8, 0, 0});               // until == now: over
  state.reservations.push_back(Reservation{"cancelled", {1}, kTuesday + kHour, 8, 0, 0});  // not pending
  state.pending = {job("late", "alpha", "work", 4), job("newcomer", "beta", "work", 8),
                   job("second", "beta", "work", 8)};

  const CycleResult result = run_cycle(state, *biggest_first());

  CHECK(decision_for(result, "newcomer", DecisionKind::start) != nullptr);
  CHECK(decision_for(result, "second", DecisionKind::start) != nullptr);
  CHECK(decision_for(result, "late", DecisionKind::skip) != nullptr);
  CHECK(result.reservations.empty());
}

}  // namespace cycle_test
