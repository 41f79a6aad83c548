// `allot replay`: compare policies on the same arrivals (a scenario or a
// trace) before one goes live. The comparison goes to stdout, JSON and HTML
// to files, a progress bar to stderr when it is a terminal.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "allot/compile.h"
#include "allot/files.h"
#include "allot/simulator.h"
#include "commands.h"

namespace allot::cli {
namespace {

using simulator::ReplayPolicy;
using simulator::Workload;

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }
bool stderr_color() { return stderr_is_terminal() && std::getenv("NO_COLOR") == nullptr; }

// Prints why the replay cannot go on and sets the exit code.
std::nullopt_t fail(int& code, int exit_code, const std::string& message) {
  std::cerr << "allot: " << message << "\n";
  code = exit_code;
  return std::nullopt;
}

// A trace or mapping problem: 2 when the file could not be read at all.
std::nullopt_t fail(int& code, const simulator::TraceError& error) {
  return fail(code, error.unreadable ? 2 : 1, error.to_string());
}

// "NAME=FILE", or "FILE" named after its stem.
std::pair<std::string, std::string> split_policy(const std::string& argument) {
  const std::size_t equals = argument.find('=');
  if (equals == std::string::npos) return {std::filesystem::path(argument).stem().string(), argument};
  return {argument.substr(0, equals), argument.substr(equals + 1)};
}

// Compiles every policy; prints diagnostics and returns nothing on errors.
std::optional<std::vector<ReplayPolicy>> compile_policies(const ReplayArguments& arguments, int& code) {
  CompileOptions options;
  options.engine = arguments.engine == "interp" ? Engine::interpreter : Engine::jit;
  if (!arguments.now.empty()) options.check.today = parse_date(arguments.now);
  std::vector<ReplayPolicy> policies;
  for (const std::string& argument : arguments.policies) {
    auto [name, file] = split_policy(argument);
    for (const ReplayPolicy& other : policies) {
      if (other.name == name) {
        return fail(code, 2, fmt::format("two policies are named `{}`; write --policy NAME=FILE", name));
      }
    }
    CompileResult result = compile_policy_file(file, options);
    std::cerr << render_text(result.diagnostics, result.sources, {stderr_color()});
    if (!result.policy) {
      const bool io = !result.diagnostics.empty() && result.diagnostics.front().code == "io_error";
      code = io ? 2 : 1;
      return std::nullopt;
    }
    policies.push_back(ReplayPolicy{name, file, result.policy});
  }
  return policies;
}

// The workloads to replay: one trace, or one or all scenarios.
std::optional<std::vector<Workload>> workloads(const ReplayArguments& arguments, const runtime::Inventory& inventory,
                                               const std::vector<ReplayPolicy>& policies, int& code) {
  std::vector<Workload> result;
  if (!arguments.trace.empty()) {
    auto map = simulator::load_trace_map(arguments.map);
    if (!map) return fail(code, map.error());
    for (const ReplayPolicy& policy : policies) {
      if (auto problem = simulator::check_trace_map(*map, policy.policy->tables())) {
        return fail(code, *problem);
      }
    }
    auto rows = simulator::read_trace(arguments.trace);
    if (!rows) return fail(code, rows.error());
    const std::optional<int> days = arguments.days > 0 ? std::optional<int>(arguments.days) : std::nullopt;
    auto workload = simulator::trace_workload(*rows, *map, inventory, arguments.trace, days);
    if (!workload) return fail(code, workload.error());
    result.push_back(std::move(*workload));
    return result;
  }
  simulator::ScenarioOptions options;
  options.seed = arguments.seed;
  options.days = arguments.days > 0 ? arguments.days : 7;
  options.load = arguments.load;
  for (const char* name : {"normal", "burst", "large", "drain"}) {
    if (arguments.scenario != "all" && arguments.scenario != name) continue;
    auto workload = simulator::generate_scenario(*simulator::parse_scenario(name), inventory,
                                                 policies.front().policy->tables(), options);
    if (!workload) return fail(code, 1, workload.error());
    result.push_back(std::move(*workload));
  }
  return result;
}

// A progress bar on stderr: "normal  saas  [#######.......]  48%".
simulator::ReplayProgress progress_bar(const std::string& workload, const std::vector<ReplayPolicy>& policies) {
  if (!stderr_is_terminal()) return {};
  return [&policies, workload](std::size_t policy, double fraction) {
    const int filled = static_cast<int>(fraction * 30);
    std::cerr << fmt::format("\r{} / {}  [{}{}] {:3.0f}%\x1b[K", workload, policies[policy].name,
                             std::string(static_cast<std::size_t>(filled), '#'),
                             std::string(static_cast<std::size_t>(30 - filled), '.'), fraction * 100)
              << std::flush;
  };
}

bool write_file(const std::string& path, const std::string& text) {
  if (path == "-") return static_cast<bool>(std::cout << text);
  // Atomic: a report written over the only copy of anything never leaves half of it.
  if (auto problem = support::write_file_atomic(path, text)) {
    std::cerr << "allot: " << *problem << "\n";
    return false;
  }
  return true;
}

simulator::ReplayReport empty_report(const ReplayArguments& arguments, const runtime::Inventory& inventory,
                                     const std::vector<ReplayPolicy>& policies) {
  simulator::ReplayReport report;
  report.cluster = inventory.name;
  report.cluster_gpus = inventory.schedulable_gpus();
  report.cluster_gpus_down = inventory.total_gpus() - report.cluster_gpus;
  report.cluster_nodes = static_cast<int>(inventory.nodes.size());
  if (arguments.trace.empty()) report.seed = arguments.seed;
  for (const ReplayPolicy& policy : policies) report.policies.emplace_back(policy.name, policy.file);
  return report;
}

int replay(const ReplayArguments& arguments, const runtime::Inventory& inventory) {
  int code = 0;
  const auto policies = compile_policies(arguments, code);
  if (!policies) return code;
  const auto all = workloads(arguments, inventory, *policies, code);
  if (!all) return code;
  simulator::ReplayReport report = empty_report(arguments, inventory, *policies);
  simulator::SimulationOptions simulation;
  simulation.min_cycle_gap = arguments.cycle_gap;
  for (const Workload& workload : *all) {
    auto scenario = simulator::replay_workload(workload, inventory, *policies, simulation, {},
                                               progress_bar(workload.name, *policies));
    if (stderr_is_terminal()) std::cerr << "\r\x1b[K" << std::flush;
    if (!scenario) {
      std::cerr << "allot: " << scenario.error() << "\n";
      return 1;
    }
    report.scenarios.push_back(std::move(*scenario));
  }
  if (arguments.json != "-") std::cout << simulator::render_table(report, use_color());
  bool written = arguments.json.empty() || write_file(arguments.json, simulator::render_json(report));
  written = (arguments.html.empty() || write_file(arguments.html, simulator::render_html(report))) && written;
  return written ? 0 : 2;
}

}  // namespace

int run_replay(const ReplayArguments& arguments) {
  if (arguments.trace.empty() == arguments.scenario.empty()) {
    std::cerr << "allot: give either --scenario NAME or --trace FILE with --map FILE\n";
    return 2;
  }
  if (!arguments.trace.empty() && arguments.map.empty()) {
    std::cerr << "allot: --trace needs --map FILE (which accounts and classes the trace's jobs get)\n";
    return 2;
  }
  if (std::optional<Date> today; !read_now(arguments.now, today)) return 2;
  auto inventory = runtime::load_inventory(arguments.cluster);
  if (!inventory) {
    std::cerr << "allot: " << inventory.error().to_string() << "\n";
    return inventory.error().unreadable ? 2 : 1;
  }
  return replay(arguments, *inventory);
}

}  // namespace allot::cli
