#include "allot/audit_json.h"
#include "allot/dates.h"

#include <cmath>

#include <fmt/format.h>

#include "allot/audit.h"
#include "allot/snapshot.h"
#include "allot/text.h"

namespace allot::runtime::audit {

Json finite(double value) { return std::isfinite(value) ? Json(value) : Json(nullptr); }

namespace {
std::string infinity_name(double rank) { return std::isnan(rank) ? "nan" : rank > 0 ? "+inf" : "-inf"; }
}  // namespace

Json rank_json(double rank) { return std::isfinite(rank) ? Json(rank) : Json(infinity_name(rank)); }

std::string rank_text(double rank) {
  return std::isfinite(rank) ? fmt::format("{:g}", rank) : fmt::format("not finite ({})", infinity_name(rank));
}

Json node_names(const Inventory& inventory, const std::vector<int>& nodes) {
  Json names = Json::array();
  for (const int node : nodes) {
    const bool known = node >= 0 && static_cast<std::size_t>(node) < inventory.nodes.size();
    names.push_back(known ? inventory.nodes[static_cast<std::size_t>(node)].name : fmt::format("#{}", node));
  }
  return names;
}

Json contract_json(const Contract& contract) {
  Json json{{"protected_until", support::format_timestamp(contract.protected_until)},
            {"checkpoint_every", contract.checkpoint_every},
            {"grace", contract.grace},
            {"resumable", contract.resumable},
            {"preemptible", contract.preemptible},
            {"policy", contract.policy_hash}};
  if (contract.yields_at) json["yields_at"] = support::format_timestamp(*contract.yields_at);
  if (contract.progress_every > 0) {
    json["progress_every"] = contract.progress_every;
    json["progress_after"] = contract.progress_after;
    json["on_stall"] = stall_action_name(contract.on_stall);
  }
  return json;
}

Json terms_json(const std::vector<RankTerm>& terms) {
  Json object = Json::object();
  for (const RankTerm& term : terms) object[term.name] = finite(term.value);
  return object;
}

void add_decision(Json& record, const Decision& decision, const Inventory& inventory) {
  const bool ranked = decision.kind != DecisionKind::preempt && decision.position >= 0;
  const bool preempt = decision.kind == DecisionKind::preempt;
  const bool holds = decision.kind != DecisionKind::skip;
  record["kind"] = decision_kind_name(decision.kind);
  record["job"] = decision.job_id;
  record["account"] = decision.account;
  record["class"] = decision.job_class;
  record["rank"] = ranked ? rank_json(decision.rank) : Json(nullptr);
  record["position"] = ranked ? Json(decision.position) : Json(nullptr);
  record["terms"] = terms_json(decision.terms);
  record["nodes"] = holds ? node_names(inventory, decision.nodes) : Json(nullptr);
  record["for_job"] = preempt && !decision.for_job.empty() ? Json(decision.for_job) : Json(nullptr);
  record["lost_gpu_seconds"] = preempt ? finite(decision.lost_gpu_seconds) : Json(nullptr);
  record["stops_at"] = preempt ? Json(support::format_timestamp(decision.stops_at)) : Json(nullptr);
  record["contract"] = holds ? contract_json(decision.contract) : Json(nullptr);
  record["reason"] = decision.reason;
}

std::string dump(const Json& json, int indent) {
  return support::json_without_controls(json.dump(indent, ' ', false, Json::error_handler_t::replace));
}

}  // namespace allot::runtime::audit
