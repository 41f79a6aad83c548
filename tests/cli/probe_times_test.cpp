// Issue 28, items 5 and 6: times and units that mean one thing. A table of
// probes runs the real `allot` binary and asserts what a user reads: the exit
// code (0 ok, 1 bad input, 2 usage or I/O) and the message. Each row was a
// defect on main or is one of its kind: a `--now` that let the cycle start a
// job before it was submitted, an `--apply` that wrote a state no cycle could
// read, windows that were not whole hours and were rounded differently by the
// scheduler and the gates, `[usage]` keys that were dropped, a `--seed -1`
// that became 2^64-1, and ranks that were not finite printed as `null`.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/run_allot.h"
#include "runtime/temp_folder.h"

using allot_cli_test::run_allot;
using allot_cli_test::source;

namespace {

// A policy for the accounts and classes of the probe states; `rank` and the
// window (with any gates) are each probe's. Review dates at the end of 9999,
// so a cycle at the last second a snapshot can state still compiles.
std::string policy_text(const std::string& window, const std::string& rank, const std::string& gates = "") {
  return R"(policy probe {
  unit gpu_hours { h100 = 1.0 }
  )" + window +
         R"(
  tree {
    product 40% { owner "maria@example.com"  review 9999-12-31  hypothesis "evaluation gates every release" }
    platform 35% { owner "devi@example.com"  review 9999-12-31  hypothesis "retraining cuts support time" }
    exploration 25% {
      owner "kenji@example.com"  review 9999-12-31  hypothesis "a new architecture beats the baseline"
      user ana 50%
      user ben 50%
    }
  }
  class debug { max_gpus 1  max_runtime 15m  protect 15m  resumable }
  class train { checkpoint every 30m  protect up to 2h  resumable  grace 5m }
  rank = )" +
         rank + "\n" + gates + "}\n";
}

// The seed's 8-GPU node at 09:00 (lines 1-2); `platform` runs on 4 GPUs since
// 07:30 (checkpointed at 08:30); `product` waits since 08:00 asking for 2 hours
// of protection.
const std::string kNode = "now = 2026-12-02T09:00:00Z\ninventory = \"" + std::string(ALLOT_SOURCE_DIR) +
                          "/examples/clusters/saas-8gpu.toml\"\n";
const std::string kRunning = R"(
[[running]]
id = "r"
account = "platform"
class = "train"
gpus_per_node = 4
submitted = 2026-12-02T07:00:00Z
nodes = ["gpu-01"]
started = 2026-12-02T07:30:00Z
last_checkpoint = 2026-12-02T08:30:00Z
[running.contract]
protected_until = 2026-12-02T09:30:00Z
)";
const std::string kWaiting = R"(
[[job]]
id = "a"
account = "product"
class = "train"
gpus_per_node = 1
submitted = 2026-12-02T08:00:00Z
requested_protect = "2h"
)";

struct Probe {
  const char* name;
  std::string arguments;  // after `allot`; {dir} is the fixtures' folder
  int exit_code;
  std::vector<std::string> says;  // each must appear in what the user reads (stdout and stderr)
};

class Fixtures {
 public:
  Fixtures() : folder_("allot-probe-times") {
    write("probe.allot", policy_text("window 7d", "1000 * account.fair_tree"));
    write("inf.allot", policy_text("window 7d", "exp(1000) + account.usage"));
    write("minus-inf.allot", policy_text("window 7d", "-exp(1000)"));
    write("nan.allot", policy_text("window 7d", "exp(800) - exp(800)"));
    for (const char* window : {"1.5h", "90m", "1s", "30m", "0h", "2h", "1d"}) {
      write(std::string("window-") + window + ".allot", policy_text(std::string("window ") + window, "1"));
    }
    for (const char* over : {"1.5h", "90m", "0h", "1h", "7d"}) {
      write(std::string("over-") + over + ".allot",
            policy_text("window 7d", "1", std::string("  gates { share_delivery >= 95% over ") + over + " }\n"));
    }
    write("state.toml", kNode + kWaiting + kRunning);
    write("running.toml", kNode + kRunning);
    write("usage-root.toml", kNode + "\n[usage]\n\"\" = 500\n" + kWaiting);
    write("usage-inner.toml", kNode + "\n[usage]\nexploration = 100\n\"exploration/ana\" = 246\n" + kWaiting);
    write("usage-inner-total.toml",
          kNode + "\n[usage]\nexploration = 300\n\"exploration/ana\" = 246\n\"exploration/ben\" = 54\n" + kWaiting);
  }
  std::string path(const std::string& name) const { return folder_.file(name); }

 private:
  void write(const std::string& name, const std::string& text) { std::ofstream(folder_.file(name)) << text; }
  TempFolder folder_;
};

