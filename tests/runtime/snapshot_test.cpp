// State snapshots (docs/STATE.md, "Snapshot file"): the examples load, every
// field survives a write and a read, writing what was read gives the same
// bytes, and every malformed input gets an error naming the file, line,
// column and field, with a suggestion where one helps.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "allot/dates.h"
#include "allot/snapshot.h"
#include "temp_folder.h"

using namespace allot::runtime;
using allot::StallAction;
using allot::support::format_timestamp;
using allot::support::parse_timestamp;

namespace {

const std::string kStates = std::string(ALLOT_SOURCE_DIR) + "/examples/states/";

// 2026-12-02T09:00:00Z, the Wednesday of the seed's story.
constexpr Seconds kWednesday9 = 1'796'202'000;

// An inline one-node inventory (lines 1-9); each case appends its tables from line 10.
const std::string kBase = R"(now = 2026-12-02T09:00:00Z
[[node]]
name = "gpu-01"
gpu_type = "h100"
gpus = 8
cpus = 96
memory_gib = 1024
block = "rack-1"

)";

const std::string kJob = R"([[job]]
id = "a"
account = "product"
class = "train"
gpus_per_node = 1
submitted = 2026-12-02T08:00:00Z
)";

const std::string kRunning = R"([[running]]
id = "r"
account = "platform"
class = "train"
gpus_per_node = 4
submitted = 2026-12-02T07:00:00Z
nodes = ["gpu-01"]
started = 2026-12-02T07:30:00Z
)";

// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  auto snapshot = parse_snapshot(text, "state.toml");
  return snapshot ? std::string("no error") : snapshot.error().to_string();
}

std::string read_file(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  std::ostringstream contents;
  contents << stream.rdbuf();
  return contents.str();
}

// A state that sets every optional field, with values that are easy to get wrong in text.
Snapshot every_field() {
  auto base = parse_snapshot(kBase + R"([[node]]
name = "gpu-02"
gpu_type = "a100"
gpus = 4
cpus = 64
memory_gib = 512.5
block = "rack-2"
state = "drain"
drain_deadline = 2026-12-03T06:00:00Z
)",
                             "state.toml");
  REQUIRE(base);
  Snapshot snapshot = std::move(*base);
  ClusterState& state = snapshot.state;
  JobRequest waiting{"wait \"quoted\" \\ id",
                     "exploration/ana",
                     "train",
                     3,
                     2,
                     "h100",
                     0.1,
                     1.0 / 3.0,
                     kWednesday9 - 3600,
                     kWednesday9 + 86400,
                     3,
                     5400,
                     12345,
                     false,
                     2,
                     kWednesday9 - 60,
                     {},
                     {},
                     {},
                     {},
                     {},
                     false,
                     {}};
  state.pending.push_back(waiting);
  JobRequest running_request = waiting;
  running_request.id = "run";
  running_request.nodes = 2;
  running_request.gpu_type = "";
  running_request.deadline.reset();
  RunningJob running{
      running_request,
      kWednesday9 - 1800,
      kWednesday9 - 600,
      {1, 0},
      Contract{kWednesday9 + 60, 1800, 300, true, false, "abc123", kWednesday9 + 7200, 1200, 600, StallAction::keep},
      kWednesday9 + 300,
      kWednesday9 - 120};
  state.running.push_back(running);
  state.reservations.push_back(Reservation{waiting.id, {0}, kWednesday9 + 900, 2, 0.1, 1.0 / 3.0});
  state.usage = {{"exploration/ana", 123456.789}, {"product", 1e-7}, {"", 0}};
  state.debt = {{"product", -2.5}, {"exploration", 1e20}};
  state.owed = {{"product", 4.25}, {"exploration/ana", 0}};
  state.without_progress = std::map<std::string, double>{{"exploration/ana", 0.1}, {"", 0}};
  return snapshot;
}

}  // namespace

