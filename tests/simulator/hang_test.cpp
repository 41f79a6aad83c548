// Hung jobs in the replay (docs/REPLAY.md "Hung jobs"): a job that stops
// making progress holds its GPUs until its time limit unless a progress rule
// lets the scheduler take them back; what each costs is counted by hand here.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>

#include "replay_support.h"

namespace replay_test {
namespace {

// `ckpt` has no progress rule; `watched` loses its protection when stalled
// (and `preempt` takes only stalled jobs); `stopped` is stopped at once.
const char* kPolicy = R"(policy hangs {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    alpha 50% { owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }
    beta 50% { owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }
  }
  class ckpt {
    checkpoint every 30m
    protect 30m
    resumable
  }
  class watched {
    checkpoint every 30m
    protect 2h
    resumable
    progress every 20m after 10m
  }
  class stopped {
    checkpoint every 30m
    protect 2h
    resumable
    progress every 20m after 10m else stop
  }
  rank = 0
  preempt when victim.stalled
}
)";

// 3 hours of work on both nodes (4 GPUs), hanging after 70 minutes of it.
WorkloadJob hanging(const std::string& job_class) {
  WorkloadJob hung = job("hung", "alpha", job_class, 2, 3 * kHour);
  hung.nodes = 2;
  hung.hangs_after = 70 * kMinute;
  return hung;
}

struct Replayed {
  Workload workload;
  SimulationResult result;
  PolicyMetrics metrics;
};

Replayed replay(std::vector<WorkloadJob> jobs) {
  const auto policy = compile_text(kPolicy);
  Replayed replayed{workload_of(std::move(jobs)), {}, {}};
  replayed.result = simulate_or_fail(replayed.workload, two_nodes(), *policy);
  replayed.metrics = measure(replayed.workload, replayed.result, *policy, "test", {});
  return replayed;
}

}  // namespace

TEST_CASE("without a progress rule a hung job holds its GPUs to its time limit, then resumes from its checkpoint",
          "[simulator][hang]") {
  const Replayed replayed = replay({hanging("ckpt")});
  const JobOutcome& hung = outcome(replayed.workload, replayed.result, "hung");
  CHECK(hung.hung);
  CHECK_FALSE(hung.hung_stopped);
  // Checkpoints at 30m and 60m, hung at 70m: 10 minutes of work lost on 4 GPUs,
  // and the 110 minutes to its 3-hour limit held while hung.
  CHECK(hung.lost_gpu_seconds == Approx(4.0 * 10 * kMinute));
  CHECK(hung.hung_lost_gpu_seconds == hung.lost_gpu_seconds);
  CHECK(hung.hung_gpu_seconds == Approx(4.0 * 110 * kMinute));
  CHECK(hung.recovered_gpu_seconds == 0);
  CHECK(hung.stops == 0);  // its time limit ended it, not the scheduler
  // Resubmitted at 3h with an hour saved: two more hours, and it does not hang again.
  CHECK(hung.completed == kDefaultStart + 5 * kHour);
  CHECK(hung.gpu_seconds == Approx(4.0 * 5 * kHour));
  CHECK(hung.first_progress == kDefaultStart + 30 * kMinute);
  const GroupMetrics& alpha = program(replayed.metrics, "alpha");
  CHECK(alpha.hung == 1);
  CHECK(alpha.hung_stopped == 0);
  CHECK(alpha.hung_gpu_hours == Approx(4.0 * 110 / 60));
  CHECK(alpha.recovered_gpu_hours == 0);
  CHECK(alpha.hung_lost_gpu_hours == Approx(4.0 * 10 / 60));
  CHECK(program(replayed.metrics, "beta").hung == 0);
}

