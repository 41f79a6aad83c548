#include "cycle_jobs.h"

#include <algorithm>
#include <unordered_map>

#include "allot/accounting.h"
#include "decisions.h"

namespace allot::runtime::cycle {
namespace {

using NameIndex = std::unordered_map<std::string_view, int>;

NameIndex class_index(const PolicyTables& tables) {
  NameIndex index;
  for (std::size_t i = 0; i < tables.classes.size(); ++i) index.emplace(tables.classes[i].name, static_cast<int>(i));
  return index;
}

NameIndex gpu_type_index(const Inventory& inventory) {
  NameIndex index;
  for (std::size_t i = 0; i < inventory.gpu_types.size(); ++i)
    index.emplace(inventory.gpu_types[i], static_cast<int>(i));
  return index;
}

int find_or(const NameIndex& index, std::string_view name, int fallback) {
  const auto it = index.find(name);
  return it == index.end() ? fallback : it->second;
}

// A request's policy account and class (-1 when the policy has none of that
// name): as `known` resolved its revision before, or looked up by name.
class Names {
 public:
  Names(const PolicyTables& tables, const AccountIndex& accounts)
      : accounts_(accounts), classes_(class_index(tables)) {}

  Resolutions::Entry of(const JobRequest& job, Resolutions* known) const {
    if (known != nullptr) {
      if (const Resolutions::Entry* entry = known->find(job.revision)) {
        known->record(*entry);
        return *entry;
      }
    }
    const Resolutions::Entry entry{job.revision, accounts_.find(job.account).value_or(-1),
                                   find_or(classes_, job.job_class, -1)};
    if (known != nullptr) known->record(entry);
    return entry;
  }

