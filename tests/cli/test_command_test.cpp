// `allot test` as a platform engineer runs it in CI (docs/TESTING.md): the
// shipped policies' tests pass; a failing expectation says what was found
// instead, at its line; a broken test file is an error at its line, never a
// quiet pass; JSON and JUnit XML for tools.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

// A test file of saas.allot on the Wednesday snapshot, with `expect` as its expectations.
std::string wednesday_test(const std::string& expect) {
  return "policy = \"" + std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot\"\n\n[[case]]\nname = \"wednesday\"\n" +
         "state = \"" + std::string(ALLOT_SOURCE_DIR) + "/examples/states/saas-wednesday.toml\"\n\n[case.expect]\n" +
         expect;
}

}  // namespace

TEST_CASE("the shipped policies' tests pass", "[cli][test]") {
  const auto run = run_allot("test " + source("policies"), true);
  INFO(run.out);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("PASS "));
  CHECK_THAT(run.out, !Catch::Contains("FAIL"));
  CHECK_THAT(run.out, Catch::Contains("in 5 files: "));
}

TEST_CASE("a failing expectation says what the policy decided instead, at the expectation's line", "[cli][test]") {
  const TempFolder folder("allot-test");
  const struct {
    const char* expect;
    const char* says;
  } cases[] = {
      {"first = \"exploration/ben-20\"\n",
       "saas_test.toml:8: first: expected `exploration/ben-20` first; the queue starts with `product-eval` (#1), and "
       "`exploration/ben-20` is #6"},
      {"order = [\"exploration/ana-44\", \"product-eval\"]\n",
       "order: expected `exploration/ana-44` (#7) before `product-eval` (#1)"},
      {"starts = [\"product-eval\"]\n",
       "starts: `product-eval` did not start: capacity on `gpu-01` is reserved for it after preempting 1 job"},
      {"keeps = [\"exploration/ana-43\"]\n", "keeps: `exploration/ana-43` was stopped for `product-eval`: preempted"},
      {"preempts = [\"platform-retrain-1\"]\n", "preempts: `platform-retrain-1` was not stopped: "},
      {"waits = [\"product-eval\"]\n[[case.expect.share]]\naccount = \"product\"\nshare_in_force = 0.4\n",
       "share: `product`'s `share_in_force`: expected 0.4, found 0.5"},
      {"[[case.expect.explain]]\njob = \"exploration/ben-20\"\ncontains = \"is running\"\n",
       "explain: `allot explain exploration/ben-20` does not say \"is running\":\n    Job `exploration/ben-20`"},
      // A name that is not in the state is a failure with a suggestion, never a pass.
      {"waits = [\"product-evl\"]\n",
       "waits: the case's state has no pending job `product-evl`; did you mean `product-eval`?"},
      {"keeps = [\"product-eval\"]\n", "keeps: the case's state has no running job `product-eval` (it is pending)"},
      {"[[case.expect.share]]\naccount = \"product\"\nshare_inforce = 0.5\n",
       "share: `allot shares` has no field `share_inforce`; did you mean `share_in_force`?"},
  };
  for (const auto& c : cases) {
    INFO(c.expect);
    const auto run = run_allot("test " + folder.write("saas_test.toml", wednesday_test(c.expect)), true);
    INFO(run.out);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("FAIL "));
    CHECK_THAT(run.out, Catch::Contains(c.says));
    CHECK_THAT(run.out, Catch::Contains("1 case in 1 file: 0 passed, 1 failed"));
  }
}

TEST_CASE("a broken test file is an error at its line and field, and exits non-zero", "[cli][test]") {
  const TempFolder folder("allot-test");
  const std::string policy = "policy = \"" + std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot\"\n";
  const struct {
    std::string text;
    const char* says;
  } cases[] = {
      {wednesday_test("frist = \"product-eval\"\n"),
       "saas_test.toml:8:9: case[0].expect.frist: unknown field `frist`; did you mean `first`?"},
      {wednesday_test(""), "case[0].expect.first: `[case.expect]` is empty"},
      {policy, "case: a test file has at least one `[[case]]` table"},
      {policy + "[[case]]\nname = \"x\"\n[case.expect]\nfirst = \"a\"\n", "case[0].state: a case needs a state"},
      {wednesday_test("order = [\"product-eval\"]\n"), "`order` needs two jobs or more"},
      {policy + "[[case]]\nname = \"x\"\nstate = \"missing.toml\"\n[case.expect]\nfirst = \"a\"\n",
       "case[0].state: cannot read the state file"},
      // An inline state is read as a snapshot, its errors at the test file's lines.
      {policy + "[[case]]\nname = \"x\"\n[case.state]\nnow = 2026-12-02T09:00:00Z\ninventory = \"" +
           std::string(ALLOT_SOURCE_DIR) + "/examples/clusters/saas-8gpu.toml\"\n[[case.state.job]]\nid = \"j\"\n" +
           "account = \"product\"\nclass = \"train\"\ngpus_per_node = 1\nsubmitted = 2026-12-03T08:00:00Z\n" +
           "[case.expect]\nfirst = \"j\"\n",
       "saas_test.toml:12:13: job[0].submitted: `submitted` (2026-12-03T08:00:00Z) is after"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const auto run = run_allot("test " + folder.write("saas_test.toml", c.text), true);
    INFO(run.out);
    CHECK(run.exit_code != 0);
    CHECK_THAT(run.out, Catch::Contains("ERROR "));
    CHECK_THAT(run.out, Catch::Contains(c.says));
  }
  // What is not a test file is refused, not skipped; so is a folder without any.
  const auto named = run_allot("test " + folder.write("saas.toml", wednesday_test("first = \"product-eval\"\n")), true);
  CHECK(named.exit_code == 2);
  CHECK_THAT(named.out, Catch::Contains("is not a test file: test files are named NAME_test.toml"));
  const TempFolder empty("allot-test-empty");
  const auto none = run_allot("test " + empty.file(""), true);
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.out, Catch::Contains("no test files (NAME_test.toml) found"));
}

