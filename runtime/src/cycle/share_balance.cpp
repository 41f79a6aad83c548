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
  // What the releases take out of each account on the victims' side (few: a list beats a map).
  std::vector<std::pair<int, double>> freed;
  for (const auto& [victim, rate] : releases) {
    if (victim == requester || victim < 0) return false;  // never within one account
    int common = parent(victim);
    while (!is_ancestor(common, requester)) common = parent(common);
    if (common == requester) return false;  // requester's own subtree: it is not a leaf
    if (!below_share(child_towards(common, requester))) return false;
    for (int a = victim; a != common; a = parent(a)) {
      auto it = std::find_if(freed.begin(), freed.end(), [a](const auto& entry) { return entry.first == a; });
      if (it == freed.end()) {
        freed.emplace_back(a, rate);
      } else {
        it->second += rate;
      }
    }
  }
  return std::all_of(freed.begin(), freed.end(), [&](const auto& entry) {
    return held(entry.first) - entry.second + tolerance_ >= target(entry.first);
  });
}

}  // namespace allot::runtime::cycle