TEST_CASE("`else stop`: a hung job is stopped when its stall begins, and the rest of its hold is recovered",
          "[simulator][hang]") {
  const Replayed replayed = replay({hanging("stopped")});
  const JobOutcome& hung = outcome(replayed.workload, replayed.result, "hung");
  // Its last sign of progress at 70m, due every 20m: stalled at 90m, stopped then.
  CHECK(hung.hung);
  CHECK(hung.hung_stopped);
  CHECK(hung.stops == 1);
  CHECK(hung.hung_gpu_seconds == Approx(4.0 * 20 * kMinute));
  CHECK(hung.recovered_gpu_seconds == Approx(4.0 * 90 * kMinute));  // to its limit at 3h
  CHECK(hung.lost_gpu_seconds == Approx(4.0 * 10 * kMinute));
  // Restarted at once with the hour it saved.
  CHECK(hung.completed == kDefaultStart + 90 * kMinute + 2 * kHour);
}

TEST_CASE("`else preempt`: a stalled job loses its protection to waiting work; without the rule the work waits",
          "[simulator][hang]") {
  // alpha holds both nodes (twice its share): a job that hangs and one that
  // works. beta's one-hour job arrives at 2h, inside the hung job's 2-hour
  // protection; `preempt` takes only stalled jobs, and the share rule lets
  // alpha fall to its share, not below.
  const auto hung_on_one_node = [](const std::string& job_class) {
    WorkloadJob hung = job("hung", "alpha", job_class, 2, 3 * kHour);
    hung.hangs_after = 70 * kMinute;
    return hung;
  };
  const WorkloadJob busy = job("busy", "alpha", "ckpt", 2, 10 * kHour);
  const WorkloadJob waiting = job("waiting", "beta", "ckpt", 2, kHour, 2 * kHour);

  const Replayed watched = replay({hung_on_one_node("watched"), busy, waiting});
  const JobOutcome& hung = outcome(watched.workload, watched.result, "hung");
  CHECK(outcome(watched.workload, watched.result, "waiting").first_start == kDefaultStart + 2 * kHour);
  CHECK(outcome(watched.workload, watched.result, "busy").stops == 0);  // it works: `preempt` refuses it
  CHECK(hung.hung_stopped);
  CHECK(hung.hung_gpu_seconds == Approx(2.0 * 50 * kMinute));  // 70m to 2h
  CHECK(hung.recovered_gpu_seconds == Approx(2.0 * kHour));    // 2h to its limit at 3h
  CHECK(hung.completed == kDefaultStart + 5 * kHour);          // back when beta's job ends at 3h, an hour saved

  const Replayed unwatched = replay({hung_on_one_node("ckpt"), busy, waiting});
  CHECK(outcome(unwatched.workload, unwatched.result, "waiting").first_start >= kDefaultStart + 3 * kHour);
  CHECK(outcome(unwatched.workload, unwatched.result, "hung").hung_gpu_seconds == Approx(2.0 * 110 * kMinute));
}

TEST_CASE("the report shows what hung jobs cost each program, only when the workload has them",
          "[simulator][hang][report]") {
  const auto policy = compile_text(kPolicy);
  const runtime::Inventory cluster = two_nodes();
  const std::vector<ReplayPolicy> policies = {{"budget", "hangs.allot", policy}};
  const auto render = [&](const Workload& workload) {
    auto scenario = replay_workload(workload, cluster, policies, {}, {});
    REQUIRE(scenario);
    ReplayReport report;
    report.cluster = "two";
    report.scenarios.push_back(std::move(*scenario));
    return std::make_pair(render_table(report, false), render_json(report));
  };
  const auto [hung_table, hung_json] = render(workload_of({hanging("ckpt")}));
  CHECK_THAT(hung_table, Catch::Contains("hung jobs: GPU-h held while hung / recovered / lost"));
  // 4 GPUs x 110 minutes held while hung, x 10 minutes of work lost.
  CHECK_THAT(hung_table, Catch::Contains("7.3 / 0.0 / 0.7 (0 of 1 stopped)"));
  CHECK_THAT(hung_json, Catch::Contains(R"("held_gpu_hours": 7.333)"));
  const auto [plain_table, plain_json] = render(workload_of({job("fine", "alpha", "ckpt", 2, kHour)}));
  CHECK_THAT(plain_table, !Catch::Contains("hung jobs"));
  CHECK_THAT(plain_json, Catch::Contains(R"("held_gpu_hours": 0.0)"));
}

