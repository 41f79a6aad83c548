#include "fair_share_tree.h"

namespace allot::runtime {
namespace {

// Slurm: (double) shares_raw / (double) level_shares, 0 when the level has no shares.
double level_fraction(const AccountTree& tree, const FairShareTree& fs, int node) {
  const double level = fs.level_shares[static_cast<std::size_t>(fs.fs_parent[static_cast<std::size_t>(node)])];
  return level > 0 ? tree.node(static_cast<std::size_t>(node)).shares / level : 0.0;
}

}  // namespace

FairShareTree fair_share_tree(const AccountTree& tree) {
  FairShareTree fs;
  fs.fs_parent.assign(tree.size(), -1);
  fs.fs_children.resize(tree.size());
  fs.level_shares.assign(tree.size(), 0.0);
  // Invariant (AccountTree): a parent's index is smaller than its children's.
  for (std::size_t i = 1; i < tree.size(); ++i) {
    int parent = tree.node(i).parent;
    while (parent > 0 && tree.node(static_cast<std::size_t>(parent)).use_parent) {
      parent = tree.node(static_cast<std::size_t>(parent)).parent;
    }
    fs.fs_parent[i] = parent;
    fs.fs_children[static_cast<std::size_t>(parent)].push_back(static_cast<int>(i));
    if (!tree.node(i).use_parent) fs.level_shares[static_cast<std::size_t>(parent)] += tree.node(i).shares;
  }
  return fs;
}

std::vector<double> level_normalized_shares(const AccountTree& tree, const FairShareTree& fs) {
  std::vector<double> shares(tree.size(), 1.0);
  for (std::size_t i = 1; i < tree.size(); ++i) {
    const int parent = fs.fs_parent[i];
    const bool through = tree.node(i).use_parent;
    shares[i] = through ? (parent == 0 ? 1.0 : level_fraction(tree, fs, parent))
                        : level_fraction(tree, fs, static_cast<int>(i));
  }
  return shares;
}

}  // namespace allot::runtime
