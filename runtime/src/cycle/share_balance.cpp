#include "share_balance.h"

#include <algorithm>
#include <vector>

namespace allot::runtime::cycle {

ShareBalance::ShareBalance(const PolicyTables& tables, std::span<const double> shares, double capacity)
    : tables_(tables),
      held_(tables.accounts.size(), 0.0),
      target_(tables.accounts.size(), 0.0),
      tolerance_(1e-9 * std::max(1.0, capacity)) {
  for (std::size_t i = 0; i < target_.size() && i < shares.size(); ++i) target_[i] = shares[i] * capacity;
}

void ShareBalance::add(int account, double rate) {
  ++version_;
  for (int a = account; a >= 0; a = parent(a)) held_[static_cast<std::size_t>(a)] += rate;
}

bool ShareBalance::below_share(int account) const { return held(account) + tolerance_ < target(account); }

bool ShareBalance::any_below_share_on_path(int account) const {
  for (int a = account; a > 0; a = parent(a)) {
    if (below_share(a)) return true;
  }
  return false;
}

bool ShareBalance::is_ancestor(int ancestor, int account) const {
  for (int a = account; a >= 0; a = parent(a)) {
    if (a == ancestor) return true;
  }
  return false;
}

int ShareBalance::child_towards(int ancestor, int account) const {
  int child = account;
  while (parent(child) != ancestor) child = parent(child);
  return child;
}

bool ShareBalance::allows(int requester, std::span<const Release> releases) const {
  // What the releases take out of each account on the victims' side, summed in
  // the releases' order.
  for (int a : touched_) freed_[static_cast<std::size_t>(a)] = 0;
  touched_.clear();
  if (freed_.size() != held_.size()) freed_.assign(held_.size(), 0.0);
  for (const auto& [victim, rate] : releases) {
    if (victim == requester || victim < 0) return false;  // never within one account
    int common = parent(victim);
    while (!is_ancestor(common, requester)) common = parent(common);
    if (common == requester) return false;  // requester's own subtree: it is not a leaf
    if (!below_share(child_towards(common, requester))) return false;
    for (int a = victim; a != common; a = parent(a)) {
      double& freed = freed_[static_cast<std::size_t>(a)];
      if (freed == 0 && std::find(touched_.begin(), touched_.end(), a) == touched_.end()) touched_.push_back(a);
      freed += rate;
    }
  }
  return std::all_of(touched_.begin(), touched_.end(),
                     [&](int a) { return held(a) - freed_[static_cast<std::size_t>(a)] + tolerance_ >= target(a); });
}

}  // namespace allot::runtime::cycle