TEST_CASE("the example snapshots load", "[runtime][snapshot]") {
  auto wednesday = load_snapshot(kStates + "saas-wednesday.toml");
  REQUIRE(wednesday);
  CHECK(wednesday->state.now == kWednesday9);
  CHECK(wednesday->state.inventory.name == "saas");
  CHECK(wednesday->inventory_file.ends_with("examples/clusters/saas-8gpu.toml"));
  CHECK(wednesday->state.pending.size() == 7);
  REQUIRE(wednesday->state.running.size() == 8);
  const RunningJob& ben18 = wednesday->state.running[6];
  CHECK(ben18.request.id == "exploration/ben-18");
  CHECK(ben18.nodes == std::vector<int>{0});
  CHECK(ben18.last_checkpoint == ben18.started);  // no checkpoint reported yet
  CHECK(ben18.contract.protected_until == kWednesday9);
  CHECK(ben18.contract.checkpoint_every == 1800);
  CHECK(ben18.request.expected_runtime == 3 * 3600 + 1800);
  CHECK(wednesday->state.usage.at("exploration/ben") == 231.5);
  CHECK(wednesday->state.debt.at("product") == 0.5);

  auto saturated = load_snapshot(kStates + "saas-debug-saturated.toml");
  REQUIRE(saturated);
  CHECK(saturated->inventory_file.empty());  // inline inventory
  CHECK(saturated->state.inventory.total_gpus() == 8);

  auto research = load_snapshot(kStates + "research-busy.toml");
  REQUIRE(research);
  CHECK(research->state.inventory.total_gpus() == 1000);
  CHECK(research->state.pending.size() == 300);
  CHECK(research->state.running.size() > 200);
}

TEST_CASE("write, read, write gives the same bytes", "[runtime][snapshot]") {
  for (const char* name : {"saas-wednesday.toml", "saas-debug-saturated.toml", "research-busy.toml"}) {
    INFO(name);
    const std::string path = kStates + name;
    auto loaded = load_snapshot(path);
    REQUIRE(loaded);
    const std::string first = snapshot_text(*loaded, path);
    auto reloaded = parse_snapshot(first, path);
    REQUIRE(reloaded);
    CHECK(snapshot_text(*reloaded, path) == first);
  }
  const Snapshot original = every_field();
  const std::string first = snapshot_text(original, "state.toml");
  auto reloaded = parse_snapshot(first, "state.toml");
  INFO(first);
  REQUIRE(reloaded);
  CHECK(snapshot_text(*reloaded, "state.toml") == first);
}

TEST_CASE("every field survives a write and a read", "[runtime][snapshot]") {
  const Snapshot original = every_field();
  auto reloaded = parse_snapshot(snapshot_text(original, "state.toml"), "state.toml");
  REQUIRE(reloaded);
  const ClusterState& a = original.state;
  const ClusterState& b = reloaded->state;
  CHECK(b.now == a.now);
  REQUIRE(b.inventory.nodes.size() == 2);
  CHECK(b.inventory.nodes[1].memory_gib == 512.5);
  CHECK(b.inventory.nodes[1].state == NodeState::drain);
  CHECK(b.inventory.nodes[1].drain_deadline == a.inventory.nodes[1].drain_deadline);
  REQUIRE(b.pending.size() == 1);
  const JobRequest& x = a.pending[0];
  const JobRequest& y = b.pending[0];
  CHECK(y.id == x.id);
  CHECK(y.account == x.account);
  CHECK(y.job_class == x.job_class);
  CHECK(y.nodes == x.nodes);
  CHECK(y.gpus_per_node == x.gpus_per_node);
  CHECK(y.gpu_type == x.gpu_type);
  CHECK(y.cpus_per_node == x.cpus_per_node);              // 0.1 exactly
  CHECK(y.memory_gib_per_node == x.memory_gib_per_node);  // 1/3 exactly
  CHECK(y.submitted == x.submitted);
  CHECK(y.deadline == x.deadline);
  CHECK(y.label == x.label);
  CHECK(y.requested_protect == x.requested_protect);
  CHECK(y.expected_runtime == x.expected_runtime);
  CHECK(y.requeueable == x.requeueable);
  CHECK(y.restarts == x.restarts);
  CHECK(y.queued == x.queued);
  REQUIRE(b.running.size() == 1);
  const RunningJob& r = b.running[0];
  CHECK(r.nodes == std::vector<int>{1, 0});
  CHECK(r.request.nodes == 2);
  CHECK(r.started == a.running[0].started);
  CHECK(r.last_checkpoint == a.running[0].last_checkpoint);
  CHECK(r.stopping_at == a.running[0].stopping_at);
  CHECK(r.contract.protected_until == a.running[0].contract.protected_until);
  CHECK(r.contract.checkpoint_every == 1800);
  CHECK(r.contract.grace == 300);
  CHECK(r.contract.resumable);
  CHECK_FALSE(r.contract.preemptible);
  CHECK(r.contract.policy_hash == "abc123");
  CHECK(r.contract.yields_at == a.running[0].contract.yields_at);
  CHECK(r.contract.progress_every == 1200);
  CHECK(r.contract.progress_after == 600);
  CHECK(r.contract.on_stall == StallAction::keep);
  CHECK(r.last_progress == kWednesday9 - 120);
  REQUIRE(b.reservations.size() == 1);
  CHECK(b.reservations[0].job_id == x.id);
  CHECK(b.reservations[0].nodes == std::vector<int>{0});
  CHECK(b.reservations[0].until == a.reservations[0].until);
  CHECK(b.reservations[0].memory_gib_per_node == 1.0 / 3.0);
  CHECK(b.usage == a.usage);
  CHECK(b.debt == a.debt);
  CHECK(b.owed == a.owed);
  CHECK(b.without_progress == a.without_progress);
}

