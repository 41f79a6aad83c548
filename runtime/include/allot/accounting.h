// Accounting: how a policy counts. The one place that turns a policy's unit
// and an inventory into rates and a ledger configuration, builds the account
// tree of a policy, and keeps the entitlement book (what each account was owed
// and delivered, and each leaf's debt per hour over the window). The
// scheduling cycle, the simulator and the Slurm adapter all count with it, so
// a GPU-hour, a share and a unit of debt mean the same thing in each.
// Code: runtime/src/accounting/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "allot/account_tree.h"
#include "allot/cluster_state.h"
#include "allot/entitlement.h"
#include "allot/expected.h"
#include "allot/fair_share.h"
#include "allot/inventory.h"
#include "allot/ledger.h"
#include "allot/policy.h"

namespace allot::runtime {

// ---- Units and rates ------------------------------------------------------

// What the up nodes of `inventory` hold: the capacity new work can use, and
// the denominators of dominant shares.
ResourceAmounts schedulable_capacity(const Inventory& inventory);

// The policy's unit, with `capacity` as the dominant-resource denominators.
UnitWeights unit_weights(const UnitInfo& unit, const ResourceAmounts& capacity);
// The policy's unit over the up nodes of `inventory`.
UnitWeights unit_weights(const PolicyTables& tables, const Inventory& inventory);

// The weights of a `gpu_hours` unit that name no GPU type of `inventory` while a
// type of it has no weight (a misspelt `a10O = 0.6`: the A100s it meant then count
// 1.0 per GPU-hour), as sentences naming the nearest unweighted type; empty when
// every type of the inventory is weighted (a fleet-wide policy's `b300` on a
// cluster without any weighs nothing). The rule is support::unit_type_gaps, the
// one `allot check --cluster` refuses by and `allot serve` warns by; the commands
// that read an inventory (shares, cycle, explain, eval, replay, slurm) warn.
std::vector<std::string> unit_types_missing(const UnitInfo& unit, const Inventory& inventory);

// The ledger for a policy: its unit, its window rounded to whole hours (at
// least one), its half-life, hourly buckets.
LedgerConfig ledger_config(const PolicyTables& tables, const Inventory& inventory);

// What holding `gpus`, `cpus` and `memory_gib` on each of `nodes` costs per
// hour; GPUs are typed by the first node (a job's nodes share one type).
// 0 for no nodes or a node `inventory` does not have.
double rate_on_nodes(const UnitWeights& unit, const Inventory& inventory, const std::vector<int>& nodes, double gpus,
                     double cpus, double memory_gib);
// What a running job costs per hour where it runs.
double running_rate(const UnitWeights& unit, const Inventory& inventory, const RunningJob& job);
// What a request costs per hour on GPUs of `gpu_type` ("" when not known).
double request_rate(const UnitWeights& unit, const JobRequest& request, std::string_view gpu_type);

// What the up nodes deliver per hour in the unit.
double capacity_rate(const UnitWeights& unit, const Inventory& inventory);
// What one GPU of an unknown type costs per hour: the up nodes' average, so
// demand that names no type is priced like the capacity it would get (1 on a
// cluster with no GPU up).
double average_gpu_rate(const UnitWeights& unit, const Inventory& inventory);

// ---- The account tree -----------------------------------------------------

// A policy's accounts as an AccountTree (whose node order puts parents first
// by depth, so it differs from the policy's), with the maps between the two.
struct PolicyTree {
  AccountTree tree;
  std::vector<std::size_t> node_of;  // policy account index -> tree node
  std::vector<int> account_of;       // tree node -> policy account index
};

// The tree of `tables` with `shares[i]` as account i's raw shares (the root's
// entry is ignored; `share parent` accounts keep their flag). The compiler
// checked the tree, so an error here means tables that did not come from it.
Expected<PolicyTree, std::string> policy_tree(const PolicyTables& tables, std::span<const double> shares);
// The same with each account's fraction of its parent as its shares.
Expected<PolicyTree, std::string> policy_tree(const PolicyTables& tables);

// Account paths to policy account indexes, shares with the exceptions in
// force, and a snapshot's per-account amounts (accounting/policy_tree.cpp).

// Account paths to policy account indexes.
class AccountIndex {
 public:
  explicit AccountIndex(const PolicyTables& tables);
  // The index of `path` ("" is the root), if the policy has it.
  std::optional<int> find(std::string_view path) const;

