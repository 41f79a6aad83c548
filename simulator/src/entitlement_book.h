// A replay's entitlement totals: the runtime's entitlement book
// (allot/accounting.h), stepped once per interval between events, plus what
// the report shows of it: each program's owed, delivered and borrowed
// unit-hours, the timeline of owed and delivered rates, used and unassigned
// capacity, and what held the capacity a program below its share lacked
// (Shortfall).
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
  // The program (index into programs()) a node belongs to; -1 for the root.
  int program_of(int node) const { return program_of_node_[static_cast<std::size_t>(node)]; }
  // Accounts for [from, until) at `capacity` (unit per hour), with the shares
  // in force at `from`. `held[p]` is what program p's running jobs hold, by
  // Shortfall cause (unit per hour; `free` unused).
  void step(Seconds from, Seconds until, double capacity, const std::vector<ShortfallHours>& held,
            TimelineBuilder& timeline);
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
  std::vector<int> program_of_node_;
  std::vector<ProgramTotals> programs_;
  std::vector<double> owed_rates_, delivered_rates_;
  std::vector<ShortfallHours> shortfall_rates_;
  double used_hours_ = 0;
  double unassigned_hours_ = 0;
  double beyond_user_share_hours_ = 0;
};

}  // namespace allot::simulator
