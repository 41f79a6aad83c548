// Progress rules (docs/LANGUAGE.md "Progress"): a running job that reports no
// progress within its contract's interval is stalled; under `else preempt` it
// loses its protection and is taken before progressing jobs.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "allot/contracts.h"
#include "allot/explain.h"
#include "allot/share_report.h"
#include "cycle_support.h"

namespace cycle_test {
namespace {

using allot::runtime::stalled_since;
using allot::runtime::stop_refusal;
using allot::runtime::StopRefusal;

// A one-GPU job of beta started `started_ago` before Tuesday, protected two
// hours, resumable, reporting progress every 20m after 10m (`on_stall`).
RunningJob reporting_job(const std::string& id, Seconds started_ago, StallAction on_stall = StallAction::preempt) {
  Contract contract;
  contract.protected_until = kTuesday - started_ago + 2 * kHour;
  contract.resumable = true;
  contract.progress_every = 20 * kMinute;
  contract.progress_after = 10 * kMinute;
  contract.on_stall = on_stall;
  return running(job(id, "beta", "work", 1, kTuesday - started_ago - kMinute), {0}, kTuesday - started_ago, contract);
}

}  // namespace

TEST_CASE("a job is stalled once its interval passes without a report, after its allowance", "[cycle][progress]") {
  struct Case {
    const char* what;
    Seconds started_ago;
    std::optional<Seconds> progress_ago;    // the last `progress` report, before Tuesday
    std::optional<Seconds> checkpoint_ago;  // the last checkpoint reported, before Tuesday
    std::optional<Seconds> stalled_since_ago;
  };
  const Case cases[] = {
      {"in its allowance and first interval", 29 * kMinute, {}, {}, {}},
      {"silent since the allowance ended, one interval ago", 30 * kMinute, {}, {}, 0},
      {"silent for an hour past its allowance", 90 * kMinute, {}, {}, 60 * kMinute},
      {"reported 19 minutes ago", 90 * kMinute, 19 * kMinute, {}, {}},
      {"reported 25 minutes ago", 90 * kMinute, 25 * kMinute, {}, 5 * kMinute},
      {"a checkpoint counts as progress", 90 * kMinute, {}, 5 * kMinute, {}},
      {"the later of a report and a checkpoint counts", 90 * kMinute, 50 * kMinute, 30 * kMinute, 10 * kMinute},
      {"a report inside the allowance does not shorten it", 20 * kMinute, 19 * kMinute, {}, {}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    RunningJob job = reporting_job("b", c.started_ago);
    if (c.progress_ago) job.last_progress = kTuesday - *c.progress_ago;
    if (c.checkpoint_ago) job.last_checkpoint = kTuesday - *c.checkpoint_ago;
    const std::optional<Seconds> since = stalled_since(job, kTuesday);
    CHECK(since.has_value() == c.stalled_since_ago.has_value());
    if (since && c.stalled_since_ago) CHECK(*since == kTuesday - *c.stalled_since_ago);
  }
  RunningJob no_rule = reporting_job("b", 10 * kHour);
  no_rule.contract.progress_every = 0;
  CHECK_FALSE(stalled_since(no_rule, kTuesday));
}

TEST_CASE("a stalled job loses its protection under `else preempt`, and keeps it under `else keep`",
          "[cycle][progress]") {
  const RunningJob stalled = reporting_job("b", 40 * kMinute);  // protected 80 more minutes, silent 10
  REQUIRE(stalled_since(stalled, kTuesday));
  CHECK(stop_refusal(stalled, kTuesday) == std::nullopt);
  CHECK(stop_refusal(stalled.contract, true, false, kTuesday, true) == std::nullopt);
  CHECK(stop_refusal(stalled.contract, true, false, kTuesday, false) == StopRefusal::protected_now);
  const RunningJob kept = reporting_job("b", 40 * kMinute, StallAction::keep);
  CHECK(stop_refusal(kept, kTuesday) == StopRefusal::protected_now);
  RunningJob reporting = stalled;
  reporting.last_progress = kTuesday - kMinute;
  CHECK(stop_refusal(reporting, kTuesday) == StopRefusal::protected_now);
}

TEST_CASE("a stalled job is preempted before a progressing one that would lose less", "[cycle][progress]") {
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 2);
  // Both past their protection; the progressing one checkpointed a minute ago,
  // the stalled one 40 minutes ago (it would lose more, and is still taken first).
  RunningJob progressing = reporting_job("working", 3 * kHour);
  progressing.last_checkpoint = kTuesday - kMinute;
  progressing.last_progress = kTuesday - kMinute;
  RunningJob hung = reporting_job("hung", 3 * kHour);
  hung.last_checkpoint = kTuesday - 40 * kMinute;
  state.running = {progressing, hung};
  state.pending = {job("alpha-1", "alpha", "work", 1)};
  CycleResult result = run_cycle(state, *policy);
  CHECK(preempted_ids(result) == std::set<std::string>{"hung"});

  // Inside its protection, only the stalled job may be taken at all.
  state.running = {reporting_job("fresh", 50 * kMinute), reporting_job("silent", 50 * kMinute)};
  state.running[0].last_progress = kTuesday - 5 * kMinute;
  result = run_cycle(state, *policy);
  CHECK(preempted_ids(result) == std::set<std::string>{"silent"});
}

TEST_CASE("a stalled job whose class says `else stop` is stopped at once, protected or not", "[cycle][progress]") {
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "false"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 2);
  RunningJob hung = reporting_job("hung", 40 * kMinute, StallAction::stop);  // protected, silent 10m
  hung.contract.preemptible = false;
  RunningJob fine = reporting_job("fine", 40 * kMinute, StallAction::stop);
  fine.last_progress = kTuesday - 2 * kMinute;
  state.running = {hung, fine};
  state.pending = {job("alpha-1", "alpha", "work", 1)};
  const CycleResult result = run_cycle(state, *policy);
  const Decision* stop = decision_for(result, "hung", DecisionKind::preempt);
  REQUIRE(stop != nullptr);
  CHECK(stop->stops_at == kTuesday);
  CHECK_THAT(stop->reason, Catch::Contains("stalled since 2026-11-30T23:50:00Z, and its class stops stalled jobs"));
  CHECK(preempted_ids(result) == std::set<std::string>{"hung"});
  CHECK(decision_for(result, "alpha-1", DecisionKind::start) != nullptr);  // its GPU goes to the queue now
}

