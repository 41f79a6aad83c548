// The cluster inventory: which nodes exist, what they hold, where they sit in
// the network and whether they take work. Loaded from TOML (see
// docs/STATE.md and examples/clusters/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "allot/epoch_seconds.h"
#include "allot/expected.h"
#include "allot/located_error.h"

namespace allot::runtime {

// Whether a node takes work. A draining node keeps its running jobs until their
// next checkpoint or the drain deadline, and takes no new ones.
enum class NodeState { up, drain, down };

// The TOML spelling of a state: "up", "drain", "down".
const char* node_state_name(NodeState state);

// One machine. GPU types and blocks are indexes into the Inventory's name
// tables so placement compares integers, not strings.
struct Node {
  std::string name;
  int gpu_type = 0;  // index into Inventory::gpu_types
  int gpus = 0;
  int cpus = 0;
  double memory_gib = 0;
  int block = 0;  // index into Inventory::blocks (a rack or switch)
  NodeState state = NodeState::up;
  std::optional<Seconds> drain_deadline;  // set only for draining nodes that have one
  std::vector<std::string> features;      // what jobs may ask for by name ("a100", "ib")
};

// A named set of nodes: a partition (Slurm's; a queue elsewhere) or an advance
// reservation. A node may be in several.
struct NodeSet {
  std::string name;
  std::vector<int> nodes;  // indexes into Inventory::nodes, ascending
};

// The most nodes an inventory may have (a group, the whole file, a scaled
// replay cluster): eight times the 12,500 nodes of a 100,000-GPU cluster, and
// few enough that no name or count can take the memory of a reader
// (docs/SECURITY.md "Every reader is bounded by what it builds").
inline constexpr std::int64_t kMaxInventoryNodes = 100'000;

// Every node of one cluster, in file order.
struct Inventory {
  std::string name;
  std::vector<std::string> gpu_types;  // distinct, in order of first appearance
  std::vector<std::string> blocks;     // distinct, in order of first appearance
  std::vector<Node> nodes;
  // Where jobs may ask to run (JobRequest::partitions); none: jobs run anywhere.
  std::vector<NodeSet> partitions;
  // Advance reservations in force: their nodes take only the jobs that name
  // them (JobRequest::reservation).
  std::vector<NodeSet> advance_reservations;

  // GPUs on every node, whatever its state.
  int total_gpus() const;
  // GPUs on nodes that are up (the capacity new work can use).
  int schedulable_gpus() const;
  // GPUs of one type on every node; 0 for a type the cluster does not have.
  int gpus_of_type(std::string_view gpu_type) const;
  // The index of a node by name, if there is one.
  std::optional<std::size_t> find_node(std::string_view name) const;
  // The GPU type name of node `node` (an index into `nodes`).
  const std::string& gpu_type_name(std::size_t node) const {
    return gpu_types[static_cast<std::size_t>(nodes[node].gpu_type)];
  }
};

// Why an inventory could not be loaded: where (file, 1-based line and column)
// and which field (support/located_error.h).
using InventoryError = support::LocatedError;

// Reads and validates an inventory file.
Expected<Inventory, InventoryError> load_inventory(const std::string& path);

// Validates inventory text; `source_name` is used in errors.
Expected<Inventory, InventoryError> parse_inventory(std::string_view text, const std::string& source_name);

}  // namespace allot::runtime
