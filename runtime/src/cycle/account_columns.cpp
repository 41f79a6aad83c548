// The account columns of abi.h (docs/FAIRSHARE.md): shares with
// the exceptions in force, usage over the window, the fair-share factors of
// runtime/ (Fair Tree, classic, DRF), debt, and what each account holds.
#include <algorithm>
#include <cmath>
#include <limits>

#include "account_memo.h"
#include "allot/account_columns.h"
#include "allot/accounting.h"
#include "cycle_jobs.h"

namespace allot::runtime {
namespace {

// The shares Fair Tree and classic compare, as Slurm would hold them: the
// policy's raw shares (percentage points for `40%`, the integer for `shares N`),
// so NormShares is Slurm's integer division; an exception in force scales a
// node's raw shares by the change of its share (grants move percentage
// points, docs/LANGUAGE.md). `share parent` nodes take no shares.
double fair_share_shares(const AccountInfo& account, double share_in_force) {
  if (account.use_parent) return 0.0;
  if (share_in_force == account.share) return account.raw_shares;
  if (account.share > 0) return account.raw_shares * (share_in_force / account.share);
  return share_in_force * 100.0;
}

PolicyTree tree_view(const PolicyTables& tables, const std::vector<double>& level_shares) {
  std::vector<double> shares(tables.accounts.size(), 0.0);
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    shares[i] = fair_share_shares(tables.accounts[i], level_shares[i]);
  }
  auto built = policy_tree(tables, shares);
  // The compiler checked the tree, so a failure here is a broken compiler; a
  // root-only tree keeps the cycle going with every account at node 0.
  if (!built) return PolicyTree{*AccountTree::build({}), std::vector<std::size_t>(tables.accounts.size(), 0), {0}};
  return std::move(*built);
}

// A per-account value in tree order, for the runtime's fair-share functions.
template <class T>
std::vector<T> in_tree_order(const PolicyTree& view, const std::vector<T>& by_account) {
  std::vector<T> out(view.tree.size());
  for (std::size_t i = 1; i < by_account.size(); ++i) out[view.node_of[i]] = by_account[i];
  return out;
}

// Each account's own value plus its descendants' (parents have smaller indexes).
std::vector<double> subtree_sums(const PolicyTables& tables, std::vector<double> values) {
  for (std::size_t i = values.size(); i-- > 1;) {
    values[static_cast<std::size_t>(tables.accounts[i].parent)] += values[i];
  }
  return values;
}

// Usage charged to each account itself. The state may list leaves only or
// leaves and their ancestors (RollingLedger::usage_by_account); an inner
// account's entry is its subtree's total, an unlisted one's what is below it
// (account_amounts), and its own usage is what its children do not explain.
// check_snapshot_accounts refused a total below its children's, so each
// listed total is kept whole, an intermediate account listed or not.
std::vector<double> own_usage(const PolicyTables& tables, const ClusterState& state) {
  const std::vector<double> total = account_amounts(tables, state.usage);
  std::vector<double> children(tables.accounts.size(), 0.0);
  for (std::size_t i = 1; i < tables.accounts.size(); ++i) {
    children[static_cast<std::size_t>(tables.accounts[i].parent)] += total[i];
  }
  std::vector<double> own(tables.accounts.size(), 0.0);
  for (std::size_t i = 1; i < own.size(); ++i) own[i] = std::max(0.0, total[i] - children[i]);
  return own;
}

DrfWeights drf_weights(const UnitInfo& unit) {
  DrfWeights weights;
  if (!unit.dominant) return weights;
  for (const auto& [resource, weight] : unit.weights) {
    if (resource == "gpu") weights.gpu = weight;
    if (resource == "cpu") weights.cpu = weight;
    if (resource == "memory") weights.memory = weight;
  }
  return weights;
}

using Columns = std::array<std::vector<double>, abi::kAccountFieldCount>;

void fill_shares(const PolicyTables& tables, const SharesInForce& shares, Columns& columns) {
  columns[abi::account_share] = shares.of_cluster;
  columns[abi::account_level_share] = shares.level;
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) columns[abi::account_depth][i] = tables.accounts[i].depth;
}

