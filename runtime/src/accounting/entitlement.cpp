#include "allot/entitlement.h"

#include <algorithm>

namespace allot::runtime {
namespace {

constexpr double kSecondsPerHour = 3600.0;

// Each node's own load plus its descendants', demand raised to at least usage.
std::vector<AccountLoad> subtree_loads(const AccountTree& tree, const std::vector<AccountLoad>& own) {
  std::vector<AccountLoad> loads(tree.size());
  for (std::size_t i = 0; i < tree.size() && i < own.size(); ++i) {
    loads[i] = AccountLoad{std::max(own[i].demand, own[i].usage), own[i].usage};
  }
  for (std::size_t i = tree.size(); i-- > 1;) {
    AccountLoad& parent = loads[static_cast<std::size_t>(tree.node(i).parent)];
    parent.demand += loads[i].demand;
    parent.usage += loads[i].usage;
  }
  return loads;
}

void add_step(Entitlement& totals, const AccountLoad& load, double entitled, double hours) {
  const double owed = std::min(load.demand, entitled);
  const double delivered = std::min(load.usage, owed);
  totals.owed += owed * hours;
  totals.delivered += delivered * hours;
  totals.debt += (owed - delivered) * hours;
  totals.borrowed += std::max(0.0, load.usage - entitled) * hours;
}

}  // namespace

EntitlementReport account_entitlements(const AccountTree& tree, std::span<const double> shares,
                                       std::span<const EntitlementStep> steps) {
  EntitlementReport report;
  report.accounts.resize(tree.size());
  for (const EntitlementStep& step : steps) {
    const double hours = static_cast<double>(step.duration) / kSecondsPerHour;
    const std::vector<AccountLoad> loads = subtree_loads(tree, step.load);
    for (std::size_t i = 0; i < tree.size(); ++i) {
      const double share = i == 0 ? 1.0 : (i < shares.size() ? shares[i] : 0.0);
      add_step(report.accounts[i], loads[i], share * step.capacity, hours);
    }
    report.capacity_hours += step.capacity * hours;
    report.used_hours += loads[0].usage * hours;
  }
  report.idle_hours = report.capacity_hours - report.used_hours;
  for (std::size_t i = 1; i < tree.size(); ++i) {
    if (tree.node(i).depth == 1) report.unassigned_hours += report.accounts[i].borrowed;
    if (tree.node(i).is_leaf()) report.beyond_leaf_share_hours += report.accounts[i].borrowed;
  }
  return report;
}

}  // namespace allot::runtime
