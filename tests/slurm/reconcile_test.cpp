// The reconcile pass against a fake Slurm: priorities in rank order and only
// when they change, charges exactly once across restarts, preemption only past
// protection (signal first, requeue after the grace), contracts kept across a
// policy swap, and a dry run that writes nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "../runtime/temp_folder.h"
#include "allot/sqlite_connection.h"
#include "slurm_support.h"

namespace slurm_test {
namespace {

using allot::slurm::Action;

// 4 GPUs on one node, all held by alpha since kStart; beta has one job waiting.
struct Crowded {
  FakeSlurm slurm{1, 4};
  std::vector<std::uint32_t> alpha;
  std::uint32_t beta = 0;

  Crowded() {
    slurm.clock = kStart;
    for (int i = 0; i < 4; ++i) {
      alpha.push_back(slurm.submit("alpha", 1, kStart - 60));
      slurm.start(alpha.back(), 0, kStart);
    }
  }
};

std::vector<std::uint32_t> jobs_called(const FakeSlurm& slurm, const std::string& what) {
  std::vector<std::uint32_t> jobs;
  for (const Call& call : slurm.calls_of(what)) jobs.push_back(call.job);
  return jobs;
}

double usage_of(const allot::slurm::Adapter& adapter, const std::string& account, Seconds now) {
  const auto usage = adapter.usage(now);
  const auto found = usage.find(account);
  return found == usage.end() ? 0.0 : found->second;
}

}  // namespace

TEST_CASE("pending jobs get Slurm priorities in rank order, and an idle pass writes nothing", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  const auto policy = compile(two_team_policy());
  // alpha has used GPUs for an hour, beta nothing: beta's jobs come first.
  const std::uint32_t busy = slurm.submit("alpha", 1, kStart - 3600);
  slurm.start(busy, 0, kStart - 3600);
  const std::uint32_t a2 = slurm.submit("alpha", 2, kStart - 10);
  const std::uint32_t b1 = slurm.submit("beta", 2, kStart - 5);
  const std::uint32_t b2 = slurm.submit("beta", 1, kStart - 5);
  auto adapter = open_adapter(slurm, folder.file("state.db"));

  pass(*adapter, *policy, kStart);
  const auto& job = [&](std::uint32_t id) -> SlurmJob& { return slurm.job(id); };
  CHECK(job(b2).priority > job(b1).priority);  // fewer GPUs first within beta (rank - job.gpus)
  CHECK(job(b1).priority > job(a2).priority);
  CHECK(job(a2).priority >= 1000);
  CHECK(slurm.calls_of("priority").size() == 3);

  slurm.clear_calls();
  const auto idle = pass(*adapter, *policy, kStart + 5);
  CHECK(slurm.calls().empty());
  CHECK(idle.writes == 0);

  // A new beta job: one write, wherever it ranks.
  const std::uint32_t b3 = slurm.submit("beta", 1, kStart + 8);
  pass(*adapter, *policy, kStart + 10);
  CHECK(jobs_called(slurm, "priority") == std::vector<std::uint32_t>{b3});
}

TEST_CASE("priority writes overlap up to write_threads and are reported in rank order", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  const auto policy = compile(two_team_policy());
  for (const int threads : {1, 4}) {
    INFO("write_threads = " << threads);
    FakeSlurm slurm(1, 4);
    const std::uint32_t busy = slurm.submit("alpha", 4, kStart - 3600);
    slurm.start(busy, 0, kStart - 3600);
    for (int i = 0; i < 10; ++i) slurm.submit(i % 2 ? "alpha" : "beta", 1, kStart - 100 + i);
    allot::slurm::JobMap map = two_team_map();
    map.settings.write_threads = threads;
    slurm.hold_priorities_until = threads;  // each write waits until `threads` are in flight
    auto adapter = open_adapter(slurm, folder.file("state-" + std::to_string(threads) + ".db"), false, map);
    const auto report = pass(*adapter, *policy, kStart);
    CHECK(slurm.peak_priorities_in_flight() == threads);
    CHECK(report.writes == 10);
    // The report lists the writes best-ranked first, whichever finished first:
    // priorities strictly decreasing, each one what Slurm now holds.
    REQUIRE(report.actions.size() == 10);
    for (std::size_t i = 0; i < report.actions.size(); ++i) {
      const Action& action = report.actions[i];
      CHECK(action.kind == Action::Kind::set_priority);
      CHECK(action.error.empty());
      CHECK(slurm.job(action.job).priority == action.priority);
      if (i > 0) CHECK(action.priority < report.actions[i - 1].priority);
    }
    // beta (nothing used) ranks above alpha (an hour of 4 GPUs).
    CHECK(slurm.job(report.actions.front().job).account == "beta");
    CHECK(slurm.job(report.actions.back().job).account == "alpha");
  }
}

TEST_CASE("priority writes Slurm refuses are reported with its reason and not counted as writes",
          "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  const auto policy = compile(two_team_policy());
  FakeSlurm slurm(1, 4);
  for (int i = 0; i < 6; ++i) slurm.submit("beta", 1, kStart - 100 + i);
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  slurm.refuse("priority", "Access/permission denied");
  const auto refused = pass(*adapter, *policy, kStart);
  CHECK(refused.writes == 0);
  REQUIRE(refused.actions.size() == 6);
  for (const Action& action : refused.actions) CHECK(action.error == "Access/permission denied");
}

TEST_CASE("running jobs are charged once for the time they held GPUs, across adapter restarts", "[slurm][ledger]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 8);
  const auto policy = compile(two_team_policy());
  const std::uint32_t job = slurm.submit("alpha", 2, kStart);
  slurm.start(job, 0, kStart);
  {
    auto adapter = open_adapter(slurm, folder.file("state.db"));
    pass(*adapter, *policy, kStart + 600);
    CHECK(usage_of(*adapter, "alpha", kStart + 600) == Approx(2 * 600 / 3600.0));
  }  // the adapter stops (a crash loses nothing committed)
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  const auto replay = pass(*adapter, *policy, kStart + 600);
  CHECK(replay.charged == 0);
  pass(*adapter, *policy, kStart + 900);
  CHECK(usage_of(*adapter, "alpha", kStart + 900) == Approx(2 * 900 / 3600.0));

  // It ends at +1000 and is seen finished at +1500: charged up to its end, not beyond.
  slurm.finish(job, kStart + 1000);
  pass(*adapter, *policy, kStart + 1500);
  pass(*adapter, *policy, kStart + 2000);
  CHECK(usage_of(*adapter, "alpha", kStart + 2000) == Approx(2 * 1000 / 3600.0));
}

TEST_CASE("a running job is charged at most every `charge_every`", "[slurm][ledger]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 8);
  const auto policy = compile(two_team_policy());
  const std::uint32_t job = slurm.submit("beta", 1, kStart);
  slurm.start(job, 0, kStart);
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  CHECK(pass(*adapter, *policy, kStart + 10).charged > 0);  // a new run is charged at once
  CHECK(pass(*adapter, *policy, kStart + 40).charged == 0);
  CHECK(pass(*adapter, *policy, kStart + 75).charged == Approx(65 / 3600.0));
}

TEST_CASE("an over-share job past protection is signalled, then requeued after its grace", "[slurm][preempt]") {
  TempFolder folder("allot-slurm");
  Crowded cluster;
  const auto policy = compile(two_team_policy("10m", "2m"));
  auto adapter = open_adapter(cluster.slurm, folder.file("state.db"));
  pass(*adapter, *policy, kStart + 60);  // alpha charged: it is over its share
  cluster.beta = cluster.slurm.submit("beta", 1, kStart + 5 * kMinute);

  // Inside protection: nobody is touched.
  pass(*adapter, *policy, kStart + 6 * kMinute);
  CHECK(cluster.slurm.calls_of("signal").empty());
  CHECK(cluster.slurm.calls_of("requeue").empty());

  // Past protection: one alpha job gets the checkpoint signal, not yet the requeue.
  cluster.slurm.clock = kStart + 11 * kMinute;
  const auto signalled = pass(*adapter, *policy, kStart + 11 * kMinute);
  const auto signals = cluster.slurm.calls_of("signal");
  REQUIRE(signals.size() == 1);
  CHECK(signals[0].value == SIGUSR1);
  CHECK(cluster.slurm.calls_of("requeue").empty());
  const std::uint32_t victim = signals[0].job;
  CHECK(std::count(cluster.alpha.begin(), cluster.alpha.end(), victim) == 1);

  // During the grace no second victim is chosen.
  pass(*adapter, *policy, kStart + 12 * kMinute);
  CHECK(cluster.slurm.calls_of("signal").size() == 1);

  // After the grace: requeued, with the work since its last checkpoint (10m) as lost.
  cluster.slurm.clock = kStart + 13 * kMinute + 5;
  const auto requeued = pass(*adapter, *policy, kStart + 13 * kMinute + 5);
  CHECK(jobs_called(cluster.slurm, "requeue") == std::vector<std::uint32_t>{victim});
  const auto action = std::find_if(requeued.actions.begin(), requeued.actions.end(),
                                   [](const Action& a) { return a.kind == Action::Kind::requeue; });
  REQUIRE(action != requeued.actions.end());
  CHECK(action->for_job == std::to_string(cluster.beta));
  CHECK(action->lost_gpu_seconds == Approx(3 * kMinute + 5));
  CHECK(cluster.slurm.job(victim).phase == JobPhase::pending);
  // It held its GPU until the requeue and was charged up to it.
  CHECK(usage_of(*adapter, "alpha", kStart + 13 * kMinute + 5) == Approx(4 * (13 * kMinute + 5) / 3600.0));
}

TEST_CASE("jobs that cannot be requeued or must not be preempted are never signalled", "[slurm][preempt]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 2);
  const auto policy = compile(two_team_policy("10m", "2m"));
  const std::uint32_t fixed = slurm.submit("alpha", 1, kStart);
  slurm.job(fixed).requeueable = false;
  slurm.start(fixed, 0, kStart);
  const std::uint32_t pinned = slurm.submit("alpha", 1, kStart, "pinned");
  slurm.start(pinned, 0, kStart);
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  pass(*adapter, *policy, kStart + 60);
  slurm.submit("beta", 1, kStart + 60);
  for (Seconds t = kStart + 2 * kMinute; t < kStart + 60 * kMinute; t += 5 * kMinute) pass(*adapter, *policy, t);
  CHECK(slurm.calls_of("signal").empty());
  CHECK(slurm.calls_of("requeue").empty());
}

TEST_CASE("a running job keeps the protection it started with when the policy is swapped", "[slurm][preempt]") {
  TempFolder folder("allot-slurm");
  Crowded cluster;
  const auto generous = compile(two_team_policy("2h", "2m"));
  const auto stingy = compile(two_team_policy("10m", "2m"));
  auto adapter = open_adapter(cluster.slurm, folder.file("state.db"));
  const auto first = pass(*adapter, *generous, kStart + 60);
  REQUIRE(first.starts.size() == 4);
  CHECK(first.starts[0].contract.protected_until == kStart + 2 * 3600);
  cluster.beta = cluster.slurm.submit("beta", 1, kStart + 5 * kMinute);

  // Under the stingy policy they would be fair game after 10 minutes; their promise was 2 hours.
  for (Seconds t = kStart + 15 * kMinute; t < kStart + 2 * 3600; t += 15 * kMinute) pass(*adapter, *stingy, t);
  CHECK(cluster.slurm.calls_of("signal").empty());

  // A restarted adapter remembers the promise too.
  adapter.reset();
  adapter = open_adapter(cluster.slurm, folder.file("state.db"));
  pass(*adapter, *stingy, kStart + 100 * kMinute);
  CHECK(cluster.slurm.calls_of("signal").empty());
  pass(*adapter, *stingy, kStart + 2 * 3600 + 60);
  CHECK(cluster.slurm.calls_of("signal").size() == 1);
}

TEST_CASE("a restarted adapter finishes a preemption it started", "[slurm][preempt]") {
  TempFolder folder("allot-slurm");
  Crowded cluster;
  const auto policy = compile(two_team_policy("10m", "2m"));
  auto adapter = open_adapter(cluster.slurm, folder.file("state.db"));
  pass(*adapter, *policy, kStart + 60);
  cluster.beta = cluster.slurm.submit("beta", 1, kStart + 5 * kMinute);
  pass(*adapter, *policy, kStart + 11 * kMinute);
  REQUIRE(cluster.slurm.calls_of("signal").size() == 1);

  adapter.reset();
  adapter = open_adapter(cluster.slurm, folder.file("state.db"));
  pass(*adapter, *policy, kStart + 12 * kMinute);
  CHECK(cluster.slurm.calls_of("signal").size() == 1);  // no second victim while the first one's grace runs
  pass(*adapter, *policy, kStart + 14 * kMinute);
  CHECK(jobs_called(cluster.slurm, "requeue") == std::vector<std::uint32_t>{cluster.slurm.calls_of("signal")[0].job});
}

TEST_CASE("a dry run reports the decisions and writes nothing", "[slurm][dry_run]") {
  TempFolder folder("allot-slurm");
  Crowded cluster;
  const auto policy = compile(two_team_policy("10m", ""));
  {
    auto live = open_adapter(cluster.slurm, folder.file("state.db"));
    pass(*live, *policy, kStart + 60);
  }
  cluster.beta = cluster.slurm.submit("beta", 1, kStart + 5 * kMinute);
  const auto size_before = std::filesystem::file_size(folder.file("state.db"));
  auto dry = open_adapter(cluster.slurm, folder.file("state.db"), true);
  const auto report = pass(*dry, *policy, kStart + 11 * kMinute);
  CHECK(cluster.slurm.calls().empty());
  CHECK(report.writes == 0);
  std::vector<Action::Kind> kinds;
  for (const Action& action : report.actions) kinds.push_back(action.kind);
  CHECK(std::count(kinds.begin(), kinds.end(), Action::Kind::set_priority) == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), Action::Kind::checkpoint_signal) == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), Action::Kind::requeue) == 1);
  CHECK(std::filesystem::file_size(folder.file("state.db")) == size_before);
  // The live adapter's ledger did not learn of the dry run's charges.
  auto live = open_adapter(cluster.slurm, folder.file("state.db"));
  CHECK(pass(*live, *policy, kStart + 60).charged == 0);
}

