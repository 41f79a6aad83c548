// The JSON API on an HttpServer (docs/SERVE.md, "API"). Routes are thin: they
// read the request, call the Service, and write its answer as JSON. Mutating
// calls need the bearer token; every error is {"error", "field", "did_you_mean"}.
#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "allot/audit_json.h"
#include "allot/dates.h"
#include "allot/explain.h"
#include "allot/http_server.h"
#include "allot/service.h"
#include "allot/share_report.h"
#include "job_json.h"

namespace allot::service {
namespace {

using http::Request;
using http::Response;

constexpr const char* kJson = "application/json";
constexpr std::size_t kDefaultPage = 100;
constexpr std::size_t kMaxDecisionPage = 1000;

Response json_response(int status, const Json& body) {
  return Response{status, kJson, body.dump(2, ' ', false, Json::error_handler_t::replace) + "\n", {}};
}

Response error_response(const ApiError& error) { return json_response(error.status, error_json(error)); }

// Compares without stopping at the first difference (a length mismatch is no secret).
bool same_secret(std::string_view given, std::string_view token) {
  if (token.empty() || given.size() != token.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < token.size(); ++i) difference |= static_cast<unsigned char>(given[i] ^ token[i]);
  return difference == 0;
}

std::optional<Response> refuse_unauthorised(const Request& request, const std::string& token) {
  const std::string header = request.header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() > kBearer.size() && header.compare(0, kBearer.size(), kBearer) == 0 &&
      same_secret(std::string_view(header).substr(kBearer.size()), token)) {
    return std::nullopt;
  }
  Response response = error_response(ApiError{
      401, header.empty() ? "this call needs `Authorization: Bearer <token>`" : "the bearer token is not the server's",
      "", ""});
  response.headers.emplace_back("WWW-Authenticate", "Bearer");
  return response;
}

// The body as JSON, or a 400 saying where it stops being JSON.
Expected<nlohmann::json, ApiError> parse_body(const Request& request) {
  if (request.body.empty()) return unexpected(ApiError{400, "the request has no body; send a JSON object", "", ""});
  try {
    return nlohmann::json::parse(request.body);
  } catch (const nlohmann::json::parse_error& error) {
    return unexpected(ApiError{400, fmt::format("malformed JSON at byte {}", error.byte), "", ""});
  }
}

// A query parameter as a count in [min, max]; `fallback` when absent.
Expected<std::int64_t, ApiError> query_number(const Request& request, const std::string& key, std::int64_t fallback,
                                              std::int64_t min, std::int64_t max) {
  const auto found = request.query.find(key);
  if (found == request.query.end()) return fallback;
  const std::string& text = found->second;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    return unexpected(ApiError{400, fmt::format("`{}` must be a whole number from {} to {}", key, min, max), key, ""});
  }
  return value;
}

Json queue_entry(const QueuePage::Entry& entry) {
  Json json = job_json(entry.job);
  json["position"] = entry.position ? Json(*entry.position) : Json(nullptr);
  json["rank"] = entry.rank ? runtime::audit::rank_json(*entry.rank) : Json(nullptr);
  return json;
}

const std::set<std::string, std::less<>> kEventKinds = {"started", "checkpointed", "progress",  "finished",
                                                        "failed",  "node_up",      "node_down", "node_drain"};

Expected<Event, ApiError> event_from_json(const nlohmann::json& body) {
  if (!body.is_object()) return unexpected(ApiError{400, "an event must be a JSON object", "", ""});
  const std::vector<std::string> keys = {"kind", "job", "node", "at"};
  for (const auto& [key, value] : body.items()) {
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return unexpected(ApiError{400, fmt::format("unknown field `{}`", key), key, did_you_mean(key, keys)});
    }
  }
  Event event;
  auto text = [&](const char* key, std::string& out) -> std::optional<ApiError> {
    if (!body.contains(key)) return std::nullopt;
    if (!body.at(key).is_string()) return ApiError{400, fmt::format("`{}` must be a string", key), key, ""};
    out = body.at(key).get<std::string>();
    return std::nullopt;
  };
  for (auto [key, out] :
       {std::pair{"kind", &event.kind}, std::pair{"job", &event.job}, std::pair{"node", &event.node}}) {
    if (auto error = text(key, *out)) return unexpected(*error);
  }
  if (!kEventKinds.count(event.kind)) {
    const std::vector<std::string> kinds(kEventKinds.begin(), kEventKinds.end());
    return unexpected(ApiError{
        400, event.kind.empty() ? "an event needs a `kind`" : fmt::format("unknown event kind `{}`", event.kind),
        "kind", did_you_mean(event.kind, kinds)});
  }
  const bool node_event = event.kind.rfind("node_", 0) == 0;
  if (node_event && event.node.empty()) return unexpected(ApiError{400, "a node event needs a `node`", "node", ""});
  if (!node_event && event.job.empty()) return unexpected(ApiError{400, "a job event needs a `job`", "job", ""});
  if (body.contains("at")) {
    const nlohmann::json& at = body.at("at");
    std::optional<Seconds> seconds;
    if (at.is_string()) seconds = support::parse_timestamp(at.get<std::string>());
    if (at.is_number_integer()) seconds = support::parse_timestamp(std::to_string(at.get<std::int64_t>()));
    if (!seconds) {
      return unexpected(
          ApiError{400, "`at` must be an RFC 3339 time such as 2026-12-02T08:50:00Z or epoch seconds", "at", ""});
    }
    event.at = *seconds;
  }
  return event;
}

