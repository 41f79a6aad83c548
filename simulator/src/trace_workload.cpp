// Trace rows plus a mapping become a workload: accounts by group and user,
// classes by the first matching rule, jobs wider than a node as whole nodes.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "allot/accounting.h"
#include "allot/simulator.h"

namespace allot::simulator {
namespace {

constexpr Seconds kDay = 86400;

// Where the mapping sends a row's group and user.
const AccountRule* account_for(const TraceMap& map, const TraceRow& row) {
  const AccountRule* group_rule = nullptr;
  for (const AccountRule& rule : map.accounts) {
    if (rule.group != row.group) continue;
    if (!rule.user.empty() && rule.user == row.user) return &rule;
    if (rule.user.empty() && !group_rule) group_rule = &rule;
  }
  if (group_rule) return group_rule;
  return map.default_account ? &*map.default_account : nullptr;
}

// One of the rule's accounts, by an FNV-1a hash of the job id.
const std::string& pick_account(const AccountRule& rule, const std::string& job_id) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : job_id) hash = (hash ^ c) * 1099511628211ULL;
  return rule.accounts[hash % rule.accounts.size()];
}

bool matches(const ClassRule& rule, const TraceRow& row) {
  return (rule.min_gpus == 0 || row.gpus >= rule.min_gpus) && (rule.max_gpus == 0 || row.gpus <= rule.max_gpus) &&
         (rule.min_duration == 0 || row.duration >= rule.min_duration) &&
         (rule.max_duration == 0 || row.duration <= rule.max_duration);
}

const ClassRule* class_for(const TraceMap& map, const TraceRow& row) {
  for (const ClassRule& rule : map.classes) {
    if (matches(rule, row)) return &rule;
  }
  return nullptr;
}

// The GPUs of the largest node of a type ("" any) that is not down, and how many such nodes there are.
std::pair<int, int> largest_nodes(const runtime::Inventory& inventory, const std::string& gpu_type) {
  int gpus = 0, count = 0;
  for (std::size_t n = 0; n < inventory.nodes.size(); ++n) {
    const runtime::Node& node = inventory.nodes[n];
    if (node.state == runtime::NodeState::down) continue;
    if (!gpu_type.empty() && inventory.gpu_type_name(n) != gpu_type) continue;
    if (node.gpus > gpus) gpus = node.gpus, count = 0;
    if (node.gpus == gpus) ++count;
  }
  return {gpus, count};
}

// The rows' jobs, or the first row the mapping cannot place.
class TraceBuilder {
 public:
  TraceBuilder(const TraceMap& map, const runtime::Inventory& inventory, const std::string& file, Workload& workload)
      : map_(map), inventory_(inventory), file_(file), workload_(workload) {}

  std::optional<TraceError> add(const TraceRow& row) {
    const AccountRule* account = account_for(map_, row);
    if (!account) {
      return TraceError{file_, row.line, "group",
                        fmt::format("group `{}` is not mapped; add a [[group]] with name = \"{}\" or a [default] to {}",
                                    row.group, row.group, map_.file)};
    }
    const ClassRule* rule = class_for(map_, row);
    if (!rule) {
      return TraceError{file_, row.line, "gpus",
                        fmt::format("no [[class]] rule of {} matches a job of {} GPUs for {}s; end the rules with one "
                                    "that has no conditions",
                                    map_.file, row.gpus, row.duration)};
    }
    const Seconds submitted = map_.start + row.submit;
    if (submitted >= workload_.end) {
      ++after_end_;
      return std::nullopt;
    }
    WorkloadJob job = shape(row, *rule);
    if (job.nodes == 0) {
      ++too_large_;
      return std::nullopt;
    }
    job.id = row.job_id;
    job.submitted = submitted;
    job.account = pick_account(*account, row.job_id);
    job.label = account->label;
    job.job_class = rule->job_class;
    if (rule->deadline_slack) job.deadline = submitted + job.work + *rule->deadline_slack;
    job.requested_protect = rule->protect;
    job.hangs_after = row.hang;
    job.origin = fmt::format("{}:{}", file_, row.line);
    workload_.jobs.push_back(std::move(job));
    return std::nullopt;
  }

  void add_notes() const {
    if (too_large_ > 0) {
      workload_.notes.push_back(
          fmt::format("{} jobs need more GPUs than cluster `{}` holds and were left out", too_large_, inventory_.name));
    }
    if (after_end_ > 0)
      workload_.notes.push_back(fmt::format("{} jobs submitted after the replay's end were left out", after_end_));
  }

 private:
  // The job's nodes and GPUs per node (0 nodes when the cluster can never hold it).
  WorkloadJob shape(const TraceRow& row, const ClassRule& rule) {
    WorkloadJob job;
    job.work = std::max<Seconds>(1, row.duration);
    job.gpu_type = rule.gpu_type;
    const auto [node_gpus, count] = largest_nodes(inventory_, rule.gpu_type);
    job.nodes = node_gpus > 0 ? (row.gpus + node_gpus - 1) / node_gpus : 0;
    job.gpus_per_node = job.nodes == 1 ? row.gpus : node_gpus;
    if (job.nodes > count) job.nodes = 0;
    return job;
  }

  const TraceMap& map_;
  const runtime::Inventory& inventory_;
  const std::string& file_;
  Workload& workload_;
  int too_large_ = 0;
  int after_end_ = 0;
};

Seconds trace_span(const std::vector<TraceRow>& rows) {
  Seconds last = 0;
  for (const TraceRow& row : rows) last = std::max(last, row.submit);
  return (last / kDay + 1) * kDay;
}

}  // namespace

Expected<Workload, TraceError> trace_workload(const std::vector<TraceRow>& rows, const TraceMap& map,
                                              const runtime::Inventory& inventory, const std::string& trace_file,
                                              std::optional<int> days) {
  Workload workload;
  workload.name = std::filesystem::path(trace_file).filename().string();
  workload.start = map.start;
  workload.end = map.start + (days ? *days * kDay : trace_span(rows));
  TraceBuilder builder(map, inventory, trace_file, workload);
  for (const TraceRow& row : rows) {
    if (auto problem = builder.add(row)) return unexpected(*problem);
  }
  builder.add_notes();
  std::stable_sort(workload.jobs.begin(), workload.jobs.end(),
                   [](const WorkloadJob& a, const WorkloadJob& b) { return a.submitted < b.submitted; });
  workload.description =
      fmt::format("trace {} ({} jobs over {} days), mapped by {}", workload.name, workload.jobs.size(),
                  (workload.end - workload.start) / kDay, std::filesystem::path(map.file).filename().string());
  return workload;
}

}  // namespace allot::simulator