TEST_CASE("a referenced inventory is written relative to where the snapshot goes", "[runtime][snapshot]") {
  TempFolder folder("allot-snapshot-test");
  std::filesystem::create_directories(folder.file("clusters"));
  std::filesystem::create_directories(folder.file("states/next"));
  std::filesystem::copy_file(std::string(ALLOT_SOURCE_DIR) + "/examples/clusters/saas-8gpu.toml",
                             folder.file("clusters/saas.toml"));
  const std::string first = folder.file("states/first.toml");
  std::ofstream(first) << "now = 2026-12-02T09:00:00Z\ninventory = \"../clusters/saas.toml\"\n";
  auto loaded = load_snapshot(first);
  REQUIRE(loaded);

  const std::string moved = folder.file("states/next/state.toml");
  REQUIRE_FALSE(save_snapshot(*loaded, moved));
  CHECK_THAT(read_file(moved), Catch::Contains("\ninventory = \"../../clusters/saas.toml\"\n"));
  auto again = load_snapshot(moved);
  REQUIRE(again);
  CHECK(again->state.inventory.nodes.size() == 1);
  CHECK(std::filesystem::equivalent(again->inventory_file, folder.file("clusters/saas.toml")));

  // Written far from its inventory (only the root in common), the reference is absolute.
  auto example = load_snapshot(kStates + "saas-wednesday.toml");
  REQUIRE(example);
  const std::string text = snapshot_text(*example, "/no-such-top-folder/state.toml");
  const std::string absolute = std::filesystem::absolute(example->inventory_file).lexically_normal().generic_string();
  CHECK_THAT(text, Catch::Contains("\ninventory = \"" + absolute + "\"\n"));
  CHECK(save_snapshot(*loaded, folder.file("no/such/folder/state.toml")).value_or("").find("cannot write") == 0);
}

TEST_CASE("times on the command line", "[runtime][snapshot]") {
  CHECK(parse_timestamp("2026-12-02T09:00:00Z") == kWednesday9);
  CHECK(parse_timestamp("2026-12-02T10:30:00+01:30") == kWednesday9);
  CHECK(parse_timestamp("2026-12-02T07:00:00-02:00") == kWednesday9);
  CHECK(parse_timestamp("2026-12-02") == kWednesday9 - 9 * 3600);
  CHECK(parse_timestamp("1796202000") == kWednesday9);
  CHECK(format_timestamp(kWednesday9) == "2026-12-02T09:00:00Z");
  for (const char* bad : {"", "tomorrow", "2026-13-01", "2026-02-30", "2026-12-02T25:00:00Z", "2026-12-02T09:00:00",
                          "2026-12-02T09:00Z", "-5", "99999999999999", "2026-12-02T09:00:00Zjunk"}) {
    INFO(bad);
    CHECK_FALSE(parse_timestamp(bad));
  }
}

