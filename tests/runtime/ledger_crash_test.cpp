// The durability promise, tested the hard way: a child process writes a
// planned sequence of charges to the ledger and reports each committed batch
// through a pipe; the parent SIGKILLs it at a random (seeded) moment, reopens
// the ledger and checks that every committed charge is there exactly once.
// Each new child replays the plan from the start, as a restarted driver would.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdint>
#include <random>
#include <set>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "allot/durable_ledger.h"
#include "temp_folder.h"

using allot::runtime::Charge;
using allot::runtime::DurableLedger;
using allot::runtime::LedgerConfig;
using allot::runtime::ResourceUse;
using allot::runtime::RollingLedger;
using allot::runtime::Seconds;

namespace {

constexpr Seconds kStart = 1'796'083'200;  // 2026-12-01T00:00:00Z
constexpr Seconds kInterval = 900;         // quarter hours: every amount is a multiple of 0.25, so sums are exact
constexpr int kJobs = 40;
constexpr int kIntervalsPerJob = 15;
constexpr std::size_t kMaxBatch = 5;
constexpr Seconds kNow = kStart + kIntervalsPerJob * kInterval;

// The writer's plan: every job charged interval by interval, jobs interleaved.
std::vector<Charge> planned_charges() {
  std::vector<Charge> plan;
  for (int step = 0; step < kIntervalsPerJob; ++step) {
    for (int job = 0; job < kJobs; ++job) {
      const Seconds from = kStart + step * kInterval;
      plan.push_back(Charge{fmt::format("program-{}/user-{}", job % 3, job % 5), fmt::format("job-{}", job), from,
                            from + kInterval, ResourceUse{"h100", static_cast<double>(1 + job % 8), 8, 64}});
    }
  }
  return plan;
}

// The usage the first `count` planned charges should leave, each counted once.
std::map<std::string, double> expected_usage(const std::vector<Charge>& plan, std::size_t count) {
  RollingLedger ledger{LedgerConfig{}};
  for (std::size_t i = 0; i < count; ++i) ledger.charge(plan[i]);
  return ledger.usage_by_account(kNow);
}

// The child: charge the plan in batches of random size; after each commit,
// report how much of the plan is committed and wait for the parent's go-ahead
// (so the parent decides, by seed, after which commit the next batch is cut
// short). Never returns.
[[noreturn]] void run_writer(const std::string& path, int report_fd, int go_fd, unsigned seed) {
  auto opened = DurableLedger::open(path, LedgerConfig{});
  if (!opened) _exit(2);
  const std::vector<Charge> plan = planned_charges();
  std::mt19937 random(seed);
  std::uniform_int_distribution<std::size_t> batch_size(1, kMaxBatch);
  for (std::size_t next = 0; next < plan.size();) {
    const std::size_t count = std::min(batch_size(random), plan.size() - next);
    if (!(*opened)->charge_batch(std::span<const Charge>(plan.data() + next, count))) _exit(3);
    next += count;
    const auto committed = static_cast<std::uint32_t>(next);
    char go = 0;
    if (write(report_fd, &committed, sizeof committed) != sizeof committed) _exit(4);
    if (read(go_fd, &go, 1) != 1) _exit(5);
  }
  _exit(0);
}

// Reads one report; false at end of file.
bool read_report(int fd, std::uint32_t& committed) {
  return read(fd, &committed, sizeof committed) == static_cast<ssize_t>(sizeof committed);
}

void let_continue(int go_fd) {
  const char go = 1;
  REQUIRE(write(go_fd, &go, 1) == 1);
}

struct RoundResult {
  std::uint32_t reported = 0;  // the plan prefix the child said was committed
  bool killed = false;
  int exit_code = 0;
};

// A child process with a pipe it reports on and a pipe it waits on.
struct Writer {
  pid_t pid = -1;
  int reports = -1;
  int go = -1;
};

Writer start_writer(const std::string& path, unsigned seed) {
  int report_pipe[2];
  int go_pipe[2];
  REQUIRE(pipe(report_pipe) == 0);
  REQUIRE(pipe(go_pipe) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(report_pipe[0]);
    close(go_pipe[1]);
    run_writer(path, report_pipe[1], go_pipe[0], seed);
  }
  close(report_pipe[1]);
  close(go_pipe[0]);
  return Writer{pid, report_pipe[0], go_pipe[1]};
}

// Runs one writer. Unless this is the last round, lets it make a random number
// of commits beyond what was already stored (its replays of earlier rounds
// commit nothing new), lets it go on once more, and kills it a random 0-6 ms
// later: while it opens, inserts, commits or waits for fsync.
RoundResult run_round(const std::string& path, std::mt19937& random, std::size_t stored, bool kill_it) {
  const Writer writer = start_writer(path, static_cast<unsigned>(random()));
  const int new_commits_before_kill = std::uniform_int_distribution<int>(0, 12)(random);
  RoundResult result;
  std::uint32_t committed = 0;
  for (int seen = 0; !(kill_it && seen >= new_commits_before_kill) && read_report(writer.reports, committed);) {
    result.reported = committed;
    seen += committed > stored ? 1 : 0;
    let_continue(writer.go);
  }
  if (kill_it) {
    usleep(std::uniform_int_distribution<useconds_t>(0, 6000)(random));
    kill(writer.pid, SIGKILL);
  }
  close(writer.go);
  while (read_report(writer.reports, committed)) result.reported = committed;
  close(writer.reports);
  int status = 0;
  waitpid(writer.pid, &status, 0);
  result.killed = WIFSIGNALED(status);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  return result;
}

// How long a prefix of the plan the database holds; fails the test if it holds anything else.
std::size_t stored_prefix(const DurableLedger& ledger, const std::vector<Charge>& plan) {
  const auto keys = ledger.stored_keys();
  REQUIRE(keys);
  const std::set<std::pair<std::string, Seconds>> stored(keys->begin(), keys->end());
  REQUIRE(stored.size() == keys->size());
  std::size_t prefix = 0;
  while (prefix < plan.size() && stored.count({plan[prefix].job_id, plan[prefix].until}) == 1) ++prefix;
  CHECK(stored.size() == prefix);  // nothing beyond the prefix: batches commit whole, in order
  return prefix;
}

}  // namespace

TEST_CASE("every committed charge survives SIGKILL at random points, and none counts twice",
          "[runtime][ledger][durable][crash]") {
  TempFolder folder("allot-ledger-crash");
  const std::string path = folder.file("ledger.db");
  const std::vector<Charge> plan = planned_charges();
  std::mt19937 random(4242);
  std::size_t stored = 0;  // the plan prefix the database held after the previous round
  int kills = 0;
  for (int round = 0; stored < plan.size(); ++round) {
    const bool last_round = round == 60;
    const RoundResult result = run_round(path, random, stored, !last_round);
    INFO("round " << round << ": " << stored << " stored before, child reported " << result.reported);
    REQUIRE(result.exit_code == 0);
    kills += result.killed ? 1 : 0;
    auto reopened = DurableLedger::open(path, LedgerConfig{});
    REQUIRE(reopened);
    const std::size_t prefix = stored_prefix(**reopened, plan);
    const std::size_t known = std::max<std::size_t>(stored, result.reported);
    CHECK(prefix >= known);              // every reported commit is there, and nothing earlier was lost
    CHECK(prefix <= known + kMaxBatch);  // plus at most the batch committed as the child died
    CHECK((*reopened)->ledger().usage_by_account(kNow) == expected_usage(plan, prefix));
    stored = prefix;
    if (last_round) REQUIRE(prefix == plan.size());
  }
  CHECK(kills >= 20);  // the writers really were killed mid-plan
}
