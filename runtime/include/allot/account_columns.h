// The account table a compiled policy reads (abi.h), computed from the
// policy's tree and the cluster state: exception-adjusted shares in force at
// `now`, usage, fair-share factors, debt, and what each account holds and waits
// for. The cycle ranks with it; explain and dashboards show it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "allot/abi.h"
#include "allot/accounting.h"
#include "allot/cluster_state.h"
#include "allot/fair_share.h"
#include "allot/policy.h"

namespace allot::runtime {

// What each account itself holds and waits for (not its descendants), by
// policy account index: the running jobs the cycle counts (not those past
// their stop or on nodes the inventory lacks) and the waiting ones; jobs of
// accounts the policy does not know are left out.
struct AccountActivity {
  std::vector<ResourceAmounts> held;  // resources of its running jobs
  std::vector<double> pending_jobs;
};

// Slurm's fair-share fields of one account under the policy's algorithm
// (Fair Tree, or classic with `fairshare classic`), over the tree with the
// shares in force: the numbers `sshare -l` would print for the same tree and
// usage. The rank columns (account_level_fs, account_fair_tree) are read
// from these, so `allot shares` and the rank expression never disagree.
struct FairShareFields {
  bool user = false;                // a user association (the policy's leaf accounts)
  double shares_norm = 0;           // NormShares
  long double usage_raw = 0;        // RawUsage: own plus descendants', in the policy's unit
  long double usage_norm = 0;       // NormUsage
  long double usage_effective = 0;  // EffectvUsage
  long double level_fs = 0;         // LevelFS (Fair Tree only)
  double fair_share = 0;   // FairShare: users under Fair Tree; every account under classic, as sshare prints it
  std::uint32_t rank = 0;  // Fair Tree's rank of a user (N: most deserving), 0 otherwise
};

// What a driver's CycleCache keeps of the account table between cycles (runtime-internal).
class AccountMemo;

// The policy's account table: one row per account, in the policy's order.
class AccountColumns {
 public:
  // `capacity` is what the up nodes hold (the denominator of dominant shares).
  // With `memo`, the tree and the fair-share values are reused while their
  // inputs (the shares in force, the usage, the debt) equal the memo's.
  // Without `dominant_shares`, account_dominant_share stays 0: the cycle asks
  // for it only when its policy reads it (CompiledPolicy::account_fields_read),
  // as it is the one column that costs a walk of the tree every cycle.
  AccountColumns(const PolicyTables& tables, const ClusterState& state, const AccountActivity& activity,
                 const ResourceAmounts& capacity, AccountMemo* memo = nullptr, bool dominant_shares = true);
  // table() points into the columns: a copy would point into the original.
  AccountColumns(const AccountColumns&) = delete;
  AccountColumns& operator=(const AccountColumns&) = delete;
  AccountColumns(AccountColumns&&) noexcept = default;
  AccountColumns& operator=(AccountColumns&&) noexcept = default;

  // A view for rank_batch and preempt; valid while this object lives.
  const abi::AccountTable& table() const { return table_; }
  double value(abi::AccountField field, std::size_t account) const { return columns_[field][account]; }
  const SharesInForce& shares() const { return shares_; }
  // Slurm's fair-share fields, by policy account index (the root first).
  const std::vector<FairShareFields>& fair_share_fields() const { return fair_share_fields_; }
  std::size_t size() const { return columns_[0].size(); }

 private:
  using Columns = std::array<std::vector<double>, abi::kAccountFieldCount>;

  SharesInForce shares_;
  std::vector<FairShareFields> fair_share_fields_;
  Columns columns_;
  abi::AccountTable table_{};
};

// The account columns of `state` under `policy`, in one call (`allot shares`,
// tests): the table the cycle ranks with.
AccountColumns account_columns(const CompiledPolicy& policy, const ClusterState& state);

}  // namespace allot::runtime