TEST_CASE("held and unmapped jobs are left as Slurm has them, and said so once", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  const auto policy = compile(two_team_policy());
  const std::uint32_t held = slurm.submit("alpha", 1, kStart);
  slurm.job(held).priority = 0;
  const std::uint32_t stranger = slurm.submit("gamma", 1, kStart);  // the tree has no `gamma`
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  const auto first = pass(*adapter, *policy, kStart + 10);
  CHECK(slurm.calls().empty());
  CHECK(first.notes.size() == 3);  // the two jobs, and that the ledger is new
  CHECK(pass(*adapter, *policy, kStart + 20).notes.empty());
  CHECK(slurm.job(stranger).priority == 1);
}

TEST_CASE("a new mapping file applies from the next pass, and its unmapped jobs are said again", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  const auto policy = compile(two_team_policy());
  const std::uint32_t stranger = slurm.submit("gamma", 1, kStart);  // the tree has no `gamma`
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  CHECK(pass(*adapter, *policy, kStart + 10).notes.size() == 2);  // the job, and that the ledger is new
  CHECK(slurm.job(stranger).priority == 1);

  // The new map sends Slurm account `gamma` to `beta`: the job is ranked at once.
  allot::slurm::JobMap map = two_team_map();
  allot::slurm::MapRule gamma;
  gamma.match.slurm_account = "gamma";
  gamma.target = "beta";
  map.accounts.insert(map.accounts.begin(), gamma);
  adapter->set_map(map);
  pass(*adapter, *policy, kStart + 20);
  CHECK(slurm.job(stranger).priority >= 1000);

  // And back: left alone again, and said again.
  adapter->set_map(two_team_map());
  CHECK(pass(*adapter, *policy, kStart + 30).notes.size() == 1);
}

