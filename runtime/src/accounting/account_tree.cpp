#include "allot/account_tree.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "fairshare/comparison_tree.h"

namespace allot::runtime {
namespace {

int path_depth(std::string_view path) { return 1 + static_cast<int>(std::count(path.begin(), path.end(), '/')); }

std::optional<std::string> spec_problem(const AccountSpec& spec) {
  if (spec.path.empty()) return std::string("an account path is empty");
  if (spec.path.front() == '/' || spec.path.back() == '/' || spec.path.find("//") != std::string::npos) {
    return fmt::format("account path `{}` has an empty segment", spec.path);
  }
  if (!std::isfinite(spec.shares) || spec.shares < 0) {
    return fmt::format("account `{}` has shares {}; shares must be 0 or more", spec.path, spec.shares);
  }
  return std::nullopt;
}

// Spec indexes ordered so that every parent comes before its children.
std::vector<std::size_t> parents_first(const std::vector<AccountSpec>& specs) {
  std::vector<std::size_t> order(specs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return path_depth(specs[a].path) < path_depth(specs[b].path); });
  return order;
}

}  // namespace

Expected<AccountTree, std::string> AccountTree::build(const std::vector<AccountSpec>& specs) {
  AccountTree tree;
  tree.nodes_.push_back(AccountNode{});
  std::unordered_map<std::string, int> index{{"", 0}};
  std::vector<AccountKind> kinds{AccountKind::account};  // per node, the root first
  for (std::size_t spec_index : parents_first(specs)) {
    const AccountSpec& spec = specs[spec_index];
    if (auto problem = spec_problem(spec)) return unexpected(*problem);
    const std::size_t slash = spec.path.rfind('/');
    const std::string parent_path = slash == std::string::npos ? "" : spec.path.substr(0, slash);
    const auto parent = index.find(parent_path);
    if (parent == index.end()) {
      return unexpected(fmt::format("account `{}` has no parent: declare `{}` too", spec.path, parent_path));
    }
    const int self = static_cast<int>(tree.nodes_.size());
    if (!index.emplace(spec.path, self).second)
      return unexpected(fmt::format("account `{}` is declared twice", spec.path));
    AccountNode& parent_node = tree.nodes_[static_cast<std::size_t>(parent->second)];
    parent_node.children.push_back(self);
    kinds.push_back(spec.kind);
    tree.nodes_.push_back(AccountNode{spec.path,
                                      spec.path.substr(slash + 1),
                                      parent->second,
                                      parent_node.depth + 1,
                                      {},
                                      spec.shares,
                                      spec.use_parent,
                                      spec.kind == AccountKind::user});
  }
  for (std::size_t i = 1; i < tree.nodes_.size(); ++i) {
    AccountNode& node = tree.nodes_[i];
    if (node.user && !node.children.empty()) {
      return unexpected(fmt::format("user `{}` has accounts or users below it", node.path));
    }
    if (kinds[i] == AccountKind::automatic) node.user = node.children.empty();
  }
  return tree;
}

std::optional<std::size_t> AccountTree::find(std::string_view path) const {
  const auto it =
      std::find_if(nodes_.begin(), nodes_.end(), [&](const AccountNode& node) { return node.path == path; });
  if (it == nodes_.end()) return std::nullopt;
  return static_cast<std::size_t>(it - nodes_.begin());
}

std::size_t AccountTree::leaf_count() const {
  return static_cast<std::size_t>(
      std::count_if(nodes_.begin() + 1, nodes_.end(), [](const AccountNode& node) { return node.is_leaf(); }));
}

std::size_t AccountTree::user_count() const {
  return static_cast<std::size_t>(
      std::count_if(nodes_.begin() + 1, nodes_.end(), [](const AccountNode& node) { return node.is_user(); }));
}

std::vector<long double> AccountTree::subtree_sums(std::span<const double> own_values) const {
  std::vector<long double> sums(nodes_.size(), 0.0L);
  for (std::size_t i = 0; i < nodes_.size() && i < own_values.size(); ++i) sums[i] = own_values[i];
  // Children have larger indexes than their parents, so one backward pass suffices.
  for (std::size_t i = nodes_.size(); i-- > 1;) sums[static_cast<std::size_t>(nodes_[i].parent)] += sums[i];
  return sums;
}

std::vector<double> AccountTree::normalized_shares() const {
  const FairShareTree fs = fair_share_tree(*this);
  const std::vector<double> level = level_normalized_shares(*this, fs);
  std::vector<double> shares(nodes_.size(), 1.0);
  for (std::size_t i = 1; i < nodes_.size(); ++i) {
    if (nodes_[i].use_parent) {
      shares[i] = shares[static_cast<std::size_t>(fs.fs_parent[i])];
      continue;
    }
    // Multiplied from the node up to the root, in Slurm's order, so the bits match.
    double product = 1.0;
    for (int n = static_cast<int>(i); n > 0; n = nodes_[static_cast<std::size_t>(n)].parent) {
      if (!nodes_[static_cast<std::size_t>(n)].use_parent) product *= level[static_cast<std::size_t>(n)];
    }
    shares[i] = product;
  }
  return shares;
}

}  // namespace allot::runtime