// Slurm's fields of each account under the policy's algorithm, by policy account index.
std::vector<FairShareFields> fair_share_fields(const PolicyTables& tables, const PolicyTree& view,
                                               const std::vector<double>& tree_usage, bool classic) {
  const auto fields_of = [&](const auto& values, auto extra) {
    std::vector<FairShareFields> fields(tables.accounts.size());
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const std::size_t node = view.node_of[i];
      const auto& v = values[node];
      fields[i] = FairShareFields{i > 0 && view.tree.node(node).is_user(),
                                  v.shares_norm,
                                  v.usage_raw,
                                  v.usage_norm,
                                  v.usage_effective,
                                  0.0L,
                                  0.0,
                                  0};
      extra(v, fields[i]);
    }
    return fields;
  };
  if (classic) {
    return fields_of(classic_fair_share(view.tree, tree_usage), [](const ClassicValues& v, FairShareFields& f) {
      f.fair_share = v.fair_share_shown;  // as sshare prints it
    });
  }
  return fields_of(fair_tree(view.tree, tree_usage), [](const FairTreeValues& v, FairShareFields& f) {
    f.level_fs = v.level_fs;
    f.fair_share = v.fair_share;
    f.rank = v.rank;
  });
}

// The columns fill_usage writes (AccountMemo::Usage keeps them).
constexpr std::array<abi::AccountField, 6> kUsageFields = {abi::account_usage,      abi::account_effective_usage,
                                                           abi::account_norm_share, abi::account_usage_ratio,
                                                           abi::account_level_fs,   abi::account_fair_tree};

// Usage, its ratio to the share, and the Fair Tree (or classic) values.
std::vector<FairShareFields> fill_usage(const PolicyTables& tables, const ClusterState& state, const PolicyTree& view,
                                        Columns& columns) {
  const std::vector<double> own = own_usage(tables, state);
  const std::vector<double> usage = subtree_sums(tables, own);
  const std::vector<double> tree_usage = in_tree_order(view, own);
  const bool classic = tables.fairshare == "classic";
  // account_level_fs and account_fair_tree are Fair Tree's under either algorithm.
  const std::vector<FairShareFields> fair = fair_share_fields(tables, view, tree_usage, false);
  std::vector<FairShareFields> fields = classic ? fair_share_fields(tables, view, tree_usage, true) : fair;
  const std::vector<double> norm_shares = view.tree.normalized_shares();
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) {
    const std::size_t node = view.node_of[i];
    const double effective =
        classic ? static_cast<double>(fields[i].usage_effective) : (usage[0] > 0 ? usage[i] / usage[0] : 0.0);
    const double norm = i == 0 ? 1.0 : norm_shares[node];
    columns[abi::account_usage][i] = usage[i];
    columns[abi::account_effective_usage][i] = effective;
    columns[abi::account_norm_share][i] = norm;
    // An account with no share that uses anything is infinitely over it.
    columns[abi::account_usage_ratio][i] =
        norm > 0 ? effective / norm : (effective > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    columns[abi::account_level_fs][i] = i == 0 ? 0.0 : static_cast<double>(fair[i].level_fs);
    columns[abi::account_fair_tree][i] = fair[i].user ? fair[i].fair_share : 0.0;
  }
  // An inner account's factor is its best user's, so `account.fair_tree` means
  // "how deserving is the most deserving work under it".
  std::vector<double>& factor = columns[abi::account_fair_tree];
  for (std::size_t i = tables.accounts.size(); i-- > 1;) {
    double& parent = factor[static_cast<std::size_t>(tables.accounts[i].parent)];
    parent = std::max(parent, factor[i]);
  }
  return fields;
}

