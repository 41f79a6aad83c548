// A property of the snapshot format over random states (docs/STATE.md,
// "Snapshot file"): every valid state, including times at 1970 and at
// 9999-12-31T23:59:59Z, durations of 100 years, and names that need quoting,
// writes, reads back and writes again to the same bytes; and save_snapshot
// never writes a state the reader would refuse (`allot cycle --apply` used to
// write a protection in the year 10100 that no later cycle could read).
// Seeded, so a failure names a state that can be made again.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "allot/duration.h"
#include "allot/snapshot.h"
#include "temp_folder.h"

using namespace allot::runtime;

namespace {

constexpr std::uint64_t kSeed = 20261203;  // change it to explore; any value must pass
constexpr int kStates = 400;
constexpr Seconds kLatest = allot::support::kLatestEpochSeconds;  // 9999-12-31T23:59:59Z
constexpr Seconds kLongest = 3'162'240'000;                       // 100 years, the longest duration a snapshot takes

// Makes random but valid states: every constraint the reader checks holds.
class StateMaker {
 public:
  explicit StateMaker(std::uint64_t seed) : random_(seed) {}

  ClusterState make() {
    ClusterState state;
    state.now = time_in(0, kLatest);
    make_inventory(state);
    const int pending = below(6), running = below(5);
    for (int i = 0; i < pending; ++i) state.pending.push_back(pending_job(state.now, i));
    held_.assign(state.inventory.nodes.size(), 0);
    for (int i = 0; i < running; ++i) state.running.push_back(running_job(state, i));
    if (!state.pending.empty()) {
      for (int i = below(3); i > 0; --i) state.reservations.push_back(reservation(state));
    }
    make_amounts(state);
    return state;
  }

 private:
  int below(int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(random_)); }
  bool coin() { return below(2) == 0; }
  std::int64_t between(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(random_);
  }
  double amount(double low, double high) { return std::uniform_real_distribution<double>(low, high)(random_); }

  // A time in [low, high], at or next to an end a third of the time: the bounds are where writers go wrong.
  Seconds time_in(Seconds low, Seconds high) {
    switch (below(6)) {
      case 0:
        return low;
      case 1:
        return high;
      case 2:
        return std::min(high, low + between(0, 86400));
      case 3:
        return std::max(low, high - between(0, 86400));
      default:
        return between(low, high);
    }
  }
  Seconds duration() {
    switch (below(4)) {
      case 0:
        return 0;
      case 1:
        return kLongest - between(0, 3);
      default:
        return between(1, below(2) == 0 ? 86400 * 3 : kLongest);
    }
  }

  // Text a reader takes back as it was: quotes, backslashes, slashes, control
  // characters, non-ASCII, spaces; never empty.
  std::string name(const std::string& prefix) {
    static const std::string kPieces[] = {"a", "Z", "9", "-", "_", "/", " ", "\"", "\\", "\t", "\n", "é", "日", "\x01"};
    std::string text = prefix;
    for (int i = below(6); i > 0; --i) {
      text += kPieces[static_cast<std::size_t>(below(static_cast<int>(std::size(kPieces))))];
    }
    return text;
  }

