// `allot replay` as capacity planners run it: every policy on the same arrivals,
// reports that are byte-identical for the same inputs, either engine giving the
// same numbers, and bad input named by file (and line) with a non-zero exit.
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "run_allot.h"

namespace fs = std::filesystem;
using allot_cli_test::read_text;
using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

// A short replay of the seed's company: both bundled policies, two days of a burst.
std::string seed_replay(const std::string& extra) {
  return "replay --now 2026-12-01 --policy baseline=" + source("policies/baseline_labels.allot") +
         " --policy budget=" + source("policies/saas.allot") + " --cluster " +
         source("examples/clusters/saas-8gpu.toml") + " --days 2 " + extra;
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("allot-replay-test-" + std::to_string(getpid()) + "-" + name);
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST_CASE("replay prints the comparison and writes the same JSON for the same inputs", "[cli][replay]") {
  const auto first = run_allot(seed_replay("--scenario burst --seed 7 --json -"));
  const auto second = run_allot(seed_replay("--scenario burst --seed 7 --json -"));
  REQUIRE(first.exit_code == 0);
  CHECK(first.out == second.out);
  const auto report = nlohmann::json::parse(first.out);
  CHECK(report.at("schema") == "allot.replay/1");
  CHECK(report.at("seed") == 7);
  REQUIRE(report.at("policies").size() == 2);
  CHECK(report.at("policies")[0].at("name") == "baseline");
  CHECK(report.at("policies")[1].at("name") == "budget");

  const auto other_seed = run_allot(seed_replay("--scenario burst --seed 8 --json -"));
  REQUIRE(other_seed.exit_code == 0);
  CHECK(other_seed.out != first.out);

  const auto table = run_allot(seed_replay("--scenario burst --seed 7"));
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Catch::Contains("baseline") && Catch::Contains("budget") &&
                            Catch::Contains("wait p50 / p90 by class") && Catch::Contains("gates"));
}

TEST_CASE("replay on a terminal shows each policy's progress and the events handled per second", "[cli][replay]") {
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    WARN("`script` is not installed: this test did not run");
    return;
  }
  const fs::path json = scratch("progress.json");
  // util-linux `script` gives allot a pseudo-terminal for its standard error.
  const std::string command = "script -qec \"'" + std::string(ALLOT_BINARY) + "' " +
                              seed_replay("--scenario burst --seed 7 --json '" + json.string() + "'") +
                              "\" /dev/null </dev/null";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  CHECK(pclose(pipe) == 0);
  fs::remove(json);
  CHECK_THAT(out, Catch::Contains("burst  [") && Catch::Contains("baseline ") && Catch::Contains("budget "));
  // The rate: a number, then the words.
  const std::size_t rate = out.find(" events/s");
  REQUIRE(rate != std::string::npos);
  REQUIRE(rate > 0);
  CHECK(std::isdigit(static_cast<unsigned char>(out[rate - 1])));
  // On a pipe, no bar at all (the other tests read standard error through one).
  const auto piped = run_allot(seed_replay("--scenario burst --seed 7 --json -"), true);
  CHECK(piped.out.find("events/s") == std::string::npos);
}

// Columns a terminal shows for text with no wide characters: one per UTF-8
// code point (continuation bytes count nothing).
std::size_t columns(const std::string& line) {
  std::size_t count = 0;
  for (const char c : line) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return count;
}

TEST_CASE("the comparison table aligns its columns by what a terminal shows, not by bytes", "[cli][replay]") {
  const auto run =
      run_allot("replay --now 2026-12-01 --policy r\xC3\xA9gime=" + source("policies/baseline_labels.allot") +
                " --policy \xC3\xA0\xC2\xB7\xC3\xA9=" + source("policies/saas.allot") + " --cluster " +
                source("examples/clusters/saas-8gpu.toml") + " --days 1 --scenario normal --seed 3");
  REQUIRE(run.exit_code == 0);
  std::istringstream lines(run.out);
  std::string line, header;
  std::vector<std::string> rows;
  while (std::getline(lines, line)) {
    const std::size_t text = line.find_first_not_of(' ');
    if (header.empty() && text != std::string::npos && line.compare(text, 7, "r\xC3\xA9gime") == 0) header = line;
    if (text != std::string::npos &&
        (line.compare(text, 8, "all jobs") == 0 || line.compare(text, 9, "occupancy") == 0))
      rows.push_back(line);
  }
  INFO(run.out);
  REQUIRE_FALSE(header.empty());
  REQUIRE(rows.size() >= 2);
  for (const std::string& row : rows) CHECK(columns(row) == columns(header));
}

TEST_CASE("the interpreter and the JIT replay to the same report", "[cli][replay]") {
  const auto jit = run_allot(seed_replay("--scenario normal --json - --engine jit"));
  const auto interp = run_allot(seed_replay("--scenario normal --json - --engine interp"));
  REQUIRE(jit.exit_code == 0);
  CHECK(jit.out == interp.out);
}

