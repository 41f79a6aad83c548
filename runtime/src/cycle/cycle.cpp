// run_cycle (allot/cycle.h): drains first, then the ranked queue best-first,
// each job placed, or given victims, or skipped with the reason.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "allot/account_columns.h"
#include "allot/accounting.h"
#include "allot/contracts.h"
#include "allot/cycle.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "blocked_hold.h"
#include "context.h"
#include "cycle_jobs.h"
#include "drain.h"
#include "job_columns.h"
#include "placement.h"
#include "ranking.h"
#include "reasons.h"
#include "share_balance.h"
#include "victims.h"

namespace allot::runtime {
namespace {

using namespace cycle;

class CycleRun {
 public:
  CycleRun(const CycleContext& context, const CycleOptions& options);
  CycleResult run();

 private:
  void hold_running_jobs();
  void hold_reservations();
  void decide_drains();
  void place_queue();
  void place(const PendingJob& job, std::size_t position);
  bool start_reserved(const PendingJob& job, std::size_t position);
  bool backfill(const PendingJob& job, std::size_t position);
  bool may_yield_by(const PendingJob& job, Seconds when) const;
  bool preempt_for(const PendingJob& job, std::size_t position);
  bool fast_lane(const PendingJob& job, std::size_t position, std::string& why);
  void prepare_victim_search();
  bool in_fast_lane(int job_class) const;
  void count_fast_lane(const PendingJob& job, int sign);
  std::optional<std::string> hold_for(const PendingJob& job, std::size_t position);
  bool take_back_overrun(const PendingJob& job, std::size_t position, const std::vector<int>& nodes);
  void stop_for(const PendingJob& job, std::size_t position, const std::vector<int>& victims,
                const std::vector<int>& nodes, const std::function<std::string(const RunningJob&)>& why,
                const std::string& freed);
  void take_freed(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, Seconds release,
                  const std::string& freed);
  void stop(int active, Seconds stops_at, double lost, const std::string& for_job, std::string reason);
  void start(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, std::string reason);
  void skip(const PendingJob& job, std::size_t position, std::string reason);
  const std::string& failure_reason(const NodeRequest& shape);
  void capacity_returned();
  void claim(const std::vector<int>& nodes, const NodeAmounts& amounts);
  void unclaim(const std::vector<int>& nodes, const NodeAmounts& amounts);
  void add_stopping(const std::vector<int>& nodes, const NodeAmounts& amounts);
  void retally(int node);
  Decision job_decision(DecisionKind kind, const JobRequest& request, int account, int job_class) const;
  double job_rate(const PendingJob& job, const std::vector<int>& nodes) const;

