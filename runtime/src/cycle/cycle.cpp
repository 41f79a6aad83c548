// run_cycle (allot/cycle.h) as a pipeline:
//   1. context.h    what the cycle reads, built once (jobs, account table, ranks, ...);
//   2. drain.h      stops for jobs on draining or down nodes, then for stalled
//      jobs whose class says `else stop` (contracts.h stalled_since);
//   3. the ranked queue, best first: each job starts where it fits now
//      (placement.h), or on capacity freed for it earlier (a reservation), or
//      by backfill (backfill.h), or by stopping jobs for it (preemption.h: the
//      share rule, a fast lane), or has capacity held for it (blocked_hold.h,
//      which may take capacity back from jobs that overran a hold), or waits;
//   4. decisions.h  the words of every decision.
// The planners return choices; this file commits them: the free capacity
// (capacity.h), the share balance, the fast lanes' quota, reservations, holds
// and the decision log.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

#include "allot/accounting.h"
#include "allot/contracts.h"
#include "allot/cycle.h"
#include "backfill.h"
#include "blocked_hold.h"
#include "capacity.h"
#include "context.h"
#include "cycle_cache.h"
#include "cycle_jobs.h"
#include "decisions.h"
#include "drain.h"
#include "preemption.h"
#include "ranking.h"
#include "share_balance.h"

namespace allot::runtime {
namespace {

using namespace cycle;

class CycleRun {
 public:
  CycleRun(const CycleContext& context, const CycleOptions& options, CycleMemory* memory);
  CycleResult run();

 private:
  // Before the queue: running jobs and reservations in force.
  void hold_running_jobs();
  void hold_reservations();
  void decide_drains();
  void decide_stalls();
  // The queue, and one job of it at its place.
  void place_queue();
  void place(const PendingJob& job, std::size_t position);
  bool start_reserved(const PendingJob& job, std::size_t position);
  bool backfill(const PendingJob& job, std::size_t position);
  bool preempt_for(const PendingJob& job, std::size_t position);
  bool fast_lane(const PendingJob& job, std::size_t position, std::string& why);
  std::optional<std::string> hold_for(const PendingJob& job, std::size_t position);
  // Commits.
  void stop_for(const PendingJob& job, std::size_t position, const StopChoice& choice,
                const std::function<std::string(const RunningJob&)>& why, const std::string& freed);
  void take_freed(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, Seconds release,
                  const std::string& freed);
  void reserve(const PendingJob& job, Reservation reservation);
  void stop(int active, Seconds stops_at, double lost, const std::string& for_job, std::string reason);
  Decision& start(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, const std::string& how);
  void skip(const PendingJob& job, std::size_t position, std::string reason);
  void record_skip(const PendingJob& job, std::size_t position, std::uint32_t reason);  // reason: skip_reason()'s
  // Indexes into the result's tables, each entry written once.
  std::uint32_t skip_name(int index, std::vector<std::uint32_t>& known, const std::string& name);
  std::uint32_t skip_reason(std::string reason);
  void count_fast_lane(const PendingJob& job, int sign);
  Decision job_decision(DecisionKind kind, const JobRequest& request, int account, int job_class) const;
  // A job's account and class as decisions name them: the policy's names when
  // it knows the job's (a few hot strings), else the request's.
  const std::string& account_name(const JobRequest& request, int account) const;
  const std::string& class_name(const JobRequest& request, int job_class) const;
  double job_rate(const PendingJob& job, const std::vector<int>& nodes) const;
  const std::string& program_path(int account) const;