TEST_CASE("add_hangs marks a seeded share of training jobs, the same at every fraction, and nothing else",
          "[simulator][hang]") {
  const auto policy = compile_file("policies/saas.allot");
  const runtime::Inventory cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  ScenarioOptions options;
  auto plain = generate_scenario(Scenario::normal, cluster, policy->tables(), options);
  REQUIRE(plain);
  options.hang = 0.05;
  auto five = generate_scenario(Scenario::normal, cluster, policy->tables(), options);
  REQUIRE(five);
  options.hang = 0.2;
  auto twenty = generate_scenario(Scenario::normal, cluster, policy->tables(), options);
  REQUIRE(twenty);
  REQUIRE(plain->jobs.size() == five->jobs.size());
  REQUIRE(plain->jobs.size() == twenty->jobs.size());
  std::size_t training = 0, hung_five = 0, hung_twenty = 0;
  for (std::size_t i = 0; i < plain->jobs.size(); ++i) {
    const WorkloadJob& job = plain->jobs[i];
    CHECK_FALSE(job.hangs_after);
    CHECK(five->jobs[i].submitted == job.submitted);  // the same arrivals
    CHECK(five->jobs[i].work == job.work);
    const bool training_job = job.kind == JobKind::train || job.kind == JobKind::large;
    training += training_job;
    if (!training_job) CHECK_FALSE(twenty->jobs[i].hangs_after);
    if (five->jobs[i].hangs_after) {
      ++hung_five;
      CHECK(twenty->jobs[i].hangs_after == five->jobs[i].hangs_after);  // a 5% hang is a 20% hang too
      CHECK(*five->jobs[i].hangs_after >= job.work / 20);
      CHECK(*five->jobs[i].hangs_after < job.work);
    }
    hung_twenty += twenty->jobs[i].hangs_after.has_value();
  }
  REQUIRE(training > 100);
  CHECK(hung_five > 0);
  CHECK(hung_five < hung_twenty);
  CHECK(static_cast<double>(hung_twenty) == Approx(0.2 * static_cast<double>(training)).epsilon(0.3));
  CHECK_THAT(five->description, Catch::Contains(fmt::format("{} of {} training jobs", hung_five, training)));
  options.hang = 1.5;
  CHECK_FALSE(generate_scenario(Scenario::normal, cluster, policy->tables(), options));
}

TEST_CASE("a trace's hang_s column: empty for none, less than the job's duration", "[simulator][hang][trace]") {
  const std::string header = "job_id,submit_s,duration_s,gpus,group,user,status,hang_s\n";
  auto rows = parse_trace(header + "a,0,3600,1,g1,u,Pass,1200\nb,0,3600,1,g1,u,Pass,\n", "jobs.csv");
  REQUIRE(rows);
  CHECK((*rows)[0].hang == 1200);
  CHECK_FALSE((*rows)[1].hang);
  auto late = parse_trace(header + "a,0,3600,1,g1,u,Pass,3600\n", "jobs.csv");
  REQUIRE_FALSE(late);
  CHECK(late.error().to_string() == "jobs.csv:2: hang_s: `3600` is out of range; expected 0 to 3599");
  auto word = parse_trace(header + "a,0,3600,1,g1,u,Pass,soon\n", "jobs.csv");
  REQUIRE_FALSE(word);
  CHECK(word.error().to_string() == "jobs.csv:2: hang_s: expected a whole number, found `soon`");
  auto twice = parse_trace("job_id,submit_s,duration_s,gpus,group,user,status,hang_s,hang_s\n", "jobs.csv");
  REQUIRE_FALSE(twice);
  CHECK_THAT(twice.error().to_string(), Catch::Contains("names `hang_s` twice"));
}

}  // namespace replay_test
