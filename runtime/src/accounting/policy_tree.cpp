// A policy's accounts as an AccountTree (accounting.h).
#include <algorithm>
#include <unordered_map>

#include "allot/accounting.h"

namespace allot::runtime {

Expected<PolicyTree, std::string> policy_tree(const PolicyTables& tables, std::span<const double> shares) {
  std::vector<AccountSpec> specs;
  specs.reserve(tables.accounts.size());
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    const AccountInfo& account = tables.accounts[i];
    specs.push_back(AccountSpec{account.path, i < shares.size() ? shares[i] : 0.0, account.use_parent});
  }
  auto built = AccountTree::build(specs);
  if (!built) return unexpected(built.error());
  PolicyTree tree{std::move(*built), std::vector<std::size_t>(tables.accounts.size(), 0), {}};
  tree.account_of.assign(tree.tree.size(), 0);
  std::unordered_map<std::string_view, std::size_t> by_path;
  for (std::size_t n = 0; n < tree.tree.size(); ++n) by_path.emplace(tree.tree.node(n).path, n);
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) {
    const auto it = by_path.find(tables.accounts[i].path);
    if (it == by_path.end()) continue;
    tree.node_of[i] = it->second;
    tree.account_of[it->second] = static_cast<int>(i);
  }
  return tree;
}

Expected<PolicyTree, std::string> policy_tree(const PolicyTables& tables) {
  std::vector<double> shares(tables.accounts.size(), 0.0);
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) shares[i] = std::max(tables.accounts[i].share, 0.0);
  return policy_tree(tables, shares);
}

}  // namespace allot::runtime