TEST_CASE("malformed snapshots get located errors", "[runtime][snapshot]") {
  struct Case {
    const char* what;
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"a wrong type", kBase + kJob + "nodes = \"2\"\n",
       "state.toml:16:9: job[0].nodes: `nodes` must be an integer, not a string"},
      {"negative GPUs",
       kBase + kJob + "gpu_type = \"h100\"\n" +
           "[[job]]\nid = \"b\"\naccount = \"p\"\nclass = \"c\"\n"
           "gpus_per_node = -2\nsubmitted = 2026-12-02T08:00:00Z\n",
       "state.toml:21:17: job[1].gpus_per_node: `gpus_per_node` must be between 0 and 1024, not -2"},
      {"an unknown field", kBase + kJob + "acount = \"x\"\n",
       "state.toml:16:10: job[0].acount: unknown field `acount`; did you mean `account`?"},
      {"an unknown top-level table", kBase + "[[jobs]]\nid = \"a\"\n",
       "state.toml:10:1: jobs: unknown field `jobs`; did you mean `job`?"},
      {"a missing required field", kBase + "[[job]]\nid = \"a\"\naccount = \"p\"\nclass = \"c\"\ngpus_per_node = 1\n",
       "state.toml:10:1: job[0].submitted: missing field `submitted`"},
      {"no time", kBase.substr(kBase.find('\n') + 1), "state.toml:1:1: now: missing field `now`"},
      {"a time without offset", "now = 2026-12-02T09:00:00\n" + kBase.substr(kBase.find('\n') + 1),
       "state.toml:1:7: now: `now` needs a UTC offset, e.g. 2026-12-02T06:00:00Z"},
      {"duplicate job ids", kBase + kJob + replaced(kRunning, "id = \"r\"", "id = \"a\""),
       "state.toml:17:6: running[0].id: duplicate job id `a`; job[0] has it already"},
      {"an unknown node", kBase + replaced(kRunning, "\"gpu-01\"", "\"gpu-1\""),
       "state.toml:16:10: running[0].nodes[0]: unknown node `gpu-1`; did you mean `gpu-01`?"},
      {"a node listed twice", kBase + replaced(kRunning, "\"gpu-01\"", "\"gpu-01\", \"gpu-01\""),
       "state.toml:16:20: running[0].nodes[1]: node `gpu-01` is listed twice; a job holds each node once"},
      {"no nodes", kBase + replaced(kRunning, "[\"gpu-01\"]", "[]"),
       "state.toml:16:9: running[0].nodes: `nodes` must name at least one node"},
      {"a node of another GPU type", kBase + kRunning + "gpu_type = \"a100\"\n",
       "state.toml:16:10: running[0].nodes[0]: node `gpu-01` has h100 GPUs; the job asks for `a100`"},
      {"an over-committed node",
       kBase + kRunning + replaced(replaced(kRunning, "id = \"r\"", "id = \"r2\""), "= 4", "= 8"),
       "state.toml:24:10: running[1].nodes[0]: node `gpu-01` has 8 GPUs; running jobs up to this one hold 12 of them"},
      {"a start after now", kBase + replaced(kRunning, "started = 2026-12-02T07:30", "started = 2026-12-02T10:00"),
       "state.toml:17:11: running[0].started: `started` (2026-12-02T10:00:00Z) must be between `submitted` "
       "(2026-12-02T07:00:00Z) and `now` (2026-12-02T09:00:00Z)"},
      {"a checkpoint before the start", kBase + kRunning + "last_checkpoint = 2026-12-02T07:00:00Z\n",
       "state.toml:18:19: running[0].last_checkpoint: `last_checkpoint` (2026-12-02T07:00:00Z) must be between "
       "`started` (2026-12-02T07:30:00Z) and `now` (2026-12-02T09:00:00Z)"},
      {"a submission after now", kBase + replaced(kJob, "2026-12-02T08:00:00Z", "2026-12-03T00:00:00Z"),
       "state.toml:15:13: job[0].submitted: `submitted` (2026-12-03T00:00:00Z) is after the snapshot's `now` "
       "(2026-12-02T09:00:00Z)"},
      {"a bad duration", kBase + kJob + "expected_runtime = \"2 hours\"\n",
       "state.toml:16:20: job[0].expected_runtime: `expected_runtime` must be a duration such as \"30m\", \"1h30m\" or "
       "\"7d\", at most 100 years, not \"2 hours\""},
      {"a duration beyond 100 years", kBase + kJob + "requested_protect = 9223372036854775807\n",
       "state.toml:16:21: job[0].requested_protect: `requested_protect` must be at most 3162240000 seconds (100 "
       "years), "
       "not 9223372036854775807"},
      {"a duration text beyond 100 years", kBase + kJob + "expected_runtime = \"999999999d\"\n",
       "state.toml:16:20: job[0].expected_runtime: `expected_runtime` must be a duration such as \"30m\", \"1h30m\" or "
       "\"7d\", at most 100 years, not \"999999999d\""},
      {"a negative duration", kBase + kJob + "requested_protect = -60\n",
       "state.toml:16:21: job[0].requested_protect: `requested_protect` must not be negative, not -60"},
      {"an unknown label", kBase + kJob + "label = \"urgent\"\n",
       "state.toml:16:9: job[0].label: unknown label `urgent`; expected `none`, `low`, `medium` or `high`"},
      {"a contract field of the wrong type",
       kBase + kRunning +
           "\n[running.contract]\nprotected_until = "
           "2026-12-02T09:30:00Z\nresumable = \"yes\"\n",
       "state.toml:21:13: running[0].contract.resumable: `resumable` must be a boolean (true or false), not a string"},
      {"a yield before the start",
       kBase + kRunning +
           "\n[running.contract]\nprotected_until = "
           "2026-12-02T09:30:00Z\nyields_at = 2026-12-02T07:00:00Z\n",
       "state.toml:21:13: running[0].contract.yields_at: `yields_at` (2026-12-02T07:00:00Z) is before the job's "
       "`started` (2026-12-02T07:30:00Z)"},
      {"a contract without protection", kBase + kRunning + "\n[running.contract]\ngrace = \"5m\"\n",
       "state.toml:19:1: running[0].contract.protected_until: missing field `protected_until`"},
      {"a contract that is not a table", kBase + kRunning + "contract = 3\n",
       "state.toml:18:12: running[0].contract: `contract` must be a table: write `[running.contract]`, not an integer"},
      {"a list written as a table", kBase + "[job]\nid = \"a\"\n",
       "state.toml:10:1: job: `job` must be a list of tables: write `[[job]]`"},
      {"a reservation for no waiting job",
       kBase + kRunning +
           "[[reservation]]\njob = \"r\"\nnodes = [\"gpu-01\"]\n"
           "until = 2026-12-02T09:10:00Z\ngpus_per_node = 1\n",
       "state.toml:19:7: reservation[0].job: no waiting job `r`; a reservation holds capacity for a job in `[[job]]`"},
      {"negative usage", kBase + "[usage]\nproduct = -3\n",
       "state.toml:11:11: usage.product: `product` must be at least 0, not -3"},
      {"negative owed", kBase + "[owed]\nproduct = -1\n",
       "state.toml:11:11: owed.product: `product` must be at least 0, not -1"},
      {"a debt above what was owed", kBase + "[debt]\nproduct = 5\n[owed]\nproduct = 2\n",
       "state.toml:13:11: owed.product: `product` owed 2 is less than its debt 5 in `[debt]`; debt is owed minus "
       "delivered, so it cannot exceed what was owed"},
      {"negative time held without progress", kBase + "[without_progress]\nproduct = -1\n",
       "state.toml:11:11: without_progress.product: `product` must be at least 0, not -1"},
      {"time without progress written as a list", kBase + "[[without_progress]]\nproduct = 1\n",
       "state.toml:10:1: without_progress: `without_progress` must be a table of account = amount: write "
       "`[without_progress]`"},
      {"more time without progress than usage", kBase + "[usage]\nproduct = 2\n[without_progress]\nproduct = 3\n",
       "state.toml:13:11: without_progress.product: `product` held 3 without progress, more than its usage 2 in "
       "`[usage]`; time held without progress is part of the usage"},
      {"time without progress and no usage", kBase + "[without_progress]\n\"exploration/ana\" = 0.5\n",
       "state.toml:11:21: without_progress.exploration/ana: `exploration/ana` held 0.5 without progress, more than "
       "its usage 0 in `[usage]`; time held without progress is part of the usage"},
      {"an unlisted inner account beyond its accounts' usage",
       kBase + "[usage]\n\"exploration/ana\" = 2\n\"exploration/ben\" = 1\n\"exploration-2/x\" = 9\n"
               "[without_progress]\nexploration = 4\n",
       "state.toml:15:15: without_progress.exploration: `exploration` held 4 without progress, more than its usage 3 "
       "in `[usage]`; time held without progress is part of the usage"},
      {"usage of the wrong type", kBase + "[usage]\n\"exploration/ana\" = \"lots\"\n",
       "state.toml:11:21: usage.exploration/ana: `exploration/ana` must be a number, not a string"},
      {"an epoch time beyond year 9999", kBase + kJob + "deadline = 999999999999\n",
       "state.toml:16:12: job[0].deadline: `deadline` in seconds must be between 0 (1970) and 253402300799 (9999), "
       "not 999999999999"},
      {"no inventory", "now = 2026-12-02T09:00:00Z\n" + kJob,
       "state.toml:1:1: inventory: missing inventory; write `inventory = \"cluster.toml\"` or inline `[[node]]` and "
       "`[[group]]` tables"},
      {"two inventories", "inventory = \"cluster.toml\"\n" + kBase,
       "state.toml:1:13: inventory: set either `inventory = \"FILE\"` or inline `[[node]]`/`[[group]]` tables, not "
       "both"},
      {"a missing inventory file", "now = 2026-12-02T09:00:00Z\ninventory = \"no-such-cluster.toml\"\n",
       "state.toml:2:13: inventory: cannot read the inventory file `no-such-cluster.toml`"},
      {"an error inside the inline inventory", kBase + "[[node]]\nname = \"gpu-02\"\ngpu_type = \"h100\"\ngpus = 0\n",
       "state.toml:13:8: node[1].gpus: `gpus` must be between 1 and 1024, not 0"},
      {"a TOML syntax error", kBase + "[[job]\n",
       "state.toml:10:7: Error while parsing table header: expected ']', saw '\\n'"},
  };
  for (const Case& c : cases) {
    INFO(c.what << "\n" << c.text);
    CHECK(error_of(c.text) == c.error);
  }
}

