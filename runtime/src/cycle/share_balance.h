// What each account holds right now against its share of the cluster, in
// the policy's unit per hour. Preemption consults it so that it never pushes
// an account below its share and never flips capacity back and forth:
//
//   A job of account R may take capacity from a job of account V only if, at
//   the level where their paths part (children r and v of their lowest common
//   ancestor), r holds less than its share before, and v and every account
//   between V and v still hold at least their share after.
//
// Why no loop: right after such a preemption v holds at least its share. For
// V's work to take capacity back from R, v must hold less than its share, so
// something other than preemption (a job of v's ending) must happen first.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "allot/policy.h"

namespace allot::runtime::cycle {

// An account losing capacity: (account index, rate it frees).
using Release = std::pair<int, double>;

class ShareBalance {
 public:
  // `shares` are fractions of the cluster by account index; `capacity` is the
  // whole cluster's rate.
  ShareBalance(const PolicyTables& tables, std::span<const double> shares, double capacity);

  // Adds `rate` (negative to remove) to an account and its ancestors.
  void add(int account, double rate);
  // Whether the account holds less than its share.
  bool below_share(int account) const;
  // Whether any account on the path from `account` up to (not including) the root is below its share.
  bool any_below_share_on_path(int account) const;
  // Whether a job of `requester` may take the capacity `releases` free (see
  // above). Allocates nothing: the victim search asks it for many sets.
  bool allows(int requester, std::span<const Release> releases) const;

  // Changes with every add(): equal versions, equal balance.
  std::uint64_t version() const { return version_; }

  double held(int account) const { return held_[static_cast<std::size_t>(account)]; }
  double target(int account) const { return target_[static_cast<std::size_t>(account)]; }

 private:
  int parent(int account) const { return tables_.accounts[static_cast<std::size_t>(account)].parent; }
  bool is_ancestor(int ancestor, int account) const;
  // The child of `ancestor` on the path to `account`.
  int child_towards(int ancestor, int account) const;

  const PolicyTables& tables_;
  std::vector<double> held_;    // subtree sums
  std::vector<double> target_;  // share x capacity
  double tolerance_ = 0;
  std::uint64_t version_ = 0;
  // allows()'s scratch: what the releases take out of each account, and which
  // accounts it touched (zeroed again at the next call).
  mutable std::vector<double> freed_;
  mutable std::vector<int> touched_;
};

}  // namespace allot::runtime::cycle
