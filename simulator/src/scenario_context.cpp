#include "scenario_context.h"

#include <algorithm>
#include <map>

#include "allot/accounting.h"
#include "class_choice.h"

namespace allot::simulator {
namespace {

constexpr double kMinute = 60;
constexpr double kHour = 3600;

std::vector<Program> programs_of(const PolicyTables& tables) {
  std::vector<Program> programs;
  for (const AccountInfo& account : tables.accounts) {
    if (account.depth != 1 || account.share <= 0) continue;
    Program program{account.name, account.share, {}};
    for (const AccountInfo& leaf : tables.accounts) {
      const bool inside = leaf.path == account.path || leaf.path.rfind(account.path + "/", 0) == 0;
      if (leaf.leaf && inside) program.leaves.push_back(leaf.path);
    }
    if (!program.leaves.empty()) programs.push_back(std::move(program));
  }
  return programs;
}

// The most common (GPU count, type) among up nodes; ties go to the larger node.
void describe_nodes(const runtime::Inventory& inventory, ScenarioContext& context) {
  std::map<std::pair<int, std::string>, int> counts;
  std::map<std::string, int> types;
  for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
    const runtime::Node& node = inventory.nodes[n];
    if (node.state != runtime::NodeState::up) continue;
    ++context.up_nodes;
    context.capacity_gpus += node.gpus;
    ++counts[{node.gpus, inventory.gpu_type_name(n)}];
    ++types[inventory.gpu_type_name(n)];
  }
  int best = 0;
  for (const auto& [shape, count] : counts) {
    if (count > best || (count == best && shape.first > context.node_gpus)) {
      best = count;
      context.node_gpus = shape.first;
      context.main_type = shape.second;
    }
  }
  context.main_type_nodes = best;
  context.several_types = types.size() > 1;
}

// The largest option not above `cap` (0: no cap); options ascend.
int capped_choice(const std::vector<int>& options, std::size_t index, int cap) {
  int chosen = options[index];
  while (cap > 0 && chosen > cap && index > 0) chosen = options[--index];
  return cap > 0 ? std::min(chosen, cap) : chosen;
}

// The class a kind maps to, for its limits (a default-constructed one: no limits).
ClassInfo limits_for(const ScenarioContext& context, JobKind kind) {
  const auto index = preferred_class(*context.tables, kind);
  return index ? context.tables->classes[static_cast<std::size_t>(*index)] : ClassInfo{};
}

double runtime_cap(const ClassInfo& info, double wanted) {
  return info.max_runtime > 0 ? std::min(wanted, info.max_runtime) : wanted;
}

}  // namespace

Expected<ScenarioContext, std::string> scenario_context(const runtime::Inventory& inventory,
                                                        const PolicyTables& tables) {
  ScenarioContext context;
  context.inventory = &inventory;
  context.tables = &tables;
  context.programs = programs_of(tables);
  describe_nodes(inventory, context);
  if (context.programs.empty()) {
    return unexpected("policy `" + tables.name + "` has no top-level account with a share to submit jobs under");
  }
  if (context.capacity_gpus == 0) return unexpected("cluster `" + inventory.name + "` has no GPUs on up nodes");
  if (tables.classes.empty()) return unexpected("policy `" + tables.name + "` has no classes");
  return context;
}

WorkloadJob sample_job(JobKind kind, Seconds submitted, const ScenarioContext& context, Random& random) {
  const ClassInfo limits = limits_for(context, kind);
  // No background job takes more than an eighth of the cluster (or a node), so
  // on a small cluster one job is not a program's whole share.
  const int width = std::clamp(context.capacity_gpus / 8, 1, context.node_gpus);
  const int gpu_cap = limits.max_gpus > 0 ? std::min(limits.max_gpus, width) : width;
  WorkloadJob job;
  job.kind = kind;
  job.submitted = submitted;
  if (kind == JobKind::debug) {
    job.work = static_cast<Seconds>(random.uniform(2 * kMinute, runtime_cap(limits, 15 * kMinute)));
  } else if (kind == JobKind::eval) {
    job.gpus_per_node = capped_choice({1, 2, 4}, random.pick({0.5, 0.3, 0.2}), gpu_cap);
    job.work = static_cast<Seconds>(random.log_uniform(20 * kMinute, runtime_cap(limits, 2 * kHour)));
    job.deadline = submitted + job.work + static_cast<Seconds>(random.log_uniform(kHour, 6 * kHour));
  } else {
    job.gpus_per_node = capped_choice({1, 2, 4, 8}, random.pick({0.45, 0.3, 0.2, 0.05}), gpu_cap);
    job.work = static_cast<Seconds>(random.log_uniform(kHour, runtime_cap(limits, 8 * kHour)));
    job.requested_protect = std::min<Seconds>(job.work, 2 * 3600);
  }
  job.label = kind == JobKind::debug ? 3 : static_cast<int>(3 - random.pick({0.5, 0.3, 0.15, 0.05}));
  return job;
}

const Program& largest_program(const ScenarioContext& context) {
  return *std::max_element(context.programs.begin(), context.programs.end(),
                           [](const Program& a, const Program& b) { return a.share < b.share; });
}

const Program& smallest_program(const ScenarioContext& context) {
  return *std::min_element(context.programs.begin(), context.programs.end(),
                           [](const Program& a, const Program& b) { return a.share < b.share; });
}

}  // namespace allot::simulator
