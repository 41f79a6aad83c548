// apply_decisions (allot/cycle.h): what a simulator does with a cycle's result.
#include <algorithm>
#include <unordered_map>

#include "allot/cycle.h"

namespace allot::runtime {
namespace {

// Its content changes, so its revision (JobRequest::revision) is no longer
// known: the driver may give it a new one.
JobRequest requeued(JobRequest request, Seconds now) {
  request.restarts += 1;
  request.queued = now;
  request.revision = 0;
  return request;
}

}  // namespace

// In place: a job that stays is moved only when a job before it left (a
// saturated replay applies a cycle to thousands of waiting jobs, few of which
// start), and the lists are searched only when something starts or stops. The
// order is what it always was: running jobs that stay, then the started ones in
// pending order; pending jobs that stay, then the requeued ones in running order.
void apply_decisions(ClusterState& state, const CycleResult& result) {
  std::unordered_map<std::string_view, const Decision*> starts;
  std::unordered_map<std::string_view, Seconds> stops;
  for (const Decision& decision : result.decisions) {
    if (decision.kind == DecisionKind::start) starts.emplace(decision.job_id, &decision);
    if (decision.kind == DecisionKind::preempt) stops.emplace(decision.job_id, decision.stops_at);
  }
  std::vector<JobRequest> requeue;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < state.running.size(); ++i) {
    RunningJob& job = state.running[i];
    if (!stops.empty()) {
      const auto stop = stops.find(job.request.id);
      if (stop != stops.end() && !job.stopping_at) job.stopping_at = stop->second;
    }
    if (job.stopping_at && *job.stopping_at <= result.now) {
      requeue.push_back(requeued(std::move(job.request), result.now));
      continue;
    }
    if (kept != i) state.running[kept] = std::move(job);
    ++kept;
  }
  state.running.resize(kept);
  if (!starts.empty()) {
    kept = 0;
    for (std::size_t i = 0; i < state.pending.size(); ++i) {
      JobRequest& job = state.pending[i];
      const auto start = starts.find(job.id);
      if (start == starts.end()) {
        if (kept != i) state.pending[kept] = std::move(job);
        ++kept;
        continue;
      }
      const Decision& decision = *start->second;
      state.running.push_back(RunningJob{std::move(job), result.now, result.now, decision.nodes, decision.contract,
                                         std::nullopt, std::nullopt});
    }
    state.pending.resize(kept);
  }
  // Requeued jobs join the back of the list; the cycle orders by rank anyway.
  state.pending.insert(state.pending.end(), std::make_move_iterator(requeue.begin()),
                       std::make_move_iterator(requeue.end()));
  state.reservations = result.reservations;
}

}  // namespace allot::runtime
