// Progress through a job's Slurm Comment (docs/SLURM.md "Progress"): the
// `allot:` word a job's owner writes with allot-progress, read, checked
// against the clock and the last report, and used by the pass: a silent job
// is stalled and its time since the stall is held without progress.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "../runtime/temp_folder.h"
#include "allot/contracts.h"
#include "allot/snapshot.h"
#include "progress_comment.h"
#include "slurm_support.h"

namespace slurm_test {
namespace {

using allot::slurm::comment_without_report;
using allot::slurm::CommentReport;
using allot::slurm::read_comment_report;
using allot::slurm::report_problem;

}  // namespace

TEST_CASE("a Comment's allot: word is read, and anything else in it is left to the owner", "[slurm][progress]") {
  struct Case {
    const char* comment;
    std::optional<Seconds> progress, checkpoint;
    const char* problem;  // "" when it reads; nullptr when there is no report
    const char* without;  // the comment class rules match
  };
  const Case cases[] = {
      {"", {}, {}, nullptr, ""},
      {"resnet sweep 3", {}, {}, nullptr, "resnet sweep 3"},
      {"allot:progress=1796083200", 1796083200, {}, "", ""},
      {"sweep allot:progress=1796083200,checkpoint=1796083100 lr=3e-4", 1796083200, 1796083100, "", "sweep lr=3e-4"},
      {"allot:checkpoint=1796083100", {}, 1796083100, "", ""},
      {"allot:progress=1 allot:progress=1796083200", 1796083200, {}, "", ""},  // the last word counts
      {"allot:progress=soon", {}, {}, "`allot:progress=soon` is not a report", ""},
      {"allot:progress=-5", {}, {}, "is not a report", ""},
      {"allot:progress=99999999999999999999", {}, {}, "is not a report", ""},
      {"allot:progress=1,progress=2", {}, {}, "is not a report", ""},
      {"allot:steps=5", {}, {}, "is not a report", ""},
      {"allot:", {}, {}, "reports nothing", ""},
  };
  for (const Case& c : cases) {
    INFO(c.comment);
    const auto report = read_comment_report(c.comment);
    CHECK(comment_without_report(c.comment) == c.without);
    if (c.problem == nullptr) {
      REQUIRE(report);
      CHECK_FALSE(*report);
    } else if (*c.problem == '\0') {
      REQUIRE(report);
      REQUIRE(*report);
      CHECK((*report)->progress == c.progress);
      CHECK((*report)->checkpoint == c.checkpoint);
    } else {
      REQUIRE_FALSE(report);
      CHECK_THAT(report.error(), Catch::Contains(c.problem));
    }
  }
  CHECK_THAT(read_comment_report("allot:progress=" + std::string(300, '1')).error(),
             Catch::Contains("is longer than a report"));
}

TEST_CASE("a report that contradicts the clock or the last one is refused", "[slurm][progress]") {
  const Seconds started = kStart, now = kStart + 3600;
  const CommentReport last{kStart + 1800, kStart + 1200};
  CHECK_FALSE(report_problem(CommentReport{kStart + 2400, {}}, started, now, last));
  CHECK_FALSE(report_problem(CommentReport{kStart + 2400, {}}, started, now, std::nullopt));
  CHECK(*report_problem(CommentReport{now + 60, {}}, started, now, last) ==
        "progress at 2026-12-01T01:01:00Z is in the future (now is 2026-12-01T01:00:00Z)");
  CHECK(*report_problem(CommentReport{kStart + 60, kStart - 60}, started, now, std::nullopt) ==
        "a checkpoint at 2026-11-30T23:59:00Z is before the job started (2026-12-01T00:00:00Z)");
  // A report of an earlier run (a requeued job's Comment keeps it) is not this run's, and not refused.
  CHECK(allot::slurm::reports_earlier_run(CommentReport{kStart - 60, kStart - 120}, started));
  CHECK_FALSE(allot::slurm::reports_earlier_run(CommentReport{kStart + 60, kStart - 120}, started));
  CHECK(*report_problem(CommentReport{kStart + 600, {}}, started, now, last) ==
        "progress at 2026-12-01T00:10:00Z is older than the last one reported (2026-12-01T00:30:00Z)");
  CHECK(*report_problem(CommentReport{{}, kStart + 600}, started, now, last) ==
        "a checkpoint at 2026-12-01T00:10:00Z is older than the last one reported (2026-12-01T00:20:00Z)");
}

TEST_CASE("a job that stops reporting in its Comment is stalled, charged apart, and a report lifts it",
          "[slurm][progress]") {
  TempFolder folder("allot-slurm");
  FakeSlurm slurm(1, 4);
  std::string text = two_team_policy("2h");
  const std::string checkpoint = "    checkpoint every 10m\n";
  REQUIRE(text.find(checkpoint) != std::string::npos);
  text.replace(text.find(checkpoint), checkpoint.size(), checkpoint + "    progress every 20m after 10m\n");
  const auto policy = compile(text);
  slurm.clock = kStart;
  const std::uint32_t job = slurm.submit("alpha", 2, kStart);
  slurm.start(job, 0, kStart);
  slurm.job(job).comment = "sweep-7";
  auto adapter = open_adapter(slurm, folder.file("state.db"));
  pass(*adapter, *policy, kStart + 60);  // its contract, with the rule, is recorded

  // It reports at 00:15, then falls silent: stalled from 00:35.
  slurm.job(job).comment = "sweep-7 allot:progress=" + std::to_string(kStart + 15 * kMinute);
  allot::slurm::PassReport report = pass(*adapter, *policy, kStart + 30 * kMinute);
  REQUIRE(report.state.running.size() == 1);
  CHECK(report.state.running[0].last_progress == kStart + 15 * kMinute);
  CHECK(report.state.running[0].request.job_class == "work");  // the report changes no class
  CHECK(report.progress.empty());
  report = pass(*adapter, *policy, kStart + 45 * kMinute);
  CHECK(allot::runtime::stalled_since(report.state.running[0], kStart + 45 * kMinute) == kStart + 35 * kMinute);
  // The audit log says it once: a `stalled` record with since when and why.
  REQUIRE(report.progress.size() == 1);
  const auto stalled = nlohmann::json::parse(allot::slurm::progress_json(report.progress[0], report.now, "h"));
  CHECK(stalled.at("kind") == "stalled");
  CHECK(stalled.at("job") == std::to_string(job));
  CHECK(stalled.at("since") == "2026-12-01T00:35:00Z");
  CHECK(stalled.at("on_stall") == "preempt");
  CHECK(stalled.at("reason") ==
        "no progress reported since 2026-12-01T00:15:00Z; its class requires progress every 20m: stalled since "
        "2026-12-01T00:35:00Z");
  // Two GPUs from 00:35 to 00:45 were held without progress, as part of alpha's usage.
  REQUIRE(report.state.without_progress);
  CHECK(report.state.without_progress->at("alpha") == Approx(2 * 10 / 60.0));
  CHECK(report.state.usage.at("alpha") == Approx(2 * 45 / 60.0));
  // The snapshot `allot slurm --snapshot` writes (the pass's state) keeps it for `allot shares`.
  const std::string path = folder.file("live-state.toml");
  REQUIRE_FALSE(allot::runtime::save_snapshot(allot::runtime::Snapshot{report.state, "", {}}, path));
  const auto written = allot::runtime::load_snapshot(path);
  REQUIRE(written);
  CHECK_THAT(allot::runtime::snapshot_text(*written, path), Catch::Contains("\n[without_progress]\n"));
  REQUIRE(written->state.without_progress);
  CHECK(written->state.without_progress->at("alpha") == report.state.without_progress->at("alpha"));

  // A report going back in time is refused, said once, and changes nothing.
  slurm.job(job).comment = "sweep-7 allot:progress=" + std::to_string(kStart + 5 * kMinute);
  report = pass(*adapter, *policy, kStart + 46 * kMinute);
  REQUIRE(report.notes.size() == 1);
  CHECK_THAT(report.notes[0], Catch::Contains("job " + std::to_string(job) +
                                              ": the progress report in its Comment is refused: progress at "
                                              "2026-12-01T00:05:00Z is older than the last one reported"));
  CHECK(report.state.running[0].last_progress == kStart + 15 * kMinute);
  report = pass(*adapter, *policy, kStart + 47 * kMinute);
  CHECK(report.notes.empty());
  CHECK(report.progress.empty());  // still stalled: said once

  // A new report lifts the stall; the time since is held with progress.
  slurm.job(job).comment = "sweep-7 allot:progress=" + std::to_string(kStart + 48 * kMinute) +
                           ",checkpoint=" + std::to_string(kStart + 48 * kMinute);
  report = pass(*adapter, *policy, kStart + 50 * kMinute);
  CHECK_FALSE(allot::runtime::stalled_since(report.state.running[0], kStart + 50 * kMinute));
  REQUIRE(report.progress.size() == 1);
  const auto recovered = nlohmann::json::parse(allot::slurm::progress_json(report.progress[0], report.now, "h"));
  CHECK(recovered.at("kind") == "recovered");
  CHECK(recovered.at("progress_at") == "2026-12-01T00:48:00Z");
  CHECK(report.state.running[0].last_checkpoint == kStart + 48 * kMinute);
  // Charged up to 00:47 while stalled; the minute before the report, charged after it,
  // counts with progress (the split is as exact as the charge interval, 1 minute).
  CHECK(report.state.without_progress->at("alpha") == Approx(2 * 12 / 60.0));
}

}  // namespace slurm_test
