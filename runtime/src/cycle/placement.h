// Where jobs can run: free capacity per node, indexed so that best fit is a
// short walk. Up nodes are filed in buckets by GPU type and free GPUs; a job
// goes to the nodes with the fewest free GPUs that fit it, which keeps whole
// nodes (and whole blocks) free for the jobs that need them. Multi-node jobs
// are placed all-or-nothing, in one topology block when any block can hold them.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "allot/inventory.h"

namespace allot::runtime::cycle {

// A request that takes any GPU type.
inline constexpr int kAnyGpuType = -1;

// A request that may use every node of the inventory.
inline constexpr int kEveryNode = -1;

// What one job needs.
struct NodeRequest {
  int gpu_type = kAnyGpuType;  // index into Inventory::gpu_types
  int nodes = 1;
  int gpus_per_node = 0;
  double cpus_per_node = 0;
  double memory_gib_per_node = 0;
  // The nodes it may run on (its partitions, features, node list, exclusions,
  // reservation: eligibility.h), one flag per node, shared by every job with
  // the same constraints; null for every node. `node_set` names that set
  // (kEveryNode for none), so shapes that failed are remembered per set.
  const std::vector<char>* eligible = nullptr;
  int node_set = kEveryNode;
  // Whole nodes: it starts only on nodes nothing else holds, and holds them whole.
  bool exclusive = false;
};

// Capacity on one node.
struct NodeAmounts {
  int gpus = 0;
  double cpus = 0;
  double memory_gib = 0;
};

// The per-node amounts of a request.
NodeAmounts per_node(const NodeRequest& request);

// What a job of `request` holds on `node`: its per-node amounts, or the whole
// node when it is exclusive.
NodeAmounts held_on(const Inventory& inventory, int node, const NodeRequest& request);

// The most an exclusive job holds on any of `nodes` (a claim's or a
// reservation's uniform amounts); per_node() otherwise.
NodeAmounts held_on_each(const Inventory& inventory, const std::vector<int>& nodes, const NodeRequest& request);

// Free capacity of every node, with running jobs and reservations taken out.
class NodePool {
 public:
  // Up nodes by GPU type and free GPUs: [gpu type][free GPUs] -> nodes.
  using Buckets = std::vector<std::vector<std::vector<int>>>;

  // With `memory` (what memory() gave back after an earlier pool), the buckets
  // are built in it: the same pool, without allocating them again.
  explicit NodePool(const Inventory& inventory, Buckets* memory = nullptr);

  // Gives up the buckets' memory for a later pool; this pool is empty after.
  Buckets memory() { return std::move(buckets_); }

  // Takes (or gives back) `amounts` on each of `nodes`: a job or a reservation.
  // Free capacity may go below zero while a reservation waits for its victims.
  void take(std::span<const int> nodes, const NodeAmounts& amounts);
  void give(std::span<const int> nodes, const NodeAmounts& amounts);

  // The best-fit nodes for `request`, one per node it needs, or nullopt.
  std::optional<std::vector<int>> find(const NodeRequest& request) const;

  // Whether `node` is up, of the requested type (any node for kAnyGpuType),
  // and one the request may run on.
  bool matches(int node, const NodeRequest& request) const;
  // Takes what a job of `request` holds on each of `nodes` (held_on).
  void take_for(std::span<const int> nodes, const NodeRequest& request);
  const NodeAmounts& free(int node) const { return free_[static_cast<std::size_t>(node)]; }
  const Inventory& inventory() const { return inventory_; }
  // Changes with every take() and give(): equal versions, equal free capacity.
  std::uint64_t version() const { return version_; }

  // One sentence on why `request` does not fit now.
  std::string failure_reason(const NodeRequest& request) const;

 private:
  // A candidate node and its free GPUs.
  struct Fit {
    int free_gpus = 0;
    int node = 0;
  };
  // Nodes chosen for a multi-node request, and how good the choice is.
  struct Choice {
    std::vector<int> nodes;
    int blocks = 0;       // topology blocks spanned
    long long waste = 0;  // free GPUs left on the chosen nodes
  };

  std::vector<int> types_of(const NodeRequest& request) const;
  bool has_room(int node, const NodeRequest& request) const;
  std::optional<int> find_one(const NodeRequest& request) const;
  std::optional<Choice> find_many(int gpu_type, const NodeRequest& request) const;
  int bucket_of(int node) const;
  void file(int node);
  void unfile(int node);
  int nodes_with_gpus(const NodeRequest& request) const;
  int most_free_gpus(const NodeRequest& request) const;

  const Inventory& inventory_;
  std::vector<NodeAmounts> free_;
  std::vector<int> slot_;  // node's position in its bucket, -1 when not filed
  Buckets buckets_;
  std::uint64_t version_ = 0;
};

// Request shapes that failed to fit in this cycle. Free capacity only shrinks
// between starts, so a job at least as large as one that failed fails too and
// need not search; forget() when capacity is given back.
class FailedShapes {
 public:
  bool known_to_fail(const NodeRequest& request) const;
  void remember(const NodeRequest& request);
  void forget() { failed_.clear(); }

 private:
  // (gpu type, nodes, GPUs per node, node set, exclusive)
  using Key = std::tuple<int, int, int, int, bool>;
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  // Shape -> the smallest (CPUs, memory) that failed.
  std::unordered_map<Key, std::vector<std::pair<double, double>>, KeyHash> failed_;
};

}  // namespace allot::runtime::cycle