 private:
  std::unordered_map<std::string_view, int> index_;
};

// Whether `exception` is in force at `now` (starts <= now < expires).
bool exception_in_force(const ExceptionInfo& exception, Seconds now);

// A date of the policy's governance that has passed while the policy runs: a
// review that fell due, an exception that expired (it no longer applies, as
// exception_in_force says). `allot check` refuses a policy with either; a
// scheduler never stops for them but says so loudly (docs/SLURM.md, "Governance").
struct GovernanceNotice {
  std::string code;      // the checker's code: "review_date_passed" or "exception_expired"
  std::string subject;   // the account's path, or the exception's name
  std::int64_t day = 0;  // the day that passed, in days since 1970-01-01
  std::string message;   // one sentence for a log
  friend bool operator==(const GovernanceNotice&, const GovernanceNotice&) = default;
};

// The notices at `now`, reviews in account order, then exceptions in policy order.
std::vector<GovernanceNotice> governance_notices(const PolicyTables& tables, Seconds now);

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

// A snapshot's per-account amounts (`[debt]`, `[owed]`) by policy account
// index: a listed amount wins; an unlisted inner account has its children's sum.
std::vector<double> account_amounts(const PolicyTables& tables, const std::map<std::string, double>& listed);

// ---- The entitlement book -------------------------------------------------

// Debt (or owed) per leaf and hour: (leaf account path, hour index since the epoch) -> unit-hours.
using DebtHours = std::map<std::pair<std::string, Seconds>, double>;

// Each leaf's total over the window ending at `now`, as EntitlementBook::debt_in_window
// counts it (the hours after `now - window` up to `now`'s); leaves with none are absent.
std::map<std::string, double> sum_in_window(const DebtHours& hours, Seconds now, Seconds window);

// Entitlement accounting stepped through time (entitlement.h): over each step
// every account with demand is owed its share (with the exceptions in force at
// the step's start) of the capacity; what it was owed and did not receive is
// its debt, kept per leaf and hour so it leaves the window an hour at a time.
// A step's debt counts in the hour the step begins.
class EntitlementBook {
 public:
  // The book of `tables`' tree (`tables` must outlive it); fails only for
  // tables that did not come from the compiler.
  static Expected<EntitlementBook, std::string> create(const PolicyTables& tables);

  const AccountTree& tree() const { return tree_.tree; }
  // The tree node of an account path, if the policy has it.
  std::optional<std::size_t> node_of(std::string_view path) const;
  // The policy account index (PolicyTables::accounts) of a tree node.
  int account_of(std::size_t node) const { return tree_.account_of[node]; }

  // Adds to a node's own demand and usage (unit per hour); negative removes.
  void add_load(std::size_t node, double demand, double usage);
  // Sets every node's load from `state`: running jobs' rates where they run
  // as usage and demand, pending jobs' rates as demand (jobs of accounts the
  // policy does not know are left out).
  void load(const ClusterState& state, const UnitWeights& unit);

  // Accounts for [from, until) at `capacity` (unit per hour) with the loads
  // set; adds each leaf's debt to the hour of `from`. The report is valid
  // until the next step; nothing happens (and an empty report is returned)
  // when `until <= from`.
  const EntitlementReport& step(Seconds from, Seconds until, double capacity);
  // The debt the last step added, per leaf and hour (for drivers that keep it durably).
  DebtHours last_step_debt() const;
  // What the last step owed each leaf with demand, per leaf and hour (owed - debt was delivered).
  DebtHours last_step_owed() const;

  // Adds debt recorded earlier (by a previous process); paths the policy no
  // longer has are dropped.
  void add_debt(const DebtHours& hours);
  // Each leaf's debt over the window ending at `now` (the hours after
  // `now - window` up to `now`'s); leaves without debt are absent. Forgets
  // hours that have left the window.
  std::map<std::string, double> debt_in_window(Seconds now, Seconds window);

 private:
  explicit EntitlementBook(const PolicyTables& tables, PolicyTree tree);
  void refresh_shares(Seconds now);
  void add_debt_at(std::size_t node, Seconds hour, double amount);

  const PolicyTables* tables_;
  PolicyTree tree_;
  std::vector<double> shares_;       // by tree node, of the cluster, in force
  std::vector<Seconds> boundaries_;  // exception starts and expiries, sorted
  std::size_t boundaries_passed_ = static_cast<std::size_t>(-1);
  std::vector<AccountLoad> loads_;                            // by tree node, own
  std::vector<std::deque<std::pair<Seconds, double>>> debt_;  // by tree node: (hour, unit-hours), hours ascending
  EntitlementReport report_;
  Seconds last_hour_ = 0;
};

}  // namespace allot::runtime
