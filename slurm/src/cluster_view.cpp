#include "cluster_view.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "allot/dates.h"

namespace allot::slurm {

runtime::Inventory inventory_of(const std::vector<SlurmNode>& nodes, const std::vector<SlurmReservation>& reservations,
                                const AdapterSettings& settings, Seconds now) {
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
    entry.features = node.features;
    const int index = static_cast<int>(inventory.nodes.size());
    for (const std::string& name : node.partitions) {
      auto partition = std::find_if(inventory.partitions.begin(), inventory.partitions.end(),
                                    [&](const runtime::NodeSet& set) { return set.name == name; });
      if (partition == inventory.partitions.end()) {
        partition = inventory.partitions.insert(partition, runtime::NodeSet{name, {}});
      }
      partition->nodes.push_back(index);
    }
    inventory.nodes.push_back(std::move(entry));
  }
  for (const SlurmReservation& reservation : reservations) {
    if (reservation.start > now || (reservation.end != 0 && reservation.end <= now)) continue;
    runtime::NodeSet set{reservation.name, {}};
    for (int node : reservation.node_indexes) {
      if (node >= 0 && static_cast<std::size_t>(node) < inventory.nodes.size()) set.nodes.push_back(node);
    }
    std::sort(set.nodes.begin(), set.nodes.end());
    set.nodes.erase(std::unique(set.nodes.begin(), set.nodes.end()), set.nodes.end());
    inventory.advance_reservations.push_back(std::move(set));
  }
  return inventory;
}

std::optional<std::vector<std::string>> required_features(const std::string& constraint) {
  std::vector<std::string> features;
  std::string name;
  for (const char c : constraint + "&") {
    if (c == '&' || c == ',') {
      if (name.empty()) return std::nullopt;
      features.push_back(std::move(name));
      name.clear();
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':' ||
               c == '=') {
      name += c;
    } else {
      return std::nullopt;  // `|`, `*N`, `[...]`, `(...)`, `!`: not a plain conjunction
    }
  }
  return features;
}

std::string blocked_reason(const SlurmJob& job, Seconds now) {
  if (!job.dependency.empty() && (job.wait_reason == "Dependency" || job.eligible == 0)) {
    return fmt::format("it waits for its dependency `{}` (Slurm: {})", job.dependency,
                       job.wait_reason.empty() ? "Dependency" : job.wait_reason);
  }
  if (job.begin > now) {
    return fmt::format("it may not start before its begin time, {}", support::format_timestamp(job.begin));
  }
  if (job.waits_outside) return fmt::format("Slurm holds it back: {}", job.wait_reason);
  if (!job.constraint.empty() && !required_features(job.constraint)) {
    return fmt::format(
        "its constraint `{}` is more than Allot models (a list of features all required); Slurm "
        "places it, Allot preempts no one for it",
        job.constraint);
  }
  if (!job.required_nodes.empty() && static_cast<int>(job.required_nodes.size()) < job.nodes) {
    return fmt::format(
        "its node list names {} of the {} nodes it needs; Slurm chooses the rest, Allot preempts no "
        "one for it",
        job.required_nodes.size(), job.nodes);
  }
  return "";
}

runtime::JobRequest request_of(const SlurmJob& job, const std::string& account, const std::string& job_class,
                               Seconds first_submitted, Seconds now) {
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
  request.partitions = job.partitions;
  if (auto features = required_features(job.constraint)) request.features = std::move(*features);
  request.nodelist = job.required_nodes;
  request.exclude = job.excluded_nodes;
  request.reservation = job.reservation;
  request.exclusive = job.exclusive;
  if (job.phase == JobPhase::pending) request.blocked = blocked_reason(job, now);
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
