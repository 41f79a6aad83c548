// `allot import slurm` as a Slurm administrator starting from their site: a
// `sacctmgr dump` becomes a policy tree (tests/golden/import/) that
// `allot check` accepts once owners and review dates are in, every part the
// policy does not carry is named with its line, and a bad dump is an error
// naming the file and line. Set ALLOT_UPDATE_GOLDEN=1 to rewrite the goldens.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::read_text;
using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(ALLOT_SOURCE_DIR) / "tests/golden/import";

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

}  // namespace

TEST_CASE("allot import slurm turns a sacctmgr dump into a policy tree", "[cli][import]") {
  const bool update = std::getenv("ALLOT_UPDATE_GOLDEN") != nullptr;
  for (const char* name : {"university", "lab", "sandbox"}) {
    INFO(name);
    const fs::path dump = kGolden / (std::string(name) + ".dump");
    const auto run = run_allot("import slurm " + quoted(dump));
    REQUIRE(run.exit_code == 0);
    const fs::path golden = kGolden / (std::string(name) + ".allot.golden");
    if (update) std::ofstream(golden, std::ios::binary) << run.out;
    CHECK(run.out == read_text(golden));
  }
}

TEST_CASE("allot import slurm names what it could not translate, with the line", "[cli][import]") {
  TempFolder folder("allot-import-cli");
  const auto run =
      run_allot("import slurm " + quoted(kGolden / "university.dump") + " --output " + folder.file("out.allot"), true);
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("university.dump:6: note: cluster option QOS=normal is not translated"));
  CHECK_THAT(run.out,
             Catch::Contains("university.dump:8: note: user `root` directly below the root becomes a program"));
  CHECK_THAT(run.out, Catch::Contains("university.dump:14: note: account `me`: GrpTRES=gres/gpu=16 has no Allot "
                                      "equivalent and is not translated"));
  CHECK_THAT(run.out, Catch::Contains("university.dump:17: note: account `ee-vlsi` is named `ee_vlsi`"));
  CHECK_THAT(run.out, Catch::Contains("university.dump:25: note: user `lee`: associations per partition are not "
                                      "translated (Partition=gpu)"));
  CHECK_THAT(run.out, Catch::Contains("university.dump:25: note: user `lee` appears twice in account `me`"));
  CHECK_THAT(run.out, Catch::Contains("university.dump:44: note: user `policy` is named `policy_`"));
  CHECK_THAT(run.out, Catch::Contains("every program needs an owner, a review date and a hypothesis"));
}

TEST_CASE("allot import slurm: with owners and review dates the policy passes allot check", "[cli][import]") {
  TempFolder folder("allot-import-cli");
  for (const char* name : {"university", "lab", "sandbox"}) {
    INFO(name);
    const fs::path policy = fs::path(folder.file(std::string(name) + ".allot"));
    const auto imported = run_allot(
        "import slurm " + quoted(kGolden / (std::string(name) + ".dump")) +
            " --owner hpc@example.edu --review 2027-03-31 --hypothesis \"shared GPUs cost less per paper\" --output " +
            quoted(policy),
        true);
    REQUIRE(imported.exit_code == 0);
    const auto check = run_allot("check --now 2026-12-01 " + quoted(policy), true);
    INFO(check.out);
    CHECK(check.exit_code == 0);
  }
}

TEST_CASE("allot import slurm refuses a bad dump with its file and line", "[cli][import]") {
  TempFolder folder("allot-import-cli");
  const auto write = [&](const std::string& text) {
    const fs::path path = fs::path(folder.file("bad.dump"));
    std::ofstream(path, std::ios::binary) << text;
    return quoted(path);
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Cluster - 'c'\nParent - 'nowhere'\n", "bad.dump:2: error: Parent `nowhere` is not an account defined above"},
      {"Cluster - 'c'\nParent - 'root'\nAccount - 'a':Fairshare=lots\n",
       "bad.dump:3: error: Fairshare=lots: expected a whole number or `parent`"},
      {"Cluster - 'c'\nParent - 'root'\nAccount - 'a':Fairshare=99999999\n",
       "bad.dump:3: error: Fairshare=99999999 is above 1000000"},
      {"Cluster - 'c'\nParent - 'root'\nAccount - 'a'\nAccount - 'a'\n",
       "bad.dump:4: error: account `a` is defined twice"},
      {"Account - 'a'\n", "bad.dump:1: error: `Account` before the `Cluster` line"},
      {"Cluster - 'c'\nParent - 'root'\nAccount - 'a:Fairshare=1\n", "bad.dump:3: error: a quote is not closed"},
      {"hello\n", "bad.dump:1: error: expected `Kind - 'name'`"},
      {"", "bad.dump:0: error: no `Cluster - 'name'` line"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const auto run = run_allot("import slurm " + write(text), true);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains(message));
  }
  const auto folder_as_dump = run_allot("import slurm " + quoted(fs::path(folder.file(""))), true);
  CHECK(folder_as_dump.exit_code == 2);
  CHECK_THAT(folder_as_dump.out, Catch::Contains("is a folder, not a file"));
  const auto bad_review = run_allot("import slurm " + quoted(kGolden / "university.dump") + " --review soon", true);
  CHECK(bad_review.exit_code == 2);
}

TEST_CASE("allot import slurm --output replaces a symlink instead of writing through it", "[cli][import]") {
  TempFolder folder("allot-import-cli");
  const fs::path target = fs::path(folder.file("precious.txt"));
  std::ofstream(target) << "keep me\n";
  const fs::path link = fs::path(folder.file("policy.allot"));
  fs::create_symlink(target, link);
  const auto run = run_allot("import slurm " + quoted(kGolden / "university.dump") + " --output " + quoted(link));
  REQUIRE(run.exit_code == 0);
  CHECK(read_text(target) == "keep me\n");
  CHECK(!fs::is_symlink(link));
  CHECK(read_text(link) == read_text(kGolden / "university.allot.golden"));
}
