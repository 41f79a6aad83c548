// The rollout gates of a policy (its `gates` block) measured on a replay.
// share_delivery is judged per program over sliding windows of the gate's
// `over` (default: the policy's window), and only where the program had
// sustained demand: something owed in at least half of the window's hours.
#pragma once

#include <optional>
#include <vector>

#include "allot/simulator.h"

namespace allot::simulator {

// The worst delivered / owed of any program over windows of `window_seconds`
// (the whole replay if shorter) with sustained demand; nullopt when none had it.
std::optional<WindowDelivery> worst_window_delivery(const SimulationResult& result, double window_seconds);

// Each gate of `tables` with its measured value and verdict, in policy order.
std::vector<GateResult> evaluate_gates(const PolicyTables& tables, const PolicyMetrics& metrics,
                                       const SimulationResult& result);

}  // namespace allot::simulator
