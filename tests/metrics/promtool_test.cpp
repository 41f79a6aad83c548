// Prometheus's own checker reads our exposition: `promtool check metrics`
// parses it and lints it; any complaint fails the test. Without promtool
// (scripts/setup.sh installs it with the `prometheus` package) the test warns
// and passes on a developer's machine, and fails in CI, where it must run.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "allot/metrics.h"

namespace {

struct Outcome {
  int status = -1;
  std::string output;  // standard output and error together
};

Outcome run_shell(const std::string& command) {
  Outcome outcome;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return outcome;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) outcome.output.append(buffer, n);
  const int status = pclose(pipe);
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return outcome;
}

// A registry with every kind, labels, escaping and special values.
std::string sample_exposition() {
  allot::metrics::Registry registry;
  auto& actions = registry.counter_family("allot_slurm_actions_total", "Actions taken in Slurm.", {"kind"});
  actions.with({"requeue"}).inc(3);
  actions.with({"priority"}).inc(0.5);
  registry.counter("allot_passes_total", "Passes run, \\ with a backslash\nand a newline.").inc();
  registry.gauge("allot_last_pass_timestamp_seconds", "When the last pass ended.").set(1767225600.25);
  auto& errors = registry.gauge_family("allot_pass_failing", "Whether a step fails.", {"step", "message"});
  errors.with({"read", "C:\\path \"x\"\nline two"}).set(1);
  errors.with({"write", ""}).set(std::numeric_limits<double>::quiet_NaN());
  registry.gauge("allot_headroom_ratio", "Spare capacity.").set(-std::numeric_limits<double>::infinity());
  auto& pass = registry.histogram("allot_pass_duration_seconds", "Pass duration.", {0.01, 0.1, 1, 10});
  for (double seconds : {0.005, 0.02, 0.5, 30.0}) pass.observe(seconds);
  auto& rpc = registry.histogram_family("allot_slurm_rpc_duration_seconds", "Slurm RPC duration.", {0.5}, {"call"});
  rpc.with({"read_jobs"}).observe(0.2);
  rpc.with({"requeue"});
  return registry.exposition();
}

}  // namespace

TEST_CASE("promtool accepts the exposition of every kind without a lint warning", "[metrics][promtool]") {
  if (run_shell("command -v promtool").status != 0) {
    if (std::getenv("CI") != nullptr) FAIL("CI must run promtool (the `prometheus` package; scripts/setup.sh)");
    WARN("skipped: promtool is not installed (the `prometheus` package)");
    return;
  }
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("allot-promtool-" + std::to_string(getpid()) + ".prom");
  std::ofstream(path) << sample_exposition();
  const Outcome outcome = run_shell("promtool check metrics < '" + path.string() + "'");
  std::filesystem::remove(path);
  INFO(outcome.output);
  CHECK(outcome.status == 0);
  CHECK(outcome.output.empty());
}
