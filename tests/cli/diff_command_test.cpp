// `allot diff` as a reviewer reads a pull request (docs/DIFF.md): the shares
// that change through the tree and the exceptions, the classes and rank terms
// that change, the queue on a state, Markdown for a comment, git revisions as
// sides, and `--exit-code` for CI.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::read_text;
using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

std::string saas() { return read_text(std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot"); }

// saas.allot with `from` replaced by `to` (which must be there).
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// A pull request on saas: product 40% -> 45%, platform 35% -> 30%, eval's max_runtime 2h -> 3h, and the
// share-gap term weighed 3000 instead of 2000.
std::string changed_saas() {
  std::string text = edited(saas(), "product 40% {", "product 45% {");
  text = edited(text, "platform 35% {", "platform 30% {");
  text = edited(text, "    max_gpus 4\n    max_runtime 2h\n", "    max_gpus 4\n    max_runtime 3h\n");
  return edited(text, "+ 2000 * share_gap(account, cluster)", "+ 3000 * share_gap(account, cluster)");
}

// The two sides of the pull request, written into `folder`: "BEFORE AFTER" for the command line.
std::string pull_request(const TempFolder& folder) {
  return folder.write("before.allot", saas()) + " " + folder.write("after.allot", changed_saas());
}

}  // namespace

TEST_CASE("allot diff shows the shares, classes and rank terms a change moves", "[cli][diff]") {
  const TempFolder folder("allot-diff");
  const std::string sides = pull_request(folder), before = folder.file("before.allot");
  const auto run = run_allot("diff " + sides + " --now 2026-12-02", true);
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  // release_crunch lends product 10 points of exploration's share until 2026-12-20.
  CHECK_THAT(run.out, Catch::Contains("product   40% -> 45%; in force 50% -> 55%; of the cluster 50% -> 55%\n"));
  CHECK_THAT(run.out, Catch::Contains("platform  35% -> 30%; in force 35% -> 30%; of the cluster 35% -> 30%\n"));
  CHECK_THAT(run.out, Catch::Contains("Shares (2 of 5 accounts change;"));
  CHECK_THAT(run.out, Catch::Contains("Classes:\n  ~ `eval` max_runtime: 2h -> 3h\n"));
  CHECK_THAT(run.out, Catch::Contains("Rank:\n  - term: 2000 * share_gap(account, cluster)\n"
                                      "  + term: 3000 * share_gap(account, cluster)\n"));
  // After the crunch expires, product's share in force is what is written.
  const auto later = run_allot("diff " + sides + " --now 2026-12-21");
  CHECK_THAT(later.out, Catch::Contains("product   40% -> 45%; in force 40% -> 45%; of the cluster 40% -> 45%\n"));

  const auto markdown = run_allot("diff " + sides + " --now 2026-12-02 --format markdown");
  CHECK_THAT(markdown.out, Catch::Contains("| `product` | 40% → 45% | 50% → 55% | 50% → 55% |\n"));
  CHECK_THAT(markdown.out, Catch::Contains("#### Classes\n\n| | setting | before | after |\n"));
  CHECK_THAT(markdown.out, Catch::Contains("| `eval` | max_runtime | `2h` | `3h` |\n"));

  const auto json = nlohmann::json::parse(run_allot("diff " + sides + " --now 2026-12-02 --format json").out);
  CHECK(json["schema"] == "allot.diff/1");
  CHECK(json["same_meaning"] == false);
  CHECK(json["shares"].size() == 2);
  CHECK(json["shares"][0]["after"]["in_force"].get<double>() == Approx(0.55));

  CHECK(run_allot("diff " + sides + " --now 2026-12-02 --exit-code").exit_code == 1);
  const auto same = run_allot("diff " + before + " " + before + " --now 2026-12-02 --exit-code");
  CHECK(same.exit_code == 0);
  CHECK_THAT(same.out, Catch::Contains("no change in meaning"));
}

TEST_CASE("allot diff --state shows who moves in the queue", "[cli][diff]") {
  const TempFolder folder("allot-diff");
  // Without the share-gap term: every job keeps its place on Wednesday morning, every rank changes.
  const std::string sides = folder.write("before.allot", saas()) + " " +
                            folder.write("after.allot", edited(saas(), "+ 2000 * share_gap(account, cluster)", ""));
  const auto run = run_allot("diff " + sides + " --state " + source("examples/states/saas-wednesday.toml"), true);
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("Rank:\n  - term: 2000 * share_gap(account, cluster)\n"));
  CHECK_THAT(run.out, Catch::Contains("ranking diff at 2026-12-02T09:00:00Z: "));
  CHECK_THAT(run.out, Catch::Contains("7 pending jobs, 7 ranked by both: "));
}

