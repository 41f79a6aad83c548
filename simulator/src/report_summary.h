// The HTML report's opening: one row per scenario with each policy's verdict
// and gates, so a reader sees the outcome before any detail; and the ids the
// page's sections carry, shared by the sections and the links to them.
#pragma once

#include <string>

#include "allot/simulator.h"

namespace allot::simulator {

// The id of the summary table.
inline constexpr const char* kSummaryAnchor = "summary";

// "scenario-2" for the second scenario (`scenario` counts from 0); its parts
// add a suffix: scenario_anchor(1) + "-gates".
std::string scenario_anchor(std::size_t scenario);
// The row of one gate in a scenario's gates table: "scenario-2-gate-1-3".
std::string gate_anchor(std::size_t scenario, std::size_t policy, std::size_t gate);

// The summary table: per scenario (linked to its section) and policy, the
// verdict against the baseline and the gates passed, each failing one named
// and linked to its row.
std::string summary_html(const ReplayReport& report);

}  // namespace allot::simulator
