// `allot replay`: compare policies on the same arrivals (a scenario or a
// trace) before one goes live. The comparison goes to stdout, JSON and HTML
// to files, a progress bar to stderr when it is a terminal.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <numeric>

#include "allot/accounting.h"
#include "allot/compile.h"
#include "allot/files.h"
#include "allot/simulator.h"
#include "allot/text.h"
#include "commands.h"
#include "io_paths.h"

namespace allot::cli {
namespace {

using simulator::ReplayPolicy;
using simulator::Workload;

// How long a sweep may be, and how large a scaled cluster: bounds on time and memory.
constexpr std::size_t kMaxSweepValues = 12;
constexpr long long kMaxScaledNodes = runtime::kMaxInventoryNodes;

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

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
// Every file read (the policies and their imports) is added to `files`.
std::optional<std::vector<ReplayPolicy>> compile_policies(const ReplayArguments& arguments, CommandFiles& files,
                                                          int& code) {
  CompileOptions options = compile_options(arguments.engine);
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
    colored_stderr(stderr_color()) << render_text(result.diagnostics, result.sources, {stderr_color()});
    if (!result.policy) {
      code = has_unreadable_input(result.diagnostics) ? 2 : 1;
      return std::nullopt;
    }
    files.input("--policy", file);
    files.imports("--policy", files_read(result.sources));
    policies.push_back(ReplayPolicy{name, file, result.policy});
  }
  return policies;
}

// A trace and its mapping, read and checked against every policy.
struct TraceInput {
  simulator::TraceMap map;
  std::vector<simulator::TraceRow> rows;
};

std::optional<TraceInput> read_trace_input(const ReplayArguments& arguments, const std::vector<ReplayPolicy>& policies,
                                           int& code) {
  auto map = simulator::load_trace_map(arguments.map);
  if (!map) return fail(code, map.error());
  for (const ReplayPolicy& policy : policies) {
    if (auto problem = simulator::check_trace_map(*map, policy.policy->tables())) return fail(code, *problem);
  }
  auto rows = simulator::read_trace(arguments.trace);
  if (!rows) return fail(code, rows.error());
  return TraceInput{std::move(*map), std::move(*rows)};
}

// The scenarios asked for, in the seed's order (none with a trace).
std::vector<simulator::Scenario> scenarios_of(const ReplayArguments& arguments) {
  std::vector<simulator::Scenario> result;
  for (const char* name : {"normal", "burst", "large", "drain"}) {
    if (arguments.scenario == "all" || arguments.scenario == name) result.push_back(*simulator::parse_scenario(name));
  }
  return result;
}

// A progress bar on stderr: "normal  [#######.......]  48%  saas 52%  labels 44%  4690
// events/s" (the bar: the policy furthest behind; policies may run at once, so each has
// its share; events/s: every policy's events handled since the workload began, per second).
simulator::ReplayProgress progress_bar(const std::string& workload, const std::vector<ReplayPolicy>& policies) {
  if (!stderr_is_terminal()) return {};
  struct Seen {
    std::vector<double> done;
    std::vector<std::uint64_t> events;
    std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
  };
  auto seen = std::make_shared<Seen>(
      Seen{std::vector<double>(policies.size(), 0.0), std::vector<std::uint64_t>(policies.size(), 0)});
  return [&policies, workload, seen](std::size_t policy, double fraction, std::uint64_t events) {
    seen->done[policy] = fraction;
    seen->events[policy] = events;
    const double least = *std::min_element(seen->done.begin(), seen->done.end());
    const int filled = static_cast<int>(least * 30);
    std::string each;
    for (std::size_t i = 0; i < policies.size(); ++i) {
      each += fmt::format("  {} {:.0f}%", support::printable(policies[i].name), seen->done[i] * 100);
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - seen->began).count();
    const auto handled =
        static_cast<double>(std::accumulate(seen->events.begin(), seen->events.end(), std::uint64_t{0}));
    if (seconds > 0) each += fmt::format("  {:.0f} events/s", handled / seconds);
    // Unguarded for its own \r and erase-line; the names in it go through printable().
    support::unguarded_stderr() << fmt::format("\r{}  [{}{}] {:3.0f}%{}\x1b[K", support::printable(workload),
                                               std::string(static_cast<std::size_t>(filled), '#'),
                                               std::string(static_cast<std::size_t>(30 - filled), '.'), least * 100,
                                               each)
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
  if (arguments.trace.empty() || arguments.hang > 0) report.seed = arguments.seed;
  for (const ReplayPolicy& policy : policies) report.policies.emplace_back(policy.name, policy.file);
  return report;
}

// Replays one workload under every policy and adds it to `combined`: the first
// point's report is the detail of the workload; every point of a sweep adds a row.
struct SweepReplay {
  const std::vector<ReplayPolicy>& policies;
  const simulator::SimulationOptions& simulation;
  bool sweeping = false;
  std::size_t threads = 0;  // policies at once (simulator::replay_workload)

  // The simulation's error, if it failed.
  std::optional<std::string> add(simulator::ScenarioReport& combined, const Workload& workload,
                                 const runtime::Inventory& cluster, double load, std::optional<double> scale) const {
    const std::string label = !sweeping ? workload.name
                              : scale   ? fmt::format("{} x{:g}", workload.name, *scale)
                                        : fmt::format("{} load {:g}", workload.name, load);
    auto scenario =
        simulator::replay_workload(workload, cluster, policies, simulation, {}, progress_bar(label, policies), threads);
    if (stderr_is_terminal()) support::unguarded_stderr() << "\r\x1b[K" << std::flush;
    if (!scenario) return scenario.error();
    if (!sweeping) {
      combined = std::move(*scenario);
      return std::nullopt;
    }
    const bool first = combined.sweep.empty();
    const auto point = simulator::sweep_point(*scenario, workload, cluster, load, scale);
    if (first) {
      combined = std::move(*scenario);
      combined.notes.push_back(
          fmt::format("the tables below are for {}, the first point of the sweep at their end",
                      scale ? fmt::format("x{:g} ({} nodes, {} GPUs)", *scale, point.nodes, point.gpus)
                            : fmt::format("load {:g}", load)));
    }
    combined.sweep.push_back(point);
    return std::nullopt;
  }
};

// The trace at each capacity asked for (or on the cluster as it is).
std::optional<simulator::ScenarioReport> replay_trace(const ReplayArguments& arguments,
                                                      const runtime::Inventory& inventory,
                                                      const std::vector<ReplayPolicy>& policies,
                                                      const SweepReplay& replayer, int& code) {
  const auto input = read_trace_input(arguments, policies, code);
  if (!input) return std::nullopt;
  const std::optional<int> days = arguments.days > 0 ? std::optional<int>(arguments.days) : std::nullopt;
  std::vector<std::optional<double>> scales(arguments.capacity_scales.begin(), arguments.capacity_scales.end());
  if (scales.empty()) scales.push_back(std::nullopt);
  simulator::ScenarioReport combined;
  for (const std::optional<double>& scale : scales) {
    const runtime::Inventory cluster = scale ? simulator::scale_cluster(inventory, *scale) : inventory;
    auto workload = simulator::trace_workload(input->rows, input->map, cluster, arguments.trace, days);
    if (!workload) return fail(code, workload.error());
    simulator::add_hangs(*workload, arguments.hang / 100, arguments.seed);
    const double load = simulator::offered_load(*workload, cluster);
    if (auto error = replayer.add(combined, *workload, cluster, load, scale)) return fail(code, 1, *error);
  }
  return combined;
}

// One scenario at each load asked for.
std::optional<simulator::ScenarioReport> replay_scenario(simulator::Scenario which, const ReplayArguments& arguments,
                                                         const runtime::Inventory& inventory,
                                                         const std::vector<ReplayPolicy>& policies,
                                                         const SweepReplay& replayer, int& code) {
  simulator::ScenarioOptions options;
  options.seed = arguments.seed;
  options.days = arguments.days > 0 ? arguments.days : 7;
  options.hang = arguments.hang / 100;
  simulator::ScenarioReport combined;
  for (double load : arguments.loads) {
    options.load = load;
    auto workload = simulator::generate_scenario(which, inventory, policies.front().policy->tables(), options);
    if (!workload) return fail(code, 1, workload.error());
    if (auto error = replayer.add(combined, *workload, inventory, load, std::nullopt)) return fail(code, 1, *error);
  }
  return combined;
}

int replay(const ReplayArguments& arguments, const runtime::Inventory& inventory) {
  int code = 0;
  // Checked before the replay's minutes of work, not after them.
  CommandFiles files;
  files.input("--cluster", arguments.cluster);
  if (!arguments.trace.empty()) files.input("--trace", arguments.trace);
  if (!arguments.map.empty()) files.input("--map", arguments.map);
  files.output("--json", arguments.json);
  files.output("--html", arguments.html);
  const auto policies = compile_policies(arguments, files, code);
  if (!policies) return code;
  if (!check_files(files)) return 2;
  for (const ReplayPolicy& policy : *policies) {
    for (const std::string& warning : runtime::unit_types_missing(policy.policy->tables().unit, inventory)) {
      std::cerr << "allot: warning: " << support::printable(policy.name) << ": " << support::printable(warning) << "\n";
    }
  }
  // A single scale is an ordinary replay on the scaled cluster: the header says which.
  const bool one_scale = arguments.capacity_scales.size() == 1;
  simulator::ReplayReport report = empty_report(
      arguments, one_scale ? simulator::scale_cluster(inventory, arguments.capacity_scales[0]) : inventory, *policies);
  simulator::SimulationOptions simulation;
  simulation.min_cycle_gap = arguments.cycle_gap;
  simulation.cycle.blocked_holds = static_cast<std::size_t>(arguments.holds);
  simulation.cycle.yield_backfill = arguments.yield_backfill;
  const SweepReplay replayer{
      *policies, simulation,
      arguments.trace.empty() ? arguments.loads.size() > 1 : arguments.capacity_scales.size() > 1, arguments.threads};
  if (!arguments.trace.empty()) {
    auto scenario = replay_trace(arguments, inventory, *policies, replayer, code);
    if (!scenario) return code;
    report.scenarios.push_back(std::move(*scenario));
  }
  for (simulator::Scenario which : scenarios_of(arguments)) {
    auto scenario = replay_scenario(which, arguments, inventory, *policies, replayer, code);
    if (!scenario) return code;
    report.scenarios.push_back(std::move(*scenario));
  }
  if (arguments.json != "-") colored_stdout(use_color()) << simulator::render_table(report, use_color());
  bool written = arguments.json.empty() || write_file(arguments.json, simulator::render_json(report));
  written = (arguments.html.empty() || write_file(arguments.html, simulator::render_html(report))) && written;
  if (!written) return 2;
  // A rollout gate in CI: exit 1 when a policy misses one of its gates anywhere.
  if (arguments.fail_on_gates) {
    for (const simulator::ScenarioReport& scenario : report.scenarios) {
      for (const simulator::PolicyMetrics& metrics : scenario.policies) {
        if (!metrics.gates_passed) return 1;
      }
    }
  }
  return 0;
}

// A sweep list: at most 12 values, none twice; nothing when it is fine.
std::optional<std::string> list_problem(const std::string& option, const std::vector<double>& values) {
  if (values.size() > kMaxSweepValues) {
    return fmt::format("{}: at most {} values, found {}", option, kMaxSweepValues, values.size());
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (values[i] == values[j]) return fmt::format("{}: `{:g}` is given twice", option, values[i]);
    }
  }
  return std::nullopt;
}

// The sweep lists: their size, duplicates, and clusters of 1 to 100,000 nodes.
std::optional<std::string> sweep_problem(const ReplayArguments& arguments, const runtime::Inventory& inventory) {
  if (auto problem = list_problem("--load", arguments.loads)) return problem;
  if (auto problem = list_problem("--scale-capacity", arguments.capacity_scales)) return problem;
  for (double scale : arguments.capacity_scales) {
    const long long nodes = simulator::scaled_node_count(inventory.nodes.size(), scale);
    if (nodes > kMaxScaledNodes) {
      return fmt::format("--scale-capacity: `{:g}` gives {} nodes ({} x {:g}); at most {}", scale, nodes,
                         inventory.nodes.size(), scale, kMaxScaledNodes);
    }
  }
  return std::nullopt;
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
  if (!arguments.trace.empty() && arguments.seed_given && arguments.hang == 0) {
    std::cerr << "allot: --seed draws a scenario's arrivals and --hang's hung jobs; a trace without --hang draws "
                 "nothing\n";
    return 2;
  }
  if (std::optional<Date> today; !read_now(arguments.now, today)) return 2;
  auto inventory = runtime::load_inventory(arguments.cluster);
  if (!inventory) {
    std::cerr << "allot: " << inventory.error().to_string() << "\n";
    return inventory.error().unreadable ? 2 : 1;
  }
  if (auto problem = sweep_problem(arguments, *inventory)) {
    std::cerr << "allot: " << *problem << "\n";
    return 2;
  }
  return replay(arguments, *inventory);
}

}  // namespace allot::cli
