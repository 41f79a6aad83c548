// Whether a running job could be preempted now, and why (not), in the terms
// the cycle uses (allot/cycle.h): the contract it started under, protection,
// the share balance (anti-loop rule) and the policy's `preempt`, asked for the
// waiting jobs of other accounts best first, as the victim search would.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/duration.h"
#include "cycle/decisions.h"
#include "explain/parts.h"

namespace allot::runtime::explain {
namespace {

using namespace cycle;

// Waiting jobs asked about one victim, best first (CycleOptions::preemption_depth's default).
constexpr std::size_t kRequestersAsked = 16;

// The reasons a job is never offered to `preempt` now, or nullopt when it is.
std::optional<std::string> not_offered(const RunningJob& job, const ActiveJob& active, const PolicyTables& tables,
                                       Seconds now) {
  const std::optional<StopRefusal> refusal = stop_refusal(job, now);
  if (refusal == StopRefusal::stopping) return stop_refusal_text(*refusal, job, now);
  if (active.account < 0) {
    return fmt::format("policy `{}` does not know account `{}`, so it is never a victim", tables.name,
                       job.request.account);
  }
  if (refusal) return stop_refusal_text(*refusal, job, now);
  return std::nullopt;
}

// Which half of the anti-loop rule (allot/cycle.h) refuses: the requester's
// side is not below its share where the two paths part, or the victim's side
// would fall below its own.
std::string share_refusal(const CycleContext& context, const ActiveJob& victim, int requester) {
  const PolicyTables& tables = context.tables;
  const ShareBalance& balance = context.balance;
  const auto path_up = [&](int account) {
    std::vector<int> path;
    for (; account > 0; account = tables.accounts[static_cast<std::size_t>(account)].parent) path.push_back(account);
    return path;
  };
  const std::vector<int> victim_path = path_up(victim.account);
  const std::vector<int> requester_path = path_up(requester);
  std::size_t common = 0;  // accounts the two paths share, counted from the root
  while (common < victim_path.size() && common < requester_path.size() &&
         victim_path[victim_path.size() - 1 - common] == requester_path[requester_path.size() - 1 - common]) {
    ++common;
  }
  if (common == victim_path.size() || common == requester_path.size()) {
    return "one account is an ancestor of the other, so neither takes from the other";
  }
  const int requester_side = requester_path[requester_path.size() - 1 - common];
  const int victim_side = victim_path[victim_path.size() - 1 - common];
  const auto path_of = [&](int account) -> const std::string& {
    return tables.accounts[static_cast<std::size_t>(account)].path;
  };
  if (!balance.below_share(requester_side)) {
    return fmt::format("`{}` is not below its share against `{}`, so it may not take from it", path_of(requester_side),
                       path_of(victim_side));
  }
  for (std::size_t i = 0; i < victim_path.size() - common; ++i) {
    const int account = victim_path[i];
    const double after = balance.held(account) - victim.rate;
    if (after < balance.target(account)) {
      return fmt::format("stopping it would leave `{}` below its share (holding {:.3g} of its {:.3g} per hour)",
                         path_of(account), after, balance.target(account));
    }
  }
  return "the share balance refuses it";
}

// Why running job `victim` may or may not be preempted for waiting job
// `requester` (state indexes), before the cycle places anything.
std::optional<std::string> refusal_for(const CycleContext& context, std::size_t victim, std::size_t requester) {
  const ShareBalance& balance = context.balance;
  const ActiveJob& held = context.jobs.active[victim];
  const PendingJob& waiting = context.jobs.pending[requester];
  const std::string& account = waiting.request->account;
  if (!balance.any_below_share_on_path(waiting.account)) return fmt::format("`{}` holds its share already", account);
  const Release release{held.account, held.rate};
  if (!balance.allows(waiting.account, std::span<const Release>(&release, 1)))
    return share_refusal(context, held, waiting.account);
  if (!context.policy.preempt(context.running_table.table(), victim, context.pending_table.table(), waiting.row,
                              context.accounts.table(), context.cluster)) {
    return "the policy's `preempt` refuses it";
  }
  return std::nullopt;
}

// The fast lanes that may stop a job of class `job_class` (none for a job of
// a fast-lane class): "the fast lane of class `debug`", or "".
std::string lanes_over(const PolicyTables& tables, int job_class) {
  std::vector<std::string> lanes;
  for (const ClassInfo& info : tables.classes) {
    if (info.fast_lane_gpus > 0) lanes.push_back(fmt::format("`{}`", info.name));
  }
  const bool in_lane = job_class >= 0 && tables.classes[static_cast<std::size_t>(job_class)].fast_lane_gpus > 0;
  if (lanes.empty() || in_lane) return "";
  std::string names = lanes[0];
  for (std::size_t i = 1; i < lanes.size(); ++i) names += (i + 1 == lanes.size() ? " and " : ", ") + lanes[i];
  return fmt::format("the fast lane of class{} {}", lanes.size() == 1 ? "" : "es", names);
}

// A candidate's standing, with the fast lanes that may also stop it.
PreemptionStanding with_lanes(PreemptionStanding standing, const std::string& lanes) {
  if (!lanes.empty() && standing.candidate && !standing.chosen) {
    standing.why += fmt::format("; {} may also stop it, share rule and `preempt` aside (docs/SCHEDULING.md)", lanes);
  }
  return standing;
}

std::string queue_place(const CycleResult& result, const std::string& job_id) {
  const auto it = std::find(result.ranked_job_ids.begin(), result.ranked_job_ids.end(), job_id);
  return ordinal(static_cast<std::size_t>(it - result.ranked_job_ids.begin()) + 1);
}

}  // namespace

PreemptionStanding preemption_standing(const cycle::CycleContext& context, const CycleResult& result,
                                       std::size_t index) {
  const ClusterState& state = context.state;
  const CompiledPolicy& policy = context.policy;
  const RunningJob& job = state.running[index];
  for (const Decision& decision : result.decisions) {
    if (decision.kind != DecisionKind::preempt || decision.job_id != job.request.id) continue;
    return PreemptionStanding{
        true, true,
        fmt::format("this cycle stops it ({}); it stops at {}, losing {:g} GPU-seconds of work", decision.reason,
                    support::format_timestamp(decision.stops_at), decision.lost_gpu_seconds)};
  }
  const ActiveJob& active = context.jobs.active[index];
  if (auto reason = not_offered(job, active, policy.tables(), state.now)) {
    return PreemptionStanding{false, false, "not a candidate: " + *reason};
  }
  const std::string lanes = lanes_over(policy.tables(), active.job_class);
  if (!policy.has_preempt() && !lanes.empty()) {
    return PreemptionStanding{
        true, false, fmt::format("a candidate only for {}: the policy has no `preempt` rule for the others", lanes)};
  }
  if (!policy.has_preempt()) {
    return PreemptionStanding{false, false,
                              "not a candidate: the policy has no `preempt` rule, so nothing is preempted"};
  }
  std::unordered_map<std::string_view, std::size_t> waiting;
  for (std::size_t i = 0; i < state.pending.size(); ++i) waiting.emplace(state.pending[i].id, i);
  std::unordered_map<std::string_view, bool> started;
  for (const Decision& decision : result.decisions) {
    if (decision.kind == DecisionKind::start) started.emplace(decision.job_id, true);
  }
  std::optional<std::string> first_refusal;
  std::size_t asked = 0;
  for (const std::string& id : result.ranked_job_ids) {
    const std::size_t requester = waiting.at(id);
    if (started.count(id) || state.pending[requester].account == job.request.account) continue;
    const auto refusal = refusal_for(context, index, requester);
    if (!refusal) {
      return with_lanes(
          PreemptionStanding{
              true, false,
              fmt::format(
                  "a candidate: past its protection, and `preempt` accepts it for `{}` ({} in the queue); this "
                  "cycle did not choose it (stopping it frees no place that fits, or other victims lose less work)",
                  id, queue_place(result, id))},
          lanes);
    }
    if (!first_refusal)
      first_refusal = fmt::format("for `{}` ({} in the queue), {}", id, queue_place(result, id), *refusal);
    if (++asked == kRequestersAsked) break;
  }
  if (!first_refusal) {
    return with_lanes(
        PreemptionStanding{true, false, "a candidate: past its protection, but no job of another account is waiting"},
        lanes);
  }
  return with_lanes(
      PreemptionStanding{
          true, false,
          fmt::format("a candidate: past its protection, but no waiting job may take it now: {}", *first_refusal)},
      lanes);
}

}  // namespace allot::runtime::explain
