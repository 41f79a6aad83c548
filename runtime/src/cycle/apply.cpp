// apply_decisions (allot/cycle.h): what a simulator does with a cycle's result.
#include <algorithm>
#include <unordered_map>

#include "allot/cycle.h"

namespace allot::runtime {
namespace {

JobRequest requeued(JobRequest request, Seconds now) {
  request.restarts += 1;
  request.queued = now;
  return request;
}

}  // namespace

void apply_decisions(ClusterState& state, const CycleResult& result) {
  std::unordered_map<std::string_view, const Decision*> starts;
  std::unordered_map<std::string_view, Seconds> stops;
  for (const Decision& decision : result.decisions) {
    if (decision.kind == DecisionKind::start) starts.emplace(decision.job_id, &decision);
    if (decision.kind == DecisionKind::preempt) stops.emplace(decision.job_id, decision.stops_at);
  }
  std::vector<RunningJob> running;
  std::vector<JobRequest> requeue;
  for (RunningJob& job : state.running) {
    const auto stop = stops.find(job.request.id);
    if (stop != stops.end() && !job.stopping_at) job.stopping_at = stop->second;
    if (job.stopping_at && *job.stopping_at <= result.now) {
      requeue.push_back(requeued(std::move(job.request), result.now));
    } else {
      running.push_back(std::move(job));
    }
  }
  std::vector<JobRequest> pending;
  for (JobRequest& job : state.pending) {
    const auto start = starts.find(job.id);
    if (start == starts.end()) {
      pending.push_back(std::move(job));
      continue;
    }
    const Decision& decision = *start->second;
    running.push_back(RunningJob{std::move(job), result.now, result.now, decision.nodes, decision.contract,
                                 std::nullopt, std::nullopt});
  }
  // Requeued jobs join the back of the list; the cycle orders by rank anyway.
  pending.insert(pending.end(), std::make_move_iterator(requeue.begin()), std::make_move_iterator(requeue.end()));
  state.running = std::move(running);
  state.pending = std::move(pending);
  state.reservations = result.reservations;
}

}  // namespace allot::runtime