  void make_inventory(ClusterState& state) {
    Inventory& inventory = state.inventory;
    inventory.name = name("cluster");
    const std::string types[] = {"h100", "a100 80g", name("gpu")};
    for (int i = 0, count = 1 + below(6); i < count; ++i) {
      Node node;
      node.name = name("node-" + std::to_string(i) + "-");
      node.gpu_type = intern(inventory.gpu_types, types[static_cast<std::size_t>(below(3))]);
      node.gpus = static_cast<int>(coin() ? 8 : between(1, 1024));
      node.cpus = static_cast<int>(between(1, 1'000'000));
      node.memory_gib = coin() ? 1024 : amount(1e-3, 1e6);
      node.block = intern(inventory.blocks, coin() ? "rack-1" : name("block"));
      node.state = static_cast<NodeState>(below(3));
      if (node.state == NodeState::drain && coin()) node.drain_deadline = time_in(0, kLatest);
      if (coin()) node.features = names("feature");
      inventory.nodes.push_back(std::move(node));
    }
    // Named node sets, as the reader keeps them: distinct names, nodes ascending and distinct.
    for (auto [sets, kind] :
         {std::pair{&inventory.partitions, "partition-"}, std::pair{&inventory.advance_reservations, "reservation-"}}) {
      for (int i = 0, count = below(3); i < count; ++i) {
        NodeSet set{name(kind + std::to_string(i) + "-"), {}};
        for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
          if (coin()) set.nodes.push_back(static_cast<int>(n));
        }
        sets->push_back(std::move(set));
      }
    }
  }
  // One to three names.
  std::vector<std::string> names(const std::string& prefix) {
    std::vector<std::string> list;
    for (int i = 0, count = 1 + below(3); i < count; ++i) list.push_back(name(prefix));
    return list;
  }
  static int intern(std::vector<std::string>& names, const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<int>(it - names.begin());
    names.push_back(name);
    return static_cast<int>(names.size() - 1);
  }

  JobRequest request(Seconds now, const std::string& id) {
    JobRequest job;
    job.id = id;
    job.account = name("program/");
    job.job_class = name("class");
    job.gpus_per_node = static_cast<int>(between(0, 1024));
    job.cpus_per_node = coin() ? 0 : amount(0, 256);
    job.memory_gib_per_node = coin() ? 0 : amount(0, 4096);
    job.submitted = time_in(0, now);
    if (coin()) job.queued = time_in(job.submitted, now);
    if (coin()) job.deadline = time_in(0, kLatest);
    job.label = below(4);
    job.requested_protect = duration();
    job.expected_runtime = duration();
    job.requeueable = coin();
    job.restarts = coin() ? 0 : static_cast<int>(between(0, 1'000'000));
    if (coin()) job.partitions = names("partition");
    if (coin()) job.features = names("feature");
    if (coin()) job.nodelist = names("node");
    if (coin()) job.exclude = names("node");
    if (coin()) job.reservation = name("reservation");
    job.exclusive = below(4) == 0;
    if (coin()) job.blocked = name("it waits for ");
    return job;
  }

  JobRequest pending_job(Seconds now, int index) {
    JobRequest job = request(now, name("job-" + std::to_string(index)));
    job.nodes = coin() ? 1 : static_cast<int>(between(1, kMaxInventoryNodes));
    return job;
  }

  // Runs on distinct nodes of one GPU type, within what they have free (or stopping already).
  RunningJob running_job(const ClusterState& state, int index) {
    RunningJob job;
    job.request = request(state.now, name("run-" + std::to_string(index)));
    const auto& nodes = state.inventory.nodes;
    const int type = nodes[static_cast<std::size_t>(below(static_cast<int>(nodes.size())))].gpu_type;
    int free = 1024;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].gpu_type != type || (!job.nodes.empty() && coin())) continue;
      job.nodes.push_back(static_cast<int>(n));
      free = std::min(free, nodes[n].gpus - held_[n]);
    }
    job.request.gpu_type = coin() ? state.inventory.gpu_types[static_cast<std::size_t>(type)] : "";
    job.request.nodes = static_cast<int>(job.nodes.size());
    job.started = time_in(job.request.submitted, state.now);
    job.last_checkpoint = coin() ? job.started : time_in(job.started, state.now);
    if (free <= 0 || below(4) == 0) {
      job.stopping_at = time_in(0, state.now);  // stopped: holds nothing
    } else {
      job.request.gpus_per_node = static_cast<int>(between(0, free));
      for (const int n : job.nodes) held_[static_cast<std::size_t>(n)] += job.request.gpus_per_node;
    }
    Contract& contract = job.contract;
    contract.protected_until = time_in(0, kLatest);
    contract.checkpoint_every = duration();
    contract.grace = duration();
    contract.resumable = coin();
    contract.preemptible = coin();
    if (coin()) contract.policy_hash = name("53c0");
    if (coin()) contract.yields_at = time_in(job.started, kLatest);
    if (coin()) job.last_progress = time_in(job.started, state.now);
    if (coin()) {
      contract.progress_every = duration();
      if (contract.progress_every != 0) {
        contract.progress_after = duration();
        contract.on_stall =
            std::array{allot::StallAction::preempt, allot::StallAction::keep, allot::StallAction::stop}[below(3)];
      }
    }
    return job;
  }

  Reservation reservation(const ClusterState& state) {
    Reservation held;
    held.job_id = state.pending[static_cast<std::size_t>(below(static_cast<int>(state.pending.size())))].id;
    for (std::size_t n = 0; n < state.inventory.nodes.size(); ++n) {
      if (held.nodes.empty() || coin()) held.nodes.push_back(static_cast<int>(n));
    }
    held.until = time_in(0, kLatest);
    held.gpus_per_node = static_cast<int>(between(0, 1024));
    held.cpus_per_node = coin() ? 0 : amount(0, 256);
    held.memory_gib_per_node = coin() ? 0 : amount(0, 4096);
    return held;
  }

  // Usage >= 0; debt any finite number; owed >= 0 and >= the account's debt;
  // time held without progress, when counted (even none), within the usage.
  void make_amounts(ClusterState& state) {
    for (int i = below(4); i > 0; --i) state.usage[coin() ? "" : name("program/")] = coin() ? 0 : amount(0, 1e12);
    for (int i = below(4); i > 0; --i) {
      const std::string account = name("program/");
      if (state.debt.count(account) != 0) continue;
      const double owed = amount(0, 1e9);
      state.debt[account] = amount(-1e9, owed);
      if (coin()) state.owed[account] = owed;
    }
    if (coin()) return;
    auto& held = state.without_progress.emplace();
    for (const auto& [account, usage] : state.usage) {
      if (coin()) held[account] = coin() ? usage : amount(0, usage);
    }
  }

  std::mt19937_64 random_;
  std::vector<int> held_;  // GPUs held per node by running jobs that have not stopped
};

