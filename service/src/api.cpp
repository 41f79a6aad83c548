// The JSON API on an HttpServer (docs/SERVE.md, "API"). Routes are thin: they
// read the request, call the Service, and write its answer as JSON. Mutating
// calls need the bearer token; every error is {"error", "field", "did_you_mean"}.
#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "allot/accounting.h"
#include "allot/audit_json.h"
#include "allot/contracts.h"
#include "allot/dates.h"
#include "allot/explain.h"
#include "allot/http_server.h"
#include "allot/line_diff.h"
#include "allot/service.h"
#include "allot/share_report.h"
#include "dashboard.h"
#include "history_chart.h"
#include "job_json.h"
#include "rate_limit.h"

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

Response too_many(int retry_after, const char* what) {
  Response response =
      error_response(ApiError{429, fmt::format("too many {}: try again in {} s", what, retry_after), "", ""});
  response.headers.emplace_back("Retry-After", std::to_string(retry_after));
  return response;
}

// The API's limits: per token for mutating calls, per client address for reads.
struct Limits {
  explicit Limits(const ApiOptions& options)
      : writes(options.write_rate, options.write_burst), reads(options.read_rate, options.read_burst) {}
  RateLimiter writes;
  RateLimiter reads;
};

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

// A job without its explanation (lists); job_document adds it. `now`: the
// last cycle's time, at which a running job under a progress rule is or is not stalled.
Json job_summary_json(const JobRecord& record, const runtime::Inventory& inventory, Seconds now) {
  Json json{{"id", record.request.id}, {"phase", job_phase_name(record.phase)}, {"job", job_json(record.request)}};
  if (record.run) {
    json["nodes"] = runtime::audit::node_names(inventory, record.run->nodes);
    json["started"] = support::format_timestamp(record.run->started);
    json["last_checkpoint"] = support::format_timestamp(record.run->last_checkpoint);
    json["contract"] = runtime::audit::contract_json(record.run->contract);
    if (record.run->stopping_at) json["stopping_at"] = support::format_timestamp(*record.run->stopping_at);
    json["confirmed"] = record.confirmed;
    if (record.run->contract.progress_every > 0) {
      const std::optional<Seconds> since = runtime::stalled_since(*record.run, now);
      json["stalled_since"] = since ? Json(support::format_timestamp(*since)) : Json(nullptr);
    }
  }
  if (record.run && record.run->last_progress)
    json["last_progress"] = support::format_timestamp(*record.run->last_progress);
  if (record.ended != 0) json["ended"] = support::format_timestamp(record.ended);
  return json;
}

