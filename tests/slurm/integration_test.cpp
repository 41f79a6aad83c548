// `allot slurm` against a real Slurm 22.05 (2 nodes x 4 fake GPUs, started by
// tests/slurm/integration.sh): three teams submit with sbatch, the adapter
// runs as a daemon, and the test polls Slurm (never a fixed sleep) until what
// issue 6 promises has happened, checking at every poll that no node has more
// GPUs in use than it has.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "integration_support.h"

namespace integration {
namespace {

using namespace std::chrono_literals;

constexpr int kClusterGpus = 8;
const std::string kData = std::string(ALLOT_SOURCE_DIR) + "/tests/slurm/data";

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream file(path + ".tmp");
  file << text;
  file.close();
  std::filesystem::rename(path + ".tmp", path);  // the adapter never reads half a file
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// A test's files and its adapter, which runs once a second on a fresh ledger.
struct Setup {
  std::string folder;
  std::string policy, map, ledger, audit;
  Adapter adapter;

  // `today`: the governance clock (--now), for review dates and exception expiry;
  // `more`: further arguments of `allot slurm`.
  explicit Setup(const std::string& name, const std::string& today = "2026-12-01",
                 const std::vector<std::string>& more = {})
      : folder(fresh_folder(name)),
        policy(folder + "/policy.allot"),
        map(folder + "/map.toml"),
        ledger(folder + "/ledger.db"),
        audit(folder + "/audit.jsonl"),
        adapter(arguments(today, more), folder + "/adapter.log") {
    std::filesystem::copy_file(kData + "/three_teams.allot", policy);
    std::filesystem::copy_file(kData + "/three_teams_map.toml", map);
  }

  std::vector<std::string> arguments(const std::string& today, const std::vector<std::string>& more) const {
    std::vector<std::string> all{"--policy", policy,    "--map", map,     "--ledger", ledger,     "--interval",
                                 "1s",       "--audit", audit,   "--now", today,      "--engine", "interp"};
    all.insert(all.end(), more.begin(), more.end());
    return all;
  }