  const CycleContext& ctx_;
  const ClusterState& state_;
  const CompiledPolicy& policy_;
  const PolicyTables& tables_;
  const CycleOptions& options_;
  CycleMemory* memory_;  // null without a cache
  // What placing changes, from the context: which running jobs stop, the free
  // capacity, what each account holds.
  std::vector<ActiveJob> active_;
  Capacity capacity_;
  ShareBalance balance_;
  // The planners.
  Backfill backfill_;
  Preemption preemption_;
  std::unordered_map<std::string, Reservation> reservations_;  // by job id, in force
  std::size_t holds_left_ = 0;
  // Per (fast-lane class, program): the GPUs its running and reserved jobs hold
  // (ClassInfo::fast_lane_gpus bounds it).
  std::map<std::pair<int, int>, long long> fast_lane_held_;
  std::vector<Decision> actions_;  // starts and preemptions
  std::vector<Skip> skips_;
  // The skips' tables: each policy account's and class's entry in skip_names
  // (kNoName until used), other names and each reason by text.
  static constexpr std::uint32_t kNoName = UINT32_MAX;
  std::vector<std::uint32_t> account_names_;
  std::vector<std::uint32_t> class_names_;
  std::unordered_map<std::string, std::uint32_t> other_names_;
  std::unordered_map<std::string, std::uint32_t> reasons_;
  CycleResult result_;
};

CycleRun::CycleRun(const CycleContext& context, const CycleOptions& options, CycleMemory* memory)
    : ctx_(context),
      state_(context.state),
      policy_(context.policy),
      tables_(context.tables),
      options_(options),
      memory_(memory),
      active_(context.jobs.active),
      capacity_(state_.inventory, memory != nullptr ? &memory->buckets : nullptr),
      balance_(context.balance),
      backfill_(context),
      preemption_(context, options.preemption_depth),
      holds_left_(options.blocked_holds),
      account_names_(context.tables.accounts.size(), kNoName),
      class_names_(context.tables.classes.size(), kNoName) {
  if (memory != nullptr && options.record_skips) skips_ = std::move(memory->skips);
  hold_running_jobs();
  hold_reservations();
  for (const ActiveJob& job : active_) {
    if (job.stopping || job.stopped || job.account < 0 || !ctx_.in_fast_lane(job.job_class)) continue;
    fast_lane_held_[{job.job_class, program_of(tables_, job.account)}] +=
        static_cast<long long>(job.node_count) * job.per_node.gpus;
  }
}

void CycleRun::hold_running_jobs() {
  for (const ActiveJob& job : active_) {
    if (job.stopped) continue;
    capacity_.take(job.job->nodes, job.per_node);
    if (job.stopping) capacity_.add_stopping(job.job->nodes, job.per_node);
  }
}

// Reservations still in force: their job waits, their time has not run out.
void CycleRun::hold_reservations() {
  if (state_.reservations.empty()) return;
  std::unordered_map<std::string_view, const Reservation*> wanted;
  for (const Reservation& reservation : state_.reservations) {
    const bool valid_nodes = std::all_of(reservation.nodes.begin(), reservation.nodes.end(), [&](int node) {
      return node >= 0 && static_cast<std::size_t>(node) < state_.inventory.nodes.size();
    });
    if (reservation.until > state_.now && valid_nodes) wanted.emplace(reservation.job_id, &reservation);
  }
  for (const PendingJob& job : ctx_.jobs.pending) {
    const auto found = wanted.find(job.request->id);
    if (!job.problem.empty() || found == wanted.end() || reservations_.count(job.request->id)) continue;
    reserve(job, *found->second);
  }
}

CycleResult CycleRun::run() {
  result_.now = state_.now;
  result_.policy_hash = policy_.source_hash();
  decide_drains();
  decide_stalls();
  place_queue();
  result_.decisions = std::move(actions_);
  result_.skips = std::move(skips_);
  for (auto& [id, reservation] : reservations_) result_.reservations.push_back(std::move(reservation));
  std::sort(result_.reservations.begin(), result_.reservations.end(),
            [](const Reservation& a, const Reservation& b) { return a.job_id < b.job_id; });
  if (memory_ != nullptr) memory_->buckets = capacity_.memory();
  return std::move(result_);
}

void CycleRun::decide_drains() {
  if (!options_.stop_on_unavailable_nodes) return;
  for (DrainStop& drain : drain_stops(state_.inventory, active_, state_.now)) {
    stop(drain.active, drain.stops_at, drain.lost_gpu_seconds, "", std::move(drain.reason));
  }
}

// A stalled job whose class says `else stop` stops now (its GPUs go to the
// queue in this cycle), whatever its protection or preemptibility: its
// contract asked for progress it did not make.
void CycleRun::decide_stalls() {
  for (std::size_t i = 0; i < active_.size(); ++i) {
    const ActiveJob& job = active_[i];
    if (job.stopping || job.stopped || !job.stalled || job.job->contract.on_stall != StallAction::stop) continue;
    const Seconds since = stalled_since(*job.job, state_.now).value_or(state_.now);
    stop(static_cast<int>(i), state_.now, lost_gpu_seconds(*job.job, state_.now), "", stalled_stop(since));
  }
}

void CycleRun::place_queue() {
  const std::vector<PendingJob>& pending = ctx_.jobs.pending;
  const std::vector<std::size_t> order = rank_order(pending, ctx_.ranks);
  result_.ranked_job_ids.reserve(order.size());
  if (options_.record_skips) skips_.reserve(pending.size());
  result_.ranks.reserve(order.size());
  std::optional<std::uint32_t> beyond_depth;  // the reason of every job past the placement depth
  for (std::size_t position = 0; position < order.size(); ++position) {
    // The queue visits jobs in rank order, not memory order: fetching ahead
    // (the job record, then what it points to) hides most of the cache misses.
    constexpr std::size_t kAhead = 8;
    if (position + 2 * kAhead < order.size()) __builtin_prefetch(&pending[order[position + 2 * kAhead]]);
    if (position + kAhead < order.size()) {
      const char* ahead = reinterpret_cast<const char*>(pending[order[position + kAhead]].request);
      for (std::size_t line = 0; line < sizeof(JobRequest); line += 64) __builtin_prefetch(ahead + line);
    }
    const PendingJob& job = pending[order[position]];
    result_.ranked_job_ids.push_back(job.request->id);
    result_.ranks.push_back(ctx_.ranks[job.row]);
    if (position < options_.placement_depth) {
      place(job, position);
    } else if (options_.record_skips) {
      if (!beyond_depth) beyond_depth = skip_reason(beyond_placement_depth(options_.placement_depth));
      record_skip(job, position, *beyond_depth);
    }
  }
  if (!options_.record_skips) return;
  for (const PendingJob& job : pending) {
    if (!job.problem.empty()) skip(job, 0, job.problem);
  }
}

void CycleRun::place(const PendingJob& job, std::size_t position) {
  const ClassInfo& info = tables_.classes[static_cast<std::size_t>(job.job_class)];
  if (auto problem = class_limit_problem(info, *job.request)) return skip(job, position, *problem);
  if (!job.known_gpu_type) return skip(job, position, no_node_of_type(job.request->gpu_type));
  if (!job.cannot_start.empty()) return skip(job, position, cannot_start(job.cannot_start));
  if (reservations_.count(job.request->id)) {
    if (!start_reserved(job, position)) {
      skip(job, position, waits_on_reservation(state_.inventory, reservations_.at(job.request->id)));
    }
    return;
  }
  if (auto nodes = capacity_.find(job.shape)) {
    start(job, position, *nodes, "");
    return;
  }
  if (backfill(job, position)) return;
  if (preempt_for(job, position)) return;
  std::string lane_full;
  if (fast_lane(job, position, lane_full)) return;
  std::string reason = options_.record_skips ? capacity_.failure_reason(job.shape) : std::string();
  if (!lane_full.empty()) reason += "; " + lane_full;
  const std::optional<std::string> held = hold_for(job, position);
  if (!held) return;  // it started, or capacity is reserved for it
  if (!options_.record_skips) return;
  if (policy_.has_preempt() && !balance_.any_below_share_on_path(job.account)) {
    reason += "; " + holds_its_share(job.request->account);
  }
  if (!held->empty()) reason += "; " + *held;
  skip(job, position, std::move(reason));
}

// Starts a job on the capacity reserved for it, or on anything else that fits
// once that capacity is counted as free; keeps the reservation otherwise.
bool CycleRun::start_reserved(const PendingJob& job, std::size_t position) {
  const Reservation& reservation = reservations_.at(job.request->id);
  const Claim claim{reservation.nodes,
                    {reservation.gpus_per_node, reservation.cpus_per_node, reservation.memory_gib_per_node}};
  const double rate = ctx_.rates.of(claim.nodes, claim.amounts);
  capacity_.unclaim(claim);
  balance_.add(job.account, -rate);
  if (auto nodes = capacity_.pool().find(job.shape)) {
    reservations_.erase(job.request->id);
    count_fast_lane(job, -1);  // start() counts it again
    start(job, position, *nodes, freed_capacity_free_now());
    return true;
  }
  capacity_.claim(claim);
  balance_.add(job.account, rate);
  return false;
}

bool CycleRun::backfill(const PendingJob& job, std::size_t position) {
  const std::optional<BackfillChoice> choice = backfill_.plan(job, capacity_);
  if (!choice) return false;
  Decision& decision = start(job, position, choice->nodes, backfilled(*choice));
  if (choice->yields_at) decision.contract.yields_at = choice->yields_at;
  return true;
}

bool CycleRun::preempt_for(const PendingJob& job, std::size_t position) {
  const std::optional<StopChoice> choice = preemption_.share_rule(job, active_, capacity_, balance_);
  if (!choice) return false;
  stop_for(
      job, position, *choice, [&](const RunningJob& victim) { return preempted_by_share_rule(*job.request, victim); },
      freed_by_share_rule(choice->victims.size()));
  return true;
}

// The fast lane of the job's class, within its quota: the GPUs the class's
// jobs in the job's program hold. `why` says why it did not, for the reason.
bool CycleRun::fast_lane(const PendingJob& job, std::size_t position, std::string& why) {
  if (job.account < 0 || !ctx_.in_fast_lane(job.job_class)) return false;
  const ClassInfo& lane = tables_.classes[static_cast<std::size_t>(job.job_class)];
  const int program = program_of(tables_, job.account);
  const long long held = fast_lane_held_[{job.job_class, program}];
  const long long wanted = static_cast<long long>(job.shape.nodes) * job.shape.gpus_per_node;
  if (held + wanted > lane.fast_lane_gpus) {
    why = fast_lane_full(lane, program_path(program), held);
    return false;
  }
  if (preemption_.searches_left() == 0) return false;
  const std::optional<StopChoice> choice = preemption_.fast_lane(job, active_, capacity_, balance_, backfill_.holds());
  if (!choice) {
    why = fast_lane_finds_no_room(lane);
    return false;
  }
  stop_for(
      job, position, *choice,
      [&](const RunningJob&) { return preempted_by_fast_lane(*job.request, lane, program_path(program)); },
      freed_by_fast_lane(lane, choice->victims.size()));
  return true;
}

// Holds the nodes a blocked job would fit on soonest from the jobs ranked
// below it (CycleOptions::blocked_holds). Returns what was held, for the reason,
// or nullopt when jobs past what they promised backfill were stopped for it instead.
std::optional<std::string> CycleRun::hold_for(const PendingJob& job, std::size_t position) {
  if (holds_left_ == 0) return "";
  std::vector<bool> reserved(state_.inventory.nodes.size(), false);
  for (const auto& [id, reservation] : reservations_) {
    for (int node : reservation.nodes) reserved[static_cast<std::size_t>(node)] = true;
  }
  const auto where =
      blocked_hold(capacity_.pool(), job.shape, active_, ctx_.jobs.jobs_on_node, reserved, tables_, state_.now);
  if (!where) return "";
  --holds_left_;
  if (where->when && *where->when <= state_.now) {
    if (const std::optional<StopChoice> choice = preemption_.take_back(where->nodes, active_)) {
      stop_for(
          job, position, *choice,
          [&](const RunningJob& victim) { return taken_back(*job.request, victim, state_.now); },
          freed_by_take_back(choice->victims.size()));
      return std::nullopt;
    }
  }
  Hold hold{job.request->id, Claim{where->nodes, held_on_each(state_.inventory, where->nodes, job.shape)}, where->when,
            options_.yield_backfill && !policy_.has_preempt()};
  capacity_.claim(hold.claim);
  std::string text = held_for_it(state_.inventory, hold, state_.now);
  backfill_.add(std::move(hold));
  return text;
}

// Stops the chosen victims (each after its grace, `why` its reason) for `job`,
// which then takes the chosen nodes (take_freed).
void CycleRun::stop_for(const PendingJob& job, std::size_t position, const StopChoice& choice,
                        const std::function<std::string(const RunningJob&)>& why, const std::string& freed) {
  Seconds release = state_.now;
  for (int victim : choice.victims) {
    const RunningJob& running = *active_[static_cast<std::size_t>(victim)].job;
    const Seconds stops_at = state_.now + std::max<Seconds>(0, running.contract.grace);
    release = std::max(release, stops_at);
    stop(victim, stops_at, lost_gpu_seconds(running, state_.now), job.request->id, why(running));
  }
  take_freed(job, position, choice.nodes, release, freed);
}

// The job starts on `nodes` freed for it by stops at `release` at the latest:
// now when they stop now, else it waits with the capacity reserved for it.
void CycleRun::take_freed(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, Seconds release,
                          const std::string& freed) {
  if (release <= state_.now) {
    start(job, position, nodes, freed);
    return;
  }
  const NodeAmounts amounts = held_on_each(state_.inventory, nodes, job.shape);
  Reservation reservation{job.request->id, nodes,        release + options_.reservation_ttl,
                          amounts.gpus,    amounts.cpus, amounts.memory_gib};
  skip(job, position, reserved_until_they_stop(state_.inventory, nodes, freed, release));
  reserve(job, std::move(reservation));
}

// Capacity reserved for `job`: claimed, counted in its account's share and its fast lane.
void CycleRun::reserve(const PendingJob& job, Reservation reservation) {
  const Claim claim{reservation.nodes,
                    {reservation.gpus_per_node, reservation.cpus_per_node, reservation.memory_gib_per_node}};
  capacity_.claim(claim);
  balance_.add(job.account, ctx_.rates.of(claim.nodes, claim.amounts));
  count_fast_lane(job, 1);
  reservations_.emplace(job.request->id, std::move(reservation));
}

// A running job stops (preempted or drained): it leaves the share balance
// now, and gives its nodes back now if it stops now.
void CycleRun::stop(int active, Seconds stops_at, double lost, const std::string& for_job, std::string reason) {
  ActiveJob& job = active_[static_cast<std::size_t>(active)];
  job.stopping = true;
  if (job.account >= 0) balance_.add(job.account, -job.rate);
  if (stops_at <= state_.now) {
    job.stopped = true;
    capacity_.release(job.job->nodes, job.per_node);
  } else {
    capacity_.add_stopping(job.job->nodes, job.per_node);
  }
  Decision decision = job_decision(DecisionKind::preempt, job.job->request, job.account, job.job_class);
  decision.position = -1;
  decision.nodes = job.job->nodes;
  decision.for_job = for_job;
  decision.lost_gpu_seconds = lost;
  decision.stops_at = stops_at;
  decision.contract = job.job->contract;
  decision.terms =
      rank_terms(policy_, ctx_.running_table, static_cast<std::size_t>(active), ctx_.accounts, job.account);
  decision.reason = std::move(reason);
  actions_.push_back(std::move(decision));
}

Decision& CycleRun::start(const PendingJob& job, std::size_t position, const std::vector<int>& nodes,
                          const std::string& how) {
  capacity_.take_for(nodes, job.shape);
  balance_.add(job.account, job_rate(job, nodes));
  count_fast_lane(job, 1);
  const ClassInfo& info = tables_.classes[static_cast<std::size_t>(job.job_class)];
  Decision decision = job_decision(DecisionKind::start, *job.request, job.account, job.job_class);
  decision.rank = ctx_.ranks[job.row];
  decision.position = static_cast<int>(position);
  decision.nodes = nodes;
  decision.contract = contract_at_start(info, *job.request, state_.now, policy_.source_hash());
  decision.terms = rank_terms(policy_, ctx_.pending_table, job.row, ctx_.accounts, job.account);
  decision.reason = starts_on(state_.inventory, nodes, position, how);
  actions_.push_back(std::move(decision));
  return actions_.back();
}

// A ranked skip's id and rank are the queue's at its position (place_queue
// writes them first); the names are the policy's when it knows the job's.
void CycleRun::skip(const PendingJob& job, std::size_t position, std::string reason) {
  if (options_.record_skips) record_skip(job, position, skip_reason(std::move(reason)));
}

// Its callers record skips only when CycleOptions::record_skips says so.
void CycleRun::record_skip(const PendingJob& job, std::size_t position, std::uint32_t reason) {
  Skip skip;
  if (job.problem.empty()) {
    skip.position = static_cast<int>(position);
    if (skips_.size() < options_.explained_skips) {
      result_.skip_terms.resize(skips_.size());
      result_.skip_terms.push_back(rank_terms(policy_, ctx_.pending_table, job.row, ctx_.accounts, job.account));
    }
  } else {
    skip.unranked = static_cast<std::uint32_t>(result_.unranked_job_ids.size());
    result_.unranked_job_ids.push_back(job.request->id);
  }
  skip.account = skip_name(job.account, account_names_, account_name(*job.request, job.account));
  skip.job_class = skip_name(job.job_class, class_names_, class_name(*job.request, job.job_class));
  skip.reason = reason;
  skips_.push_back(skip);
}

std::uint32_t CycleRun::skip_name(int index, std::vector<std::uint32_t>& known, const std::string& name) {
  const auto next = static_cast<std::uint32_t>(result_.skip_names.size());
  if (index >= 0) {
    std::uint32_t& id = known[static_cast<std::size_t>(index)];
    if (id == kNoName) {
      id = next;
      result_.skip_names.push_back(name);
    }
    return id;
  }
  const auto [found, added] = other_names_.try_emplace(name, next);
  if (added) result_.skip_names.push_back(name);
  return found->second;
}

std::uint32_t CycleRun::skip_reason(std::string reason) {
  const auto next = static_cast<std::uint32_t>(result_.skip_reasons.size());
  const auto [found, added] = reasons_.try_emplace(std::move(reason), next);
  if (added) result_.skip_reasons.push_back(found->first);
  return found->second;
}

// Adds (sign 1) or removes (-1) a started or reserved job in its class's fast lane.
void CycleRun::count_fast_lane(const PendingJob& job, int sign) {
  if (job.account < 0 || !ctx_.in_fast_lane(job.job_class)) return;
  fast_lane_held_[{job.job_class, program_of(tables_, job.account)}] +=
      static_cast<long long>(sign) * job.shape.nodes * job.shape.gpus_per_node;
}

// The names come from the policy's tables when the job's are known there:
// the same text, but a few hot strings instead of one cold one per job.
Decision CycleRun::job_decision(DecisionKind kind, const JobRequest& request, int account, int job_class) const {
  Decision decision;
  decision.kind = kind;
  decision.job_id = request.id;
  decision.account = account_name(request, account);
  decision.job_class = class_name(request, job_class);
  return decision;
}

const std::string& CycleRun::account_name(const JobRequest& request, int account) const {
  return account >= 0 ? tables_.accounts[static_cast<std::size_t>(account)].path : request.account;
}

const std::string& CycleRun::class_name(const JobRequest& request, int job_class) const {
  return job_class >= 0 ? tables_.classes[static_cast<std::size_t>(job_class)].name : request.job_class;
}

double CycleRun::job_rate(const PendingJob& job, const std::vector<int>& nodes) const {
  return ctx_.rates.of(nodes, per_node(job.shape));
}

const std::string& CycleRun::program_path(int account) const {
  return tables_.accounts[static_cast<std::size_t>(account)].path;
}

}  // namespace

namespace cycle {

CycleResult run_cycle(const CycleContext& context, const CycleOptions& options, CycleMemory* memory) {
  return CycleRun(context, options, memory).run();
}

}  // namespace cycle

CycleResult run_cycle(const ClusterState& state, const CompiledPolicy& policy, const CycleOptions& options) {
  return cycle::run_cycle(cycle::CycleContext(state, policy), options);
}

CycleResult run_cycle(const ClusterState& state, const CompiledPolicy& policy, const CycleOptions& options,
                      CycleCache& cache) {
  const cycle::CycleContext context(state, policy, &cache);
  return cycle::run_cycle(context, options, &cache.kept().memory);
}

}  // namespace allot::runtime
