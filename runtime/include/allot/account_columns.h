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

// What each account itself holds and waits for (not its descendants), by
// policy account index: the running jobs the cycle counts (not those past
// their stop or on nodes the inventory lacks) and the waiting ones; jobs of
// accounts the policy does not know are left out.
struct AccountActivity {
  std::vector<ResourceAmounts> held;  // resources of its running jobs
  std::vector<double> pending_jobs;
};

// Account paths to policy account indexes.
class AccountIndex {
 public:
  explicit AccountIndex(const PolicyTables& tables);
  // The index of `path` ("" is the root), if the policy has it.
  std::optional<int> find(std::string_view path) const;

 private:
  std::unordered_map<std::string_view, int> index_;
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

// The policy's account table: one row per account, in the policy's order.
class AccountColumns {
 public:
  // `capacity` is what the up nodes hold (the denominator of dominant shares).
  AccountColumns(const PolicyTables& tables, const ClusterState& state, const AccountActivity& activity,
                 const ResourceAmounts& capacity);
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

// A snapshot's per-account amounts (`[debt]`, `[owed]`) by policy account
// index: a listed amount wins; an unlisted inner account has its children's sum.
std::vector<double> account_amounts(const PolicyTables& tables, const std::map<std::string, double>& listed);

// The account columns of `state` under `policy`, in one call (`allot shares`,
// tests): the table the cycle ranks with.
AccountColumns account_columns(const CompiledPolicy& policy, const ClusterState& state);

}  // namespace allot::runtime
