#include "fairshare/comparison_tree.h"

#include <algorithm>

namespace allot::runtime {
namespace {

// Slurm: (double) shares_raw / (double) level_shares, 0 when the level has no shares.
double level_fraction(const AccountTree& tree, const FairShareTree& fs, int node) {
  if (node == 0) return 0.0;  // the root's own level has no shares
  const double level = fs.level_shares[static_cast<std::size_t>(fs.fs_parent[static_cast<std::size_t>(node)])];
  return level > 0 ? tree.node(static_cast<std::size_t>(node)).shares / level : 0.0;
}

// Slurm's slurmdb_sort_hierarchical_assoc_list: users before accounts, then by name (strcmp).
std::vector<int> sorted_children(const AccountTree& tree, int node) {
  std::vector<int> children = tree.node(static_cast<std::size_t>(node)).children;
  std::stable_sort(children.begin(), children.end(), [&](int a, int b) {
    const AccountNode& x = tree.node(static_cast<std::size_t>(a));
    const AccountNode& y = tree.node(static_cast<std::size_t>(b));
    if (x.is_user() != y.is_user()) return x.is_user();
    return x.name < y.name;  // std::string compares bytes as unsigned char, like strcmp
  });
  return children;
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
    if (!tree.node(i).use_parent) fs.level_shares[static_cast<std::size_t>(parent)] += tree.node(i).shares;
  }
  // Depth-first over the sorted tree, with an explicit stack (trees may be deep).
  std::vector<int> stack = sorted_children(tree, 0);
  std::reverse(stack.begin(), stack.end());
  while (!stack.empty()) {
    const int node = stack.back();
    stack.pop_back();
    fs.fs_children[static_cast<std::size_t>(fs.fs_parent[static_cast<std::size_t>(node)])].push_back(node);
    std::vector<int> children = sorted_children(tree, node);
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return fs;
}

std::vector<double> level_normalized_shares(const AccountTree& tree, const FairShareTree& fs) {
  std::vector<double> shares(tree.size(), 0.0);
  for (std::size_t i = 1; i < tree.size(); ++i) {
    shares[i] = tree.node(i).use_parent ? level_fraction(tree, fs, fs.fs_parent[i])
                                        : level_fraction(tree, fs, static_cast<int>(i));
  }
  return shares;
}

}  // namespace allot::runtime