  const CycleContext& ctx_;
  const ClusterState& state_;
  const CompiledPolicy& policy_;
  const PolicyTables& tables_;
  const CycleOptions& options_;
  // What placing changes, from the context: which running jobs stop, the free
  // capacity, what each account holds.
  std::vector<ActiveJob> active_;
  NodePool pool_;
  ShareBalance balance_;
  FailedShapes failed_;
  std::map<std::tuple<int, int, int, double, double>, std::string> reasons_;  // failure_reason by shape
  std::unordered_map<std::string, Reservation> reservations_;                 // by job id, in force
  std::size_t searches_left_ = 0;
  std::size_t holds_left_ = 0;
  // Capacity held this cycle for blocked jobs (hold_for), the reservations
  // that backfill may borrow from until they start.
  struct Hold {
    std::string job_id;
    std::vector<int> nodes;
    NodeAmounts amounts;
    std::optional<Seconds> when;  // when the held job should fit; no backfill without it
    // Whether a job may backfill here past `when` and yield then: only with
    // CycleOptions::yield_backfill, under a policy without `preempt`, where
    // nothing but `when` starts the held job. Under one with it, the held job may start sooner by preemption whenever
    // its account drops below its share, and a yielding job's own protection
    // would put that start off (measured: docs/SCHEDULING.md).
    bool lends_to_yielders = false;
  };
  std::vector<Hold> holds_;
  // Shapes that failed to backfill, per set of holds they could borrow (a bit per hold).
  std::map<std::uint64_t, FailedShapes> backfill_failed_;
  // Per node: what stopping jobs still hold, what is claimed for later
  // (reservations, holds), and the overlap of the two. A stopping job's
  // resources are what a claim on its node waits for, so the pool counts the
  // overlap once: free = capacity - other jobs - max(stopping, claimed).
  std::vector<NodeAmounts> stopping_, claimed_, overlap_;
  std::vector<std::vector<int>> candidates_on_node_;  // filled at the first victim search, with lost_now_
  std::vector<double> lost_now_;                      // per active job, filled at the first victim search
  // Per (fast-lane class, program): the GPUs its running and reserved jobs hold
  // (ClassInfo::fast_lane_gpus bounds it).
  std::map<std::pair<int, int>, long long> fast_lane_held_;
  std::vector<Decision> actions_;  // starts and preemptions
  std::vector<Decision> skips_;
  CycleResult result_;
};

CycleRun::CycleRun(const CycleContext& context, const CycleOptions& options)
    : ctx_(context),
      state_(context.state),
      policy_(context.policy),
      tables_(context.tables),
      options_(options),
      active_(context.jobs.active),
      pool_(state_.inventory),
      balance_(context.balance),
      searches_left_(options.preemption_depth),
      holds_left_(options.blocked_holds),
      stopping_(state_.inventory.nodes.size()),
      claimed_(state_.inventory.nodes.size()),
      overlap_(state_.inventory.nodes.size()) {
  hold_running_jobs();
  hold_reservations();
  for (const ActiveJob& job : active_) {
    if (job.stopping || job.stopped || job.account < 0 || !in_fast_lane(job.job_class)) continue;
    fast_lane_held_[{job.job_class, program_of(tables_, job.account)}] +=
        static_cast<long long>(job.node_count) * job.per_node.gpus;
  }
}

void CycleRun::hold_running_jobs() {
  for (const ActiveJob& job : active_) {
    if (job.stopped) continue;
    pool_.take(job.job->nodes, job.per_node);
    if (job.stopping) add_stopping(job.job->nodes, job.per_node);
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
    const Reservation& reservation = *found->second;
    const NodeAmounts amounts{reservation.gpus_per_node, reservation.cpus_per_node, reservation.memory_gib_per_node};
    claim(reservation.nodes, amounts);
    balance_.add(job.account, rate_of(ctx_.unit, state_.inventory, reservation.nodes, amounts));
    reservations_.emplace(reservation.job_id, reservation);
    count_fast_lane(job, 1);
  }
}

CycleResult CycleRun::run() {
  result_.now = state_.now;
  result_.policy_hash = policy_.source_hash();
  decide_drains();
  place_queue();
  result_.decisions = std::move(actions_);
  result_.decisions.reserve(result_.decisions.size() + skips_.size());
  result_.decisions.insert(result_.decisions.end(), std::make_move_iterator(skips_.begin()),
                           std::make_move_iterator(skips_.end()));
  for (auto& [id, reservation] : reservations_) result_.reservations.push_back(std::move(reservation));
  std::sort(result_.reservations.begin(), result_.reservations.end(),
            [](const Reservation& a, const Reservation& b) { return a.job_id < b.job_id; });
  return std::move(result_);
}

void CycleRun::decide_drains() {
  for (DrainStop& drain : drain_stops(state_.inventory, active_, state_.now)) {
    stop(drain.active, drain.stops_at, drain.lost_gpu_seconds, "", std::move(drain.reason));
  }
}

void CycleRun::place_queue() {
  const std::vector<std::size_t> order = rank_order(ctx_.jobs.pending, ctx_.ranks);
  result_.ranked_job_ids.reserve(order.size());
  if (options_.record_skips) skips_.reserve(ctx_.jobs.pending.size());
  result_.ranks.reserve(order.size());
  for (std::size_t position = 0; position < order.size(); ++position) {
    // The queue visits jobs in rank order, not memory order: fetching ahead
    // (the job record, then what it points to) hides most of the cache misses.
    constexpr std::size_t kAhead = 8;
    if (position + 2 * kAhead < order.size()) __builtin_prefetch(&ctx_.jobs.pending[order[position + 2 * kAhead]]);
    if (position + kAhead < order.size()) {
      const char* ahead = reinterpret_cast<const char*>(ctx_.jobs.pending[order[position + kAhead]].request);
      for (std::size_t line = 0; line < sizeof(JobRequest); line += 64) __builtin_prefetch(ahead + line);
    }
    const PendingJob& job = ctx_.jobs.pending[order[position]];
    result_.ranked_job_ids.push_back(job.request->id);
    result_.ranks.push_back(ctx_.ranks[job.row]);
    if (position < options_.placement_depth) {
      place(job, position);
    } else if (options_.record_skips) {
      skip(job, position, fmt::format("beyond this cycle's placement depth ({} jobs)", options_.placement_depth));
    }
  }
  if (!options_.record_skips) return;
  for (const PendingJob& job : ctx_.jobs.pending) {
    if (!job.problem.empty()) skip(job, 0, job.problem);
  }
}

void CycleRun::place(const PendingJob& job, std::size_t position) {
  const ClassInfo& info = tables_.classes[static_cast<std::size_t>(job.job_class)];
  if (auto problem = class_limit_problem(info, *job.request)) return skip(job, position, *problem);
  if (!job.known_gpu_type) {
    return skip(job, position, fmt::format("no node has GPU type `{}`", job.request->gpu_type));
  }
  if (reservations_.count(job.request->id)) {
    if (!start_reserved(job, position)) {
      const Reservation& reservation = reservations_.at(job.request->id);
      skip(job, position,
           fmt::format("capacity on {} is reserved for it until {}; it starts once the preempted jobs there stop",
                       node_list(state_.inventory, reservation.nodes), support::format_timestamp(reservation.until)));
    }
    return;
  }
  if (!failed_.known_to_fail(job.shape)) {
    if (auto nodes = pool_.find(job.shape)) return start(job, position, *nodes, "");
    failed_.remember(job.shape);
  }
  if (backfill(job, position)) return;
  if (preempt_for(job, position)) return;
  std::string lane_full;
  if (fast_lane(job, position, lane_full)) return;
  std::string reason = options_.record_skips ? failure_reason(job.shape) : std::string();
  if (!lane_full.empty()) reason += "; " + lane_full;
  const std::optional<std::string> held = hold_for(job, position);
  if (!held) return;  // it started, or capacity is reserved for it
  if (!options_.record_skips) return;
  if (policy_.has_preempt() && !balance_.any_below_share_on_path(job.account)) {
    reason += fmt::format("; `{}` holds its share already, so it waits for free capacity", job.request->account);
  }
  if (!held->empty()) reason += "; " + *held;
  skip(job, position, std::move(reason));
}

// Holds the nodes a blocked job would fit on soonest from the jobs ranked
// below it (CycleOptions::blocked_holds). Returns what was held, for the reason,
// or nullopt when jobs past their runtime limit were stopped for it instead.
std::optional<std::string> CycleRun::hold_for(const PendingJob& job, std::size_t position) {
  if (holds_left_ == 0) return "";
  std::vector<bool> reserved(state_.inventory.nodes.size(), false);
  for (const auto& [id, reservation] : reservations_) {
    for (int node : reservation.nodes) reserved[static_cast<std::size_t>(node)] = true;
  }
  const auto hold = blocked_hold(pool_, job.shape, active_, ctx_.jobs.jobs_on_node, reserved, tables_, state_.now);
  if (!hold) return "";
  --holds_left_;
  if (hold->when && *hold->when <= state_.now && take_back_overrun(job, position, hold->nodes)) return std::nullopt;
  claim(hold->nodes, per_node(job.shape));
  reasons_.clear();
  backfill_failed_.clear();
  const bool lends_to_yielders = options_.yield_backfill && !policy_.has_preempt();
  holds_.push_back(Hold{job.request->id, hold->nodes, per_node(job.shape), hold->when, lends_to_yielders});
  const std::string nodes = node_list(state_.inventory, hold->nodes);
  const char* verb = hold->nodes.size() == 1 ? "is" : "are";
  if (!hold->when) {
    return fmt::format("{} {} held for it, so no job ranked below it starts there, until the jobs there end", nodes,
                       verb);
  }
  if (*hold->when <= state_.now) {
    return fmt::format(
        "{} {} held for it; it should fit by now, but jobs there ran past their runtime limit and "
        "may not be stopped, so it waits for them to end",
        nodes, verb);
  }
  return fmt::format(
      "{} {} held for it from {} (when it is expected to fit); until then a job ranked below it may start there only "
      "if its runtime limit ends by then{} (backfill)",
      nodes, verb, support::format_timestamp(*hold->when),
      lends_to_yielders ? ", or if it may yield the capacity back then" : "");
}

// Backfill (EASY, over every hold of this cycle): a job that does not fit in
// the free capacity may use capacity held for a blocked job above it when its
// runtime limit (its own estimate, else its class's `max_runtime`) ends before
// that hold's time, so it delays no held job; or, when it would run past that
// time, if it may yield the capacity back then (may_yield_by): its contract
// says `yields_at`, and take_back_overrun stops it for the hold at that time.
// Holds without a known time lend nothing.
bool CycleRun::backfill(const PendingJob& job, std::size_t position) {
  if (holds_.empty()) return false;
  const ClassInfo& info = tables_.classes[static_cast<std::size_t>(job.job_class)];
  const Seconds limit = runtime_estimate(info, *job.request);
  const bool bounded = limit > 0 && limit <= support::kLatestEpochSeconds - state_.now;
  const Seconds ends = bounded ? state_.now + limit : support::kLatestEpochSeconds;
  std::uint64_t lenders = 0;
  for (std::size_t h = 0; h < holds_.size() && h < 64; ++h) {
    if (!holds_[h].when) continue;
    const bool yields = holds_[h].lends_to_yielders && may_yield_by(job, *holds_[h].when);
    if (ends <= *holds_[h].when || yields) lenders |= std::uint64_t{1} << h;
  }
  if (lenders == 0) return false;
  FailedShapes& failed = backfill_failed_[lenders];
  if (failed.known_to_fail(job.shape)) return false;
  auto lend = [&](bool give) {
    for (std::size_t h = 0; h < holds_.size() && h < 64; ++h) {
      if (!(lenders >> h & 1)) continue;
      if (give) {
        unclaim(holds_[h].nodes, holds_[h].amounts);
      } else {
        claim(holds_[h].nodes, holds_[h].amounts);
      }
    }
  };
  lend(true);
  const auto nodes = pool_.find(job.shape);
  lend(false);
  if (!nodes) {
    failed.remember(job.shape);
    return false;
  }
  Seconds until = support::kLatestEpochSeconds;
  std::optional<Seconds> yields_at;
  std::string for_jobs;
  for (std::size_t h = 0; h < holds_.size() && h < 64; ++h) {
    if (!(lenders >> h & 1)) continue;
    const bool shared = std::any_of(nodes->begin(), nodes->end(), [&](int node) {
      return std::find(holds_[h].nodes.begin(), holds_[h].nodes.end(), node) != holds_[h].nodes.end();
    });
    if (!shared) continue;
    const Seconds when = *holds_[h].when;
    until = std::min(until, when);
    if (ends > when) yields_at = std::min(yields_at.value_or(when), when);
    for_jobs += fmt::format("{}`{}`", for_jobs.empty() ? "" : ", ", holds_[h].job_id);
  }
  if (for_jobs.empty()) {
    start(job, position, *nodes, "");
  } else if (!yields_at) {
    start(job, position, *nodes,
          fmt::format("backfilled: its runtime limit ({}) ends by {}, when the capacity held there for {} is "
                      "needed; it must end by then",
                      support::format_duration(limit), support::format_timestamp(until), for_jobs));
  } else {
    const std::string runs = bounded ? fmt::format("its runtime limit ({}) runs past", support::format_duration(limit))
                                     : std::string("it has no runtime limit, so it may run past");
    start(job, position, *nodes,
          fmt::format("backfilled until {}: {} then, when the capacity held there for {} is needed; it is "
                      "preemptible and resumable, so it yields then (preempted after its grace, it resumes from "
                      "its last checkpoint)",
                      support::format_timestamp(*yields_at), runs, for_jobs));
    actions_.back().contract.yields_at = yields_at;
  }
  return true;
}

// Whether `job` may backfill onto capacity held until `when` and yield it back
// then: its class lets it be preempted and resumed (the job may be requeued,
// checkpoints periodically, and is no fast-lane job, which is never stopped),
// its protection ends by then, and it runs at least one checkpoint interval
// first, so each yield keeps progress. Only some holds lend this way
// (Hold::lends_to_yielders). Yields are no way around the share rule: they
// stop only jobs that took held capacity on this promise, for the job it was
// held for, ranked above them (docs/SCHEDULING.md "Backfill that yields").
bool CycleRun::may_yield_by(const PendingJob& job, Seconds when) const {
  // The contract it would start under now (the same one start() records).
  const Contract contract = contract_at_start(tables_.classes[static_cast<std::size_t>(job.job_class)], *job.request,
                                              state_.now, policy_.source_hash());
  if (!contract.preemptible || !contract.resumable || !job.request->requeueable || contract.checkpoint_every <= 0 ||
      in_fast_lane(job.job_class)) {
    return false;
  }
  return contract.protected_until <= when && state_.now + contract.checkpoint_every <= when;
}

// NodePool::failure_reason, remembered per shape until the capacity changes
// (once the cluster is full, most of a long queue fails for the same few shapes).
const std::string& CycleRun::failure_reason(const NodeRequest& shape) {
  const auto key =
      std::tuple(shape.gpu_type, shape.nodes, shape.gpus_per_node, shape.cpus_per_node, shape.memory_gib_per_node);
  auto it = reasons_.find(key);
  if (it == reasons_.end()) it = reasons_.emplace(key, pool_.failure_reason(shape)).first;
  return it->second;
}

// Starts a job on the capacity reserved for it, or on anything else that fits
// once that capacity is counted as free; keeps the reservation otherwise.
bool CycleRun::start_reserved(const PendingJob& job, std::size_t position) {
  const Reservation reservation = reservations_.at(job.request->id);
  const NodeAmounts amounts{reservation.gpus_per_node, reservation.cpus_per_node, reservation.memory_gib_per_node};
  const double rate = rate_of(ctx_.unit, state_.inventory, reservation.nodes, amounts);
  unclaim(reservation.nodes, amounts);
  balance_.add(job.account, -rate);
  if (auto nodes = pool_.find(job.shape)) {
    reservations_.erase(job.request->id);
    count_fast_lane(job, -1);  // start() counts it again
    capacity_returned();
    start(job, position, *nodes, "the capacity freed for it is free now");
    return true;
  }
  claim(reservation.nodes, amounts);
  balance_.add(job.account, rate);
  return false;
}

// Filled at the first victim search of the cycle.
void CycleRun::prepare_victim_search() {
  if (!lost_now_.empty() || active_.empty()) return;
  lost_now_.reserve(active_.size());
  for (const ActiveJob& active : active_) lost_now_.push_back(lost_gpu_seconds(*active.job, state_.now));
  candidates_on_node_ = preemption_candidates(active_, ctx_.jobs.jobs_on_node, state_.now);
}

bool CycleRun::preempt_for(const PendingJob& job, std::size_t position) {
  if (searches_left_ == 0 || !policy_.has_preempt() || !balance_.any_below_share_on_path(job.account)) return false;
  --searches_left_;
  prepare_victim_search();
  const VictimInputs inputs{policy_,
                            ctx_.running_table,
                            ctx_.pending_table,
                            ctx_.accounts.table(),
                            ctx_.cluster,
                            active_,
                            candidates_on_node_,
                            pool_,
                            balance_,
                            lost_now_,
                            state_.now};
  const auto choice = find_victims(inputs, job);
  if (!choice) return false;
  stop_for(
      job, position, choice->victims, choice->nodes,
      [&](const RunningJob& running) {
        return fmt::format("preempted for `{}`: `{}` is below its share and `{}` keeps at least its own",
                           job.request->id, job.request->account, running.request.account);
      },
      fmt::format("after preempting {} job{}", choice->victims.size(), choice->victims.size() == 1 ? "" : "s"));
  return true;
}

// The fast lane of the job's class (ClassInfo::fast_lane_gpus): it may stop
// running jobs past their protection that are not themselves of a fast-lane
// class, without the share rule or `preempt`, while the jobs of its class in
// its program hold at most the lane's GPUs. Why it stays loop-free:
// docs/SCHEDULING.md "Fast lane". `why` says why it did not, for the reason.
bool CycleRun::fast_lane(const PendingJob& job, std::size_t position, std::string& why) {
  if (job.account < 0 || !in_fast_lane(job.job_class)) return false;
  const ClassInfo& info = tables_.classes[static_cast<std::size_t>(job.job_class)];
  const int program = program_of(tables_, job.account);
  const std::string& program_path = tables_.accounts[static_cast<std::size_t>(program)].path;
  const long long held = fast_lane_held_[{job.job_class, program}];
  const long long wanted = static_cast<long long>(job.shape.nodes) * job.shape.gpus_per_node;
  if (held + wanted > info.fast_lane_gpus) {
    why = fmt::format("the fast lane of class `{}` is full for `{}`: its jobs of the class hold {} of its {} GPU{}",
                      info.name, program_path, held, info.fast_lane_gpus, info.fast_lane_gpus == 1 ? "" : "s");
    return false;
  }
  if (searches_left_ == 0) return false;
  --searches_left_;
  prepare_victim_search();
  VictimInputs inputs{policy_,
                      ctx_.running_table,
                      ctx_.pending_table,
                      ctx_.accounts.table(),
                      ctx_.cluster,
                      active_,
                      candidates_on_node_,
                      pool_,
                      balance_,
                      lost_now_,
                      state_.now};
  inputs.fast_lane = true;
  std::vector<NodeAmounts> lendable(state_.inventory.nodes.size());
  for (const Hold& hold : holds_) {
    for (int node : hold.nodes) {
      NodeAmounts& held = lendable[static_cast<std::size_t>(node)];
      held = {held.gpus + hold.amounts.gpus, held.cpus + hold.amounts.cpus, held.memory_gib + hold.amounts.memory_gib};
    }
  }
  inputs.lendable = &lendable;
  const auto choice = find_victims(inputs, job);
  if (!choice) {
    why = fmt::format("its fast lane (class `{}`) finds no running job past its protection that could make room",
                      info.name);
    return false;
  }
  stop_for(
      job, position, choice->victims, choice->nodes,
      [&](const RunningJob&) {
        return fmt::format(
            "preempted for `{}` through the fast lane of class `{}` (short jobs, protected for their whole run; "
            "`{}` may hold up to {} GPU{} this way)",
            job.request->id, info.name, program_path, info.fast_lane_gpus, info.fast_lane_gpus == 1 ? "" : "s");
      },
      fmt::format("through the fast lane of class `{}` after preempting {} job{}", info.name, choice->victims.size(),
                  choice->victims.size() == 1 ? "" : "s"));
  return true;
}

bool CycleRun::in_fast_lane(int job_class) const {
  return job_class >= 0 && tables_.classes[static_cast<std::size_t>(job_class)].fast_lane_gpus > 0;
}

// Adds (sign 1) or removes (-1) a started or reserved job in its class's fast lane.
void CycleRun::count_fast_lane(const PendingJob& job, int sign) {
  if (job.account < 0 || !in_fast_lane(job.job_class)) return;
  fast_lane_held_[{job.job_class, program_of(tables_, job.account)}] +=
      static_cast<long long>(sign) * job.shape.nodes * job.shape.gpus_per_node;
}

// Stops `victims` (each after its grace, `why` its reason) for `job`, which
// then takes `nodes` (take_freed).
void CycleRun::stop_for(const PendingJob& job, std::size_t position, const std::vector<int>& victims,
                        const std::vector<int>& nodes, const std::function<std::string(const RunningJob&)>& why,
                        const std::string& freed) {
  Seconds release = state_.now;
  for (int victim : victims) {
    const RunningJob& running = *active_[static_cast<std::size_t>(victim)].job;
    const Seconds stops_at = state_.now + std::max<Seconds>(0, running.contract.grace);
    release = std::max(release, stops_at);
    stop(victim, stops_at, lost_gpu_seconds(running, state_.now), job.request->id, why(running));
  }
  take_freed(job, position, nodes, release, freed);
}

// The job starts on `nodes` freed for it by stops at `release` at the latest:
// now when they stop now, else it waits with the capacity reserved for it.
void CycleRun::take_freed(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, Seconds release,
                          const std::string& freed) {
  if (release <= state_.now) return start(job, position, nodes, freed);
  const NodeAmounts amounts = per_node(job.shape);
  Reservation reservation{job.request->id, nodes,        release + options_.reservation_ttl,
                          amounts.gpus,    amounts.cpus, amounts.memory_gib};
  claim(reservation.nodes, amounts);
  balance_.add(job.account, job_rate(job, reservation.nodes));
  count_fast_lane(job, 1);
  skip(job, position,
       fmt::format("capacity on {} is reserved for it {}; they stop by {} (their grace)",
                   node_list(state_.inventory, reservation.nodes), freed, support::format_timestamp(release)));
  reservations_.emplace(job.request->id, std::move(reservation));
}

// The held job should fit by now, but jobs on its nodes ran past what they
// promised backfill: their runtime limit, or the time they were backfilled to
// yield at (Contract::yields_at). Those whose contract lets them be stopped
// (preemptible, requeueable, past their protection; a yielding job always is)
// stop for it, share rule or not: the capacity was only lent to them. If any of
// them may not be stopped, the held job waits for them to end.
bool CycleRun::take_back_overrun(const PendingJob& job, std::size_t position, const std::vector<int>& nodes) {
  std::vector<int> overrun;
  for (int node : nodes) {
    for (int index : ctx_.jobs.jobs_on_node[static_cast<std::size_t>(node)]) {
      const ActiveJob& active = active_[static_cast<std::size_t>(index)];
      if (active.stopping || active.stopped) continue;
      if (std::find(overrun.begin(), overrun.end(), index) != overrun.end()) continue;
      const RunningJob& running = *active.job;
      const Seconds limit =
          active.job_class >= 0
              ? runtime_estimate(tables_.classes[static_cast<std::size_t>(active.job_class)], running.request)
              : running.request.expected_runtime;
      const bool past_limit = limit > 0 && running.started < state_.now - limit;
      const bool past_yield = running.contract.yields_at && *running.contract.yields_at <= state_.now;
      if (!past_limit && !past_yield) continue;  // within what it promised, or it promised nothing
      if (stop_refusal(running, state_.now)) return false;
      overrun.push_back(index);
    }
  }
  if (overrun.empty()) return false;
  stop_for(
      job, position, overrun, nodes,
      [&](const RunningJob& running) {
        if (running.contract.yields_at && *running.contract.yields_at <= state_.now) {
          return fmt::format("yields the capacity it was backfilled onto: it was held for `{}`, whose time has come",
                             job.request->id);
        }
        return fmt::format("ran past its runtime limit on capacity held for `{}`, whose time has come",
                           job.request->id);
      },
      fmt::format("after stopping {} job{} past what {} promised backfill", overrun.size(),
                  overrun.size() == 1 ? "" : "s", overrun.size() == 1 ? "it" : "they"));
  return true;
}

// A running job stops (preempted or drained): it leaves the share balance
// now, and gives its nodes back now if it stops now.
void CycleRun::stop(int active, Seconds stops_at, double lost, const std::string& for_job, std::string reason) {
  ActiveJob& job = active_[static_cast<std::size_t>(active)];
  job.stopping = true;
  if (job.account >= 0) balance_.add(job.account, -job.rate);
  if (stops_at <= state_.now) {
    job.stopped = true;
    pool_.give(job.job->nodes, job.per_node);
    capacity_returned();
  } else {
    add_stopping(job.job->nodes, job.per_node);
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

void CycleRun::start(const PendingJob& job, std::size_t position, const std::vector<int>& nodes, std::string reason) {
  pool_.take(nodes, per_node(job.shape));
  reasons_.clear();
  balance_.add(job.account, job_rate(job, nodes));
  count_fast_lane(job, 1);
  const ClassInfo& info = tables_.classes[static_cast<std::size_t>(job.job_class)];
  Decision decision = job_decision(DecisionKind::start, *job.request, job.account, job.job_class);
  decision.rank = ctx_.ranks[job.row];
  decision.position = static_cast<int>(position);
  decision.nodes = nodes;
  decision.contract = contract_at_start(info, *job.request, state_.now, policy_.source_hash());
  decision.terms = rank_terms(policy_, ctx_.pending_table, job.row, ctx_.accounts, job.account);
  decision.reason =
      fmt::format("starts on {}, {} in the queue", node_list(state_.inventory, nodes), ordinal(position + 1));
  if (!reason.empty()) decision.reason += ", " + reason;
  actions_.push_back(std::move(decision));
}

void CycleRun::skip(const PendingJob& job, std::size_t position, std::string reason) {
  if (!options_.record_skips) return;
  Decision decision = job_decision(DecisionKind::skip, *job.request, job.account, job.job_class);
  decision.position = static_cast<int>(position);
  if (job.problem.empty()) {
    decision.rank = ctx_.ranks[job.row];
    if (skips_.size() < options_.explained_skips) {
      decision.terms = rank_terms(policy_, ctx_.pending_table, job.row, ctx_.accounts, job.account);
    }
  } else {
    decision.position = -1;
  }
  decision.reason = std::move(reason);
  skips_.push_back(std::move(decision));
}

// Capacity came back (a job stopped, a reservation was used): shapes that
// failed may fit now, and their reasons may have changed.
void CycleRun::capacity_returned() {
  failed_.forget();
  reasons_.clear();
}

void CycleRun::claim(const std::vector<int>& nodes, const NodeAmounts& amounts) {
  pool_.take(nodes, amounts);
  for (int node : nodes) {
    NodeAmounts& claimed = claimed_[static_cast<std::size_t>(node)];
    claimed = {claimed.gpus + amounts.gpus, claimed.cpus + amounts.cpus, claimed.memory_gib + amounts.memory_gib};
    retally(node);
  }
}

void CycleRun::unclaim(const std::vector<int>& nodes, const NodeAmounts& amounts) {
  claim(nodes, NodeAmounts{-amounts.gpus, -amounts.cpus, -amounts.memory_gib});
}

void CycleRun::add_stopping(const std::vector<int>& nodes, const NodeAmounts& amounts) {
  for (int node : nodes) {
    NodeAmounts& stopping = stopping_[static_cast<std::size_t>(node)];
    stopping = {stopping.gpus + amounts.gpus, stopping.cpus + amounts.cpus, stopping.memory_gib + amounts.memory_gib};
    retally(node);
  }
}

// Gives the pool back (or takes) the change in the overlap of stopping and
// claimed capacity on `node`.
void CycleRun::retally(int node) {
  const auto n = static_cast<std::size_t>(node);
  const NodeAmounts overlap{std::min(stopping_[n].gpus, claimed_[n].gpus),
                            std::min(stopping_[n].cpus, claimed_[n].cpus),
                            std::min(stopping_[n].memory_gib, claimed_[n].memory_gib)};
  const NodeAmounts change{overlap.gpus - overlap_[n].gpus, overlap.cpus - overlap_[n].cpus,
                           overlap.memory_gib - overlap_[n].memory_gib};
  if (change.gpus == 0 && change.cpus == 0 && change.memory_gib == 0) return;
  overlap_[n] = overlap;
  const int nodes[] = {node};
  pool_.give(nodes, change);
  if (change.gpus > 0 || change.cpus > 0 || change.memory_gib > 0) capacity_returned();
}

// The names come from the policy's tables when the job's are known there:
// the same text, but a few hot strings instead of one cold one per job.
Decision CycleRun::job_decision(DecisionKind kind, const JobRequest& request, int account, int job_class) const {
  Decision decision;
  decision.kind = kind;
  decision.job_id = request.id;
  decision.account = account >= 0 ? tables_.accounts[static_cast<std::size_t>(account)].path : request.account;
  decision.job_class = job_class >= 0 ? tables_.classes[static_cast<std::size_t>(job_class)].name : request.job_class;
  return decision;
}

double CycleRun::job_rate(const PendingJob& job, const std::vector<int>& nodes) const {
  return rate_of(ctx_.unit, state_.inventory, nodes, per_node(job.shape));
}

}  // namespace

namespace cycle {

CycleResult run_cycle(const CycleContext& context, const CycleOptions& options) {
  return CycleRun(context, options).run();
}

}  // namespace cycle

CycleResult run_cycle(const ClusterState& state, const CompiledPolicy& policy, const CycleOptions& options) {
  return cycle::run_cycle(cycle::CycleContext(state, policy), options);
}

}  // namespace allot::runtime
