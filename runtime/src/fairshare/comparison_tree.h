// The tree that fair-share algorithms compare siblings in. It is the account
// tree with FairShare=parent accounts looked through: their children compete
// among the children of the nearest ancestor that is not FairShare=parent, as
// Slurm's `fs_assoc_ptr` arranges.
#pragma once

#include <vector>

#include "allot/account_tree.h"

namespace allot::runtime {

struct FairShareTree {
  std::vector<int> fs_parent;  // nearest ancestor not marked use_parent; -1 for the root
  // The nodes whose fs_parent this is, in Slurm's children_list order: the
  // association list is sorted as a tree (each node's children: users first,
  // then accounts, each by name) and walked depth-first, appending each
  // association to its fs_parent's list. The order decides which of two tied
  // sibling accounts Fair Tree walks first.
  std::vector<std::vector<int>> fs_children;
  std::vector<double> level_shares;  // per node: shares of its fs_children, use_parent ones excluded
};

// Builds the fair-share view of `tree`.
FairShareTree fair_share_tree(const AccountTree& tree);

// Slurm's Shares Norm under Fair Tree: a node's shares over its level's shares
// (FairShare=parent nodes take their fs_parent's; 0 under the root, whose
// level has no shares). The root is 0, as sshare prints it.
std::vector<double> level_normalized_shares(const AccountTree& tree, const FairShareTree& fs);

}  // namespace allot::runtime
