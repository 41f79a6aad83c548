// Entitlement and debt. While an account wants capacity it is owed its share
// of it; what it received counts against that, and the difference is its debt.
// Capacity nobody with a claim wanted is lent to whoever uses it (the cluster
// is work-conserving): usage beyond an account's share is recorded as borrowed
// unassigned capacity, which creates no right and no debt.
#pragma once

#include <span>
#include <vector>

#include "allot/account_tree.h"
#include "allot/epoch_seconds.h"

namespace allot::runtime {

// What one account wanted and held during a step, as rates in the unit per
// hour (for GPU-hours: GPUs). Demand counts running and pending work, so it is
// never below usage (a lower value is raised to the usage).
struct AccountLoad {
  double demand = 0;
  double usage = 0;
};

// A stretch of time over which capacity and load were constant.
struct EntitlementStep {
  Seconds duration = 0;
  double capacity = 0;            // what the cluster could deliver, per hour
  std::vector<AccountLoad> load;  // by node index: each node's own load (accounts with children: usually none)
};

// One account's totals in unit-hours over the steps given.
struct Entitlement {
  double owed = 0;       // min(demand, share x capacity), summed while there was demand
  double delivered = 0;  // min(usage, what was owed)
  double debt = 0;       // owed - delivered
  double borrowed = 0;   // usage beyond share x capacity: idle capacity lent to it
};

// The ledger of promises over a window.
struct EntitlementReport {
  std::vector<Entitlement> accounts;  // by node index; the root's row is the whole cluster
  double capacity_hours = 0;
  double used_hours = 0;
  double idle_hours = 0;  // capacity nobody used
  // Unassigned capacity as Ai2 counts it: used by programs (the accounts at the
  // top of the tree) beyond their shares. Lending between two users of one
  // program is not unassigned: the program's share covers it.
  double unassigned_hours = 0;
  double beyond_leaf_share_hours = 0;  // used by leaf accounts (users) beyond their own shares
};

// Accounts for `steps` (normally the steps inside the fair-share window).
// `shares` gives each node's fraction of the cluster (tree.normalized_shares(),
// or the exception-adjusted shares in force).
EntitlementReport account_entitlements(const AccountTree& tree, std::span<const double> shares,
                                       std::span<const EntitlementStep> steps);

}  // namespace allot::runtime
