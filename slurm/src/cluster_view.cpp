#include "cluster_view.h"

#include <algorithm>

namespace allot::slurm {

runtime::Inventory inventory_of(const std::vector<SlurmNode>& nodes, const AdapterSettings& settings) {
  runtime::Inventory inventory;
  inventory.name = "slurm";
  inventory.blocks = {"slurm"};
  for (const SlurmNode& node : nodes) {
    const std::string& type = node.gpu_type.empty() ? settings.default_gpu_type : node.gpu_type;
    auto known = std::find(inventory.gpu_types.begin(), inventory.gpu_types.end(), type);
    if (known == inventory.gpu_types.end()) known = inventory.gpu_types.insert(known, type);
    runtime::Node entry;
    entry.name = node.name;
    entry.gpu_type = static_cast<int>(known - inventory.gpu_types.begin());
    entry.gpus = node.gpus;
    entry.cpus = node.cpus;
    entry.memory_gib = node.memory_gib;
    entry.state = node.down    ? runtime::NodeState::down
                  : node.drain ? runtime::NodeState::drain
                               : runtime::NodeState::up;
    inventory.nodes.push_back(std::move(entry));
  }
  return inventory;
}

runtime::JobRequest request_of(const SlurmJob& job, const std::string& account, const std::string& job_class,
                               Seconds first_submitted) {
  runtime::JobRequest request;
  request.id = std::to_string(job.id);
  request.account = account;
  request.job_class = job_class;
  request.nodes = std::max(1, job.phase == JobPhase::pending ? job.nodes : static_cast<int>(job.node_indexes.size()));
  request.gpus_per_node = job.gpus_per_node;
  request.cpus_per_node = job.cpus_per_node;
  request.memory_gib_per_node = job.memory_gib_per_node;
  request.submitted = std::min(first_submitted, job.submitted);
  request.queued = job.submitted;
  if (job.deadline > 0) request.deadline = job.deadline;
  request.requested_protect = job.time_min;
  request.expected_runtime = job.time_limit;
  request.requeueable = job.requeueable;
  request.restarts = job.restarts;
  return request;
}

double held_gpus(const SlurmJob& job) { return static_cast<double>(job.node_indexes.size()) * job.gpus_per_node; }

const std::string& gpu_type_of(const SlurmJob& job, const runtime::Inventory& inventory) {
  static const std::string kNone;
  if (job.node_indexes.empty()) return kNone;
  const auto node = static_cast<std::size_t>(job.node_indexes.front());
  if (node >= inventory.nodes.size()) return kNone;
  return inventory.gpu_types[static_cast<std::size_t>(inventory.nodes[node].gpu_type)];
}

}  // namespace allot::slurm
