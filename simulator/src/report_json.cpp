// The replay's JSON document (docs/REPLAY.md). Deterministic: keys in a fixed
// order, numbers rounded to fixed decimals, no timestamps of the run itself.
#include <nlohmann/json.hpp>

#include <cmath>

#include "allot/dates.h"
#include "allot/simulator.h"
#include "allot/text.h"

namespace allot::simulator {
namespace {

using Json = nlohmann::ordered_json;

// Rounded to `decimals` places, without negative zero.
double fixed(double value, int decimals = 4) {
  const double scale = std::pow(10.0, decimals);
  const double rounded = std::round(value * scale) / scale;
  return rounded == 0 ? 0.0 : rounded;
}

Json fixed_list(const std::vector<double>& values, int decimals = 4) {
  Json list = Json::array();
  for (double value : values) list.push_back(fixed(value, decimals));
  return list;
}

Json optional_number(const std::optional<double>& value) { return value ? Json(fixed(*value)) : Json(nullptr); }

// Unit-hours by Shortfall cause, keyed by its JSON key.
Json shortfall_json(const ShortfallHours& hours) {
  Json json = Json::object();
  for (std::size_t c = 0; c < kShortfallCauses; ++c) json[kShortfallWords[c].key] = fixed(hours[c], 3);
  return json;
}

Json group_json(const GroupMetrics& group) {
  Json json;
  json["name"] = group.name;
  json["jobs"] = group.jobs;
  json["started"] = group.started;
  json["completed"] = group.completed;
  json["wait_s"] = {
      {"p50", fixed(group.p50_wait, 1)}, {"p90", fixed(group.p90_wait, 1)}, {"max", fixed(group.max_wait, 1)}};
  json["first_progress_s"] = {{"p50", fixed(group.p50_first_progress, 1)}, {"p90", fixed(group.p90_first_progress, 1)}};
  json["starved"] = group.starved;
  json["gpu_hours"] = fixed(group.gpu_hours, 3);
  json["lost_gpu_hours"] = fixed(group.lost_gpu_hours, 3);
  json["stops"] = group.stops;
  json["hung"] = {{"jobs", group.hung},
                  {"stopped", group.hung_stopped},
                  {"held_gpu_hours", fixed(group.hung_gpu_hours, 3)},
                  {"recovered_gpu_hours", fixed(group.recovered_gpu_hours, 3)},
                  {"lost_gpu_hours", fixed(group.hung_lost_gpu_hours, 3)}};
  json["deadline_jobs"] = group.deadline_jobs;
  json["deadline_met"] = group.deadline_met;
  if (group.share) {
    const ProgramTotals& share = *group.share;
    json["share"] = {{"of_cluster", fixed(share.share)},
                     {"owed_unit_hours", fixed(share.owed, 3)},
                     {"delivered_unit_hours", fixed(share.delivered, 3)},
                     {"borrowed_unit_hours", fixed(share.borrowed, 3)},
                     {"shortfall_unit_hours", shortfall_json(share.shortfall)},
                     {"delivery", share.owed > 0 ? Json(fixed(share.delivered / share.owed)) : Json(nullptr)}};
  }
  return json;
}

Json gate_json(const GateResult& gate) {
  return Json{{"gate", gate.text},
              {"metric", gate_metric_name(gate.gate.metric)},
              {"subject", gate.gate.subject.empty() ? Json(nullptr) : Json(gate.gate.subject)},
              {"op", gate_op_text(gate.gate.op)},
              {"threshold", fixed(gate.gate.threshold)},
              {"window_s", optional_number(gate.gate.window)},
              {"value", optional_number(gate.value)},
              {"passed", gate.passed},
              {"detail", gate.detail},
              {"why", gate.why.empty() ? Json(nullptr) : Json(gate.why)}};
}

Json series_json(const Series& series, const std::vector<GroupMetrics>& programs) {
  Json json;
  json["hours"] = fixed_list(series.hours, 2);
  json["occupancy"] = fixed_list(series.occupancy);
  json["fragmented_gpus"] = fixed_list(series.fragmented_gpus, 3);
  json["lost_gpu_hours"] = fixed_list(series.lost_gpu_hours, 3);
  json["waiting_jobs"] = fixed_list(series.waiting_jobs, 2);
  Json delivery;
  for (std::size_t p = 0; p < programs.size() && p < series.program_delivery.size(); ++p) {
    delivery[programs[p].name] = fixed_list(series.program_delivery[p]);
  }
  json["program_delivery"] = delivery.is_null() ? Json::object() : delivery;
  return json;
}

Json policy_json(const PolicyMetrics& metrics) {
  Json json;
  json["policy"] = metrics.name;
  json["policy_name"] = metrics.policy_name;
  json["cluster"] = {{"occupancy", fixed(metrics.occupancy)},
                     {"fragmentation", fixed(metrics.fragmentation)},
                     {"fragmented_gpus", fixed(metrics.fragmented_gpus, 3)},
                     {"unassigned_share", fixed(metrics.unassigned_share)},
                     {"beyond_user_share", fixed(metrics.beyond_user_share)},
                     {"lost_work", fixed(metrics.lost_work, 6)},
                     {"deadline_slo", optional_number(metrics.deadline_slo)}};
  json["all"] = group_json(metrics.all);
  json["classes"] = Json::array();
  for (const GroupMetrics& group : metrics.classes) json["classes"].push_back(group_json(group));
  json["programs"] = Json::array();
  for (const GroupMetrics& group : metrics.programs) json["programs"].push_back(group_json(group));
  json["sizes"] = Json::array();
  for (const GroupMetrics& group : metrics.sizes) json["sizes"].push_back(group_json(group));
  json["gates"] = Json::array();
  for (const GateResult& gate : metrics.gates) json["gates"].push_back(gate_json(gate));
  json["gates_passed"] = metrics.gates_passed;
  if (metrics.worst_window_delivery) {
    const WindowDelivery& worst = *metrics.worst_window_delivery;
    json["worst_window"] = {{"program", worst.program},
                            {"delivery", fixed(worst.delivery)},
                            {"window_end_hours", fixed(worst.window_end_hours, 2)},
                            {"window_hours", fixed(worst.window_hours, 2)},
                            {"owed_unit_hours", fixed(worst.owed, 3)},
                            {"shortfall_unit_hours", shortfall_json(worst.shortfall)}};
  } else {
    json["worst_window"] = nullptr;
  }
  json["series"] = series_json(metrics.series, metrics.programs);
  json["events"] = metrics.events;
  json["cycles"] = metrics.cycles;
  return json;
}

Json sweep_result_json(const SweepResult& result) {
  Json waits = Json::object();
  for (const auto& [name, wait] : result.p90_waits) waits[name] = fixed(wait, 1);
  Json worst = nullptr;
  if (result.worst_delivery) {
    worst = {{"delivery", fixed(result.worst_delivery->delivery)},
             {"program", result.worst_delivery->program},
             {"window_end_hours", fixed(result.worst_delivery->window_end_hours, 2)}};
  }
  return Json{{"policy", result.policy},
              {"p90_wait_s", waits},
              {"worst_delivery", worst},
              {"occupancy", fixed(result.occupancy)},
              {"gates_passed", result.gates_passed},
              {"gates", result.gates},
              {"failed_gates", result.failed_gates}};
}

Json sweep_json(const std::vector<SweepPoint>& sweep) {
  Json points = Json::array();
  for (const SweepPoint& point : sweep) {
    Json results = Json::array();
    for (const SweepResult& result : point.policies) results.push_back(sweep_result_json(result));
    points.push_back({{"load", fixed(point.load)},
                      {"offered_load", fixed(point.offered_load)},
                      {"capacity_scale", optional_number(point.capacity_scale)},
                      {"gpus", point.gpus},
                      {"nodes", point.nodes},
                      {"jobs", point.jobs},
                      {"results", results}});
  }
  return points;
}

Json workload_json(const ScenarioReport& scenario) {
  Json json;
  json["name"] = scenario.workload;
  json["description"] = scenario.description;
  json["start"] = support::format_timestamp(scenario.start);
  json["end"] = support::format_timestamp(scenario.end);
  json["jobs"] = scenario.jobs;
  json["notes"] = scenario.notes;
  json["results"] = Json::array();
  for (const PolicyMetrics& metrics : scenario.policies) json["results"].push_back(policy_json(metrics));
  // Only with several loads or capacities, so a single replay's document is unchanged.
  if (!scenario.sweep.empty()) json["sweep"] = sweep_json(scenario.sweep);
  return json;
}

}  // namespace

std::string render_json(const ReplayReport& report) {
  Json json;
  json["schema"] = "allot.replay/1";
  json["cluster"] = {{"name", report.cluster},
                     {"gpus", report.cluster_gpus},
                     {"gpus_down", report.cluster_gpus_down},
                     {"nodes", report.cluster_nodes}};
  json["seed"] = report.seed ? Json(*report.seed) : Json(nullptr);
  json["starvation_threshold_s"] = report.starvation_threshold;
  json["policies"] = Json::array();
  for (const auto& [name, file] : report.policies) json["policies"].push_back({{"name", name}, {"file", file}});
  json["workloads"] = Json::array();
  for (const ScenarioReport& scenario : report.scenarios) json["workloads"].push_back(workload_json(scenario));
  // Names from files and policies may be any bytes: invalid UTF-8 is replaced, never thrown on.
  return support::json_without_controls(json.dump(2, ' ', false, Json::error_handler_t::replace)) + "\n";
}

}  // namespace allot::simulator
