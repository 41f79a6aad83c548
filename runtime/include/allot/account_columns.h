// The account table a compiled policy reads (abi.h), computed from the
// policy's tree and the cluster state: exception-adjusted shares in force at
// `now`, usage, fair-share factors, debt, and what each account holds and waits
// for. The cycle ranks with it; explain and dashboards show it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allot/abi.h"
#include "allot/cycle.h"
#include "allot/fair_share.h"
#include "allot/policy.h"

namespace allot::runtime {

// Each account's share with the exceptions in force at a time. Indexes are
// the policy's account indexes (PolicyTables::accounts); the root's row is 1.
struct SharesInForce {
  std::vector<double> level;            // fraction of the parent (0.4 for 40%)
  std::vector<double> of_cluster;       // fraction of the whole cluster: the product of levels down the path
  std::vector<double> unallocated;      // fraction of each account's children left unallocated
  std::vector<std::string> exceptions;  // names of the exceptions in force, in policy order
};

// Applies every grant whose exception is in force (starts <= now < expires):
// the grantee gains the points among its siblings, the giver (or the level's
// unallocated share) loses them. A share never goes below 0.
SharesInForce shares_in_force(const PolicyTables& tables, Seconds now);

// What each account itself holds and waits for (not its descendants), by policy account index.
struct AccountActivity {
  std::vector<ResourceAmounts> held;  // resources of its running jobs
  std::vector<double> pending_jobs;
};

// The activity of `state`'s jobs; jobs of accounts the policy does not know are left out.
AccountActivity account_activity(const PolicyTables& tables, const ClusterState& state);

// Account paths to policy account indexes.
class AccountIndex {
 public:
  explicit AccountIndex(const PolicyTables& tables);
  // The index of `path` ("" is the root), if the policy has it.
  std::optional<int> find(std::string_view path) const;

 private:
  std::unordered_map<std::string_view, int> index_;
};

// The policy's account table: one row per account, in the policy's order.
class AccountColumns {
 public:
  // `capacity` is what the up nodes hold (the denominator of dominant shares).
  AccountColumns(const PolicyTables& tables, const ClusterState& state, const AccountActivity& activity,
                 const ResourceAmounts& capacity);

  // A view for rank_batch and preempt; valid while this object lives.
  const abi::AccountTable& table() const { return table_; }
  double value(abi::AccountField field, std::size_t account) const { return columns_[field][account]; }
  const SharesInForce& shares() const { return shares_; }
  std::size_t size() const { return columns_[0].size(); }

 private:
  using Columns = std::array<std::vector<double>, abi::kAccountFieldCount>;

  SharesInForce shares_;
  Columns columns_;
  abi::AccountTable table_{};
};

// What the up nodes of `inventory` hold.
ResourceAmounts schedulable_capacity(const Inventory& inventory);

// The account columns of `state` under `policy`, in one call (explain, dashboards, tests).
AccountColumns account_columns(const CompiledPolicy& policy, const ClusterState& state);

}  // namespace allot::runtime
