// GET /history.svg: the dashboard's chart over time, drawn on the server by
// the plot library (allot/svg_plot.h) from the samples GET /history lists.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/expected.h"
#include "allot/service.h"

namespace allot::service {

// Each program's delivered share (solid) and owed share (dashed) over time,
// both as a percentage of what all `programs` were owed at that sample, so the
// gap between a program's two lines is what it was owed and not delivered.
// `only`: draw that program alone (its percentages still of every program's
// owed). An SVG document; with no samples, one that says there is no history yet.
std::string history_chart(const std::vector<Sample>& samples, const std::vector<std::string>& programs,
                          const std::string& only = "");

// The programs of the policy running (its depth-1 accounts), in policy order.
std::vector<std::string> program_names(const ReadModel& model);

// The chart of the samples since `since` (epoch seconds), of every program or
// only `account`; 404 for an account that is not a program.
Expected<std::string, ApiError> history_svg(const ReadModel& model, Seconds since, const std::string& account);

}  // namespace allot::service