Json job_document(const JobRecord& record, const View* view, const runtime::Inventory& inventory) {
  Json json = job_summary_json(record, inventory, view != nullptr ? view->at : 0);
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

// ---- The dashboard's reads ----

// A rank term for people: `job.class` is the class's name, not its index.
Json term_value(const runtime::RankTerm& term, const PolicyTables& tables) {
  if (term.name == "job.class" && term.value >= 0 && term.value < static_cast<double>(tables.classes.size()) &&
      term.value == static_cast<double>(static_cast<std::size_t>(term.value))) {
    return tables.classes[static_cast<std::size_t>(term.value)].name;
  }
  return runtime::audit::finite(term.value);
}

Json terms_for_people(const std::vector<runtime::RankTerm>& terms, const PolicyTables& tables) {
  Json json = Json::object();
  for (const runtime::RankTerm& term : terms) json[term.name] = term_value(term, tables);
  return json;
}

// Whole days from `now` to `then` (negative when it has passed), rounded down.
std::int64_t days_between(Seconds now, Seconds then) {
  const Seconds difference = then - now;
  return difference >= 0 ? difference / 86400 : -((-difference + 86399) / 86400);
}

Json overview_json(const ReadModel& model, const View& view) {
  const runtime::Inventory& inventory = view.state.inventory;
  int gpus_up = 0, gpus_busy = 0;
  for (const runtime::Node& node : inventory.nodes) {
    if (node.state == runtime::NodeState::up) gpus_up += node.gpus;
  }
  for (const runtime::RunningJob& job : view.state.running) {
    gpus_busy += static_cast<int>(job.nodes.size()) * job.request.gpus_per_node;
  }
  const Json leaves = leaf_accounts(view.policy->tables());
  const QueuePage waiting = model.queue(0, 0);
  return Json{{"driver", model.driver()},
              {"cycle", view.cycle},
              {"at", support::format_timestamp(view.at)},
              {"cycle_seconds", view.duration_seconds},
              {"policy", Json{{"name", view.policy->tables().name},
                              {"hash", view.policy->source_hash()},
                              {"generation", view.generation}}},
              {"cluster", Json{{"name", inventory.name},
                               {"nodes", inventory.nodes.size()},
                               {"gpus", inventory.total_gpus()},
                               {"gpus_up", gpus_up},
                               {"gpus_busy", gpus_busy}}},
              {"pending", waiting.total},
              {"running", view.state.running.size()},
              {"leaves", leaves}};
}

// The policy running now (a swap shows at once, before the next cycle runs it).
Json policy_json(const runtime::PolicySlot::Running& running, Seconds now, const std::string& source) {
  const PolicyTables& tables = running.policy->tables();
  const runtime::SharesInForce shares = runtime::shares_in_force(tables, now);
  const auto path_of = [&](int account) {
    return account < 0 ? std::string() : tables.accounts[static_cast<std::size_t>(account)].path;
  };
  Json exceptions = Json::array();
  for (const ExceptionInfo& exception : tables.exceptions) {
    const auto starts = static_cast<Seconds>(exception.starts), expires = static_cast<Seconds>(exception.expires);
    exceptions.push_back(Json{{"name", exception.name},
                              {"to", path_of(exception.to)},
                              {"from", path_of(exception.from)},
                              {"delta", exception.delta},
                              {"starts", starts > 0 ? Json(support::format_timestamp(starts)) : Json(nullptr)},
                              {"expires", support::format_timestamp(expires)},
                              {"in_force", runtime::exception_in_force(exception, now)},
                              {"days_to_expiry", days_between(now, expires)},
                              {"owner", exception.owner},
                              {"reason", exception.reason}});
  }
  Json accounts = Json::array();
  for (std::size_t i = 0; i < tables.accounts.size(); ++i) {
    const AccountInfo& account = tables.accounts[i];
    Json row{{"path", account.path},
             {"depth", account.depth},
             {"leaf", account.leaf},
             {"share_of_parent", account.share},
             {"share_in_force", shares.level[i]},
             {"share_of_cluster", shares.of_cluster[i]},
             {"owner", account.owner},
             {"hypothesis", account.hypothesis}};
    if (account.review) {
      const Seconds review = static_cast<Seconds>(account.review->days_since_epoch) * 86400;
      row["review"] = support::format_date(account.review->days_since_epoch);
      row["days_to_review"] = days_between(now, review);
    } else {
      row["review"] = nullptr;
      row["days_to_review"] = nullptr;
    }
    accounts.push_back(std::move(row));
  }
  Json classes = Json::array();
  for (const ClassInfo& info : tables.classes) {
    classes.push_back(
        Json{{"name", info.name},
             {"max_gpus", info.max_gpus},
             {"max_nodes", info.max_nodes},
             {"max_runtime", info.max_runtime},
             {"protect", info.protect},
             {"protect_up_to", info.protect_up_to},
             {"checkpoint_every", info.checkpoint_every},
             {"grace", info.grace},
             {"resumable", info.resumable},
             {"preemptible", info.preemptible},
             {"deadline_required", info.deadline_required},
             {"fast_lane_gpus", info.fast_lane_gpus},
             {"progress_every", info.progress_every},
             {"progress_after", info.progress_after},
             {"on_stall", info.progress_every > 0 ? Json(stall_action_name(info.on_stall)) : Json(nullptr)}});
  }
  return Json{{"name", tables.name},
              {"hash", running.policy->source_hash()},
              {"generation", running.generation},
              {"fairshare", tables.fairshare},
              {"window_seconds", tables.window},
              {"exceptions", std::move(exceptions)},
              {"accounts", std::move(accounts)},
              {"classes", std::move(classes)},
              {"source", source}};
}

Json diagnostics_json(const std::vector<Diagnostic>& diagnostics) {
  Json list = Json::array();
  for (const Diagnostic& diagnostic : diagnostics) {
    list.push_back(Json{{"severity", diagnostic.severity == Severity::error ? "error" : "warning"},
                        {"code", diagnostic.code},
                        {"message", diagnostic.message},
                        {"file", diagnostic.span.file},
                        {"line", diagnostic.span.line},
                        {"column", diagnostic.span.column},
                        {"help", diagnostic.help}});
  }
  return list;
}

Json rank_diff_json(const runtime::RankDiff& diff) {
  Json moved = Json::array();
  for (const runtime::RankChange& change : diff.jobs) {
    if (change.before_position == change.after_position) continue;
    const auto position = [](const std::optional<std::size_t>& place) { return place ? Json(*place) : Json(nullptr); };
    moved.push_back(Json{{"job", change.job_id},
                         {"account", change.account},
                         {"before", position(change.before_position)},
                         {"after", position(change.after_position)},
                         {"places_gained", change.places_gained()}});
    if (moved.size() >= 1000) break;
  }
  return Json{{"before", diff.before_hash},
              {"after", diff.after_hash},
              {"ranked_by_both", diff.ranked_by_both},
              {"moved", diff.moved},
              {"kendall_tau", runtime::audit::finite(diff.kendall_tau)},
              {"starts_gained", diff.starts_gained},
              {"starts_lost", diff.starts_lost},
              {"preemptions_gained", diff.preemptions_gained},
              {"preemptions_lost", diff.preemptions_lost},
              {"jobs_moved", std::move(moved)}};
}

// One line for "My jobs": where the job stands.
std::string job_summary(const JobRecord& record) {
  switch (record.phase) {
    case JobPhase::pending:
      return record.request.blocked.empty() ? "waiting" : "waiting, held back: " + record.request.blocked;
    case JobPhase::running:
      return record.run && record.run->stopping_at
                 ? "running; stops at " + support::format_timestamp(*record.run->stopping_at)
                 : "running since " + support::format_timestamp(record.run ? record.run->started : 0);
    default:
      return std::string(job_phase_name(record.phase)) + " at " + support::format_timestamp(record.ended);
  }
}

// The reads: every GET route and the dashboard, over any read model.
void mount_reads(http::HttpServer& server, const ReadModel& model, const std::shared_ptr<ApiOptions>& shared,
                 const std::shared_ptr<Limits>& limits) {
  // A read, limited per client address.
  const auto route_read = [&server, limits](const std::string& path, http::Handler handler) {
    server.route("GET", path, [limits, handler = std::move(handler)](const Request& request) {
      int retry = 0;
      if (!limits->reads.allow(request.remote_addr, RateLimiter::Clock::now(), retry)) return too_many(retry, "reads");
      return handler(request);
    });
  };
  route_read("/queue", [&model, shared](const Request& request) {
    auto limit = query_number(request, "limit", kDefaultPage, 1, static_cast<std::int64_t>(shared->max_queue_page));
    if (!limit) return error_response(limit.error());
    auto cursor = query_number(request, "cursor", 0, 0, std::numeric_limits<std::int32_t>::max());
    if (!cursor) return error_response(cursor.error());
    const QueuePage page = model.queue(static_cast<std::size_t>(*cursor), static_cast<std::size_t>(*limit));
    const std::shared_ptr<const View> view = model.view();
    Json jobs = Json::array();
    for (const QueuePage::Entry& entry : page.jobs) {
      Json json = queue_entry(entry);
      const auto terms = view->terms.find(entry.job.id);
      json["terms"] =
          terms == view->terms.end() ? Json(nullptr) : terms_for_people(terms->second, view->policy->tables());
      jobs.push_back(std::move(json));
    }
    return json_response(200, Json{{"cycle", page.cycle},
                                   {"total", page.total},
                                   {"jobs", std::move(jobs)},
                                   {"next_cursor", page.next ? Json(std::to_string(*page.next)) : Json(nullptr)}});
  });
  route_read("/jobs/{id}", [&model](const Request& request) {
    auto record = model.job(request.params.at(0));
    if (!record) return error_response(record.error());
    const std::shared_ptr<const View> view = model.view();
    return json_response(200, job_document(*record, view.get(), view->state.inventory));
  });
  route_read("/shares", [&model](const Request&) {
    const std::shared_ptr<const View> view = model.view();
    const runtime::ShareReport report = runtime::share_report(*view->policy, view->state);
    return Response{200, kJson, runtime::share_report_json(report), {}};
  });
  route_read("/decisions", [&model](const Request& request) {
    auto since = query_number(request, "since", 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!since) return error_response(since.error());
    auto limit = query_number(request, "limit", kMaxDecisionPage, 1, kMaxDecisionPage);
    if (!limit) return error_response(limit.error());
    auto tail = query_number(request, "tail", 0, 0, kMaxDecisionPage);
    if (!tail) return error_response(tail.error());
    auto rows = *tail > 0 ? model.decisions_tail(static_cast<std::size_t>(*tail))
                          : model.decisions_since(*since, static_cast<std::size_t>(*limit));
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
  route_read("/jobs", [&model](const Request& request) {
    const auto text = [&](const char* key) {
      const auto found = request.query.find(key);
      return found == request.query.end() ? std::string() : found->second;
    };
    const std::string phase = text("phase");
    static const std::vector<std::string> kPhases = {"pending", "running", "finished", "failed", "cancelled"};
    if (!phase.empty() && std::find(kPhases.begin(), kPhases.end(), phase) == kPhases.end()) {
      return error_response(
          ApiError{400, fmt::format("unknown phase `{}`", phase), "phase", did_you_mean(phase, kPhases)});
    }
    const std::string account = text("account");
    if (!account.empty()) {
      // An account the policy does not have gets a suggestion, not an empty list.
      const std::vector<std::string> leaves = leaf_accounts(model.running_policy().policy->tables());
      const bool known = std::find(leaves.begin(), leaves.end(), account) != leaves.end();
      if (!known) {
        return error_response(ApiError{404, fmt::format("`{}` is not a leaf account of the policy", account), "account",
                                       did_you_mean(account, leaves)});
      }
    }
    auto limit = query_number(request, "limit", kDefaultPage, 1, kMaxDecisionPage);
    if (!limit) return error_response(limit.error());
    auto jobs = model.jobs(account, phase, static_cast<std::size_t>(*limit));
    if (!jobs) return error_response(ApiError{503, jobs.error(), "", ""});
    const std::shared_ptr<const View> view = model.view();
    Json list = Json::array();
    for (const JobRecord& record : *jobs) {
      Json json = job_summary_json(record, view->state.inventory, view->at);
      json["summary"] = job_summary(record);
      list.push_back(std::move(json));
    }
    return json_response(200, Json{{"jobs", std::move(list)}});
  });
  route_read("/overview", [&model](const Request&) { return json_response(200, overview_json(model, *model.view())); });
  route_read("/history", [&model](const Request& request) {
    auto since = query_number(request, "since", 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!since) return error_response(since.error());
    const std::vector<std::string> names = program_names(model);
    const Json programs = names;
    const std::set<std::string, std::less<>> programs_set(names.begin(), names.end());
    auto samples = model.samples(*since, 20000);
    if (!samples) return error_response(ApiError{503, samples.error(), "", ""});
    Json list = Json::array();
    for (const Sample& sample : *samples) {
      if (!programs_set.count(sample.account)) continue;
      const std::string at = support::format_timestamp(sample.at);
      if (list.empty() || list.back()["at"] != at) list.push_back(Json{{"at", at}, {"accounts", Json::object()}});
      list.back()["accounts"][sample.account] = Json{{"share", sample.share},
                                                     {"usage", sample.usage},
                                                     {"owed", sample.owed},
                                                     {"delivered", sample.delivered},
                                                     {"debt", sample.debt}};
    }
    return json_response(200, Json{{"programs", programs}, {"samples", std::move(list)}});
  });
  route_read("/history.svg", [&model](const Request& request) {
    auto since = query_number(request, "since", 0, 0, std::numeric_limits<std::int64_t>::max());
    if (!since) return error_response(since.error());
    const auto account = request.query.find("account");
    auto chart = history_svg(model, *since, account == request.query.end() ? "" : account->second);
    if (!chart) return error_response(chart.error());
    return Response{200, "image/svg+xml; charset=utf-8", std::move(*chart), {}};
  });
  route_read("/policy", [&model](const Request&) {
    return json_response(200, policy_json(model.running_policy(), model.view()->at, model.policy_source()));
  });
  route_read("/policy/history", [&model](const Request&) {
    auto history = model.policy_history(200);
    if (!history) return error_response(ApiError{503, history.error(), "", ""});
    Json list = Json::array();
    // The last swap's change: its source against the one that ran before it.
    std::optional<std::string> last_swap, before_it;
    for (const PolicyRecord& record : *history) {
      list.push_back(Json{{"generation", record.generation},
                          {"at", support::format_timestamp(record.at)},
                          {"hash", record.hash},
                          {"outcome", record.outcome},
                          {"message", record.message}});
      const bool ran = record.outcome == "swapped" || record.outcome == "initial" || record.outcome == "started";
      if (!ran) continue;
      if (!last_swap && record.outcome == "swapped") {
        last_swap = record.source;
      } else if (last_swap && !before_it) {
        before_it = record.source;
      }
    }
    Json diff = nullptr;
    if (last_swap && before_it) {
      const std::optional<std::string> text = support::unified_diff(*before_it, *last_swap);
      diff = text ? Json(*text) : Json("(the two policies differ in too many lines to show)");
    }
    return json_response(200, Json{{"policies", std::move(list)}, {"last_swap_diff", std::move(diff)}});
  });
  route_read("/", [](const Request&) {
    Response response{200, "text/html; charset=utf-8", std::string(dashboard_html()), {}};
    // Everything the page needs is in it or on this server: no CDN, nothing inline but its own script and style.
    response.headers.emplace_back("Content-Security-Policy",
                                  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                                  "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'");
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    response.headers.emplace_back("Cache-Control", "no-store");
    return response;
  });
}

}  // namespace

void mount_read_api(http::HttpServer& server, const ReadModel& model, ApiOptions options) {
  auto shared = std::make_shared<ApiOptions>(std::move(options));
  mount_reads(server, model, shared, std::make_shared<Limits>(*shared));
}

void mount_api(http::HttpServer& server, Service& service, ApiOptions options) {
  auto shared = std::make_shared<ApiOptions>(std::move(options));
  auto limits = std::make_shared<Limits>(*shared);
  // The token is right, and it has not sent too many writes: nothing, else the answer.
  const auto refuse = [shared, limits](const Request& request) -> std::optional<Response> {
    if (auto refused = refuse_unauthorised(request, shared->token)) return refused;
    int retry = 0;
    if (!limits->writes.allow(shared->token, RateLimiter::Clock::now(), retry)) return too_many(retry, "writes");
    return std::nullopt;
  };
  server.route("POST", "/jobs", [&service, shared, refuse](const Request& request) {
    if (auto refused = refuse(request)) return *refused;
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
  server.route("DELETE", "/jobs/{id}", [&service, shared, refuse](const Request& request) {
    if (auto refused = refuse(request)) return *refused;
    const std::string& id = request.params.at(0);
    if (auto error = service.cancel(id, shared->clock())) return error_response(*error);
    return json_response(200, Json{{"id", id}, {"phase", "cancelled"}});
  });
  server.route("POST", "/events", [&service, shared, refuse](const Request& request) {
    if (auto refused = refuse(request)) return *refused;
    auto body = parse_body(request);
    if (!body) return error_response(body.error());
    auto event = event_from_json(*body);
    if (!event) return error_response(event.error());
    if (auto error = service.record_event(*event, shared->clock())) return error_response(*error);
    return json_response(200, Json{{"recorded", event->kind}});
  });
  server.route("POST", "/policy", [&service, shared, refuse](const Request& request) {
    if (auto refused = refuse(request)) return *refused;
    if (!shared->compile) return error_response(ApiError{501, "this server does not compile policies", "", ""});
    if (request.body.empty()) return error_response(ApiError{400, "send the policy's source as the body", "", ""});
    const auto dry = request.query.find("dry_run");
    const bool dry_run = dry != request.query.end() && (dry->second == "1" || dry->second == "true");
    runtime::SwapCandidate candidate = shared->compile(request.body);
    const bool compiled = candidate.policy != nullptr;
    const PolicyChange change = service.change_policy(std::move(candidate), request.body, dry_run, shared->clock());
    if (shared->on_policy_change) shared->on_policy_change(change);
    Json body{{"swapped", change.outcome.swapped},       {"dry_run", change.dry_run},
              {"generation", change.outcome.generation}, {"hash", change.outcome.policy_hash},
              {"message", change.outcome.message},       {"diagnostics", diagnostics_json(change.outcome.diagnostics)}};
    if (change.diff) body["diff"] = rank_diff_json(*change.diff);
    // Refused: the old policy keeps running. 422 for a policy with errors, 409 for a swap that lost a race.
    const int status = change.outcome.swapped || (dry_run && change.diff) ? 200 : compiled ? 409 : 422;
    if (status != 200) body["error"] = change.outcome.message;
    return json_response(status, body);
  });
  mount_reads(server, service, shared, limits);
}

}  // namespace allot::service