TEST_CASE("allot test reports as JSON and as JUnit XML a CI system reads", "[cli][test]") {
  const TempFolder folder("allot-test");
  const std::string file = folder.write(
      "saas_test.toml", wednesday_test("first = \"product-eval\"\n\n[[case]]\nname = \"fails\"\nstate = \"" +
                                       std::string(ALLOT_SOURCE_DIR) + "/examples/states/saas-wednesday.toml\"\n" +
                                       "[case.expect]\nfirst = \"exploration/ana-44\"\n"));
  const auto json = run_allot("test --format json " + file);
  CHECK(json.exit_code == 1);
  const auto document = nlohmann::json::parse(json.out);
  CHECK(document["schema"] == "allot.test/1");
  CHECK(document["passed"] == 1);
  CHECK(document["failed"] == 1);
  const auto& cases = document["files"][0]["cases"];
  CHECK(cases[0]["passed"] == true);
  CHECK(cases[1]["failures"][0]["expect"] == "first");
  CHECK(cases[1]["failures"][0]["line"] == 14);

  const auto junit = run_allot("test --format junit " + file);
  CHECK(junit.exit_code == 1);
  // Read by a real XML parser, as a CI system would.
  const std::string xml = folder.file("report.xml");
  std::ofstream(xml, std::ios::binary) << junit.out;
  const std::string check =
      "python3 -c \"import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); "
      "s=r.find('testsuite'); print(r.get('tests'), r.get('failures'), len(s.findall('testcase')), "
      "len(s.findall('testcase/failure')))\" '" +
      xml + "'";
  FILE* pipe = popen(check.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char line[256] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  CHECK(pclose(pipe) == 0);
  REQUIRE(read);
  CHECK(std::string(line) == "2 1 2 1\n");
}

TEST_CASE("allot test --coverage names what no case exercised, and --threshold fails below it", "[cli][test]") {
  const TempFolder folder("allot-test");
  const std::string file = folder.write("saas_test.toml", wednesday_test("first = \"product-eval\"\n"));
  const auto run = run_allot("test " + file + " --coverage", true);
  INFO(run.out);
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("coverage of " + std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot: "));
  // One Wednesday morning: the crunch exception is in force in every case, so no case shows what it changes.
  CHECK_THAT(run.out, Catch::Contains("  exception `release_crunch` was in force at every case's `now`, so no case "
                                      "shows what it changes\n"));
  const auto json = run_allot("test " + file + " --coverage --format json");
  const auto document = nlohmann::json::parse(json.out);
  REQUIRE(document["coverage"]["policies"].size() == 1);
  const auto& policy = document["coverage"]["policies"][0];
  std::map<std::string, int> kinds;
  for (const auto& item : policy["details"]) {
    ++kinds[item["kind"].get<std::string>()];
    CHECK(item["exercised"].get<bool>() == item["missing"].is_null());
    if (item["kind"] == "rank term" || item["kind"] == "preempt operand") {
      CHECK_THAT(item["at"].get<std::string>(), Catch::Contains("saas.allot:"));
    }
  }
  CHECK(kinds["rank term"] == 5);
  CHECK(kinds["preempt operand"] == 2);
  CHECK(kinds["exception"] == 1);
  CHECK(policy["items"] == policy["details"].size());

  const auto strict = run_allot("test " + file + " --threshold 100", true);
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.out, Catch::Contains("is below --threshold 100%"));
  CHECK(run_allot("test " + file + " --threshold 0").exit_code == 0);
  CHECK(run_allot("test " + file + " --threshold 101").exit_code == 2);
}

TEST_CASE("the shipped policies' tests report their coverage", "[cli][test]") {
  const auto run = run_allot("test " + source("policies") + " --coverage", true);
  INFO(run.out);
  CHECK(run.exit_code == 0);
  for (const char* policy :
       {"baseline_labels.allot", "large_org.allot", "large_org_labels.allot", "saas.allot", "slurm_site.allot"}) {
    CHECK_THAT(run.out, Catch::Contains(std::string("/policies/") + policy + ": "));
  }
  CHECK_THAT(run.out, Catch::Contains("% of all items\n"));
}
