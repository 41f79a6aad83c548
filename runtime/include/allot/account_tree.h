// The budget hierarchy as the runtime sees it: accounts named by path
// ("exploration/ana"), each holding shares of its parent. Fair-share
// algorithms and entitlement accounting work over this tree.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "allot/expected.h"

namespace allot::runtime {

// Whether a node is a user association (jobs run under it; Fair Tree ranks it)
// or an account (it groups others). `automatic`: a user exactly when nothing is
// declared below it.
enum class AccountKind { automatic, account, user };

// One account as declared: its path and its shares among its siblings.
struct AccountSpec {
  std::string path;   // "exploration/ana"; the parent ("exploration") must be declared too
  double shares = 1;  // raw shares: only the ratio to the siblings' shares matters
  // Slurm's FairShare=parent: the account takes no part in the fair-share
  // comparison at its level; its children compete among its parent's children.
  bool use_parent = false;
  AccountKind kind = AccountKind::automatic;
};

// A node of the tree. Node 0 is the root (the whole cluster, path "").
struct AccountNode {
  std::string path;
  std::string name;           // the last path segment
  int parent = -1;            // -1 for the root
  int depth = 0;              // 0 for the root, 1 for top-level accounts
  std::vector<int> children;  // in declaration order
  double shares = 1;
  bool use_parent = false;
  bool user = false;  // a user association (see AccountKind); the root is not

  bool is_leaf() const { return children.empty(); }
  // Users are what jobs run under and what Fair Tree ranks (Slurm's user associations).
  bool is_user() const { return user; }
};

// An immutable account tree.
class AccountTree {
 public:
  // Builds the tree; the error names the first bad spec (duplicate path, missing
  // parent, empty segment, negative shares, a user with children). Specs may
  // come in any order; siblings keep their order.
  static Expected<AccountTree, std::string> build(const std::vector<AccountSpec>& specs);

  // Number of nodes, the root included.
  std::size_t size() const { return nodes_.size(); }
  // Invariant: a node's parent has a smaller index than the node.
  const AccountNode& node(std::size_t index) const { return nodes_[index]; }
  // Every node, the root first.
  const std::vector<AccountNode>& nodes() const { return nodes_; }
  // The index of a path ("" is the root), if it exists.
  std::optional<std::size_t> find(std::string_view path) const;
  // Number of leaves (accounts with no children), the root excluded.
  std::size_t leaf_count() const;
  // Number of user associations (Slurm's g_user_assoc_count).
  std::size_t user_count() const;

  // Per-node totals: each node's own value plus all of its descendants'.
  std::vector<long double> subtree_sums(std::span<const double> own_values) const;

  // Each node's fraction of the whole cluster: the product of its share ratios
  // down the path (Slurm's normalised shares; FairShare=parent takes its
  // parent's). The root is 1.
  std::vector<double> normalized_shares() const;

 private:
  std::vector<AccountNode> nodes_;
};

}  // namespace allot::runtime
