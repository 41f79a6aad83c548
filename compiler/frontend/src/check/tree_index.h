// The budget tree flattened for lookups: each node's full path and parent, and
// the resolution of the names other declarations use to point into the tree
// (`exploration/ana`, or a bare `ana` when that name is unique in the tree).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check_context.h"

namespace allot {

// Index of the parent of a program: the tree root.
inline constexpr int kTreeRoot = -1;

// One node of the tree and where it stands.
struct IndexedNode {
  const ast::TreeNode* node = nullptr;
  std::string path;           // full path from its program, `exploration/ana`
  int parent = kTreeRoot;     // index into TreeIndex::nodes()
  int depth = 0;              // 0 for programs
  std::vector<int> children;  // indices into TreeIndex::nodes(), in declaration order
};

// What a reference to a node resolved to.
struct NodeLookup {
  enum class Status { found, unknown, ambiguous };
  Status status = Status::unknown;
  int node = kTreeRoot;         // when found
  std::vector<int> candidates;  // when ambiguous: every node of that name
};

// The nodes of one `tree { }` in declaration order (parents before children).
class TreeIndex {
 public:
  explicit TreeIndex(const ast::TreeDecl& tree);
  // Every node, programs first in their subtree order.
  const std::vector<IndexedNode>& nodes() const { return nodes_; }
  // Indices of the children of `parent` (kTreeRoot: the programs).
  const std::vector<int>& children_of(int parent) const;
  // A path of several parts names a node from its program; one part is a bare
  // name that must be unique in the whole tree.
  NodeLookup lookup(const ast::NodePath& path) const;
  // The full path of every node, for "did you mean".
  std::vector<std::string> paths() const;

 private:
  std::vector<IndexedNode> nodes_;
  std::vector<int> programs_;
  std::map<std::string, int> by_path_;               // first node with each full path
  std::map<std::string, std::vector<int>> by_name_;  // every node with each bare name
};

// Resolves a reference, reporting `unknown_name` (with a suggestion) or
// `ambiguous_name` (with the full paths). Returns the node's index when it resolves.
std::optional<int> resolve_node(const TreeIndex& index, const ast::NodePath& path, const CheckContext& context);

}  // namespace allot