  // Audit records of one kind (about one job, when `job` is set).
  std::vector<nlohmann::json> records(const std::string& kind, std::optional<std::uint32_t> job = {}) const {
    std::vector<nlohmann::json> found;
    std::istringstream lines(read_file(audit));
    for (std::string line; std::getline(lines, line);) {
      const auto record = nlohmann::json::parse(line);
      if (record.value("kind", "") != kind) continue;
      if (!job || record.value("job", "") == std::to_string(*job)) found.push_back(record);
    }
    return found;
  }
};

// "2026-12-01T09:30:00Z" -> seconds since the epoch.
std::int64_t epoch(const nlohmann::json& text) {
  std::tm utc{};
  REQUIRE(strptime(text.get<std::string>().c_str(), "%Y-%m-%dT%H:%M:%SZ", &utc) != nullptr);
  return timegm(&utc);
}

bool running(std::uint32_t id) { return job(id).state == "RUNNING"; }

// Fills every GPU with `alpha` jobs of class `long` (protected for the whole test).
std::vector<std::uint32_t> fill_with_alpha() {
  cancel_all();
  std::vector<std::uint32_t> jobs;
  for (int i = 0; i < kClusterGpus; ++i) jobs.push_back(submit("alpha", 1, "long-fill", "sleep 600"));
  wait_until("the alpha jobs fill the cluster", 30s,
             [&] { return std::all_of(jobs.begin(), jobs.end(), [](std::uint32_t id) { return running(id); }); });
  return jobs;
}

// Fills every GPU with `alpha` jobs of class `work` (protected for 20 s, then
// preemptible), and waits until they are past their protection; their nodes by id.
std::map<std::uint32_t, std::string> fill_with_preemptible_alpha() {
  cancel_all();
  std::map<std::uint32_t, std::string> jobs;
  for (int i = 0; i < kClusterGpus; ++i) jobs[submit("alpha", 1, "work-fill", "sleep 600")] = "";
  wait_until("the alpha jobs fill the cluster", 30s, [&] {
    return std::all_of(jobs.begin(), jobs.end(), [](const auto& entry) { return running(entry.first); });
  });
  std::int64_t last_start = 0;
  for (auto& [id, nodes] : jobs) {
    nodes = nodes_of(id);
    last_start = std::max(last_start, job(id).start);
  }
  wait_until("every alpha job is past its protection", 40s,
             [&] { return static_cast<std::int64_t>(std::time(nullptr)) > last_start + 21; });
  return jobs;
}

// The jobs checkpointed for `for_job`, by the audit log.
std::vector<std::uint32_t> victims_for(const Setup& setup, std::uint32_t for_job) {
  std::vector<std::uint32_t> victims;
  for (const nlohmann::json& record : setup.records("checkpoint_signal")) {
    if (record.value("for_job", "") == std::to_string(for_job)) {
      victims.push_back(static_cast<std::uint32_t>(std::stoul(record["job"].get<std::string>())));
    }
  }
  return victims;
}

// Where an adapter started with `--metrics 127.0.0.1:0` listens, from its log.
std::string metrics_url(const Adapter& adapter) {
  const std::string log = adapter.log();
  const std::string said = "metrics, /healthz and /readyz on port ";
  const std::size_t at = log.find(said);
  REQUIRE(at != std::string::npos);
  return "http://127.0.0.1:" + std::to_string(std::stoi(log.substr(at + said.size())));
}

// The body and status of GET `url` ("... 503"), asked every 100 ms until the
// status is `status` or 5 s pass (the adapter updates its probes just after
// it logs a pass). Asks nothing of Slurm, so it works while slurmctld is down.
std::string answer_within(const std::string& url, const std::string& status) {
  std::string answer;
  for (int i = 0; i < 50; ++i) {
    answer = shell("curl -s -w ' %{http_code}' " + url);
    if (answer.size() >= status.size() && answer.compare(answer.size() - status.size(), status.size(), status) == 0) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return answer;
}

}  // namespace

TEST_CASE("pending jobs start in the policy's order as GPUs free", "[slurm_integration]") {
  const std::vector<std::uint32_t> fill = fill_with_alpha();
  Setup setup("order");
  setup.adapter.start();
  setup.adapter.wait_passes(2);  // alpha is charged: it is over its share, beta and gamma are not
  const std::uint32_t a = submit("alpha", 1, "work-a", "sleep 600");
  const std::uint32_t c = submit("gamma", 1, "work-c", "sleep 600");
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  // The policy's order: below-share teams first, the larger share first among them.
  wait_until("priorities follow the rank: beta, gamma, alpha", 20s, [&] {
    const auto all = queue();
    return all.at(b).priority > all.at(c).priority && all.at(c).priority > all.at(a).priority &&
           all.at(a).priority >= 1000;
  });
  std::size_t freed = 0;
  for (const std::uint32_t expected : {b, c, a}) {
    shell("scancel " + std::to_string(fill[freed++]));
    wait_until("job " + std::to_string(expected) + " starts", 30s, [&] { return running(expected); });
    for (std::uint32_t other : {a, b, c}) {
      if (other == expected || running(other)) continue;
      CHECK(job(other).state == "PENDING");
    }
  }
  setup.adapter.signal(SIGTERM);
}

TEST_CASE(
    "an over-share job past protection is checkpointed then requeued for an under-share job; protected ones are not",
    "[slurm_integration]") {
  cancel_all();
  std::vector<std::uint32_t> protected_jobs, preemptible;
  for (int i = 0; i < kClusterGpus / 2; ++i) protected_jobs.push_back(submit("alpha", 1, "long-fill", "sleep 600"));
  for (int i = 0; i < kClusterGpus / 2; ++i)
    preemptible.push_back(submit("alpha", 1, "work-ckpt", checkpointing_script()));
  wait_until("alpha fills the cluster", 30s, [&] {
    return std::all_of(preemptible.begin(), preemptible.end(), running) &&
           std::all_of(protected_jobs.begin(), protected_jobs.end(), running);
  });
  Setup setup("preempt");
  setup.adapter.start();
  const std::uint32_t beta = submit("beta", 1, "work-beta", "sleep 600");
  wait_until("beta's job runs", 90s, [&] { return running(beta); });

  std::vector<std::uint32_t> requeued;
  for (std::uint32_t id : preemptible) {
    if (job(id).restarts > 0) requeued.push_back(id);
  }
  REQUIRE(requeued.size() == 1);  // one GPU was needed, one job gave it up
  for (std::uint32_t id : protected_jobs) {
    CHECK(job(id).restarts == 0);
    CHECK(running(id));
    CHECK(setup.records("checkpoint_signal", id).empty());
  }
  const std::uint32_t victim = requeued.front();
  const auto contract = setup.records("contract", victim);
  const auto signal = setup.records("checkpoint_signal", victim);
  const auto requeue = setup.records("requeue", victim);
  REQUIRE(contract.size() == 1);
  REQUIRE(signal.size() == 1);
  REQUIRE(requeue.size() == 1);
  CHECK(signal[0]["for_job"] == std::to_string(beta));
  // Not before its protection ended; requeued only after the class's 5 s grace.
  CHECK(epoch(signal[0]["time"]) >= epoch(contract[0]["contract"]["protected_until"]));
  CHECK(epoch(requeue[0]["time"]) - epoch(signal[0]["time"]) >= 5);
  CHECK(requeue[0]["lost_gpu_seconds"].get<double>() >= 0);
  // The job trapped the signal and wrote its marker before it was requeued.
  const std::string marker = work_folder() + "/" + std::to_string(victim) + ".usr1";
  REQUIRE(std::filesystem::exists(marker));
  const std::int64_t marked_ns = std::stoll(read_file(marker));
  CHECK(marked_ns / 1'000'000'000 <= epoch(requeue[0]["time"]));
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("a policy swapped mid-run takes effect and a broken one is refused", "[slurm_integration]") {
  fill_with_alpha();
  Setup setup("swap");
  setup.adapter.start();
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  const std::uint32_t c = submit("gamma", 1, "work-c", "sleep 600");
  wait_until("beta (35%) ranks above gamma (25%)", 20s, [&] { return job(b).priority > job(c).priority; });

  const std::string original = read_file(setup.policy);
  const std::string swapped = replaced(replaced(original, "beta 35%", "beta 25%"), "gamma 25%", "gamma 35%");
  write_file(setup.policy, swapped);
  wait_until("the new shares put gamma above beta", 30s, [&] { return job(c).priority > job(b).priority; });
  CHECK_THAT(setup.adapter.log(), Catch::Contains("swapped to"));

  // A unit weight for a GPU type Slurm's nodes lack (theirs are `gpu`) runs, with a warning in the log.
  CHECK_THAT(setup.adapter.log(), !Catch::Contains("WARNING unit:"));
  write_file(setup.policy, replaced(swapped, "    gpu = 1.0\n", "    gpus = 1.0\n"));
  wait_until("the misspelt unit is warned about", 30s, [&] {
    return setup.adapter.log().find(
               "WARNING unit: the unit weighs GPU type `gpus`, which the cluster does not have; "
               "did you mean `gpu`?") != std::string::npos;
  });
  setup.adapter.wait_passes(2);
  const std::string log = setup.adapter.log();
  CHECK(log.find("WARNING unit:") == log.rfind("WARNING unit:"));  // once, not once a pass

  write_file(setup.policy, replaced(swapped, "rank =", "rank = = broken"));
  setup.adapter.signal(SIGHUP);
  wait_until("the broken policy is refused", 30s,
             [&] { return setup.adapter.log().find("refused: ") != std::string::npos; });
  CHECK_THAT(setup.adapter.log(), Catch::Contains("policy.allot:"));  // its diagnostics, with their location
  setup.adapter.wait_passes(3);
  CHECK(job(c).priority > job(b).priority);  // the swapped policy keeps running
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("the mapping file reloads with the policy, and a broken pair is refused and audited", "[slurm_integration]") {
  fill_with_alpha();
  Setup setup("map-reload");
  setup.adapter.start();
  // Slurm account `delta` is not in the tree: the job is left alone, at Slurm's own priority.
  const std::uint32_t d = submit("delta", 1, "work-d", "sleep 600");
  const std::uint32_t c = submit("gamma", 1, "work-c", "sleep 600");
  wait_until("gamma's job is ranked", 20s, [&] { return job(c).priority >= 1000; });
  setup.adapter.wait_passes(2);
  CHECK(job(d).priority < 1000);

  // The new map sends `delta` to gamma: swapped together with the (unchanged) policy.
  const std::string original = read_file(setup.map);
  write_file(setup.map, replaced(original, "[[account]]\naccount = \"{account}\"",
                                 "[[account]]\nslurm_account = \"delta\"\naccount = \"gamma\"\n\n"
                                 "[[account]]\naccount = \"{account}\""));
  setup.adapter.signal(SIGHUP);
  wait_until("delta's job is ranked under the new map", 30s, [&] { return job(d).priority >= 1000; });
  REQUIRE(setup.records("map_reload").size() == 1);
  CHECK(setup.records("map_reload")[0]["map_changed"] == true);
  CHECK(setup.records("map_reload")[0]["policy_changed"] == false);

  // A map naming an account the policy lacks is refused with its line; the old pair keeps running.
  write_file(setup.map, replaced(read_file(setup.map), "account = \"gamma\"", "account = \"gama\""));
  wait_until("the broken map is refused", 30s, [&] { return !setup.records("reload_refused").empty(); });
  const nlohmann::json refused = setup.records("reload_refused")[0];
  CHECK_THAT(refused["reason"].get<std::string>(), Catch::Contains("map.toml:"));
  CHECK_THAT(refused["reason"].get<std::string>(), Catch::Contains("gama"));
  CHECK_THAT(setup.adapter.log(), Catch::Contains("keeps running with its mapping file"));
  setup.adapter.wait_passes(2);
  CHECK(job(d).priority >= 1000);
  CHECK(setup.records("reload_refused").size() == 1);  // not retried until a file changes

  // A policy that does not compile: refused with its diagnostics, in the log and the audit log.
  write_file(setup.map, original);
  write_file(setup.policy, replaced(read_file(setup.policy), "rank =", "rank = = broken"));
  wait_until("the broken policy is refused", 30s, [&] { return setup.records("reload_refused").size() == 2; });
  const nlohmann::json broken = setup.records("reload_refused")[1];
  REQUIRE_FALSE(broken["diagnostics"].empty());
  CHECK_THAT(broken["diagnostics"][0].get<std::string>(), Catch::Contains("policy.allot:"));
  CHECK_THAT(broken["diagnostics"][0].get<std::string>(), Catch::Contains("error[syntax_error]"));
  CHECK(setup.records("policy_swap").empty());
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("review dates that pass are loud warnings and the adapter keeps scheduling", "[slurm_integration]") {
  fill_with_alpha();
  // three_teams.allot's reviews fall due on 2027-01-31: `allot check` fails on 2027-03-01...
  std::string output;
  CHECK(run_allot({"check", "--now", "2027-03-01", kData + "/three_teams.allot"}, output) == 1);
  // ...and the adapter starts, ranks and preempts as on any other day.
  Setup setup("governance", "2027-03-01");
  setup.adapter.start();
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  const std::uint32_t c = submit("gamma", 1, "work-c", "sleep 600");
  wait_until("beta and gamma are ranked", 20s, [&] { return job(b).priority >= 1000 && job(c).priority >= 1000; });
  setup.adapter.wait_passes(2);
  const std::vector<nlohmann::json> notices = setup.records("governance");
  REQUIRE(notices.size() == 3);  // once each for alpha, beta and gamma, not once a pass
  CHECK(notices[0]["code"] == "review_date_passed");
  CHECK(notices[0]["subject"] == "alpha");
  CHECK(notices[0]["date"] == "2027-01-31");
  CHECK_THAT(setup.adapter.log(),
             Catch::Contains("warning[review_date_passed]: review of `alpha` was due on 2027-01-31"));
  CHECK_THAT(setup.adapter.log(), Catch::Contains("WARNING governance: review of `beta` was due on 2027-01-31"));
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("the live state is a snapshot that allot explain and allot shares read", "[slurm_integration]") {
  fill_with_alpha();
  const std::string snapshot = work_folder() + "/live-state.toml";
  Setup setup("snapshot", "2026-12-01", {"--snapshot", snapshot});
  setup.adapter.start();
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  wait_until("beta's job is ranked", 20s, [&] { return job(b).priority >= 1000; });
  setup.adapter.wait_passes(2);

  // A researcher asks why the job waits, on the live cluster, as on a file.
  std::string why;
  REQUIRE(run_allot({"explain", std::to_string(b), "--policy", setup.policy, "--state", snapshot, "--engine", "interp"},
                    why) == 0);
  INFO(why);
  CHECK_THAT(why, Catch::Contains("Job `" + std::to_string(b) + "` (beta, class `work`) is waiting"));
  CHECK_THAT(why, Catch::Contains("beta"));
  // When it may run, and which of alpha's running jobs it waits for.
  CHECK_THAT(why, Catch::Matches("[\\s\\S]*Next opportunity to run: [^\\n]* when `[0-9]+` stops[\\s\\S]*"));
  std::string shares;
  REQUIRE(run_allot({"shares", "--policy", setup.policy, "--state", snapshot, "--engine", "interp"}, shares) == 0);
  INFO(shares);
  CHECK_THAT(shares, Catch::Contains("gamma"));
  // The running jobs with the contracts they started under, and the pass's own decisions reproduce.
  std::string cycle;
  REQUIRE(run_allot({"cycle", "--policy", setup.policy, "--state", snapshot, "--engine", "interp"}, cycle) == 0);
  CHECK_THAT(read_file(snapshot), Catch::Contains("protected_until"));
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("a stop is not held up by a controller that does not answer", "[slurm_integration]") {
  cancel_all();
  Setup setup("outage", "2026-12-01", {"--metrics", "127.0.0.1:0"});
  setup.adapter.start();
  setup.adapter.wait_passes(1);
  const std::string probe = metrics_url(setup.adapter) + "/readyz";
  CHECK_THAT(answer_within(probe, "200"), Catch::EndsWith(" 200"));
  const std::string sandbox = std::string(ALLOT_SOURCE_DIR) + "/scripts/slurm-sandbox.sh";
  shell("bash '" + sandbox + "' restart-ctld down 2>&1");
  // No wait_until here: it asks Slurm, which is down.
  const auto failed_pass = [&] { return setup.adapter.log().find("pass failed") != std::string::npos; };
  for (int i = 0; i < 300 && !failed_pass(); ++i) std::this_thread::sleep_for(100ms);
  REQUIRE(failed_pass());
  // Not ready while passes fail, and the listener answers all the same.
  CHECK_THAT(answer_within(probe, "503"),
             Catch::StartsWith("not ready: the last pass failed") && Catch::EndsWith(" 503"));
  // The next pass starts a second after the failed one and waits on libslurm (MessageTimeout, 10 s here).
  std::this_thread::sleep_for(1500ms);
  const auto asked = std::chrono::steady_clock::now();
  setup.adapter.signal(SIGTERM);
  const auto took = std::chrono::steady_clock::now() - asked;
  CHECK(took < 5s);
  CHECK_THAT(setup.adapter.log(), Catch::Contains("the pass is abandoned as if killed"));
  shell("bash '" + sandbox + "' restart-ctld up 2>&1");
  wait_until("the nodes answer the restarted controller", 60s,
             [] { return shell("sinfo -h -N -o '%t'").find('*') == std::string::npos; });
}

TEST_CASE("killing and restarting the adapter charges no job twice", "[slurm_integration]") {
  cancel_all();
  const std::uint32_t two = submit("alpha", 2, "long-two", "sleep 600");
  const std::uint32_t one = submit("beta", 1, "long-one", "sleep 600");
  wait_until("both jobs run", 30s, [&] { return running(two) && running(one); });
  // The jobs started before the ledger existed: charged from their start in Slurm.
  Setup setup("restart", "2026-12-01", {"--charge-from", "slurm-history"});
  for (int round = 0; round < 3; ++round) {
    setup.adapter.start();
    setup.adapter.wait_passes(3);
    setup.adapter.signal(SIGKILL);
    const std::time_t killed = std::time(nullptr);
    wait_until("a second passes with no adapter", 10s, [&] { return std::time(nullptr) >= killed + 2; });
  }
  shell("scancel " + std::to_string(two) + " " + std::to_string(one));
  wait_until("both jobs end", 30s,
             [&] { return job(two).end > 0 && job(one).end > 0 && !running(two) && !running(one); });
  setup.adapter.start();
  setup.adapter.wait_passes(2);  // sees them ended and charges their last seconds
  setup.adapter.signal(SIGTERM);

  for (const std::uint32_t id : {two, one}) {
    const QueuedJob ended = job(id);
    std::vector<StoredCharge> charges;
    for (const StoredCharge& charge : stored_charges(setup.ledger)) {
      if (charge.job == std::to_string(id)) charges.push_back(charge);
    }
    INFO("job " << id << " ran " << ended.start << ".." << ended.end << "; " << charges.size() << " charges");
    REQUIRE(charges.size() >= 4);  // charged across the restarts
    CHECK(charges.front().from == ended.start);
    CHECK(charges.back().until == ended.end);
    for (std::size_t i = 1; i < charges.size(); ++i) CHECK(charges[i].from == charges[i - 1].until);
  }
}

// The adapter killed inside its passes, where a crash hurts (slurm/src/crash_point.h):
// right after a charge commits, after a checkpoint signal before the preemption
// is stored, after a requeue before the preemption is removed, after a
// priority write. Restarted each time, it must charge every run exactly from
// Slurm's start to Slurm's end, requeue the victim once, and never hand out a
// GPU twice.
TEST_CASE("an adapter killed in the middle of its passes charges, signals and requeues nothing twice",
          "[slurm_integration]") {
  cancel_all();
  std::vector<std::uint32_t> protected_jobs, preemptible;
  for (int i = 0; i < kClusterGpus / 2; ++i) protected_jobs.push_back(submit("alpha", 1, "long-fill", "sleep 600"));
  for (int i = 0; i < kClusterGpus / 2; ++i)
    preemptible.push_back(submit("alpha", 1, "work-ckpt", checkpointing_script()));
  wait_until("alpha fills the cluster", 30s, [&] {
    return std::all_of(preemptible.begin(), preemptible.end(), running) &&
           std::all_of(protected_jobs.begin(), protected_jobs.end(), running);
  });
  Setup setup("crash-points", "2026-12-01", {"--charge-from", "slurm-history"});
  const auto crash_at = [&](const std::string& point, std::chrono::seconds timeout) {
    INFO("crash point " << point);
    ::setenv("ALLOT_SLURM_CRASH_AT", point.c_str(), 1);
    setup.adapter.start();
    ::unsetenv("ALLOT_SLURM_CRASH_AT");
    const auto ended = setup.adapter.wait_end(timeout);
    if (!ended) setup.adapter.signal(SIGKILL);
    return ended;
  };
  CHECK(crash_at("charged:2", 60s) == std::optional<int>(SIGKILL));
  const std::uint32_t beta = submit("beta", 1, "work-beta", "sleep 600");
  CHECK(crash_at("signalled:1", 60s) == std::optional<int>(SIGKILL));
  CHECK(crash_at("requeued:1", 60s) == std::optional<int>(SIGKILL));
  crash_at("prioritised:1", 15s);  // a pass may have no priority to change
  setup.adapter.start();
  wait_until("beta's job runs", 90s, [&] { return running(beta); });
  setup.adapter.wait_passes(2);

  int requeued = 0;
  for (std::uint32_t id : preemptible) requeued += job(id).restarts;
  CHECK(requeued == 1);  // one GPU was needed; no crash made it two
  for (std::uint32_t id : protected_jobs) CHECK(job(id).restarts == 0);

  std::vector<std::uint32_t> never_requeued = protected_jobs;
  never_requeued.push_back(beta);
  for (std::uint32_t id : preemptible) {
    if (job(id).restarts == 0) never_requeued.push_back(id);
  }
  std::string ids;
  for (std::uint32_t id : never_requeued) ids += " " + std::to_string(id);
  shell("scancel" + ids);
  wait_until("the jobs end", 30s, [&] {
    return std::all_of(never_requeued.begin(), never_requeued.end(),
                       [](std::uint32_t id) { return job(id).end > 0 && !running(id); });
  });
  setup.adapter.wait_passes(2);  // sees them ended and charges their last seconds
  setup.adapter.signal(SIGTERM);
  const auto charges = stored_charges(setup.ledger);
  for (const std::uint32_t id : never_requeued) {
    const QueuedJob ended = job(id);
    std::vector<StoredCharge> own;
    for (const StoredCharge& charge : charges) {
      if (charge.job == std::to_string(id)) own.push_back(charge);
    }
    INFO("job " << id << " ran " << ended.start << ".." << ended.end << "; " << own.size() << " charges");
    REQUIRE_FALSE(own.empty());
    CHECK(own.front().from == ended.start);
    CHECK(own.back().until == ended.end);
    for (std::size_t i = 1; i < own.size(); ++i) CHECK(own[i].from == own[i - 1].until);
  }
  shell("scancel -u root || true");
}

TEST_CASE("a dry run prints its decisions and writes nothing", "[slurm_integration]") {
  fill_with_alpha();
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  const std::string folder = fresh_folder("dry_run");
  std::string output;
  const int status =
      run_allot({"slurm", "--policy", kData + "/three_teams.allot", "--map", kData + "/three_teams_map.toml",
                 "--ledger", folder + "/ledger.db", "--once", "--dry-run", "--now", "2026-12-01"},
                output);
  INFO(output);
  CHECK(status == 0);
  CHECK_THAT(output, Catch::Contains("would set priority of job " + std::to_string(b)));
  CHECK(job(b).priority == 1);  // still Slurm's own
  CHECK_FALSE(std::filesystem::exists(folder + "/ledger.db"));
  cancel_all();
}

TEST_CASE("jobs Slurm holds back are ranked but preempt no one: a dependency, a hold, a begin time",
          "[slurm_integration]") {
  const std::map<std::uint32_t, std::string> fill = fill_with_preemptible_alpha();
  const std::string snapshot = work_folder() + "/held-back-state.toml";
  Setup setup("held-back", "2026-12-01", {"--snapshot", snapshot});
  setup.adapter.start();
  const std::uint32_t dependent =
      submit("beta", 1, "work-dependent", "sleep 600", "--dependency=afterok:" + std::to_string(fill.begin()->first));
  const std::uint32_t held = submit("gamma", 1, "work-held", "sleep 600", "--hold");
  const std::uint32_t later = submit("beta", 1, "work-later", "sleep 600", "--begin=now+1hour");
  wait_until("the dependent and the delayed jobs are ranked", 20s,
             [&] { return job(dependent).priority >= 1000 && job(later).priority >= 1000; });
  setup.adapter.wait_passes(6);  // every alpha job is past its protection all along
  CHECK(setup.records("checkpoint_signal").empty());
  CHECK(setup.records("requeue").empty());
  for (const auto& [id, nodes] : fill) CHECK(running(id));
  CHECK(job(held).priority == 0);  // a held job keeps its hold: Allot writes no priority to it

  // `allot explain` on the live state says why the dependent job waits.
  std::string why;
  REQUIRE(run_allot({"explain", std::to_string(dependent), "--policy", setup.policy, "--state", snapshot, "--engine",
                     "interp"},
                    why) == 0);
  INFO(why);
  CHECK_THAT(why, Catch::Contains("dependency"));  // the explanation wraps lines between words
  CHECK_THAT(why, Catch::Contains("`afterok:" + std::to_string(fill.begin()->first)));
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("preemption frees GPUs only on the nodes a job may run on: partition, constraint, node list",
          "[slurm_integration]") {
  // The sandbox: n1 has feature `ib`; partition `small` is n2 alone.
  const std::map<std::uint32_t, std::string> fill = fill_with_preemptible_alpha();
  Setup setup("constraints");
  setup.adapter.start();
  const std::uint32_t on_ib = submit("beta", 1, "work-ib", "sleep 600", "--constraint=ib");
  const std::uint32_t small = submit("gamma", 1, "work-small", "sleep 600", "-p small");
  const std::uint32_t listed = submit("beta", 1, "work-listed", "sleep 600", "--nodelist=n2");
  wait_until("the three jobs run", 90s, [&] { return running(on_ib) && running(small) && running(listed); });
  CHECK(nodes_of(on_ib) == "n1");
  CHECK(nodes_of(small) == "n2");
  CHECK(nodes_of(listed) == "n2");
  const std::map<std::uint32_t, std::string> wanted = {{on_ib, "n1"}, {small, "n2"}, {listed, "n2"}};
  for (const auto& [waiting, node] : wanted) {
    const std::vector<std::uint32_t> victims = victims_for(setup, waiting);
    INFO("job " << waiting << " on " << node);
    CHECK(victims.size() == 1);
    for (std::uint32_t victim : victims) CHECK(fill.at(victim) == node);
  }
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("an exclusive job gets a whole node emptied for it", "[slurm_integration]") {
  const std::map<std::uint32_t, std::string> fill = fill_with_preemptible_alpha();
  Setup setup("exclusive");
  setup.adapter.start();
  const std::uint32_t whole = submit("beta", 1, "work-whole", "sleep 600", "--exclusive");
  wait_until("the exclusive job runs", 90s, [&] { return running(whole); });
  const std::string node = nodes_of(whole);
  const std::vector<std::uint32_t> victims = victims_for(setup, whole);
  CHECK(victims.size() == static_cast<std::size_t>(kClusterGpus / 2));  // every job on its node, no other
  for (std::uint32_t victim : victims) CHECK(fill.at(victim) == node);
  for (const auto& [id, queued] : queue()) {
    if (id != whole && queued.state == "RUNNING") CHECK(nodes_of(id) != node);
  }
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("a job in an advance reservation takes capacity only inside it", "[slurm_integration]") {
  const std::map<std::uint32_t, std::string> fill = fill_with_preemptible_alpha();
  shell(
      "scontrol create reservation ReservationName=allot-test StartTime=now Duration=30 Nodes=n1 "
      "Users=$(id -un) Flags=IGNORE_JOBS");
  struct Deleted {  // whatever the test's outcome, later tests see no reservation
    // Slurm refuses to delete a reservation while jobs run in it: cancel them first.
    ~Deleted() {
      (void)std::system(
          "scancel --full --quiet --reservation=allot-test; for i in $(seq 30); do "
          "scontrol delete ReservationName=allot-test >/dev/null 2>&1 && break; sleep 1; done");
    }
  } deleted;
  Setup setup("reservation");
  setup.adapter.start();
  const std::uint32_t inside = submit("beta", 1, "work-inside", "sleep 600", "--reservation=allot-test");
  wait_until("the reserved job runs", 90s, [&] { return running(inside); });
  CHECK(nodes_of(inside) == "n1");
  const std::vector<std::uint32_t> victims = victims_for(setup, inside);
  CHECK(victims.size() == 1);
  for (std::uint32_t victim : victims) CHECK(fill.at(victim) == "n1");
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("a job that breaks its class's limits is ranked last and told why in its admin comment",
          "[slurm_integration]") {
  fill_with_alpha();
  Setup setup("class-limits");
  // Class `small` (jobs named small-*) allows one GPU for ten minutes.
  write_file(setup.policy,
             replaced(read_file(setup.policy), "  class long {",
                      "  class small {\n    max_gpus 1\n    max_runtime 10m\n    resumable\n  }\n\n  class long {"));
  write_file(setup.map, replaced(read_file(setup.map), "[[class]]\nname = \"long-*\"",
                                 "[[class]]\nname = \"small-*\"\nclass = \"small\"\n\n[[class]]\nname = \"long-*\""));
  setup.adapter.start();
  const std::uint32_t fine = submit("beta", 1, "small-fine", "sleep 600", "--time=5");
  const std::uint32_t greedy = submit("beta", 2, "small-greedy", "sleep 600", "--time=5");
  const std::uint32_t slow = submit("gamma", 1, "small-slow", "sleep 600", "--time=60");
  auto admin_comment = [](std::uint32_t id) {
    const std::string shown = shell(fmt::format("scontrol show job -o {}", id));
    const std::size_t at = shown.find("AdminComment=");
    return at == std::string::npos ? std::string() : shown.substr(at + 13, shown.find('\n', at) - at - 13);
  };
  wait_until("both breaking jobs are told why", 20s,
             [&] { return !admin_comment(greedy).empty() && !admin_comment(slow).empty(); });
  setup.adapter.wait_passes(2);
  CHECK(job(fine).priority > 1000);
  CHECK(job(greedy).priority == 1000);
  CHECK(job(slow).priority == 1000);
  CHECK_THAT(admin_comment(greedy), Catch::Contains("asks for 2 GPUs; class `small` allows at most 1"));
  CHECK_THAT(admin_comment(slow), Catch::Contains("asks for a time limit of 1h; class `small` allows at most 10m"));
  CHECK(admin_comment(fine).empty());
  CHECK(setup.records("class_limit").size() == 2);  // each told once
  setup.adapter.signal(SIGTERM);
}

// One sample's value in a Prometheus exposition (`name` with its labels as
// rendered); NaN when it is not there.
double sample(const std::string& exposition, const std::string& name) {
  std::istringstream lines(exposition);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return std::nan("");
}

TEST_CASE(
    "metrics: promtool accepts them, they count what the passes did, the probes answer; a new ledger charges from now",
    "[slurm_integration]") {
  fill_with_alpha();
  // 2027-03-01: three reviews are past due (governance warnings).
  Setup setup("metrics", "2027-03-01", {"--metrics", "127.0.0.1:0"});
  const std::int64_t started = std::time(nullptr);
  setup.adapter.start();
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  wait_until("beta is ranked", 20s, [&] { return job(b).priority >= 1000; });
  setup.adapter.wait_passes(2);
  const std::string url = metrics_url(setup.adapter);
  auto metrics = [&] { return shell("curl -sSf " + url + "/metrics"); };

  const std::string exposition = metrics();
  CHECK(sample(exposition, "allot_slurm_governance_warnings") == 3);
  CHECK(sample(exposition, "allot_slurm_passes_total{outcome=\"ok\"}") >= 2);
  CHECK(sample(exposition, "allot_slurm_passes_total{outcome=\"failed\"}") == 0);
  CHECK(sample(exposition, "allot_slurm_writes_total{kind=\"set_priority\",outcome=\"done\"}") >= 1);
  CHECK(sample(exposition, "allot_slurm_running_jobs") == kClusterGpus);
  CHECK(sample(exposition, "allot_slurm_pending_jobs") == 1);
  CHECK(sample(exposition, "allot_slurm_charged_usage_total") > 0);
  CHECK(sample(exposition, "allot_slurm_ledger_lag_seconds") < 10);
  CHECK(sample(exposition, "allot_slurm_pass_duration_seconds_count") >= 2);
  CHECK(sample(exposition, "allot_slurm_policy_generation") == 0);
  // Prometheus's own checker reads it without an error or a lint warning.
  const std::string file = setup.folder + "/metrics.txt";
  write_file(file, exposition);
  CHECK(shell("promtool check metrics < " + file + " 2>&1").empty());

  CHECK(answer_within(url + "/healthz", "200") == "ok\n 200");
  CHECK(answer_within(url + "/readyz", "200") == "ready\n 200");

  // logrotate's turn: the audit log is moved away, and SIGHUP (its postrotate)
  // makes the adapter write a new one. A refused reload is counted, and the
  // policy running stays generation 0.
  std::filesystem::rename(setup.audit, setup.audit + ".1");
  write_file(setup.policy, "policy broken {");
  setup.adapter.signal(SIGHUP);
  wait_until("the refused reload is counted", 20s,
             [&] { return sample(metrics(), "allot_slurm_reloads_total{outcome=\"refused\"}") == 1; });
  CHECK(sample(metrics(), "allot_slurm_policy_generation") == 0);
  wait_until("the refusal is in the new audit log", 10s,
             [&] { return std::filesystem::exists(setup.audit) && !setup.records("reload_refused").empty(); });
  setup.adapter.signal(SIGTERM);

  // A new ledger charges from its first pass (--charge-from now, the default):
  // the alpha jobs' GPU time before the adapter started is not charged.
  CHECK_THAT(setup.adapter.log(), Catch::Contains("a new ledger: usage is charged from now"));
  const std::vector<StoredCharge> charges = stored_charges(setup.ledger);
  CHECK(!charges.empty());
  for (const StoredCharge& charge : charges) CHECK(charge.from >= started);
}

TEST_CASE("a controller restart and a draining node stop no job and leave no stop in the audit log",
          "[slurm_integration]") {
  // Every GPU held by preemptible jobs past their protection: a stop decided for
  // a node that looks down would signal them.
  const std::map<std::uint32_t, std::string> fill = fill_with_preemptible_alpha();
  Setup setup("phantoms");
  setup.adapter.start();
  setup.adapter.wait_passes(2);
  const std::string sandbox = std::string(ALLOT_SOURCE_DIR) + "/scripts/slurm-sandbox.sh";
  // Restarted on its saved state, slurmctld shows the nodes not responding until they report in.
  shell("bash '" + sandbox + "' restart-ctld 2>&1");
  setup.adapter.wait_passes(3);
  shell("scontrol update NodeName=n1 State=DRAIN Reason=allot-test");
  setup.adapter.wait_passes(3);
  shell("scontrol update NodeName=n1 State=RESUME");
  wait_until("the nodes answer the restarted controller", 60s,
             [] { return shell("sinfo -h -N -o '%t'").find_first_of("*~#!%") == std::string::npos; });
  setup.adapter.wait_passes(1);
  setup.adapter.signal(SIGTERM);
  for (const auto& [id, node] : fill) {
    INFO("job " << id << " on " << node);
    CHECK(running(id));
    CHECK(job(id).restarts == 0);
  }
  CHECK(setup.records("preempt").empty());
  CHECK(setup.records("checkpoint_signal").empty());
  CHECK(setup.records("requeue").empty());
}

TEST_CASE(
    "Slurm starts what Allot decided: GPUs freed for a job go to it, not to work submitted while the "
    "adapter was down",
    "[slurm_integration]") {
  const std::map<std::uint32_t, std::string> fill = fill_with_preemptible_alpha();
  // While no adapter runs: a small job of an account the map does not place. With
  // every multifactor weight 0 it sits at priority 1, and so does every new job.
  const std::uint32_t unranked = submit("zeta", 1, "work-zeta", "sleep 600", "--time=1");
  const std::uint32_t wide = submit("beta", kClusterGpus / 2, "work-wide", "sleep 600");
  CHECK(job(unranked).priority == 1);
  CHECK(job(wide).priority == 1);
  Setup setup("respects");
  setup.adapter.start();
  setup.adapter.wait_passes(1);
  // The first pass ranked the job submitted while it was down...
  CHECK(job(wide).priority >= 1000);
  CHECK(job(unranked).priority == 1);
  // ...and emptied a node for it: Slurm starts it there, not the older, smaller
  // job that would fit in the freed GPUs and is not Allot's to run first.
  wait_until("the wide job runs", 90s, [&] { return running(wide); });
  CHECK(!running(unranked));
  CHECK(victims_for(setup, wide).size() == static_cast<std::size_t>(kClusterGpus / 2));
  setup.adapter.signal(SIGTERM);
}

TEST_CASE("a ledger backed up with sqlite3 .backup while the adapter runs restores: charging goes on, nothing twice",
          "[slurm_integration]") {
  cancel_all();
  const std::uint32_t two = submit("alpha", 2, "long-two", "sleep 600");
  wait_until("the job runs", 30s, [&] { return running(two); });
  Setup setup("backup", "2026-12-01", {"--charge-from", "slurm-history"});
  setup.adapter.start();
  setup.adapter.wait_passes(3);
  // docs/SLURM.md "Backup and restore": SQLite's online backup of the live ledger.
  const std::string backup = setup.folder + "/backup.db";
  shell("sqlite3 '" + setup.ledger + "' \".backup '" + backup + "'\"");
  CHECK(shell("sqlite3 '" + backup + "' 'PRAGMA integrity_check'") == "ok\n");
  setup.adapter.wait_passes(3);  // charges after the backup, which the restore loses
  setup.adapter.signal(SIGTERM);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(setup.ledger + suffix);
  std::filesystem::copy_file(backup, setup.ledger);
  std::filesystem::permissions(setup.ledger, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  setup.adapter.start();
  setup.adapter.wait_passes(2);
  shell("scancel " + std::to_string(two));
  wait_until("the job ends", 30s, [&] { return job(two).end > 0 && !running(two); });
  setup.adapter.wait_passes(2);
  setup.adapter.signal(SIGTERM);

  // From the backup's marks on, every second of the run is charged once, up to its end.
  const QueuedJob ended = job(two);
  std::vector<StoredCharge> charges;
  for (const StoredCharge& charge : stored_charges(setup.ledger)) {
    if (charge.job == std::to_string(two)) charges.push_back(charge);
  }
  REQUIRE(charges.size() >= 2);
  CHECK(charges.front().from == ended.start);
  CHECK(charges.back().until == ended.end);
  for (std::size_t i = 1; i < charges.size(); ++i) CHECK(charges[i].from == charges[i - 1].until);
}

TEST_CASE("--serve: the dashboard and the read API of `allot serve` on the adapter's live state, beside its metrics",
          "[slurm_integration]") {
  const std::vector<std::uint32_t> alpha = fill_with_alpha();
  Setup setup("serve", "2026-12-01", {"--serve", "127.0.0.1:0"});
  setup.adapter.start();
  const std::uint32_t b = submit("beta", 1, "work-b", "sleep 600");
  wait_until("beta is ranked", 20s, [&] { return job(b).priority >= 1000; });
  setup.adapter.wait_passes(2);
  const std::string url = metrics_url(setup.adapter);
  CHECK_THAT(setup.adapter.log(), Catch::Contains("the dashboard and the read API on port "));
  auto get = [&](const std::string& path) { return nlohmann::json::parse(shell("curl -sSf " + url + path)); };

  const nlohmann::json overview = get("/overview");
  CHECK(overview.at("driver") == "slurm");
  CHECK(overview.at("cycle").get<int>() >= 2);
  CHECK(overview.at("running") == kClusterGpus);
  CHECK(overview.at("pending") == 1);
  CHECK(overview.at("cluster").at("gpus_busy") == kClusterGpus);

  // The queue and a job's explanation, as Slurm's jobs are named: by their ids.
  const nlohmann::json queue = get("/queue");
  REQUIRE(queue.at("jobs").size() == 1);
  CHECK(queue.at("jobs").at(0).at("id") == std::to_string(b));
  CHECK(queue.at("jobs").at(0).at("account") == "beta");
  CHECK(queue.at("jobs").at(0).at("position") == 0);
  CHECK(queue.at("jobs").at(0).at("terms").contains("account.usage_ratio"));
  const nlohmann::json waiting = get("/jobs/" + std::to_string(b));
  CHECK(waiting.at("phase") == "pending");
  CHECK_FALSE(waiting.at("explain_text").get<std::string>().empty());
  const nlohmann::json running = get("/jobs/" + std::to_string(alpha.front()));
  CHECK(running.at("phase") == "running");
  CHECK(running.at("contract").at("preemptible") == true);
  CHECK(get("/jobs?account=alpha&phase=running").at("jobs").size() == alpha.size());

  // The feed: the contract each alpha job was given when the adapter first saw it run, with a reason.
  const nlohmann::json feed = get("/decisions?since=0");
  int contracts = 0;
  for (const nlohmann::json& entry : feed.at("decisions")) {
    if (entry.at("kind") != "contract") continue;
    ++contracts;
    CHECK(entry.at("reason") == "started by Slurm as class `long`");
    CHECK(entry.at("seq").get<int>() >= 1);
  }
  CHECK(contracts == static_cast<int>(alpha.size()));
  CHECK(get("/shares").at("accounts").size() >= 4);

  // The same listener still serves the metrics and probes; the writes of `allot serve` are not there.
  CHECK_THAT(shell("curl -sSf " + url + "/metrics"), Catch::Contains("allot_slurm_passes_total"));
  CHECK(answer_within(url + "/readyz", "200") == "ready\n 200");
  CHECK(shell("curl -s -o /dev/null -w '%{http_code}' -X POST -d '{}' " + url + "/jobs") == "405");
  CHECK_THAT(shell("curl -sSf " + url + "/"), Catch::Contains("<!DOCTYPE html>"));

  // A reload shows at once as the policy in force, with its diff; the history keeps the start.
  const std::string original = read_file(setup.policy);
  write_file(setup.policy, replaced(replaced(original, "beta 35%", "beta 25%"), "gamma 25%", "gamma 35%"));
  wait_until("the swap is the policy in force (generation 2: the first is 1)", 30s,
             [&] { return get("/policy").at("generation") == 2; });
  const nlohmann::json history = get("/policy/history");
  REQUIRE(history.at("policies").size() == 2);
  CHECK(history.at("policies").at(0).at("outcome") == "swapped");
  CHECK(history.at("policies").at(1).at("outcome") == "started");
  CHECK_THAT(history.at("last_swap_diff").get<std::string>(), Catch::Contains("+    beta 25% {"));
  setup.adapter.signal(SIGTERM);
}

}  // namespace integration

namespace integration {

TEST_CASE("a job's non-root owner reports progress with allot-progress; once silent it is held without progress",
          "[slurm_integration]") {
  cancel_all();
  Setup setup("progress", "2026-12-01", {"--metrics", "127.0.0.1:0"});
  // Class `long` (jobs named long-*) now requires progress every 15 s after 5 s.
  write_file(setup.policy, replaced(read_file(setup.policy), "    checkpoint every 1h\n",
                                    "    checkpoint every 1h\n    progress every 15s after 5s\n"));
  setup.adapter.start();
  setup.adapter.wait_passes(1);
  // The job runs as `nobody`, from a folder it may write, with its own copy of the helper.
  const std::string folder = fresh_folder("progress-jobs");
  std::filesystem::permissions(folder, std::filesystem::perms::all);
  const std::string helper = folder + "/allot-progress";
  std::filesystem::copy_file(std::string(ALLOT_SOURCE_DIR) + "/slurm/tools/allot-progress", helper);
  std::filesystem::permissions(helper, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                           std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                           std::filesystem::perms::others_exec);
  // Three reports two seconds apart, the last with a checkpoint, then silence.
  const std::string script = fmt::format("{0}; sleep 2; {0}; sleep 2; {0} --checkpoint; sleep 600", helper);
  const std::uint32_t id = static_cast<std::uint32_t>(std::stoul(shell(fmt::format(
      "runuser -u nobody -- sbatch --parsable --account=alpha --gres=gpu:1 --job-name=long-progress --chdir={0} "
      "--output={0}/%j.out --comment=sweep-7 --wrap='{1}'",
      folder, script))));
  const auto comment = [&] { return shell(fmt::format("squeue -h -j {} -o %k", id)); };
  wait_until("the job's owner reports a checkpoint through its Comment", 60s,
             [&] { return comment().find(",checkpoint=") != std::string::npos; });
  const std::string reported = comment();
  CHECK(reported.rfind("sweep-7 allot:progress=", 0) == 0);  // the owner's text kept, one report
  CHECK(reported.find("allot:", reported.find("allot:") + 1) == std::string::npos);
  CHECK(shell(fmt::format("squeue -h -j {} -o %u", id)).rfind("nobody", 0) == 0);

  // Silent past its interval: its charges go on, the time since the stall held without progress.
  wait_until("a charge of the job is marked held without progress", 90s, [&] {
    for (const StoredCharge& charge : stored_charges(setup.ledger)) {
      if (charge.job == std::to_string(id) && charge.without_progress) return true;
    }
    return false;
  });
  std::vector<StoredCharge> charges;
  for (const StoredCharge& charge : stored_charges(setup.ledger)) {
    if (charge.job == std::to_string(id)) charges.push_back(charge);
  }
  REQUIRE(charges.size() >= 2);
  CHECK_FALSE(charges.front().without_progress);  // while it reported
  for (std::size_t i = 1; i < charges.size(); ++i) CHECK(charges[i].from == charges[i - 1].until);
  // The metrics say which program's job it is, and what it held since the stall.
  const auto metrics = [&] { return shell("curl -sSf " + metrics_url(setup.adapter) + "/metrics"); };
  wait_until("the metrics count alpha's stalled job", 30s,
             [&] { return sample(metrics(), R"(allot_slurm_stalled_jobs{program="alpha"})") == 1; });
  CHECK(sample(metrics(), R"(allot_slurm_without_progress_units{program="alpha"})") > 0);

  // A report from the future, written by its owner, is refused in the log.
  shell(fmt::format("runuser -u nobody -- scontrol update JobId={} Comment='sweep-7 allot:progress={}'", id,
                    std::time(nullptr) + 3600));
  wait_until("the adapter refuses the report from the future", 30s, [&] {
    return setup.adapter.log().find("the progress report in its Comment is refused: progress at") != std::string::npos;
  });
  shell("scancel " + std::to_string(id));
}

}  // namespace integration
