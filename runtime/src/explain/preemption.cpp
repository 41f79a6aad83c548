// Whether a running job could be preempted now, and why (not), in the terms
// the cycle uses (allot/cycle.h): the contract it started under, protection,
// the share balance (anti-loop rule) and the policy's `preempt`, asked for the
// waiting jobs of other accounts best first, as the victim search would.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "allot/account_columns.h"
#include "allot/accounting.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "cycle/cycle_jobs.h"
#include "cycle/job_columns.h"
#include "cycle/reasons.h"
#include "cycle/share_balance.h"
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

// The cycle's view of the state: jobs, account and job tables, share balance, cluster values.
class VictimView {
 public:
  VictimView(const ClusterState& state, const CompiledPolicy& policy);

  // Why running job `victim` may or may not be preempted for waiting job `requester` (state indexes).
  std::optional<std::string> refusal(std::size_t victim, std::size_t requester) const;
  const ActiveJob& active(std::size_t index) const { return jobs_.active[index]; }
  const PendingJob& pending(std::size_t index) const { return jobs_.pending[index]; }

 private:
  abi::ClusterView cluster_view(const ClusterState& state) const;
  std::string share_refusal(const ActiveJob& victim, int requester) const;

  const CompiledPolicy& policy_;
  const PolicyTables& tables_;
  const AccountIndex index_;
  const ResourceAmounts capacity_;
  const UnitWeights unit_;
  CycleJobs jobs_;
  const AccountColumns accounts_;
  JobColumns pending_table_;
  JobColumns running_table_;
  ShareBalance balance_;
  abi::ClusterView cluster_{};
};

VictimView::VictimView(const ClusterState& state, const CompiledPolicy& policy)
    : policy_(policy),
      tables_(policy.tables()),
      index_(tables_),
      capacity_(schedulable_capacity(state.inventory)),
      unit_(unit_weights(tables_.unit, capacity_)),
      jobs_(resolve_jobs(state, tables_, index_, unit_)),
      accounts_(tables_, state, jobs_.activity, capacity_),
      pending_table_(pending_job_table(jobs_.pending, tables_, policy.job_fields_read(), state.now)),
      running_table_(running_job_table(jobs_.active, tables_, policy.job_fields_read(), state.now)),
      balance_(tables_, accounts_.shares().of_cluster, capacity_rate(unit_, state.inventory)),
      cluster_(cluster_view(state)) {
  for (const ActiveJob& job : jobs_.active) {
    if (!job.stopping && !job.stopped && job.account >= 0) balance_.add(job.account, job.rate);
  }
}

// The cluster values `preempt` may read, as the cycle computes them before placing anything.
abi::ClusterView VictimView::cluster_view(const ClusterState& state) const {
  std::vector<int> free(state.inventory.nodes.size(), 0);
  for (std::size_t n = 0; n < free.size(); ++n) free[n] = state.inventory.nodes[n].gpus;
  double used = 0, running = 0;
  for (const ActiveJob& job : jobs_.active) {
    if (job.stopped) continue;
    for (const int node : job.job->nodes) free[static_cast<std::size_t>(node)] -= job.per_node.gpus;
    used += static_cast<double>(job.node_count) * job.per_node.gpus;
    running += 1;
  }
  double free_gpus = 0;
  for (std::size_t n = 0; n < free.size(); ++n) {
    if (state.inventory.nodes[n].state == NodeState::up) free_gpus += std::max(0, free[n]);
  }
  return cluster_record(state, used, free_gpus, running);
}

// Which half of the anti-loop rule (allot/cycle.h) refuses: the requester's
// side is not below its share where the two paths part, or the victim's side
// would fall below its own.
std::string VictimView::share_refusal(const ActiveJob& victim, int requester) const {
  const auto path_up = [&](int account) {
    std::vector<int> path;
    for (; account > 0; account = tables_.accounts[static_cast<std::size_t>(account)].parent) path.push_back(account);
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
    return tables_.accounts[static_cast<std::size_t>(account)].path;
  };
  if (!balance_.below_share(requester_side)) {
    return fmt::format("`{}` is not below its share against `{}`, so it may not take from it", path_of(requester_side),
                       path_of(victim_side));
  }
  for (std::size_t i = 0; i < victim_path.size() - common; ++i) {
    const int account = victim_path[i];
    const double after = balance_.held(account) - victim.rate;
    if (after < balance_.target(account)) {
      return fmt::format("stopping it would leave `{}` below its share (holding {:.3g} of its {:.3g} per hour)",
                         path_of(account), after, balance_.target(account));
    }
  }
  return "the share balance refuses it";
}

std::optional<std::string> VictimView::refusal(std::size_t victim, std::size_t requester) const {
  const ActiveJob& held = jobs_.active[victim];
  const PendingJob& waiting = jobs_.pending[requester];
  const std::string& account = waiting.request->account;
  if (!balance_.any_below_share_on_path(waiting.account)) return fmt::format("`{}` holds its share already", account);
  const Release release{held.account, held.rate};
  if (!balance_.allows(waiting.account, std::span<const Release>(&release, 1)))
    return share_refusal(held, waiting.account);
  if (!policy_.preempt(running_table_.table(), victim, pending_table_.table(), waiting.row, accounts_.table(),
                       cluster_)) {
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

PreemptionStanding preemption_standing(const ClusterState& state, const CompiledPolicy& policy,
                                       const CycleResult& result, std::size_t index) {
  const RunningJob& job = state.running[index];
  for (const Decision& decision : result.decisions) {
    if (decision.kind != DecisionKind::preempt || decision.job_id != job.request.id) continue;
    return PreemptionStanding{
        true, true,
        fmt::format("this cycle stops it ({}); it stops at {}, losing {:g} GPU-seconds of work", decision.reason,
                    support::format_timestamp(decision.stops_at), decision.lost_gpu_seconds)};
  }
  const VictimView view(state, policy);
  if (auto reason = not_offered(job, view.active(index), policy.tables(), state.now)) {
    return PreemptionStanding{false, false, "not a candidate: " + *reason};
  }
  const std::string lanes = lanes_over(policy.tables(), view.active(index).job_class);
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
    const auto refusal = view.refusal(index, requester);
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