TEST_CASE("a policy reads job.stalled and job.since_progress", "[cycle][progress]") {
  // Past their protection both of beta's jobs may be taken (beta keeps its
  // half with the other); this `preempt` takes only a job silent for more than
  // half an hour, whatever the queue.
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "victim.stalled and victim.since_progress > 30m"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 2);
  RunningJob working = reporting_job("working", 3 * kHour);
  working.last_progress = kTuesday - kMinute;
  state.pending = {job("alpha-1", "alpha", "work", 1)};
  struct Case {
    const char* what;
    std::optional<Seconds> progress_ago;
    bool preempted;
  };
  const Case cases[] = {
      {"reported a minute ago", kMinute, false},
      {"silent 25 minutes: stalled, but not for the policy", 25 * kMinute, false},
      {"silent 45 minutes", 45 * kMinute, true},
      {"never reported in three hours", {}, true},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    RunningJob running_job = reporting_job("b", 3 * kHour);
    if (c.progress_ago) running_job.last_progress = kTuesday - *c.progress_ago;
    state.running = {running_job, working};
    const CycleResult result = run_cycle(state, *policy);
    CHECK(preempted_ids(result) == (c.preempted ? std::set<std::string>{"b"} : std::set<std::string>{}));
  }
}

TEST_CASE("explain says since when a job is stalled and what it costs it", "[cycle][progress]") {
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 2);
  state.running = {reporting_job("hung", 90 * kMinute)};
  auto explanation = allot::runtime::explain_job(state, *policy, "hung");
  REQUIRE(explanation);
  const std::string text = allot::runtime::explanation_text(*explanation, state.inventory);
  CHECK_THAT(text, Catch::Contains("Progress: reported at least every 20m after 10m; no report yet."));
  CHECK_THAT(text, Catch::Contains("STALLED since 2026-11-30T23:00:00Z (1h20m without progress): it has lost its "
                                   "protection"));
  const std::string json = allot::runtime::explanation_json(*explanation, state.inventory);
  CHECK_THAT(json, Catch::Contains("\"stalled_since\": \"2026-11-30T23:00:00Z\""));
}

}  // namespace cycle_test

