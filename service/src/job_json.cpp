#include "job_json.h"

#include <array>
#include <limits>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "allot/audit_json.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/job_table.h"
#include "allot/nearest_name.h"

namespace allot::service {
namespace {

constexpr std::array<const char*, 4> kLabels = {"none", "low", "medium", "high"};

ApiError bad_field(std::string field, std::string message) {
  return ApiError{400, std::move(message), std::move(field), ""};
}

// The located snapshot error as an API error: its field without the table's prefix.
ApiError api_error(const runtime::SnapshotError& error) {
  std::string field = error.field;
  if (field.rfind("job.", 0) == 0) field = field.substr(4);
  if (field == "job") field.clear();
  return ApiError{400, error.message, field, ""};
}

}  // namespace

Expected<runtime::JobRequest, ApiError> job_from_json(const nlohmann::json& body, Seconds now) {
  auto read = runtime::job_table_from_json(body, "request");
  if (!read) return unexpected(bad_field(read.error().field, read.error().message));
  toml::table table = std::move(*read);
  if (!table.contains("submitted")) table.insert("submitted", now);
  // The reader requires an id; the service assigns one when there is none.
  const bool assign_id =
      !table.contains("id") || (table["id"].is_string() && table["id"].value_or(std::string()).empty());
  if (assign_id) table.insert_or_assign("id", "(assigned)");
  auto job = runtime::read_job_table(table, "request", "job", now);
  if (!job) return unexpected(api_error(job.error()));
  if (assign_id) job->id.clear();
  return std::move(*job);
}

Json job_json(const runtime::JobRequest& job) {
  Json json{{"id", job.id},
            {"account", job.account},
            {"class", job.job_class},
            {"nodes", job.nodes},
            {"gpus_per_node", job.gpus_per_node}};
  if (!job.gpu_type.empty()) json["gpu_type"] = job.gpu_type;
  json["cpus_per_node"] = job.cpus_per_node;
  json["memory_gib_per_node"] = job.memory_gib_per_node;
  json["submitted"] = support::format_timestamp(job.submitted);
  if (job.queued != 0) json["queued"] = support::format_timestamp(job.queued);
  if (job.deadline) json["deadline"] = support::format_timestamp(*job.deadline);
  json["label"] = job.label >= 0 && job.label < 4 ? kLabels[static_cast<std::size_t>(job.label)] : "none";
  json["requested_protect"] = job.requested_protect;
  json["expected_runtime"] = job.expected_runtime;
  json["requeueable"] = job.requeueable;
  json["restarts"] = job.restarts;
  // Empty constraints are left out, as a snapshot leaves them out (the reader refuses empty values).
  for (auto [key, list] : {std::pair{"partitions", &job.partitions}, std::pair{"features", &job.features},
                           std::pair{"nodelist", &job.nodelist}, std::pair{"exclude", &job.exclude}}) {
    if (!list->empty()) json[key] = *list;
  }
  if (!job.reservation.empty()) json["reservation"] = job.reservation;
  json["exclusive"] = job.exclusive;
  if (!job.blocked.empty()) json["blocked"] = job.blocked;
  return json;
}

std::string record_text(const JobRecord& record, const runtime::Inventory& inventory) {
  Json json{{"phase", job_phase_name(record.phase)}, {"request", job_json(record.request)}};
  if (record.run) {
    const runtime::RunningJob& run = *record.run;
    Json names = Json::array();
    for (int node : run.nodes) names.push_back(inventory.nodes[static_cast<std::size_t>(node)].name);
    json["run"] = Json{{"started", run.started},
                       {"last_checkpoint", run.last_checkpoint},
                       {"nodes", names},
                       {"protected_until", run.contract.protected_until},
                       {"checkpoint_every", run.contract.checkpoint_every},
                       {"grace", run.contract.grace},
                       {"resumable", run.contract.resumable},
                       {"preemptible", run.contract.preemptible},
                       {"policy_hash", run.contract.policy_hash}};
    if (run.contract.yields_at) json["run"]["yields_at"] = *run.contract.yields_at;
    if (run.checkpoint_reported) json["run"]["checkpoint_reported"] = true;
    if (run.contract.progress_every != 0) {
      json["run"]["progress_every"] = run.contract.progress_every;
      json["run"]["progress_after"] = run.contract.progress_after;
      json["run"]["on_stall"] = stall_action_name(run.contract.on_stall);
    }
    if (run.stopping_at) json["run"]["stopping_at"] = *run.stopping_at;
  }
  if (record.ended != 0) json["ended"] = record.ended;
  if (record.run && record.run->last_progress) json["last_progress"] = *record.run->last_progress;
  if (record.confirmed) json["confirmed"] = true;
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Expected<JobRecord, std::string> record_from_text(const std::string& text, std::int64_t seq,
                                                  const runtime::Inventory& inventory) {
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return unexpected(std::string("not a JSON object"));
  try {
    JobRecord record;
    record.seq = seq;
    const std::string phase = json.at("phase").get<std::string>();
    bool known = false;
    for (JobPhase candidate :
         {JobPhase::pending, JobPhase::running, JobPhase::finished, JobPhase::failed, JobPhase::cancelled}) {
      if (phase == job_phase_name(candidate)) {
        record.phase = candidate;
        known = true;
      }
    }
    if (!known) return unexpected(fmt::format("unknown phase `{}`", phase));
    auto request = job_from_json(json.at("request"), support::kLatestEpochSeconds);
    if (!request) return unexpected(fmt::format("request.{}: {}", request.error().field, request.error().message));
    record.request = std::move(*request);
    if (json.contains("run")) {
      const nlohmann::json& run = json.at("run");
      runtime::RunningJob running;
      running.request = record.request;
      running.started = run.at("started").get<Seconds>();
      running.last_checkpoint = run.at("last_checkpoint").get<Seconds>();
      for (const auto& name : run.at("nodes")) {
        const auto node = inventory.find_node(name.get<std::string>());
        if (!node) return unexpected(fmt::format("run.nodes: no node `{}` in the cluster", name.get<std::string>()));
        running.nodes.push_back(static_cast<int>(*node));
      }
      running.contract.protected_until = run.at("protected_until").get<Seconds>();
      running.contract.checkpoint_every = run.at("checkpoint_every").get<Seconds>();
      running.contract.grace = run.at("grace").get<Seconds>();
      running.contract.resumable = run.at("resumable").get<bool>();
      running.contract.preemptible = run.at("preemptible").get<bool>();
      running.contract.policy_hash = run.at("policy_hash").get<std::string>();
      if (run.contains("yields_at")) running.contract.yields_at = run.at("yields_at").get<Seconds>();
      running.checkpoint_reported = run.value("checkpoint_reported", false);
      // The progress rule it started under (records written before rules existed have none).
      running.contract.progress_every = run.value("progress_every", Seconds{0});
      running.contract.progress_after = run.value("progress_after", Seconds{0});
      const std::string on_stall = run.value("on_stall", std::string("preempt"));
      bool known = false;
      for (const StallAction action : {StallAction::preempt, StallAction::keep, StallAction::stop}) {
        if (on_stall == stall_action_name(action)) {
          running.contract.on_stall = action;
          known = true;
        }
      }
      if (!known) return unexpected(fmt::format("unknown `on_stall` `{}`", on_stall));
      if (running.contract.progress_every < 0 || running.contract.progress_after < 0)
        return unexpected(std::string("a negative progress interval"));
      if (run.contains("stopping_at")) running.stopping_at = run.at("stopping_at").get<Seconds>();
      record.run = std::move(running);
    }
    record.ended = json.value("ended", Seconds{0});
    if (record.run && json.contains("last_progress"))
      record.run->last_progress = json.at("last_progress").get<Seconds>();
    record.confirmed = json.value("confirmed", false);
    if (record.phase == JobPhase::running && !record.run) return unexpected(std::string("a running job without `run`"));
    return record;
  } catch (const nlohmann::json::exception& error) {
    return unexpected(std::string(error.what()));
  }
}

std::vector<std::string> leaf_accounts(const PolicyTables& tables) {
  std::vector<std::string> leaves;
  for (const AccountInfo& account : tables.accounts) {
    if (account.leaf && !account.path.empty()) leaves.push_back(account.path);
  }
  return leaves;
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  return support::nearest_name(name, candidates);
}

Json error_json(const ApiError& error) {
  Json json{{"error", error.message}};
  if (!error.field.empty()) json["field"] = error.field;
  if (!error.suggestion.empty()) json["did_you_mean"] = error.suggestion;
  return json;
}

}  // namespace allot::service