std::string expand(std::string text, const Fixtures& fixtures) {
  for (std::size_t at; (at = text.find("{dir}/")) != std::string::npos;) {
    const std::size_t end = text.find_first_of(" ", at);
    const std::string name = text.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
    text.replace(at, end == std::string::npos ? std::string::npos : end - at, "'" + fixtures.path(name) + "'");
  }
  return text;
}

const std::string kCycle = "cycle --policy {dir}/probe.allot --state {dir}/state.toml";
const std::string kReplay = "replay --policy p=" + std::string(ALLOT_SOURCE_DIR) + "/policies/saas.allot --cluster " +
                            source("examples/clusters/saas-8gpu.toml") + " --scenario normal --days 1";
const std::string kSeedError = "--seed: `{}` must be a whole number from 0 to 9223372036854775807";

std::string seed_error(const std::string& seed) {
  std::string text = kSeedError;
  return text.replace(text.find("{}"), 2, seed);
}

std::vector<Probe> probes() {
  const std::string window_hours =
      "error[invalid_duration]: the fair-share window must be a whole number of hours, at least 1";
  const std::string over_hours =
      "error[invalid_duration]: the window of `share_delivery` must be a whole number of hours, at least 1";
  return {
      // --now is checked against the snapshot as its own `now` is, by every command that takes both.
      {"cycle --now before a submission",
       kCycle + " --now 2026-12-02T07:00:00Z",
       1,
       {"state.toml:9:13: job[0].submitted: `submitted` (2026-12-02T08:00:00Z) is after `--now` "
        "(2026-12-02T07:00:00Z)"}},
      {"explain --now before a submission",
       "explain a --policy {dir}/probe.allot --state {dir}/state.toml --now 2026-12-02T07:00:00Z",
       1,
       {"job[0].submitted: `submitted` (2026-12-02T08:00:00Z) is after `--now` (2026-12-02T07:00:00Z)"}},
      {"shares --now before a submission",
       "shares --policy {dir}/probe.allot --state {dir}/state.toml --now 2026-12-02T07:00:00Z",
       1,
       {"job[0].submitted: `submitted` (2026-12-02T08:00:00Z) is after `--now` (2026-12-02T07:00:00Z)"}},
      {"cycle --now before a start",
       "cycle --policy {dir}/probe.allot --state {dir}/running.toml --now 1796194800",
       1,
       {"running[0].started: `started` (2026-12-02T07:30:00Z) must be between `submitted` (2026-12-02T07:00:00Z) "
        "and `--now` (2026-12-02T07:00:00Z)"}},
      {"cycle --now before a checkpoint",
       "cycle --policy {dir}/probe.allot --state {dir}/running.toml --now 2026-12-02T08:00:00Z",
       1,
       {"running[0].last_checkpoint: `last_checkpoint` (2026-12-02T08:30:00Z) must be between `started` "
        "(2026-12-02T07:30:00Z) and `--now` (2026-12-02T08:00:00Z)"}},
      {"cycle --now at the checkpoint",
       kCycle + " --now 2026-12-02T08:30:00Z",
       0,
       {"\"now\": \"2026-12-02T08:30:00Z\""}},
      {"cycle --now at the last second a snapshot holds",
       kCycle + " --now 9999-12-31T23:59:59Z",
       0,
       {"\"now\": \"9999-12-31T23:59:59Z\""}},
      {"cycle --now past 9999", kCycle + " --now 10000-01-01", 2, {"--now expects a time like"}},
      {"cycle --now one second past 9999 in seconds", kCycle + " --now 253402300800", 2, {"--now expects a time like"}},
      // --apply never writes what the reader refuses.
      {"cycle --apply with a protection past 9999",
       kCycle + " --now 9999-12-31T23:00:00Z --apply {dir}/next.toml",
       2,
       {"the state would not read back: running[1].contract.protected_until: `protected_until` (253402304400 "
        "seconds since 1970) is after 9999-12-31T23:59:59Z"}},
      {"cycle --apply with a protection up to the last second",
       kCycle + " --now 9999-12-31T21:59:59Z --apply {dir}/next-ok.toml",
       0,
       {"\"kind\": \"start\""}},
      // The window and every gate window are whole hours.
      {"window 1.5h",
       "check {dir}/window-1.5h.allot",
       1,
       {window_hours, "window 1.5h", "write `window 1h` or `window 2h`"}},
      {"window 90m", "check {dir}/window-90m.allot", 1, {window_hours, "write `window 1h` or `window 2h`"}},
      {"window 1s", "check {dir}/window-1s.allot", 1, {window_hours, "write `window 1h` or `window 2h`"}},
      {"window 30m", "check {dir}/window-30m.allot", 1, {window_hours, "write `window 1h` or `window 2h`"}},
      {"window 0h", "check {dir}/window-0h.allot", 1, {"the fair-share window must be longer than 0"}},
      {"window 2h", "check {dir}/window-2h.allot", 0, {}},
      {"window 1d", "check {dir}/window-1d.allot", 0, {}},
      {"a gate over 1.5h", "check {dir}/over-1.5h.allot", 1, {over_hours, "write `over 1h` or `over 2h`"}},
      {"a gate over 90m", "check {dir}/over-90m.allot", 1, {over_hours}},
      {"a gate over 0h", "check {dir}/over-0h.allot", 1, {over_hours, "write `over 1h` or `over 2h`"}},
      {"a gate over 1h", "check {dir}/over-1h.allot", 0, {}},
      {"a gate over 7d", "check {dir}/over-7d.allot", 0, {}},
      // [usage] keys are never dropped.
      {"usage for the root",
       "cycle --policy {dir}/probe.allot --state {dir}/usage-root.toml",
       1,
       {"usage-root.toml:5:6: usage.\"\": `[usage]` for the root must be what the accounts below it add up to (0), "
        "not 500"}},
      {"usage for an inner account below its users'",
       "cycle --policy {dir}/probe.allot --state {dir}/usage-inner.toml",
       1,
       {"usage-inner.toml:5:15: usage.exploration: ", "less than its accounts below it"}},
      {"usage for an inner account as its subtree's total",
       "cycle --policy {dir}/probe.allot --state {dir}/usage-inner-total.toml",
       0,
       {"\"decisions\""}},
      // --seed is 0 to 2^63-1 in decimal.
      {"--seed -1", kReplay + " --seed -1", 2, {seed_error("-1")}},
      {"--seed 2^63", kReplay + " --seed 9223372036854775808", 2, {seed_error("9223372036854775808")}},
      {"--seed 2^64", kReplay + " --seed 18446744073709551616", 2, {seed_error("18446744073709551616")}},
      {"--seed in hex", kReplay + " --seed 0x10", 2, {seed_error("0x10")}},
      {"--seed empty", kReplay + " --seed ''", 2, {seed_error("")}},
      {"--seed with a sign", kReplay + " --seed +5", 2, {seed_error("+5")}},
      {"--seed as a float", kReplay + " --seed 1e3", 2, {seed_error("1e3")}},
      // Ranks that are not finite are reported, never null.
      {"a rank of +inf in the cycle document",
       "cycle --policy {dir}/inf.allot --state {dir}/state.toml",
       0,
       {"\"rank\": \"+inf\""}},
      {"a rank of -inf in the cycle document",
       "cycle --policy {dir}/minus-inf.allot --state {dir}/state.toml",
       0,
       {"\"rank\": \"-inf\""}},
      {"a rank of NaN is 0 (docs/LANGUAGE.md)",
       "cycle --policy {dir}/nan.allot --state {dir}/state.toml",
       0,
       {"\"rank\": 0.0"}},
      {"a rank of +inf explained",
       "explain a --policy {dir}/inf.allot --state {dir}/state.toml",
       0,
       {"in the queue, rank not finite (+inf).", "Rank not finite (+inf), the sum of 2 terms of `rank` ("}},
      {"a rank of +inf explained as JSON",
       "explain a --json --policy {dir}/inf.allot --state {dir}/state.toml",
       0,
       {"\"rank\": \"+inf\""}},
  };
}

}  // namespace

TEST_CASE("probes of times and units: exit codes and messages", "[cli][probe]") {
  const Fixtures fixtures;
  for (const Probe& probe : probes()) {
    const std::string arguments = expand(probe.arguments, fixtures);
    INFO(probe.name << "\nallot " << arguments);
    const auto run = run_allot(arguments, true);
    INFO(run.out);
    CHECK(run.exit_code == probe.exit_code);
    for (const std::string& text : probe.says) CHECK_THAT(run.out, Catch::Contains(text));
  }
}

TEST_CASE("a refused --apply leaves the state file as it was", "[cli][probe]") {
  const Fixtures fixtures;
  const std::string next = fixtures.path("next.toml");
  std::ofstream(next) << "the previous state\n";
  const auto run = run_allot(expand(kCycle + " --now 9999-12-31T23:00:00Z --apply '" + next + "'", fixtures), true);
  CHECK(run.exit_code == 2);
  CHECK(allot_cli_test::read_text(next) == "the previous state\n");
}

TEST_CASE("the largest --seed replays", "[cli][probe]") {
  const auto run = run_allot(kReplay + " --seed 9223372036854775807 --json -");
  CHECK(run.exit_code == 0);
  CHECK_THAT(run.out, Catch::Contains("9223372036854775807"));
}
