// The levels Slurm compares in. A sibling set is the children of one node (or
// the programs); a `share parent` node's children leave their set and compete
// among the children of its fair-share parent, the nearest ancestor that is not
// `share parent` (Slurm's fs_assoc_ptr). The checker and the lowering share
// these definitions so that what is checked is what the runtime gets.
#pragma once

#include <optional>
#include <vector>

#include "tree_index.h"

namespace allot {

inline bool uses_parent(const IndexedNode& node) { return node.node->share_form == ast::ShareForm::parent; }

// The form of the set of `parent`'s children (kTreeRoot: the programs): the form
// of the first child that is not `share parent`; nullopt when there is none.
std::optional<ast::ShareForm> set_form(const TreeIndex& index, int parent);

// The nearest ancestor of `node` that is not `share parent`; kTreeRoot for the top.
int fairshare_parent(const TreeIndex& index, int node);

// Whether the children of `parent` form a level of their own: the root does,
// and every node that is not `share parent`.
inline bool owns_level(const TreeIndex& index, int parent) {
  return parent == kTreeRoot || !uses_parent(index.nodes()[parent]);
}

// The nodes that compete in the level of `owner` (owns_level): its children
// that are not `share parent` and, through every `share parent` child, that
// child's own members, recursively. In tree order; built without recursion.
std::vector<int> level_members(const TreeIndex& index, int owner);

// A node's raw share as Slurm would hold it: percentage points for `40%`, the
// integer for `shares N`, 0 for `share parent`.
double raw_share(const ast::TreeNode& node);

}  // namespace allot
