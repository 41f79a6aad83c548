// The next opportunity of a waiting job "if nothing else changes": no new
// jobs arrive, running jobs end when expected, usage and debt stay as in the
// state. The state is moved to each time something is expected to change and
// run_cycle decides, exactly as the scheduler would then; its decisions are
// applied (other jobs start, victims stop) before the next step.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "allot/contracts.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "cycle/eligibility.h"
#include "cycle/placement.h"
#include "explain/parts.h"

namespace allot::runtime::explain {
namespace {

// One thing expected to change, and the nodes it concerns (none: the whole
// cluster). A job ending or stopping frees capacity; a protection ending only
// lets the job be preempted.
struct Event {
  std::string what;
  std::vector<int> nodes;
  bool frees = true;
};

// The earliest time after `now` at which something is expected to change, and what.
struct Change {
  Seconds at = std::numeric_limits<Seconds>::max();
  std::vector<Event> events;

  void consider(Seconds time, Seconds now, std::string what, std::vector<int> nodes = {}, bool frees = true) {
    if (time <= now || time > at) return;
    if (time < at) events.clear();
    at = time;
    events.push_back(Event{std::move(what), std::move(nodes), frees});
  }
};

const ClassInfo* class_named(const PolicyTables& tables, const std::string& name) {
  for (const ClassInfo& info : tables.classes) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

Change next_change(const ClusterState& state, const PolicyTables& tables) {
  Change change;
  for (const RunningJob& job : state.running) {
    const std::string& id = job.request.id;
    if (const auto end = expected_end(job, tables)) {
      change.consider(*end, state.now, fmt::format("`{}` is expected to end", id), job.nodes);
    }
    change.consider(job.contract.protected_until, state.now, fmt::format("`{}`'s protection ends", id), job.nodes,
                    false);
    if (job.stopping_at) change.consider(*job.stopping_at, state.now, fmt::format("`{}` stops", id), job.nodes);
    if (job.contract.yields_at) {
      change.consider(*job.contract.yields_at, state.now, fmt::format("`{}` yields its backfilled capacity", id),
                      job.nodes, false);
    }
  }
  for (const Reservation& reservation : state.reservations) {
    change.consider(reservation.until, state.now, fmt::format("the reservation for `{}` lapses", reservation.job_id),
                    reservation.nodes);
  }
  for (std::size_t n = 0; n < state.inventory.nodes.size(); ++n) {
    const Node& node = state.inventory.nodes[n];
    if (!node.drain_deadline) continue;
    change.consider(*node.drain_deadline, state.now, fmt::format("node `{}`'s drain deadline passes", node.name),
                    {static_cast<int>(n)});
  }
  for (const ExceptionInfo& exception : tables.exceptions) {
    const auto starts = static_cast<Seconds>(std::llround(exception.starts));
    const auto expires = static_cast<Seconds>(std::llround(exception.expires));
    change.consider(starts, state.now, fmt::format("exception `{}` starts", exception.name));
    change.consider(expires, state.now, fmt::format("exception `{}` expires", exception.name));
  }
  return change;
}

// What a person wants to read about a start: the changes on the nodes the job
// gets that freed capacity (and protections that ran out, when the start
// preempted someone), else every change on those nodes, else every change.
std::vector<std::string> relevant(const Change& change, const std::vector<int>& nodes, bool preempted) {
  std::vector<std::string> freeing, touching, all;
  for (const Event& event : change.events) {
    all.push_back(event.what);
    const bool touches = event.nodes.empty() || std::any_of(event.nodes.begin(), event.nodes.end(), [&](int node) {
                           return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
                         });
    if (!touches) continue;
    touching.push_back(event.what);
    if (event.frees || preempted) freeing.push_back(event.what);
  }
  return !freeing.empty() ? freeing : !touching.empty() ? touching : all;
}

// Whether the cycle preempted jobs to make room for `job_id`.
bool preempted_for(const CycleResult& result, const std::string& job_id) {
  return std::any_of(result.decisions.begin(), result.decisions.end(), [&](const Decision& decision) {
    return decision.kind == DecisionKind::preempt && decision.for_job == job_id;
  });
}

// Moves `state` to `time`: jobs expected to end by then have ended.
void advance(ClusterState& state, const PolicyTables& tables, Seconds time) {
  std::erase_if(state.running, [&](const RunningJob& job) {
    const auto end = expected_end(job, tables);
    return end && *end <= time;
  });
  state.now = time;
}

const Decision* start_of(const CycleResult& result, const std::string& job_id) {
  for (const Decision& decision : result.decisions) {
    if (decision.kind == DecisionKind::start && decision.job_id == job_id) return &decision;
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& parts, std::size_t shown = 4) {
  std::string text;
  for (std::size_t i = 0; i < parts.size() && i < shown; ++i) {
    text += i == 0 ? "" : (i + 1 == parts.size() ? " and " : ", ");
    text += parts[i];
  }
  if (parts.size() > shown) text += fmt::format(" and {} more", parts.size() - shown);
  return text;
}

// Why the job could not start even on an empty cluster, if that is so.
std::optional<std::string> never_fits(const Inventory& inventory, const JobRequest& job) {
  cycle::NodeRequest shape{cycle::kAnyGpuType, job.nodes, job.gpus_per_node, job.cpus_per_node,
                           job.memory_gib_per_node};
  if (!job.gpu_type.empty()) {
    const auto type = std::find(inventory.gpu_types.begin(), inventory.gpu_types.end(), job.gpu_type);
    if (type == inventory.gpu_types.end()) return fmt::format("no node has GPU type `{}`", job.gpu_type);
    shape.gpu_type = static_cast<int>(type - inventory.gpu_types.begin());
  }
  shape.exclusive = job.exclusive;
  cycle::NodeSets node_sets(inventory);
  cycle::Eligibility where = node_sets.resolve(job);
  if (!where.problem.empty()) return where.problem;
  shape.eligible = where.mask;
  shape.node_set = where.node_set;
  const cycle::NodePool empty(inventory);
  if (empty.find(shape)) return std::nullopt;
  return fmt::format("even with every job gone, {}", empty.failure_reason(shape));
}

// Whether `running` holds a node of the GPU type `job` asks for (any type when it names none).
bool holds_its_type(const Inventory& inventory, const RunningJob& running, const JobRequest& job) {
  return job.gpu_type.empty() || std::any_of(running.nodes.begin(), running.nodes.end(), [&](int node) {
           const int type = inventory.nodes[static_cast<std::size_t>(node)].gpu_type;
           return inventory.gpu_types[static_cast<std::size_t>(type)] == job.gpu_type;
         });
}

// Why the forecast found no start for `job`: capacity held by jobs whose end
// is unknown, the horizon, or the forecast's cycle limit.
std::string no_start_reason(const ClusterState& projected, const PolicyTables& tables, const JobRequest& job,
                            const Change& change, const ExplainOptions& options, Seconds horizon_end) {
  if (change.events.empty()) {
    std::vector<std::string> open_ended;
    for (const RunningJob& running : projected.running) {
      if (!expected_end(running, tables) && holds_its_type(projected.inventory, running, job)) {
        open_ended.push_back(fmt::format("`{}`", running.request.id));
      }
    }
    if (open_ended.empty()) return "nothing that is expected to happen frees capacity for it";
    return fmt::format(
        "it cannot be known: it waits for capacity held by {} job{} with no expected runtime ({}), and when {} end "
        "is unknown",
        open_ended.size(), open_ended.size() == 1 ? "" : "s", joined(open_ended),
        open_ended.size() == 1 ? "it will" : "they will");
  }
  if (change.at > horizon_end) {
    return fmt::format("not within the next {} (the forecast stops at {})", support::format_duration(options.horizon),
                       support::format_timestamp(horizon_end));
  }
  return fmt::format("not within {} forecast cycles (the last one at {})", options.max_steps,
                     support::format_timestamp(projected.now));
}

// Why the job cannot start whatever happens to other jobs, if that is so.
std::optional<std::string> never_starts(const ClusterState& state, const PolicyTables& tables, const JobRequest& job,
                                        const std::optional<Decision>& skip) {
  if (skip && skip->position < 0) return skip->reason;
  if (!job.blocked.empty()) return job.blocked;
  if (const ClassInfo* info = class_named(tables, job.job_class)) {
    if (auto problem = class_limit_problem(*info, job)) return problem;
  }
  return never_fits(state.inventory, job);
}

}  // namespace

std::optional<Seconds> expected_end(const RunningJob& job, const PolicyTables& tables) {
  const ClassInfo* info = class_named(tables, job.request.job_class);
  const Seconds runtime = info ? runtime_estimate(*info, job.request) : job.request.expected_runtime;
  if (runtime <= 0) return std::nullopt;
  return job.started + runtime;
}

NextOpportunity forecast_start(const ClusterState& state, const CompiledPolicy& policy, const CycleResult& first,
                               const std::string& job_id, const ExplainOptions& options) {
  NextOpportunity next;
  if (const Decision* start = start_of(first, job_id)) {
    next.at = state.now;
    next.nodes = start->nodes;
    next.why = "it starts in this cycle";
    return next;
  }
  const PolicyTables& tables = policy.tables();
  const auto job = std::find_if(state.pending.begin(), state.pending.end(),
                                [&](const JobRequest& pending) { return pending.id == job_id; });
  if (job == state.pending.end()) return next;
  if (auto never = never_starts(state, tables, *job, first.skip_for(job_id))) {
    next.why = fmt::format("never, as things stand: {}", *never);
    return next;
  }
  CycleOptions quiet = options.cycle;
  quiet.record_skips = false;
  ClusterState projected = state;
  apply_decisions(projected, first);
  const Seconds horizon_end = state.now + options.horizon;
  Change change = next_change(projected, tables);
  for (; next.cycles < options.max_steps && !change.events.empty() && change.at <= horizon_end;
       change = next_change(projected, tables)) {
    advance(projected, tables, change.at);
    const CycleResult result = run_cycle(projected, policy, quiet);
    ++next.cycles;
    if (const Decision* start = start_of(result, job_id)) {
      next.at = projected.now;
      next.nodes = start->nodes;
      next.why = fmt::format("when {}", joined(relevant(change, next.nodes, preempted_for(result, job_id))));
      return next;
    }
    apply_decisions(projected, result);
  }
  next.why = no_start_reason(projected, tables, *job, change, options, horizon_end);
  return next;
}

}  // namespace allot::runtime::explain
