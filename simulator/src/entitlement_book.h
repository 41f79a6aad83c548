// Entitlement accounting over a replay (runtime/entitlement.h), one step per
// interval between events: what each program was owed and received, what was
// lent as unassigned capacity, and each leaf's debt over the policy's window
// (the `debt` a rank reads).
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allot/account_tree.h"
#include "allot/entitlement.h"
#include "allot/policy.h"
#include "allot/simulator.h"
#include "timeline_builder.h"

namespace allot::simulator {

class EntitlementBook {
 public:
  // Throws std::invalid_argument when the policy's tree is not a tree.
  EntitlementBook(const PolicyTables& tables, Seconds window);

  // The node of an account path, if the policy has it.
  std::optional<int> node_of(const std::string& path) const;
  // Adds to an account's own demand and usage (unit per hour); negative removes.
  void add_load(int node, double demand, double usage);
  // Accounts for [from, until) at `capacity` (unit per hour), with the shares in force at `from`.
  void step(Seconds from, Seconds until, double capacity, TimelineBuilder& timeline);
  // Each leaf's owed-minus-delivered unit-hours over the window ending at `now`.
  void fill_debt(Seconds now, std::map<std::string, double>& debt);

  // Program totals, in tree order.
  const std::vector<ProgramTotals>& programs() const { return programs_; }
  double used_hours() const { return used_hours_; }
  double unassigned_hours() const { return unassigned_hours_; }

 private:
  // Hourly debt of one leaf; old hours fall out of the window.
  struct DebtWindow {
    std::deque<std::pair<Seconds, double>> hours;  // (hour index, unit-hours)
  };

  void refresh_shares(Seconds now);

  const PolicyTables& tables_;
  runtime::AccountTree tree_;
  Seconds window_hours_ = 168;
  std::vector<int> policy_index_;    // by tree node
  std::vector<double> shares_;       // by tree node, of the cluster, in force
  std::vector<Seconds> boundaries_;  // exception starts and expiries, sorted
  std::size_t boundaries_passed_ = SIZE_MAX;
  std::vector<runtime::AccountLoad> loads_;  // by tree node, own
  std::vector<int> program_nodes_;
  std::vector<ProgramTotals> programs_;
  std::vector<DebtWindow> debt_;  // by tree node (leaves only used)
  std::vector<double> owed_rates_, delivered_rates_;
  double used_hours_ = 0;
  double unassigned_hours_ = 0;
};

}  // namespace allot::simulator