TEST_CASE("policies replayed at once give the report of one after the other", "[cli][replay]") {
  const auto sequential = run_allot(seed_replay("--scenario burst --seed 7 --json - --threads 1"));
  const auto parallel = run_allot(seed_replay("--scenario burst --seed 7 --json - --threads 2"));
  REQUIRE(sequential.exit_code == 0);
  CHECK(parallel.exit_code == 0);
  CHECK(parallel.out == sequential.out);
}

TEST_CASE("replay writes a self-contained HTML page", "[cli][replay]") {
  const fs::path html = scratch("report.html");
  const auto run = run_allot(seed_replay("--scenario drain --html '" + html.string() + "'"));
  REQUIRE(run.exit_code == 0);
  const std::string page = read_text(html);
  fs::remove(html);
  CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>") || Catch::StartsWith("<!doctype html>"));
  CHECK_THAT(page, !Catch::Contains("<script src=") && !Catch::Contains("<link rel=\"stylesheet\" href=\"http"));
  CHECK_THAT(page, Catch::Contains("<svg"));
}

TEST_CASE("replay names what is wrong with its input and exits non-zero", "[cli][replay]") {
  SECTION("a cluster file that does not exist") {
    const auto run = run_allot(
        "replay --policy " + source("policies/saas.allot") + " --cluster /nonexistent/cluster.toml --scenario normal",
        true);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("/nonexistent/cluster.toml: cannot read the file"));
  }
  SECTION("a trace or a map that cannot be read is an I/O failure (exit 2), not a content error") {
    const std::string common = "replay --now 2026-12-01 --policy " + source("policies/saas.allot") + " --cluster " +
                               source("examples/clusters/saas-8gpu.toml");
    const fs::path trace = scratch("readable_trace.csv");
    write(trace, "job_id,submit_s,duration_s,gpus,group,user,status\n1,0,100,1,g,u,Pass\n");
    const auto no_map = run_allot(common + " --trace '" + trace.string() + "' --map /nonexistent/map.toml", true);
    fs::remove(trace);
    CHECK(no_map.exit_code == 2);
    CHECK_THAT(no_map.out, Catch::Contains("/nonexistent/map.toml: cannot read the file: No such file or directory"));
    const auto no_trace = run_allot(
        common + " --trace /nonexistent/trace.csv --map " + source("examples/workloads/philly_map.toml"), true);
    CHECK(no_trace.exit_code == 2);
    CHECK_THAT(no_trace.out,
               Catch::Contains("/nonexistent/trace.csv: cannot read the file: No such file or directory"));
    // A folder is not a file it can read either.
    const auto folder = run_allot(
        common + " --trace " + source("examples") + " --map " + source("examples/workloads/philly_map.toml"), true);
    CHECK(folder.exit_code == 2);
  }
  SECTION("a policy with a syntax error is reported with its location, and nothing is replayed") {
    const fs::path broken = scratch("broken.allot");
    write(broken, "policy broken {\n  window 7d\n");
    const auto run = run_allot("replay --now 2026-12-01 --policy b='" + broken.string() + "' --cluster " +
                                   source("examples/clusters/saas-8gpu.toml") + " --scenario normal",
                               true);
    fs::remove(broken);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains("error[syntax_error]") && Catch::Contains("broken.allot:3:1"));
    CHECK_THAT(run.out, !Catch::Contains("wait p50"));
  }
  SECTION("a trace row that is not a number names the file, the line and the field") {
    const fs::path trace = scratch("trace.csv");
    write(trace, "job_id,submit_s,duration_s,gpus,group,user,status\n1,0,100,1,g,u,Pass\n2,abc,100,1,g,u,Pass\n");
    const auto run = run_allot("replay --now 2026-12-01 --policy " + source("policies/saas.allot") + " --cluster " +
                                   source("examples/clusters/saas-8gpu.toml") + " --trace '" + trace.string() +
                                   "' --map " + source("examples/workloads/philly_map.toml"),
                               true);
    fs::remove(trace);
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.out, Catch::Contains(trace.string() + ":3: submit_s: expected a whole number, found `abc`"));
  }
  SECTION("a scenario that does not exist is a usage error") {
    const auto run = run_allot(seed_replay("--scenario tuesday"), true);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains("tuesday"));
  }
}

TEST_CASE("replay --load with several loads adds a load sweep; one load changes nothing", "[cli][replay][sweep]") {
  const auto plain = run_allot(seed_replay("--scenario burst --json -"));
  const auto one = run_allot(seed_replay("--scenario burst --load 1.3 --json -"));
  REQUIRE(plain.exit_code == 0);
  CHECK(one.out == plain.out);
  CHECK_THAT(plain.out, !Catch::Contains("\"sweep\""));

  const auto swept = run_allot(seed_replay("--scenario burst --load 0.6,1.2"));
  REQUIRE(swept.exit_code == 0);
  CHECK_THAT(swept.out, Catch::Contains("load sweep: the same seed at each load") &&
                            Catch::Contains("note: the tables below are for load 0.6") && Catch::Contains("load 1.2") &&
                            Catch::Contains("p90 debug"));
  CHECK_THAT(swept.out, Catch::Contains("`baseline` ") && Catch::Contains("`budget` "));
}

