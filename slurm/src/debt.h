// Fair-share debt from what the adapter observes (runtime/entitlement.h): over
// each interval between passes, every account with demand is owed its share
// of the capacity; what it was owed and did not receive is its debt. Debt is
// kept per leaf account and hour, so it leaves the window an hour at a time.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "allot/cycle.h"
#include "allot/ledger.h"
#include "allot/policy.h"

namespace allot::slurm {

using runtime::Seconds;

// Debt per hour bucket: (leaf account, hour index) -> unit-hours.
using DebtHours = std::map<std::pair<std::string, Seconds>, double>;

// The debt each leaf account ran up over the `duration` seconds before
// `state.now`, taking the loads of `state` as those of the whole interval.
DebtHours debt_added(const PolicyTables& tables, const runtime::ClusterState& state, const runtime::UnitWeights& unit,
                     Seconds duration);

// Debt per leaf account over the window ending at `now`.
std::map<std::string, double> debt_in_window(const DebtHours& hours, Seconds now, Seconds window);

}  // namespace allot::slurm