TEST_CASE("time held without progress is optional and within each account's usage", "[runtime][snapshot]") {
  struct Case {
    const char* what;
    std::string tables;
    std::optional<std::map<std::string, double>> without_progress;
  };
  const std::vector<Case> cases = {
      {"absent: the driver does not count it", "[usage]\nproduct = 2\n", std::nullopt},
      {"present and empty: it counts, and nothing was held", "[without_progress]\n", std::map<std::string, double>{}},
      {"all of an account's usage", "[usage]\nproduct = 2\n[without_progress]\nproduct = 2\n\"\" = 2\n",
       std::map<std::string, double>{{"product", 2}, {"", 2}}},
      {"an unlisted account with none", "[without_progress]\nplatform = 0\n",
       std::map<std::string, double>{{"platform", 0}}},
      // An inner account left out of [usage] has what its accounts below list; a listed one in between counts once.
      {"an unlisted inner account",
       "[usage]\n\"a/b\" = 2\n\"a/b/c\" = 1\n\"a/d\" = 1.5\n\"a-z\" = 9\n[without_progress]\na = 3.5\n\"\" = 3.5\n",
       std::map<std::string, double>{{"a", 3.5}, {"", 3.5}}},
      // The driver's two ledgers add the same charges in other orders.
      {"a rounding's difference", "[usage]\nproduct = 0.3\n[without_progress]\nproduct = 0.30000000000000004\n",
       std::map<std::string, double>{{"product", 0.30000000000000004}}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const auto snapshot = parse_snapshot(kBase + c.tables, "state.toml");
    REQUIRE(snapshot);
    CHECK(snapshot->state.without_progress == c.without_progress);
    // Written back as read: absent stays absent, empty stays an empty table.
    const std::string text = snapshot_text(*snapshot, "state.toml");
    CHECK((text.find("[without_progress]") != std::string::npos) == c.without_progress.has_value());
    const auto again = parse_snapshot(text, "state.toml");
    REQUIRE(again);
    CHECK(again->state.without_progress == c.without_progress);
  }
}

TEST_CASE("an unreadable snapshot or inventory names the file", "[runtime][snapshot]") {
  auto missing = load_snapshot("/no/such/state.toml");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().to_string() == "/no/such/state.toml: cannot read the file: No such file or directory");
  TempFolder folder("allot-snapshot-test");
  const std::string cluster = folder.file("cluster.toml");
  std::ofstream(cluster) << "[[node]]\nname = \"n\"\ngpu_type = \"h100\"\ngpus = 8\ncpus = 8\nmemory_gib = 8\n";
  const std::string state = folder.file("state.toml");
  std::ofstream(state) << "now = 2026-12-02T09:00:00Z\ninventory = \"cluster.toml\"\n";
  auto broken = load_snapshot(state);
  REQUIRE_FALSE(broken);
  // The inventory's own error, located in the inventory file.
  CHECK(broken.error().to_string() == cluster +
                                          ":1:1: node[0].block: missing field `block`; name the rack or switch "
                                          "the node hangs off, e.g. `block = \"rack-1\"`");
}