namespace cycle_test {

TEST_CASE("a stalled job's time is charged, the part since it stalled marked held without progress",
          "[cycle][progress]") {
  using allot::runtime::Charge;
  using allot::runtime::holding_charges;
  const allot::runtime::ResourceUse use{"h100", 1, 8, 64};
  struct Case {
    const char* what;
    std::optional<Seconds> progress_ago;
    Seconds from_ago, until_ago;
    std::vector<std::pair<Seconds, bool>> starts_ago;  // each charge: its start before Tuesday, without progress
  };
  // Started 90 minutes ago, reporting every 20m after 10m: silent, it stalled an hour ago.
  const Case cases[] = {
      {"silent since its start", {}, 90 * kMinute, 0, {{90 * kMinute, false}, {60 * kMinute, true}}},
      {"charged before from after its stall", {}, 30 * kMinute, 0, {{30 * kMinute, true}}},
      {"charged up to before it stalled", {}, 90 * kMinute, 70 * kMinute, {{90 * kMinute, false}}},
      {"reporting", 5 * kMinute, 90 * kMinute, 0, {{90 * kMinute, false}}},
      {"an empty interval", {}, 10 * kMinute, 10 * kMinute, {}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    RunningJob job = reporting_job("b", 90 * kMinute);
    if (c.progress_ago) job.last_progress = kTuesday - *c.progress_ago;
    const std::vector<Charge> charges =
        holding_charges(job, "beta", kTuesday - c.from_ago, kTuesday - c.until_ago, use);
    REQUIRE(charges.size() == c.starts_ago.size());
    for (std::size_t i = 0; i < charges.size(); ++i) {
      CHECK(charges[i].from == kTuesday - c.starts_ago[i].first);
      CHECK(charges[i].until == (i + 1 < charges.size() ? charges[i + 1].from : kTuesday - c.until_ago));
      CHECK(charges[i].without_progress == c.starts_ago[i].second);
      CHECK(charges[i].account == "beta");
      CHECK(charges[i].job_id == "b");
    }
  }
}

TEST_CASE("allot shares shows what stalled jobs held without progress and how many are stalled", "[cycle][progress]") {
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 2);
  state.usage = {{"", 10}, {"alpha", 4}, {"beta", 6}};
  const auto row_of = [](const allot::runtime::ShareReport& report, const std::string& path) {
    for (const allot::runtime::ShareRow& row : report.rows)
      if (row.path == path) return row;
    FAIL("no row " << path);
    return allot::runtime::ShareRow{};
  };
  allot::runtime::ShareReport report = allot::runtime::share_report(*policy, state);
  CHECK_FALSE(row_of(report, "beta").without_progress);
  CHECK_THAT(allot::runtime::share_report_text(report), !Catch::Contains("NoProgress"));

  state.without_progress = std::map<std::string, double>{{"", 2.5}, {"beta", 2.5}};
  report = allot::runtime::share_report(*policy, state);
  CHECK(row_of(report, "beta").without_progress == 2.5);
  CHECK(row_of(report, "alpha").without_progress == 0.0);
  CHECK(row_of(report, "").without_progress == 2.5);
  const std::string text = allot::runtime::share_report_text(report);
  CHECK_THAT(text, Catch::Contains("Debt NoProgress\n"));
  CHECK_THAT(text, Catch::Contains("2.50\n"));
  const auto json = nlohmann::json::parse(allot::runtime::share_report_json(report));
  for (const auto& account : json.at("accounts")) {
    if (account.at("path") == "beta") CHECK(account.at("without_progress") == 2.5);
    CHECK(account.at("stalled_jobs").is_null());  // no running job has a progress rule
  }
  CHECK_THAT(text, !Catch::Contains("Stalled"));

  // Two of beta's jobs under a progress rule, one silent for 40 minutes (stalled), one that just reported.
  RunningJob silent = reporting_job("silent", 40 * kMinute);
  RunningJob heard = reporting_job("heard", 40 * kMinute);
  heard.last_progress = kTuesday - kMinute;
  state.running = {silent, heard};
  report = allot::runtime::share_report(*policy, state);
  CHECK(row_of(report, "beta").stalled_jobs == 1);
  CHECK(row_of(report, "alpha").stalled_jobs == 0);
  CHECK(row_of(report, "").stalled_jobs == 1);
  CHECK_THAT(allot::runtime::share_report_text(report), Catch::Contains("Debt NoProgress Stalled\n"));
  const auto stalled = nlohmann::json::parse(allot::runtime::share_report_json(report));
  for (const auto& account : stalled.at("accounts")) {
    CHECK(account.at("stalled_jobs") == (account.at("path") == "alpha" ? 0 : 1));
  }
}

}  // namespace cycle_test

namespace cycle_test {

TEST_CASE("a reported checkpoint is the last safe point: no checkpoint is assumed after it", "[cycle][progress]") {
  // Both checkpoint every 10m by their class and last checkpointed 50 minutes ago;
  // only `reported` said so itself, so only it is taken at its word.
  const auto at_fifty = [](const std::string& id, bool reported) {
    RunningJob job = reporting_job(id, 3 * kHour);
    job.contract.checkpoint_every = 10 * kMinute;
    job.last_checkpoint = kTuesday - 50 * kMinute;
    job.last_progress = kTuesday - kMinute;  // progressing: neither is stalled
    job.checkpoint_reported = reported;
    return job;
  };
  const RunningJob reported = at_fifty("reported", true), scheduled = at_fifty("scheduled", false);
  CHECK(allot::runtime::last_safe_point(reported, kTuesday) == kTuesday - 50 * kMinute);
  CHECK(allot::runtime::lost_gpu_seconds(reported, kTuesday) == 50.0 * kMinute);
  CHECK(allot::runtime::last_safe_point(scheduled, kTuesday) == kTuesday);  // on schedule, at 00:00
  CHECK(allot::runtime::lost_gpu_seconds(scheduled, kTuesday) == 0.0);

  // The victim choice follows: the job whose last real checkpoint is old loses more, and is spared.
  const auto policy = compile_text(two_team_policy("job.wait / 1h", "true"));
  ClusterState state;
  state.now = kTuesday;
  state.inventory = uniform_inventory(1, 3);
  RunningJob third = at_fifty("third", false);
  third.last_checkpoint = kTuesday - 5 * kMinute;
  state.running = {reported, scheduled, third};
  state.pending = {job("alpha-1", "alpha", "work", 1)};
  const CycleResult result = run_cycle(state, *policy);
  CHECK(preempted_ids(result).count("reported") == 0);
  CHECK(preempted_ids(result).size() == 1);
}

}  // namespace cycle_test