TEST_CASE("allot diff reads a side from a git revision", "[cli][diff]") {
  REQUIRE(std::system("git --version >/dev/null 2>&1") == 0);  // scripts/setup.sh installs git
  const TempFolder folder("allot-diff");
  folder.write("saas.allot", saas());
  const std::string git = "git -C '" + folder.path().string() + "' ";
  REQUIRE(std::system((git + "init -q && " + git + "add saas.allot && " + git +
                       "-c user.name=t -c user.email=t@example.com commit -qm base")
                          .c_str()) == 0);
  folder.write("saas.allot", changed_saas());
  const auto here = std::filesystem::current_path();
  std::filesystem::current_path(folder.path());
  const auto run = run_allot("diff git:HEAD:saas.allot saas.allot --now 2026-12-02", true);
  const auto missing = run_allot("diff git:HEAD:nothing.allot saas.allot --now 2026-12-02", true);
  const auto option = run_allot("diff git:--output=x:saas.allot saas.allot --now 2026-12-02", true);
  std::filesystem::current_path(here);
  INFO(run.out);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::StartsWith("allot diff git:HEAD:saas.allot ("));
  CHECK_THAT(run.out, Catch::Contains("product   40% -> 45%"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.out, Catch::Contains("`git show HEAD:nothing.allot` failed"));
  CHECK(option.exit_code == 2);
  CHECK_THAT(option.out, Catch::Contains("a revision may not start with `-`"));
  CHECK_FALSE(std::filesystem::exists(folder.path() / "x"));
}

TEST_CASE("allot diff --replay shows who gains and who loses GPU-hours and wait", "[cli][diff]") {
  const TempFolder folder("allot-diff");
  const std::string sides = pull_request(folder), before = folder.file("before.allot");
  const std::string replay = " --replay normal --cluster " + source("examples/clusters/saas-8gpu.toml");
  const auto run = run_allot("diff " + sides + " --now 2026-12-02" + replay, true);
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("\nReplay `normal` ("));
  CHECK_THAT(run.out, Catch::Contains("  group "));
  CHECK_THAT(run.out, Catch::Contains("  program product "));
  CHECK_THAT(run.out, Catch::Contains("  class debug "));
  CHECK_THAT(run.out, Catch::Contains("  gate: "));
  const auto json = nlohmann::json::parse(run_allot("diff " + sides + " --now 2026-12-02 --format json" + replay).out);
  REQUIRE(json["replay"].is_object());
  // The same arrivals: every program has the same jobs under both; GPU-hours move between programs.
  double before_hours = 0, after_hours = 0;
  for (const auto& group : json["replay"]["groups"]) {
    if (group["kind"] != "program") continue;
    before_hours += group["gpu_hours"][0].get<double>();
    after_hours += group["gpu_hours"][1].get<double>();
  }
  CHECK(before_hours > 0);
  CHECK(after_hours > 0);
  // The same policy on both sides replays to the same numbers.
  const auto same = nlohmann::json::parse(
      run_allot("diff " + before + " " + before + " --now 2026-12-02 --format json" + replay).out);
  for (const auto& group : same["replay"]["groups"]) {
    CHECK(group["gpu_hours"][0] == group["gpu_hours"][1]);
    CHECK(group["p90_wait"][0] == group["p90_wait"][1]);
  }
  CHECK(run_allot("diff " + sides + " --now 2026-12-02 --replay normal").exit_code == 2);  // no cluster
}