// Running GPUs, pending jobs and (when asked) dominant shares, each over the account's subtree.
void fill_activity(const PolicyTables& tables, const AccountActivity& activity, const ResourceAmounts& capacity,
                   const PolicyTree& view, bool dominant_shares, Columns& columns) {
  const std::size_t count = tables.accounts.size();
  std::vector<ResourceAmounts> held(activity.held);
  held.resize(count);
  std::vector<double> gpus(count, 0.0);
  for (std::size_t i = 0; i < count; ++i) gpus[i] = held[i].gpus;
  columns[abi::account_running_gpus] = subtree_sums(tables, std::move(gpus));
  std::vector<double> pending(activity.pending_jobs);
  pending.resize(count, 0.0);
  columns[abi::account_pending_jobs] = subtree_sums(tables, std::move(pending));
  if (!dominant_shares) return;
  const auto dominant =
      dominant_resource_shares(view.tree, in_tree_order(view, held), capacity, drf_weights(tables.unit));
  for (std::size_t i = 0; i < count; ++i)
    columns[abi::account_dominant_share][i] = dominant[view.node_of[i]].dominant_share;
}

}  // namespace

AccountColumns::AccountColumns(const PolicyTables& tables, const ClusterState& state, const AccountActivity& activity,
                               const ResourceAmounts& capacity, AccountMemo* memo, bool dominant_shares)
    : shares_(shares_in_force(tables, state.now)) {
  for (auto& values : columns_) values.assign(tables.accounts.size(), 0.0);
  AccountMemo scratch;  // without a memo, one used once
  AccountMemo& kept = memo != nullptr ? *memo : scratch;
  if (!kept.tree || kept.level_shares != shares_.level) {
    kept.tree = tree_view(tables, shares_.level);
    kept.level_shares = shares_.level;
    kept.usage_values.reset();
  }
  const PolicyTree& view = *kept.tree;
  fill_shares(tables, shares_, columns_);
  // Without a memo (scratch keeps nothing), computed once and never copied.
  if (kept.usage_values && kept.usage == state.usage) {
    for (std::size_t i = 0; i < kUsageFields.size(); ++i) columns_[kUsageFields[i]] = kept.usage_values->columns[i];
    fair_share_fields_ = kept.usage_values->fields;
  } else {
    fair_share_fields_ = fill_usage(tables, state, view, columns_);
    if (memo != nullptr) {
      AccountMemo::Usage values{{}, fair_share_fields_};
      for (std::size_t i = 0; i < kUsageFields.size(); ++i) values.columns[i] = columns_[kUsageFields[i]];
      memo->usage = state.usage;
      memo->usage_values = std::move(values);
    }
  }
  if (kept.debt_column && kept.debt == state.debt) {
    columns_[abi::account_debt] = *kept.debt_column;
  } else {
    columns_[abi::account_debt] = account_amounts(tables, state.debt);
    if (memo != nullptr) {
      memo->debt = state.debt;
      memo->debt_column = columns_[abi::account_debt];
    }
  }
  fill_activity(tables, activity, capacity, view, dominant_shares, columns_);
  table_.count = tables.accounts.size();
  for (std::size_t f = 0; f < abi::kAccountFieldCount; ++f) table_.columns[f] = columns_[f].data();
}

AccountColumns account_columns(const CompiledPolicy& policy, const ClusterState& state) {
  // The jobs as the cycle resolves them, so this table is the one `rank` reads.
  const PolicyTables& tables = policy.tables();
  const ResourceAmounts capacity = schedulable_capacity(state.inventory);
  const UnitWeights unit = unit_weights(tables.unit, capacity);
  const cycle::CycleJobs jobs =
      cycle::resolve_jobs(state, tables, AccountIndex(tables), cycle::Rates(unit, state.inventory));
  return AccountColumns(tables, state, jobs.activity, capacity);
}

bool AccountMemo::serve(const PolicyTables& served, const std::string& hash) {
  if (tables == &served && policy_hash == hash) return false;
  *this = AccountMemo{};
  tables = &served;
  policy_hash = hash;
  return true;
}

}  // namespace allot::runtime
