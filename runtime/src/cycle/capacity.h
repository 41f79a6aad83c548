// The cycle's free capacity as placing changes it. Per node: the capacity less
// the running jobs (NodePool), what stopping jobs still hold, and what is
// claimed for later (reservations freed by preemption, holds for blocked
// jobs). A stopping job's resources are what a claim on its node waits for, so
// the two are counted once: free = capacity - other jobs - max(stopping, claimed).
//
// It also remembers, until capacity comes back, which request shapes failed to
// fit and why (once the cluster is full, most of a long queue fails for the
// same few shapes).
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "placement.h"

namespace allot::runtime::cycle {

// Capacity claimed on some nodes: a reservation's, or a hold's.
struct Claim {
  std::vector<int> nodes;
  NodeAmounts amounts;  // on each node
};

class Capacity {
 public:
  // `memory`: see NodePool.
  explicit Capacity(const Inventory& inventory, NodePool::Buckets* memory = nullptr);

  const NodePool& pool() const { return pool_; }
  // The pool's memory, for a later cycle's (NodePool::memory).
  NodePool::Buckets memory() { return pool_.memory(); }

  // The nodes `shape` fits on now, or nullopt; a shape that failed is not
  // searched again until capacity comes back.
  std::optional<std::vector<int>> find(const NodeRequest& shape);
  // The nodes `shape` fits on if the `lent` claims were free (backfill's
  // question); nothing changes.
  std::optional<std::vector<int>> find_lending(std::span<const Claim* const> lent, const NodeRequest& shape);
  // NodePool::failure_reason, remembered per shape until capacity changes.
  const std::string& failure_reason(const NodeRequest& shape);

  // A job holds (starts on, or runs on) `nodes`.
  void take(std::span<const int> nodes, const NodeAmounts& amounts);
  // A job of `shape` starts on `nodes` (held_on: whole nodes when exclusive).
  void take_for(std::span<const int> nodes, const NodeRequest& shape);
  // A job on `nodes` stopped now: its resources are free.
  void release(std::span<const int> nodes, const NodeAmounts& amounts);
  // A job on `nodes` stops later: until then its resources are what a claim there waits for.
  void add_stopping(std::span<const int> nodes, const NodeAmounts& amounts);
  void claim(const Claim& claim);
  void unclaim(const Claim& claim);

 private:
  // Adds `amounts` (negative to remove) to the claims on `nodes`; true when capacity came back.
  bool change_claim(std::span<const int> nodes, const NodeAmounts& amounts);
  // Gives the pool back (or takes) the change in the overlap of stopping and
  // claimed capacity on `node`; true when capacity came back.
  bool retally(int node);
  // Capacity came back: shapes that failed may fit now, and their reasons may have changed.
  void returned();

  NodePool pool_;
  std::vector<NodeAmounts> stopping_, claimed_, overlap_;
  FailedShapes failed_;
  std::map<std::tuple<int, int, int, double, double, int, bool>, std::string> reasons_;  // failure_reason by shape
};

}  // namespace allot::runtime::cycle
