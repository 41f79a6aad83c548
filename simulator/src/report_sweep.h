// The load sweep in reports: the pieces the text, JSON and HTML renderings
// share (point names, class columns, where each policy first fails a gate).
#pragma once

#include <string>
#include <vector>

#include "allot/simulator.h"

namespace allot::simulator {

// Every class name with jobs at any point under any policy, in first-seen order.
std::vector<std::string> sweep_class_names(const std::vector<SweepPoint>& sweep);

// The points by load, lowest first: the curve's x axis.
std::vector<const SweepPoint*> sweep_by_load(const std::vector<SweepPoint>& sweep);

// The load as the sweep was asked for: "0.6" (a scenario's), or the offered
// load "1.23" on a scaled cluster.
std::string format_load(const SweepPoint& point);

// A point for people: "load 0.6", or "load 1.23 (x0.8: 64 GPUs)" on a scaled cluster.
std::string sweep_point_name(const SweepPoint& point);

// "92.1% `product`", or "-" when no program had sustained demand.
std::string format_worst_delivery(const SweepResult& result);

// The p90 wait of class `name`, if the policy had jobs of it at the point.
std::optional<double> sweep_p90_wait(const SweepResult& result, const std::string& name);

// One sentence per policy: the lowest load at which it fails a gate, and which
// ("`baseline` first fails a gate at load 0.8: p90_wait debug <= 5m."; "fails
// a gate already at the lowest load replayed, load 0.6: ..."), or that it
// passes every gate up to the highest load.
std::vector<std::string> first_failures(const ScenarioReport& scenario);

// The text section: one row per point and policy, then first_failures; "" without a sweep.
std::string render_sweep_text(const ScenarioReport& scenario, bool color);

// The HTML section: p90 wait per class and the worst program's delivery
// against load (one line per policy), then first_failures; "" without a sweep.
std::string sweep_html(const ScenarioReport& scenario);

}  // namespace allot::simulator
