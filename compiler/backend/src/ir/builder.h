// Builds one IR function node by node: folds constants, simplifies branches
// whose condition is known, and shares identical nodes (CSE), so the lowering
// can emit naively and still produce a small DAG.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "ir.h"

namespace allot::ir {

class FunctionBuilder {
 public:
  // A constant of language type `type` (booleans are 0 and 1).
  NodeId constant(double value, SourceType type);
  // A field read (`job_field`, `account_field`, `cluster_field`) or an `account_row`.
  NodeId load(Op op, std::uint32_t field, Subject subject, SourceType type);
  // A computing op over earlier nodes; operands beyond the op's arity are ignored.
  NodeId compute(Op op, SourceType type, NodeId a, NodeId b = 0, NodeId c = 0);
  const Node& node(NodeId id) const { return nodes_[id]; }
  // The value of `id` when it is a constant.
  std::optional<double> constant_value(NodeId id) const;
  // The function returning `result`, without the nodes it does not need.
  Function finish(NodeId result) const;

 private:
  using Key = std::tuple<Op, SourceType, NodeId, NodeId, NodeId, std::uint64_t, std::uint32_t, Subject>;
  NodeId intern(Node node);
  std::optional<NodeId> simplify(Op op, SourceType type, NodeId a, NodeId b, NodeId c);
  std::optional<NodeId> simplify_logic(Op op, NodeId a, NodeId b);
  std::vector<Node> nodes_;
  std::map<Key, NodeId> interned_;
};

}  // namespace allot::ir