TEST_CASE("notes that quote Slurm's names carry no terminal control bytes", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  const auto policy = compile(two_team_policy());
  slurm.submit("evil\x1b]0;owned\x07", 1, kStart, "gpu\x1b[2J");
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  const auto report = pass(*adapter, *policy, kStart + 10);
  REQUIRE(report.notes.size() == 2);  // the job's (first), and that the ledger is new
  CHECK(report.notes[0].find('\x1b') == std::string::npos);
  CHECK(report.notes[0].find('\x07') == std::string::npos);
  CHECK_THAT(report.notes[0], Catch::Contains("account `evil\u241b]0;owned\u2407`"));
}

TEST_CASE("a pass that cannot read Slurm changes nothing", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  const auto policy = compile(two_team_policy());
  slurm.submit("alpha", 1, kStart);
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  slurm.set_unreachable(true);
  auto report = adapter->reconcile(*policy, kStart);
  REQUIRE_FALSE(report);
  CHECK_THAT(report.error(), Catch::Contains("Socket timed out"));
  CHECK(slurm.calls().empty());
}

TEST_CASE("a second adapter on the same state file is refused", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  auto first = open_adapter(slurm, folder.file("state.db"));
  allot::slurm::AdapterOptions options;
  options.state_path = folder.file("state.db");
  auto second = allot::slurm::Adapter::open(slurm, two_team_map(), options);
  REQUIRE_FALSE(second);
  CHECK_THAT(second.error(), Catch::Contains("in use by another adapter"));
  // The lock is the file's, so no other name for it gets past: a symlink, a hard link.
  std::filesystem::create_symlink(folder.file("state.db"), folder.file("link.db"));
  std::filesystem::create_hard_link(folder.file("state.db"), folder.file("hard.db"));
  for (const char* name : {"link.db", "hard.db"}) {
    options.state_path = folder.file(name);
    auto other = allot::slurm::Adapter::open(slurm, two_team_map(), options);
    REQUIRE_FALSE(other);
    CHECK_THAT(other.error(), Catch::Contains("in use by another adapter"));
  }
}

