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

// Each program's delivery over windows of `window_seconds`, at most
// `max_points` points (GateResult::windows).
GateWindows gate_windows(const SimulationResult& result, double window_seconds, std::size_t max_points);

// Each gate of `tables` with its measured value and verdict, in policy order;
// share_delivery gates with their windows over time (at most `max_points`).
std::vector<GateResult> evaluate_gates(const PolicyTables& tables, const PolicyMetrics& metrics,
                                       const SimulationResult& result, std::size_t max_points);

}  // namespace allot::simulator
