// A policy's accounts (accounting.h): as an AccountTree, by path, with the
// shares of the exceptions in force, and per-account amounts of a snapshot.
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

bool exception_in_force(const ExceptionInfo& exception, Seconds now) {
  const double time = static_cast<double>(now);
  return exception.starts <= time && time < exception.expires;
}

std::vector<double> account_amounts(const PolicyTables& tables, const std::map<std::string, double>& listed) {
  std::vector<double> amounts(tables.accounts.size(), 0.0);
  std::vector<double> children(tables.accounts.size(), 0.0);
  for (std::size_t i = tables.accounts.size(); i-- > 0;) {
    const auto it = listed.find(tables.accounts[i].path);
    amounts[i] = it == listed.end() ? children[i] : it->second;
    if (i > 0) children[static_cast<std::size_t>(tables.accounts[i].parent)] += amounts[i];
  }
  return amounts;
}

SharesInForce shares_in_force(const PolicyTables& tables, Seconds now) {
  const std::size_t count = tables.accounts.size();
  SharesInForce shares{
      std::vector<double>(count, 1.0), std::vector<double>(count, 1.0), std::vector<double>(count, 0.0), {}};
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) shares.level[i] = tables.accounts[i].share;
    shares.unallocated[i] = tables.accounts[i].unallocated;
  }
  auto valid = [count](int account) { return account > 0 && static_cast<std::size_t>(account) < count; };
  for (const ExceptionInfo& exception : tables.exceptions) {
    if (!exception_in_force(exception, now) || !valid(exception.to)) continue;
    if (shares.exceptions.empty() || shares.exceptions.back() != exception.name) {
      shares.exceptions.push_back(exception.name);
    }
    shares.level[static_cast<std::size_t>(exception.to)] += exception.delta;
    if (valid(exception.from)) {
      shares.level[static_cast<std::size_t>(exception.from)] -= exception.delta;
    } else {
      shares.unallocated[static_cast<std::size_t>(tables.accounts[static_cast<std::size_t>(exception.to)].parent)] -=
          exception.delta;
    }
  }
  for (std::size_t i = 1; i < count; ++i) {
    shares.level[i] = std::max(0.0, shares.level[i]);
    shares.unallocated[i] = std::max(0.0, shares.unallocated[i]);
    shares.of_cluster[i] = shares.level[i] * shares.of_cluster[static_cast<std::size_t>(tables.accounts[i].parent)];
  }
  return shares;
}

AccountIndex::AccountIndex(const PolicyTables& tables) {
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) index_.emplace(tables.accounts[i].path, static_cast<int>(i));
}

std::optional<int> AccountIndex::find(std::string_view path) const {
  const auto it = index_.find(path);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

}  // namespace allot::runtime