TEST_CASE("replay --holds sets how many blocked jobs hold capacity each cycle", "[cli][replay]") {
  // The large scenario's whole-node run is the blocked job a hold is for.
  const auto one = run_allot(seed_replay("--scenario large --json -"));
  const auto same = run_allot(seed_replay("--scenario large --holds 1 --json -"));
  const auto none = run_allot(seed_replay("--scenario large --holds 0 --json -"));
  REQUIRE(one.exit_code == 0);
  REQUIRE(none.exit_code == 0);
  CHECK(same.out == one.out);  // 1 is the default
  CHECK(none.out != one.out);
  const auto bad = run_allot(seed_replay("--scenario large --holds 65"), true);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out, Catch::Contains("--holds") && Catch::Contains("65"));
}

TEST_CASE("replay refuses a bad sweep list with exit 2, naming the option and the value", "[cli][replay][sweep]") {
  // The lists are checked before the trace is read: no trace is needed.
  const std::string trace = " --trace /nonexistent/trace.csv --map " + source("examples/workloads/philly_map.toml");
  struct Case {
    std::string arguments;
    std::string message;
  };
  const Case cases[] = {
      {"--scenario normal --load 0.6,abc", "--load: `abc` is not a number"},
      {"--scenario normal --load 0.6,20", "`20` must be at least 0.05 and at most 10"},
      {"--scenario normal --load 0.01", "`0.01` must be at least 0.05"},
      {"--scenario normal --load nan", "`nan` must be"},
      {"--scenario normal --load 0.6,0.8,0.6", "--load: `0.6` is given twice"},
      {"--scenario normal --load 0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1,1.1,1.2,1.3",
       "--load: at most 12 values, found 13"},
      {"--scenario normal --scale-capacity 2", "--scale-capacity"},
      {"--scale-capacity 0" + trace, "--scale-capacity: `0` must be above 0"},
      {"--scale-capacity -1" + trace, "`-1`"},
      {"--scale-capacity 100001" + trace, "`100001` must be above 0 and at most 100000"},
  };
  for (const Case& test : cases) {
    INFO(test.arguments);
    const auto run = run_allot(seed_replay(test.arguments), true);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.out, Catch::Contains(test.message));
  }
  // 100,000 nodes at most: the 640-GPU cluster's 80 nodes x 2000 is too many.
  const auto huge =
      run_allot("replay --now 2026-12-01 --policy " + source("policies/large_org.allot") + " --cluster " +
                    source("examples/clusters/research-640gpu.toml") + " --trace /nonexistent/trace.csv --map " +
                    source("examples/workloads/philly_large_org_map.toml") + " --scale-capacity 1,2000",
                true);
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.out, Catch::Contains("--scale-capacity: `2000` gives 160000 nodes (80 x 2000); at most 100000"));
}

TEST_CASE("replay --fail-on-gates exits 1 when a policy misses a gate; --hang replays hung jobs", "[cli][replay]") {
  // Both bundled policies fail a gate of theirs on two days of `normal` (docs/OUTCOMES.md).
  const auto plain = run_allot(seed_replay("--scenario normal"));
  CHECK(plain.exit_code == 0);
  CHECK_THAT(plain.out, Catch::Contains("FAIL"));
  const auto gated = run_allot(seed_replay("--scenario normal --fail-on-gates"));
  CHECK(gated.exit_code == 1);
  CHECK(gated.out == plain.out);  // the same report; only the exit differs

  const auto hung = run_allot(seed_replay("--scenario normal --hang 20 --json -"));
  REQUIRE(hung.exit_code == 0);
  const auto document = nlohmann::json::parse(hung.out);
  CHECK(document["seed"] == 1);
  const auto& all = document["workloads"][0]["results"][1]["all"];
  CHECK(all["hung"]["jobs"].get<int>() > 0);
  CHECK(all["hung"]["held_gpu_hours"].get<double>() > 0);
  CHECK_THAT(document["workloads"][0]["description"].get<std::string>(), Catch::Contains("training jobs"));
  // A trace draws nothing unless --hang asks: --seed alone is a usage error.
  const auto seeded_trace =
      run_allot("replay --now 2026-12-01 --policy " + source("policies/saas.allot") + " --cluster " +
                    source("examples/clusters/saas-8gpu.toml") + " --trace x.csv" + " --map y.toml --seed 3",
                true);
  CHECK(seeded_trace.exit_code == 2);
  CHECK_THAT(seeded_trace.out, Catch::Contains("a trace without --hang draws nothing"));
}