 private:
  const AccountIndex& accounts_;
  const NameIndex classes_;
};

PendingJob resolve_pending(const JobRequest& job, const PolicyTables& tables, const Names& names, Resolutions* known,
                           const NameIndex& gpu_types, NodeSets& node_sets) {
  PendingJob pending;
  pending.request = &job;
  const Resolutions::Entry resolved = names.of(job, known);
  pending.account = resolved.account;
  pending.job_class = resolved.job_class;
  pending.shape = NodeRequest{kAnyGpuType, job.nodes, job.gpus_per_node, job.cpus_per_node, job.memory_gib_per_node};
  if (!job.gpu_type.empty()) {
    pending.shape.gpu_type = find_or(gpu_types, job.gpu_type, kAnyGpuType);
    pending.known_gpu_type = pending.shape.gpu_type != kAnyGpuType;
  }
  pending.shape.exclusive = job.exclusive;
  Eligibility where = node_sets.resolve(job);
  pending.shape.eligible = where.mask;
  pending.shape.node_set = where.node_set;
  pending.cannot_start = job.blocked.empty() ? std::move(where.problem) : job.blocked;
  if (pending.account < 0) {
    pending.problem = account_not_in_policy(job.account, tables.name);
  } else if (!tables.accounts[static_cast<std::size_t>(pending.account)].leaf) {
    pending.problem = account_not_a_leaf(job.account);
  } else if (pending.job_class < 0) {
    pending.problem = class_not_in_policy(job.job_class, tables.name);
  }
  return pending;
}

bool valid_nodes(const RunningJob& job, const Inventory& inventory) {
  return std::all_of(job.nodes.begin(), job.nodes.end(),
                     [&](int node) { return node >= 0 && static_cast<std::size_t>(node) < inventory.nodes.size(); });
}

}  // namespace

// A GPU-hours unit charges each GPU its type's weight, so the price of one GPU
// of each type, asked once, is the whole unit: rate_per_hour of n GPUs is n
// times it, bit for bit (n x (1 x w) = n x w).
Rates::Rates(const UnitWeights& unit, const Inventory& inventory) : unit_(unit), inventory_(inventory) {
  if (unit.kind != UnitWeights::Kind::gpu_hours) return;
  per_gpu_.reserve(inventory.gpu_types.size());
  for (const std::string& type : inventory.gpu_types) per_gpu_.push_back(unit.rate_per_hour(ResourceUse{type, 1.0}));
}

double Rates::of(const std::vector<int>& nodes, const NodeAmounts& amounts) const {
  const bool priced = !per_gpu_.empty() && !nodes.empty() && nodes.front() >= 0 &&
                      static_cast<std::size_t>(nodes.front()) < inventory_.nodes.size();
  const int type = priced ? inventory_.nodes[static_cast<std::size_t>(nodes.front())].gpu_type : -1;
  if (type < 0 || static_cast<std::size_t>(type) >= per_gpu_.size()) {
    return rate_on_nodes(unit_, inventory_, nodes, amounts.gpus, amounts.cpus, amounts.memory_gib);
  }
  const double count = static_cast<double>(nodes.size());
  return count * static_cast<double>(amounts.gpus) * per_gpu_[static_cast<std::size_t>(type)];
}

void Resolutions::begin() {
  last_.swap(next_);
  next_.clear();
  cursor_ = 0;
}

const Resolutions::Entry* Resolutions::find(std::uint64_t revision) {
  constexpr std::size_t kWindow = 8;  // jobs that left since the last entry found
  if (revision == 0) return nullptr;
  const std::size_t end = std::min(last_.size(), cursor_ + kWindow);
  for (std::size_t i = cursor_; i < end; ++i) {
    if (last_[i].revision != revision) continue;
    cursor_ = i + 1;
    return &last_[i];
  }
  return nullptr;
}

void Resolutions::record(const Entry& entry) {
  if (entry.revision != 0) next_.push_back(entry);
}

void Resolutions::clear() {
  last_.clear();
  next_.clear();
  cursor_ = 0;
}

CycleJobs resolve_jobs(const ClusterState& state, const PolicyTables& tables, const AccountIndex& accounts,
                       const Rates& rates, KnownJobs* known) {
  const Names names(tables, accounts);
  Resolutions* known_pending = known != nullptr ? &known->pending : nullptr;
  Resolutions* known_running = known != nullptr ? &known->running : nullptr;
  if (known != nullptr) {
    known->pending.begin();
    known->running.begin();
  }
  const NameIndex gpu_types = gpu_type_index(state.inventory);
  CycleJobs jobs(state.inventory);
  jobs.activity.held.resize(tables.accounts.size());
  jobs.activity.pending_jobs.assign(tables.accounts.size(), 0.0);
  jobs.pending.reserve(state.pending.size());
  for (const JobRequest& job : state.pending) {
    jobs.pending.push_back(resolve_pending(job, tables, names, known_pending, gpu_types, jobs.node_sets));
    if (jobs.pending.back().account >= 0)
      jobs.activity.pending_jobs[static_cast<std::size_t>(jobs.pending.back().account)] += 1;
  }
  jobs.active.reserve(state.running.size());
  for (const RunningJob& job : state.running) {
    ActiveJob active;
    active.job = &job;
    const Resolutions::Entry resolved = names.of(job.request, known_running);
    active.account = resolved.account;
    active.job_class = resolved.job_class;
    active.per_node =
        NodeAmounts{job.request.gpus_per_node, job.request.cpus_per_node, job.request.memory_gib_per_node};
    if (job.request.exclusive && valid_nodes(job, state.inventory)) {
      NodeRequest whole{kAnyGpuType, 1, active.per_node.gpus, active.per_node.cpus, active.per_node.memory_gib};
      whole.exclusive = true;
      active.per_node = held_on_each(state.inventory, job.nodes, whole);
    }
    active.node_count = static_cast<int>(job.nodes.size());
    active.stopping = job.stopping_at.has_value();
    active.stalled = stalled_since(job, state.now).has_value();
    active.stopped = (job.stopping_at && *job.stopping_at <= state.now) || !valid_nodes(job, state.inventory);
    active.rate = rates.of(job.nodes, active.per_node);
    jobs.active.push_back(active);
    if (active.stopped || active.account < 0) continue;
    const double nodes = static_cast<double>(job.nodes.size());
    ResourceAmounts& held = jobs.activity.held[static_cast<std::size_t>(active.account)];
    held.gpus += nodes * active.per_node.gpus;
    held.cpus += nodes * active.per_node.cpus;
    held.memory_gib += nodes * active.per_node.memory_gib;
  }
  jobs.jobs_on_node = NodeLists(state.inventory.nodes.size(), [&](auto add) {
    for (std::size_t i = 0; i < jobs.active.size(); ++i) {
      if (jobs.active[i].stopped) continue;
      for (int node : jobs.active[i].job->nodes) add(node, static_cast<int>(i));
    }
  });
  return jobs;
}

abi::ClusterView cluster_record(const ClusterState& state, double used_gpus, double free_gpus, double running_jobs) {
  const double total = state.inventory.total_gpus();
  abi::ClusterView view{};
  view.values[abi::cluster_now] = static_cast<double>(state.now);
  view.values[abi::cluster_total_gpus] = total;
  view.values[abi::cluster_free_gpus] = free_gpus;
  view.values[abi::cluster_utilization] = total > 0 ? used_gpus / total : 0.0;
  view.values[abi::cluster_pending_jobs] = static_cast<double>(state.pending.size());
  view.values[abi::cluster_running_jobs] = running_jobs;
  return view;
}

}  // namespace allot::runtime::cycle
