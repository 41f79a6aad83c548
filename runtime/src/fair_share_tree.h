// The tree that fair-share algorithms compare siblings in. It is the account
// tree with FairShare=parent accounts looked through: their children compete
// among the children of the nearest ancestor that is not FairShare=parent, as
// Slurm's `fs_assoc_ptr` arranges.
#pragma once

#include <vector>

#include "allot/account_tree.h"

namespace allot::runtime {

struct FairShareTree {
  std::vector<int> fs_parent;                 // nearest ancestor not marked use_parent; -1 for the root
  std::vector<std::vector<int>> fs_children;  // the nodes whose fs_parent this is, in index order
  std::vector<double> level_shares;           // per node: shares of its fs_children, use_parent ones excluded
};

// Builds the fair-share view of `tree`.
FairShareTree fair_share_tree(const AccountTree& tree);

// Slurm's Shares Norm under Fair Tree: a node's shares over its level's shares
// (FairShare=parent nodes take their fs_parent's). The root is 1.
std::vector<double> level_normalized_shares(const AccountTree& tree, const FairShareTree& fs);

}  // namespace allot::runtime