Json job_document(const JobRecord& record, const View* view) {
  Json json{{"id", record.request.id}, {"phase", job_phase_name(record.phase)}, {"job", job_json(record.request)}};
  if (record.run) {
    json["started"] = support::format_timestamp(record.run->started);
    json["last_checkpoint"] = support::format_timestamp(record.run->last_checkpoint);
    json["contract"] = runtime::audit::contract_json(record.run->contract);
    if (record.run->stopping_at) json["stopping_at"] = support::format_timestamp(*record.run->stopping_at);
    json["confirmed"] = record.confirmed;
  }
  if (record.last_progress) json["last_progress"] = support::format_timestamp(*record.last_progress);
  if (record.ended != 0) json["ended"] = support::format_timestamp(record.ended);
  if (record.phase != JobPhase::pending && record.phase != JobPhase::running) return json;
  // What `allot explain` says, on the state the last cycle ran on.
  bool in_view = false;
  if (view != nullptr && view->cycle > 0) {
    for (const auto& job : view->state.pending) in_view = in_view || job.id == record.request.id;
    for (const auto& job : view->state.running) in_view = in_view || job.request.id == record.request.id;
  }
  if (!in_view) {
    json["explain"] = nullptr;
    json["note"] = "submitted or changed after the last cycle; the next cycle ranks it";
    return json;
  }
  auto explanation = runtime::explain_job(view->state, *view->policy, record.request.id);
  if (!explanation) {
    json["explain"] = nullptr;
    json["note"] = explanation.error();
    return json;
  }
  json["explain"] = Json::parse(runtime::explanation_json(*explanation, view->state.inventory));
  json["explain_text"] = runtime::explanation_text(*explanation, view->state.inventory);
  return json;
}

}  // namespace

void mount_api(http::HttpServer& server, Service& service, ApiOptions options) {
  auto shared = std::make_shared<ApiOptions>(std::move(options));
  server.route("POST", "/jobs", [&service, shared](const Request& request) {
    if (auto refused = refuse_unauthorised(request, shared->token)) return *refused;
    auto body = parse_body(request);
    if (!body) return error_response(body.error());
    const Seconds now = shared->clock();
    auto job = job_from_json(*body, now);
    if (!job) return error_response(job.error());
    auto submitted = service.submit(std::move(*job), now);
    if (!submitted) return error_response(submitted.error());
    Response response = json_response(201, Json{{"job", job_json(*submitted)}, {"phase", "pending"}});
    response.headers.emplace_back("Location", "/jobs/" + submitted->id);
    return response;
  });
  server.route("DELETE", "/jobs/{id}", [&service, shared](const Request& request) {
    if (auto refused = refuse_unauthorised(request, shared->token)) return *refused;
    const std::string& id = request.params.at(0);
    if (auto error = service.cancel(id, shared->clock())) return error_response(*error);
    return json_response(200, Json{{"id", id}, {"phase", "cancelled"}});
  });
  server.route("POST", "/events", [&service, shared](const Request& request) {
    if (auto refused = refuse_unauthorised(request, shared->token)) return *refused;
    auto body = parse_body(request);
    if (!body) return error_response(body.error());
    auto event = event_from_json(*body);
    if (!event) return error_response(event.error());
    if (auto error = service.record_event(*event, shared->clock())) return error_response(*error);
    return json_response(200, Json{{"recorded", event->kind}});
  });
  server.route("GET", "/queue", [&service, shared](const Request& request) {
    auto limit = query_number(request, "limit", kDefaultPage, 1, static_cast<std::int64_t>(shared->max_queue_page));
    if (!limit) return error_response(limit.error());
    auto cursor = query_number(request, "cursor", 0, 0, std::numeric_limits<std::int32_t>::max());
    if (!cursor) return error_response(cursor.error());
    const QueuePage page = service.queue(static_cast<std::size_t>(*cursor), static_cast<std::size_t>(*limit));
    Json jobs = Json::array();
    for (const QueuePage::Entry& entry : page.jobs) jobs.push_back(queue_entry(entry));
    return json_response(200, Json{{"cycle", page.cycle},
                                   {"total", page.total},
                                   {"jobs", std::move(jobs)},
                                   {"next_cursor", page.next ? Json(std::to_string(*page.next)) : Json(nullptr)}});
  });
  server.route("GET", "/jobs/{id}", [&service](const Request& request) {
    auto record = service.job(request.params.at(0));
    if (!record) return error_response(record.error());
    const std::shared_ptr<const View> view = service.view();
    return json_response(200, job_document(*record, view.get()));
  });
  server.route("GET", "/shares", [&service](const Request&) {
    const std::shared_ptr<const View> view = service.view();
    const runtime::ShareReport report = runtime::share_report(*view->policy, view->state);
    return Response{200, kJson, runtime::share_report_json(report), {}};
  });
  server.route("GET", "/decisions", [&service](const Request& request) {
    auto since = query_number(request, "since", 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!since) return error_response(since.error());
    auto limit = query_number(request, "limit", kMaxDecisionPage, 1, kMaxDecisionPage);
    if (!limit) return error_response(limit.error());
    auto rows = service.decisions_since(*since, static_cast<std::size_t>(*limit));
    if (!rows) return error_response(ApiError{503, rows.error(), "", ""});
    std::string body = "{\n  \"decisions\": [";
    for (std::size_t i = 0; i < rows->size(); ++i) body += (i ? ",\n    " : "\n    ") + (*rows)[i];
    body += rows->empty() ? "],\n" : "\n  ],\n";
    // The next `since`: the last seq on this page (as `since` was when the page is empty).
    std::int64_t last = *since;
    if (!rows->empty()) {
      const std::string& row = rows->back();
      const auto start = row.find(':') + 1;
      std::from_chars(row.data() + start, row.data() + row.size(), last);
    }
    body += fmt::format("  \"next_since\": {}\n}}\n", last);
    return Response{200, kJson, std::move(body), {}};
  });
}

}  // namespace allot::service
