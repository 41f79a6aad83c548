// Names of kinds and scenarios, and how a workload's jobs find their account
// and class under each policy replayed.
#include <fmt/format.h>

#include <array>
#include <unordered_map>

#include "allot/simulator.h"
#include "allot/text.h"
#include "class_choice.h"

namespace allot::simulator {
namespace {

constexpr std::array<Scenario, 4> kScenarios = {Scenario::normal, Scenario::burst, Scenario::large, Scenario::drain};

std::string where(const WorkloadJob& job) {
  return job.origin.empty() ? fmt::format("job `{}`", job.id) : fmt::format("{}: job `{}`", job.origin, job.id);
}

// Leaf accounts by path (true) and accounts with children (false).
std::unordered_map<std::string_view, bool> account_leaves(const PolicyTables& tables) {
  std::unordered_map<std::string_view, bool> leaves;
  for (std::size_t i = 1; i < tables.accounts.size(); ++i)
    leaves.emplace(tables.accounts[i].path, tables.accounts[i].leaf);
  return leaves;
}

std::optional<std::string> account_problem(const WorkloadJob& job, const PolicyTables& tables,
                                           const std::unordered_map<std::string_view, bool>& leaves) {
  const auto found = leaves.find(job.account);
  if (found == leaves.end()) {
    return fmt::format("{}: policy `{}` has no account `{}`", where(job), tables.name, job.account);
  }
  if (!found->second) {
    return fmt::format("{}: account `{}` of policy `{}` has sub-accounts; jobs run in leaf accounts", where(job),
                       job.account, tables.name);
  }
  return std::nullopt;
}

Expected<int, std::string> class_of(const WorkloadJob& job, const PolicyTables& tables) {
  if (job.job_class.empty()) {
    if (auto chosen = class_for_kind(tables, job)) return *chosen;
    return unexpected(fmt::format("{}: policy `{}` has no class that admits a {} job of {} GPUs for {}s", where(job),
                                  tables.name, job_kind_name(job.kind), job.nodes * job.gpus_per_node, job.work));
  }
  for (std::size_t i = 0; i < tables.classes.size(); ++i) {
    if (tables.classes[i].name == job.job_class) {
      if (auto problem = admission_problem(tables.classes[i], job)) {
        return unexpected(fmt::format("{}: {} (policy `{}`)", where(job), *problem, tables.name));
      }
      return static_cast<int>(i);
    }
  }
  return unexpected(fmt::format("{}: policy `{}` has no class `{}`", where(job), tables.name, job.job_class));
}

}  // namespace

const char* job_kind_name(JobKind kind) {
  switch (kind) {
    case JobKind::debug:
      return "debug";
    case JobKind::eval:
      return "eval";
    case JobKind::train:
      return "train";
    case JobKind::large:
      return "large";
  }
  return "train";
}

const char* scenario_name(Scenario scenario) {
  switch (scenario) {
    case Scenario::normal:
      return "normal";
    case Scenario::burst:
      return "burst";
    case Scenario::large:
      return "large";
    case Scenario::drain:
      return "drain";
  }
  return "normal";
}

std::optional<Scenario> parse_scenario(std::string_view name) {
  for (Scenario scenario : kScenarios) {
    if (name == scenario_name(scenario)) return scenario;
  }
  return std::nullopt;
}

runtime::JobRequest workload_request(const WorkloadJob& job, const std::string& job_class) {
  runtime::JobRequest request;
  request.id = job.id;
  request.account = job.account;
  request.job_class = job_class;
  request.nodes = job.nodes;
  request.gpus_per_node = job.gpus_per_node;
  request.gpu_type = job.gpu_type;
  request.submitted = job.submitted;
  request.deadline = job.deadline;
  request.label = job.label;
  request.requested_protect = job.requested_protect;
  request.expected_runtime = job.work;
  return request;
}

Expected<std::vector<int>, std::string> resolve_jobs(const Workload& workload, const PolicyTables& tables) {
  const auto leaves = account_leaves(tables);
  std::vector<int> classes;
  classes.reserve(workload.jobs.size());
  for (const WorkloadJob& job : workload.jobs) {
    if (auto problem = account_problem(job, tables, leaves)) return unexpected(*problem);
    auto chosen = class_of(job, tables);
    if (!chosen) return unexpected(chosen.error());
    classes.push_back(*chosen);
  }
  return classes;
}

}  // namespace allot::simulator