// One time set past 9999 or before 1970, where the state has a place for it,
// and the field the refusal must then name.
struct Breakage {
  const char* field;
  bool (*applies)(const ClusterState&);
  void (*apply)(ClusterState&);
};

const Breakage kBreakages[] = {
    {"now", [](const ClusterState&) { return true; }, [](ClusterState& s) { s.now = kLatest + 1; }},
    {"running[0].contract.protected_until", [](const ClusterState& s) { return !s.running.empty(); },
     [](ClusterState& s) { s.running.front().contract.protected_until = kLatest + 86400 * 365; }},
    {"running[0].contract.yields_at", [](const ClusterState& s) { return !s.running.empty(); },
     [](ClusterState& s) { s.running.front().contract.yields_at = std::numeric_limits<Seconds>::max(); }},
    {"job[0].deadline", [](const ClusterState& s) { return !s.pending.empty(); },
     [](ClusterState& s) { s.pending.front().deadline = -1; }},
    {"reservation[0].until", [](const ClusterState& s) { return !s.reservations.empty(); },
     [](ClusterState& s) { s.reservations.front().until = kLatest + 1; }},
};

}  // namespace

TEST_CASE("random valid snapshots write, read and write to the same bytes", "[runtime][snapshot][property]") {
  StateMaker maker(kSeed);
  for (int i = 0; i < kStates; ++i) {
    Snapshot snapshot{maker.make(), "", {}};
    const std::string written = snapshot_text(snapshot, "state.toml");
    INFO("state " << i << " of seed " << kSeed << ":\n" << written);
    const auto read = parse_snapshot(written, "state.toml");
    REQUIRE(read.has_value());  // a state the writer writes is one the reader takes
    CHECK(read->state.now == snapshot.state.now);
    CHECK(read->state.without_progress == snapshot.state.without_progress);
    CHECK(snapshot_text(*read, "state.toml") == written);
  }
}

TEST_CASE("save_snapshot refuses a state the reader would refuse, naming the field", "[runtime][snapshot][property]") {
  TempFolder folder("allot-snapshot-roundtrip");
  StateMaker maker(kSeed + 1);
  std::map<std::string, int> refused;  // by field
  for (int i = 0; i < kStates / 4; ++i) {
    Snapshot snapshot{maker.make(), "", {}};
    const std::string path = folder.file("state-" + std::to_string(i) + ".toml");
    REQUIRE_FALSE(save_snapshot(snapshot, path).has_value());
    const auto loaded = load_snapshot(path);
    REQUIRE(loaded.has_value());  // what it writes, the reader reads back
    CHECK(snapshot_text(*loaded, path) == snapshot_text(snapshot, path));
    for (const Breakage& breakage : kBreakages) {
      if (!breakage.applies(snapshot.state)) continue;
      Snapshot broken = snapshot;
      breakage.apply(broken.state);
      const std::string broken_path = folder.file("broken.toml");
      const auto problem = save_snapshot(broken, broken_path);
      INFO(breakage.field);
      REQUIRE(problem.has_value());
      CHECK_THAT(*problem, Catch::StartsWith("not writing `" + broken_path +
                                             "`: the state would not read back: " + breakage.field + ": "));
      CHECK_FALSE(std::filesystem::exists(broken_path));  // nothing half-written either
      ++refused[breakage.field];
    }
  }
  for (const Breakage& breakage : kBreakages) {
    INFO(breakage.field);
    CHECK(refused[breakage.field] > 0);  // every kind was tried, none always skipped
  }
}
