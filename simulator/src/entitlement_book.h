// A replay's entitlement totals: the runtime's entitlement book
// (allot/accounting.h), stepped once per interval between events, plus what
// the report shows of it: each program's owed, delivered and borrowed
// unit-hours, the timeline of owed and delivered rates, used and unassigned
// capacity.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "allot/accounting.h"
#include "allot/policy.h"
#include "allot/simulator.h"
#include "timeline_builder.h"

namespace allot::simulator {

class ProgramBook {
 public:
  // Throws std::invalid_argument when the policy's tree is not a tree.
  ProgramBook(const PolicyTables& tables, Seconds window);

  // The node of an account path, if the policy has it.
  std::optional<int> node_of(const std::string& path) const;
  // Adds to an account's own demand and usage (unit per hour); negative removes.
  void add_load(int node, double demand, double usage) {
    book_.add_load(static_cast<std::size_t>(node), demand, usage);
  }
  // Accounts for [from, until) at `capacity` (unit per hour), with the shares in force at `from`.
  void step(Seconds from, Seconds until, double capacity, TimelineBuilder& timeline);
  // Each leaf's owed-minus-delivered unit-hours over the window ending at `now`.
  std::map<std::string, double> debt(Seconds now) { return book_.debt_in_window(now, window_); }

  // Program totals, in tree order.
  const std::vector<ProgramTotals>& programs() const { return programs_; }
  double used_hours() const { return used_hours_; }
  double unassigned_hours() const { return unassigned_hours_; }  // beyond programs' shares
  double beyond_user_share_hours() const { return beyond_user_share_hours_; }

 private:
  runtime::EntitlementBook book_;
  Seconds window_;
  std::vector<std::size_t> program_nodes_;
  std::vector<ProgramTotals> programs_;
  std::vector<double> owed_rates_, delivered_rates_;
  double used_hours_ = 0;
  double unassigned_hours_ = 0;
  double beyond_user_share_hours_ = 0;
};

}  // namespace allot::simulator