TEST_CASE("an empty ledger file is refused, not started again as a new ledger", "[slurm][reconcile]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  std::ofstream(folder.file("state.db")).flush();
  allot::slurm::AdapterOptions options;
  options.state_path = folder.file("state.db");
  auto adapter = allot::slurm::Adapter::open(slurm, two_team_map(), options);
  REQUIRE_FALSE(adapter);
  CHECK_THAT(adapter.error(), Catch::Contains("is an empty file, not an Allot ledger"));
  // A missing file is a new ledger, and a closed adapter leaves a ledger that opens again.
  { REQUIRE(open_adapter(slurm, folder.file("new.db")) != nullptr); }
  CHECK(open_adapter(slurm, folder.file("new.db")) != nullptr);
}

}  // namespace slurm_test

namespace slurm_test {

TEST_CASE("an account kept waiting below its share builds up debt that lifts its jobs", "[slurm][debt]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 2);
  auto policy = compile(replaced_rank(two_team_policy(), "account.debt"));
  for (int i = 0; i < 2; ++i) slurm.start(slurm.submit("alpha", 1, kStart), 0, kStart);
  // Equal ranks would put alpha's job first: it was submitted first.
  const std::uint32_t alpha_waiting = slurm.submit("alpha", 1, kStart);
  const std::uint32_t beta_waiting = slurm.submit("beta", 1, kStart + 1);
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  // beta wants GPUs for 20 minutes while alpha holds them all: it is owed its half.
  for (Seconds t = kStart + 1; t <= kStart + 20 * kMinute; t += kMinute) pass(*adapter, *policy, t);
  CHECK(slurm.job(beta_waiting).priority > slurm.job(alpha_waiting).priority);
  // The debt survives a restart of the adapter: the order stays, nothing is rewritten.
  adapter.reset();
  adapter = open_adapter(slurm, folder.file("state.db"));
  slurm.clear_calls();
  const auto after = pass(*adapter, *policy, kStart + 21 * kMinute);
  CHECK(slurm.calls().empty());
  CHECK(slurm.job(beta_waiting).priority > slurm.job(alpha_waiting).priority);

  // What the pass scheduled, with what each account was owed: beta got none of
  // the half it was owed (one GPU for 20 minutes at 1 unit per GPU-hour), alpha all of its own.
  CHECK(after.state.pending.size() + after.state.running.size() == 4);
  CHECK(after.state.debt.at("beta") == Approx(20.0 / 60).epsilon(0.06));
  CHECK(after.state.owed.at("beta") == Approx(after.state.debt.at("beta")));
  CHECK(after.state.owed.at("alpha") == Approx(20.0 / 60).epsilon(0.06));
  CHECK(after.state.debt.count("alpha") == 0);
}

TEST_CASE("a state file from before owed was kept counts its stored debt as owed", "[slurm][debt]") {
  TempFolder folder("allot-slurm");
  const std::string path = folder.file("state.db");
  {
    auto db = allot::runtime::SqliteConnection::open(path);
    REQUIRE(db);
    REQUIRE_FALSE((*db)->execute(
        "CREATE TABLE slurm_debt (account TEXT NOT NULL, hour INTEGER NOT NULL, amount REAL NOT NULL, "
        "PRIMARY KEY (account, hour));"
        "INSERT INTO slurm_debt VALUES ('beta', 498911, 0.5);"));  // 2026-11-30T23:00Z, inside the window
  }
  FakeSlurm slurm(1, 2);
  const auto policy = compile(two_team_policy());
  slurm.submit("beta", 1, kStart);
  auto adapter = open_adapter(slurm, path);
  const auto report = pass(*adapter, *policy, kStart + kMinute);
  CHECK(report.state.debt.at("beta") == Approx(0.5));
  CHECK(report.state.owed.at("beta") == Approx(0.5));
}

TEST_CASE("a job Slurm holds back for its own reasons is ranked but preempts no one", "[slurm][preempt][constraints]") {
  struct Case {
    const char* what;
    void (*hold_back)(SlurmJob&, Seconds now);
    const char* reason;
  };
  const std::vector<Case> cases = {
      {"a dependency on a running job",
       [](SlurmJob& job, Seconds) {
         job.dependency = "afterok:100(unfulfilled)";
         job.wait_reason = "Dependency";
         job.waits_outside = true;
         job.eligible = 0;  // what libslurm reports for it
       },
       "it waits for its dependency `afterok:100(unfulfilled)`"},
      {"a begin time",
       [](SlurmJob& job, Seconds now) {
         job.begin = now + 3600;
         job.wait_reason = "BeginTime";
         job.waits_outside = true;
       },
       "it may not start before its begin time"},
      {"a limit of Slurm's",
       [](SlurmJob& job, Seconds) {
         job.wait_reason = "QOSMaxGRESPerUser";
         job.waits_outside = true;
       },
       "Slurm holds it back: QOSMaxGRESPerUser"},
      {"a constraint Allot does not model", [](SlurmJob& job, Seconds) { job.constraint = "a100|h100"; },
       "its constraint `a100|h100` is more than Allot models"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    TempFolder folder("allot-slurm");
    Crowded cluster;
    const auto policy = compile(two_team_policy("10m", "2m"));
    auto adapter = open_adapter(cluster.slurm, folder.file("state.db"));
    pass(*adapter, *policy, kStart + 60);
    cluster.beta = cluster.slurm.submit("beta", 1, kStart + 5 * kMinute);
    c.hold_back(cluster.slurm.job(cluster.beta), kStart + 11 * kMinute);
    allot::slurm::PassReport last;
    for (Seconds t = kStart + 11 * kMinute; t < kStart + 60 * kMinute; t += 5 * kMinute) {
      cluster.slurm.clock = t;
      last = pass(*adapter, *policy, t);
    }
    CHECK(cluster.slurm.calls_of("signal").empty());
    CHECK(cluster.slurm.calls_of("requeue").empty());
    // Ranked all the same: its priority is written and the snapshot says why it waits.
    CHECK(jobs_called(cluster.slurm, "priority") == std::vector<std::uint32_t>{cluster.beta});
    REQUIRE(last.state.pending.size() == 1);
    CHECK_THAT(last.state.pending[0].blocked, Catch::Contains(c.reason));
  }
}

TEST_CASE("preemption happens only on nodes in the waiting job's partition", "[slurm][preempt][constraints]") {
  // Whichever node is in `small`, the victim is the job on it.
  for (const int small : {0, 1}) {
    INFO("partition `small` is node " << small);
    TempFolder folder("allot-slurm");
    FakeSlurm slurm(2, 1);
    slurm.node(0).partitions = {"gpu"};
    slurm.node(1).partitions = {"gpu"};
    slurm.node(small).partitions.push_back("small");
    slurm.clock = kStart;
    std::vector<std::uint32_t> alpha;
    for (int node = 0; node < 2; ++node) {
      alpha.push_back(slurm.submit("alpha", 1, kStart - 60));
      slurm.start(alpha.back(), node, kStart);
    }
    const auto policy = compile(two_team_policy("10m", "2m"));
    auto adapter = open_adapter(slurm, folder.file("state.db"));
    pass(*adapter, *policy, kStart + 60);
    const std::uint32_t beta = slurm.submit("beta", 1, kStart + 5 * kMinute, "small");
    slurm.job(beta).partitions = {"small"};
    slurm.clock = kStart + 20 * kMinute;
    pass(*adapter, *policy, kStart + 20 * kMinute);
    CHECK(jobs_called(slurm, "signal") == std::vector<std::uint32_t>{alpha[static_cast<std::size_t>(small)]});
  }
}

TEST_CASE("a job that breaks its class's limits sits at the floor, is told why, and is promised nothing",
          "[slurm][class_limits]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  slurm.clock = kStart;
  // Class `pinned` (partition `pinned`) allows one GPU and 30 minutes.
  std::string text = two_team_policy("10m", "2m");
  text.replace(text.find("preemptible false"), std::string("preemptible false").size(),
               "preemptible false\n    max_gpus 1\n    max_runtime 30m");
  const auto policy = compile(text);
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  const std::uint32_t fine = slurm.submit("alpha", 1, kStart, "pinned");
  slurm.job(fine).time_limit = 20 * kMinute;
  const std::uint32_t greedy = slurm.submit("alpha", 2, kStart, "pinned");
  slurm.job(greedy).time_limit = 20 * kMinute;
  const std::uint32_t endless = slurm.submit("beta", 1, kStart, "pinned");  // no --time: UNLIMITED
  const std::uint32_t slow = slurm.submit("beta", 1, kStart, "pinned");
  slurm.job(slow).time_limit = 2 * 3600;

  const auto report = pass(*adapter, *policy, kStart + 60);
  // Within its limits: ranked above the floor; the others at it.
  CHECK(slurm.job(fine).priority > 1000);
  for (const std::uint32_t id : {greedy, endless, slow}) {
    INFO("job " << id);
    CHECK(slurm.job(id).priority == 1000);
  }
  CHECK_THAT(slurm.job(greedy).admin_comment, Catch::Contains("asks for 2 GPUs; class `pinned` allows at most 1"));
  CHECK_THAT(slurm.job(endless).admin_comment, Catch::Contains("has no time limit; class `pinned` allows at most 30m"));
  CHECK_THAT(slurm.job(slow).admin_comment,
             Catch::Contains("asks for a time limit of 2h; class `pinned` allows at most 30m"));
  CHECK(slurm.job(fine).admin_comment.empty());
  const auto comments = std::count_if(report.actions.begin(), report.actions.end(),
                                      [](const Action& a) { return a.kind == Action::Kind::class_limit; });
  CHECK(comments == 3);

  // The comments are written once, not every pass.
  slurm.clear_calls();
  pass(*adapter, *policy, kStart + 120);
  CHECK(slurm.calls_of("admin_comment").empty());

  // Slurm starts the greedy job anyway: it is promised no protection, and may be preempted.
  slurm.start(greedy, 0, kStart + 180);
  const auto started = pass(*adapter, *policy, kStart + 240);
  REQUIRE(started.starts.size() == 1);
  CHECK(started.starts[0].class_limit == "asks for 2 GPUs; class `pinned` allows at most 1");
  CHECK(started.starts[0].contract.preemptible);
  CHECK(started.starts[0].contract.protected_until == kStart + 180);
}

TEST_CASE("a new ledger charges from its first pass, or from each job's start with slurm-history; it keeps its choice",
          "[slurm][ledger]") {
  using allot::slurm::ChargeFrom;
  const auto policy = compile(two_team_policy());
  for (const ChargeFrom from : {ChargeFrom::now, ChargeFrom::slurm_history}) {
    const bool now = from == ChargeFrom::now;
    INFO((now ? "--charge-from now" : "--charge-from slurm-history"));
    TempFolder folder("allot-slurm");
    FakeSlurm slurm(1, 8);
    // Ended ten minutes before the adapter's first pass; slurmctld still shows it.
    const std::uint32_t ended = slurm.submit("alpha", 1, kStart - 7200);
    slurm.start(ended, 0, kStart - 7200);
    slurm.finish(ended, kStart - 600);
    // Running for an hour already.
    const std::uint32_t running = slurm.submit("beta", 1, kStart - 3600);
    slurm.start(running, 0, kStart - 3600);
    allot::slurm::AdapterOptions options;
    options.state_path = folder.file("state.db");
    options.charge_from = from;
    {
      auto adapter = allot::slurm::Adapter::open(slurm, two_team_map(), options);
      REQUIRE(adapter);
      const auto first = pass(**adapter, *policy, kStart);
      REQUIRE(first.notes.size() >= 1);
      CHECK_THAT(first.notes[0], Catch::StartsWith("a new ledger:"));
      pass(**adapter, *policy, kStart + 600);
      CHECK(usage_of(**adapter, "alpha", kStart + 600) == Approx(now ? 0.0 : 6600 / 3600.0));
      CHECK(usage_of(**adapter, "beta", kStart + 600) == Approx((now ? 600 : 4200) / 3600.0));
    }
    // Reopened with the other choice, the ledger keeps the one it was made with.
    options.charge_from = now ? ChargeFrom::slurm_history : ChargeFrom::now;
    auto reopened = allot::slurm::Adapter::open(slurm, two_team_map(), options);
    REQUIRE(reopened);
    const auto later = pass(**reopened, *policy, kStart + 1200);
    for (const std::string& note : later.notes) CHECK_THAT(note, !Catch::StartsWith("a new ledger:"));
    CHECK(usage_of(**reopened, "alpha", kStart + 1200) == Approx(now ? 0.0 : 6600 / 3600.0));
    CHECK(usage_of(**reopened, "beta", kStart + 1200) == Approx((now ? 1200 : 4800) / 3600.0));
  }
}

TEST_CASE("a node down after a controller restart, or draining, leaves its jobs to Slurm: no stop is decided",
          "[slurm][preempt]") {
  for (const bool down : {true, false}) {
    INFO((down ? "the node is down (not responding)" : "the node is draining"));
    TempFolder folder("allot-slurm");
    Crowded cluster;
    const auto policy = compile(two_team_policy("10m", "2m"));
    auto adapter = open_adapter(cluster.slurm, folder.file("state.db"));
    pass(*adapter, *policy, kStart + 60);
    (down ? cluster.slurm.node(0).down : cluster.slurm.node(0).drain) = true;
    cluster.slurm.clock = kStart + 120;
    const auto report = pass(*adapter, *policy, kStart + 120);
    for (const auto& decision : report.cycle.decisions) CHECK(decision.kind != allot::runtime::DecisionKind::preempt);
    CHECK(cluster.slurm.calls_of("signal").empty());
    CHECK(cluster.slurm.calls_of("requeue").empty());
    CHECK(report.running == 4);  // still running, still charged
  }
}

TEST_CASE("a preemption the adapter does not enact leaves no preempt decision for the audit", "[slurm][preempt]") {
  TempFolder folder("allot-slurm");
  Crowded cluster;
  const auto policy = compile(two_team_policy("10m", "2m"));
  auto adapter = open_adapter(cluster.slurm, folder.file("state.db"));
  pass(*adapter, *policy, kStart + 60);
  cluster.beta = cluster.slurm.submit("beta", 1, kStart + 5 * kMinute);
  cluster.slurm.refuse("signal", "Access/permission denied");
  cluster.slurm.clock = kStart + 11 * kMinute;
  const auto report = pass(*adapter, *policy, kStart + 11 * kMinute);
  REQUIRE(cluster.slurm.calls_of("signal").size() == 1);  // tried, refused by Slurm
  for (const auto& decision : report.cycle.decisions) CHECK(decision.kind != allot::runtime::DecisionKind::preempt);
}

}  // namespace slurm_test
