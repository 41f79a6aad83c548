#include "eligibility.h"

#include <algorithm>

#include <fmt/format.h>

namespace allot::runtime::cycle {
namespace {

const NodeSet* find_set(const std::vector<NodeSet>& sets, const std::string& name) {
  const auto it = std::find_if(sets.begin(), sets.end(), [&](const NodeSet& set) { return set.name == name; });
  return it == sets.end() ? nullptr : &*it;
}

// The constraints of a job as one string, to share masks between jobs.
std::string constraints_key(const JobRequest& job) {
  std::string key;
  auto add = [&key](const std::vector<std::string>& names) {
    for (const std::string& name : names) key += name + '\x1f';
    key += '\x1e';
  };
  add(job.partitions);
  add(job.features);
  add(job.nodelist);
  add(job.exclude);
  key += job.reservation;
  return key;
}

}  // namespace

NodeSets::NodeSets(const Inventory& inventory) : inventory_(inventory), reserved_(inventory.nodes.size(), 0) {
  for (const NodeSet& set : inventory.advance_reservations) {
    for (int node : set.nodes) {
      if (node < 0 || static_cast<std::size_t>(node) >= reserved_.size()) continue;
      reserved_[static_cast<std::size_t>(node)] = 1;
      any_reserved_ = true;
    }
  }
}

Eligibility NodeSets::resolve(const JobRequest& job) {
  const bool constrained = !job.partitions.empty() || !job.features.empty() || !job.nodelist.empty() ||
                           !job.exclude.empty() || !job.reservation.empty();
  if (!constrained && !any_reserved_) return {};
  std::string key = constraints_key(job);
  auto it = by_constraints_.find(key);
  if (it == by_constraints_.end()) it = by_constraints_.emplace(std::move(key), build(job)).first;
  const Known& known = it->second;
  Eligibility eligibility;
  eligibility.node_set = known.id;
  if (known.id != kEveryNode) eligibility.mask = masks_[static_cast<std::size_t>(known.id)].get();
  eligibility.problem = known.problem;
  return eligibility;
}

NodeSets::Known NodeSets::build(const JobRequest& job) {
  const std::size_t count = inventory_.nodes.size();
  std::vector<char> mask(count, 1);
  auto keep_only = [&](const std::vector<int>& nodes) {
    std::vector<char> in(count, 0);
    for (int node : nodes) {
      if (node >= 0 && static_cast<std::size_t>(node) < count) in[static_cast<std::size_t>(node)] = 1;
    }
    for (std::size_t n = 0; n < count; ++n) mask[n] = static_cast<char>(mask[n] && in[n]);
  };
  Known known;
  if (!job.partitions.empty()) {
    std::vector<int> nodes;
    for (const std::string& name : job.partitions) {
      const NodeSet* partition = find_set(inventory_.partitions, name);
      if (partition == nullptr) {
        known.problem = fmt::format("its partition `{}` is not in the cluster's inventory", name);
        continue;
      }
      nodes.insert(nodes.end(), partition->nodes.begin(), partition->nodes.end());
    }
    keep_only(nodes);
  }
  for (const std::string& feature : job.features) {
    for (std::size_t n = 0; n < count; ++n) {
      const auto& features = inventory_.nodes[n].features;
      if (std::find(features.begin(), features.end(), feature) == features.end()) mask[n] = 0;
    }
  }
  if (!job.nodelist.empty()) {
    std::vector<int> nodes;
    for (const std::string& name : job.nodelist) {
      if (const auto node = inventory_.find_node(name)) {
        nodes.push_back(static_cast<int>(*node));
      } else if (known.problem.empty()) {
        known.problem = fmt::format("node `{}` of its node list is not in the cluster's inventory", name);
      }
    }
    keep_only(nodes);
  }
  for (const std::string& name : job.exclude) {
    if (const auto node = inventory_.find_node(name)) mask[*node] = 0;
  }
  if (!job.reservation.empty()) {
    const NodeSet* reservation = find_set(inventory_.advance_reservations, job.reservation);
    if (reservation == nullptr) {
      if (known.problem.empty()) {
        known.problem = fmt::format("its advance reservation `{}` is not in force", job.reservation);
      }
      keep_only({});
    } else {
      keep_only(reservation->nodes);
    }
  } else {
    for (std::size_t n = 0; n < count; ++n) mask[n] = static_cast<char>(mask[n] && !reserved_[n]);
  }
  if (known.problem.empty() && std::none_of(mask.begin(), mask.end(), [](char on) { return on != 0; })) {
    known.problem =
        "no node of the cluster meets all of its constraints (partitions, features, node list, "
        "exclusions, advance reservation)";
  }
  known.id = static_cast<int>(masks_.size());
  masks_.push_back(std::make_unique<std::vector<char>>(std::move(mask)));
  return known;
}

}  // namespace allot::runtime::cycle
