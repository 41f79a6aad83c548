// Jobs moving through the simulation: arrival, start, stop (preemption or
// drain, then requeue), completion; the ledger charged as they run.
#include <algorithm>
#include <unordered_map>

#include "allot/accounting.h"
#include "allot/contracts.h"
#include "simulation.h"

namespace allot::simulator {
namespace {

using runtime::last_safe_point;
using runtime::RunningJob;

double held_gpus(const RunningJob& job) { return static_cast<double>(job.nodes.size()) * job.request.gpus_per_node; }

}  // namespace

runtime::JobRequest Simulation::request_for(int job) const {
  const auto index = static_cast<std::size_t>(job);
  return workload_request(workload_.jobs[index],
                          policy_.tables().classes[static_cast<std::size_t>(classes_[index])].name);
}

int Simulation::index_of(const std::string& id) const { return index_.at(id); }

void Simulation::arrive(int job) {
  const WorkloadJob& source = workload_.jobs[static_cast<std::size_t>(job)];
  JobState& state = jobs_[static_cast<std::size_t>(job)];
  state.status = Status::waiting;
  state.gpus = source.nodes * source.gpus_per_node;
  state.account_node = *book_.node_of(source.account);
  state.pending_rate = source.gpu_type.empty()
                           ? average_gpu_rate_ * state.gpus
                           : unit_.rate_per_hour(runtime::ResourceUse{source.gpu_type, 1.0 * state.gpus});
  book_.add_load(state.account_node, state.pending_rate, 0);
  state_.pending.push_back(request_for(job));
  ++waiting_by_class_[static_cast<std::size_t>(classes_[static_cast<std::size_t>(job)])];
}

// Runs a cycle; once more when jobs were requeued, so they and the capacity
// they freed are considered at once rather than at the next periodic cycle.
void Simulation::run_cycles() {
  if (run_one_cycle() && !state_.pending.empty()) run_one_cycle();
}

bool Simulation::run_one_cycle() {
  if (now_ >= last_refresh_ + options_.ledger_refresh) refresh_ledger();
  apply_checkpoints();
  const runtime::CycleResult result = runtime::run_cycle(state_, policy_, options_.cycle);
  ++result_.cycles;
  last_cycle_ = now_;
  if (options_.on_cycle) options_.on_cycle(state_, result);
  const bool requeued = handle_stops(result);
  runtime::apply_decisions(state_, result);
  for (const runtime::Decision& decision : result.decisions) {
    if (decision.kind == runtime::DecisionKind::start) started(decision);
  }
  return requeued;
}

// Jobs that stop now (preempted without a grace, at a passed stop time, or on
// a down node) are closed before apply_decisions requeues them; a later stop
// gets an event at its time. True when some job stops now.
bool Simulation::handle_stops(const runtime::CycleResult& result) {
  std::unordered_map<std::string_view, Seconds> preempted;
  for (const runtime::Decision& decision : result.decisions) {
    if (decision.kind != runtime::DecisionKind::preempt) continue;
    preempted.emplace(decision.job_id, decision.stops_at);
    // Preempted for a job with a grace: the grace begins with the checkpoint
    // signal (docs/LANGUAGE.md `grace`). Drains stop at checkpoints or deadlines.
    if (!decision.for_job.empty() && decision.stops_at > now_) {
      jobs_[static_cast<std::size_t>(index_of(decision.job_id))].signalled = now_;
    }
  }
  bool stopping_now = false;
  for (const RunningJob& job : state_.running) {
    const auto decided = preempted.find(job.request.id);
    std::optional<Seconds> stop = job.stopping_at;
    if (!stop && decided != preempted.end()) stop = decided->second;
    if (!stop) continue;
    if (*stop <= now_) {
      stopped(job, *stop);
      stopping_now = true;
    } else if (!job.stopping_at) {
      const int index = index_of(job.request.id);
      push(Event{*stop, EventKind::stop, 0, index, jobs_[static_cast<std::size_t>(index)].run});
    }
  }
  return stopping_now;
}

void Simulation::started(const runtime::Decision& decision) {
  const int index = index_of(decision.job_id);
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
  job.status = Status::running;
  job.run += 1;
  job.started = now_;
  job.charged_until = now_;
  job.gpu_type = &state_.inventory.gpu_type_name(static_cast<std::size_t>(decision.nodes.front()));
  job.rate = unit_.rate_per_hour(runtime::ResourceUse{*job.gpu_type, 1.0 * job.gpus});
  book_.add_load(job.account_node, job.rate - job.pending_rate, job.rate);
  --waiting_by_class_[static_cast<std::size_t>(classes_[static_cast<std::size_t>(index)])];
  if (outcome.first_start < 0) outcome.first_start = now_;
  const Seconds remaining = workload_.jobs[static_cast<std::size_t>(index)].work - job.saved;
  push(Event{now_ + std::max<Seconds>(0, remaining), EventKind::completion, 0, index, job.run});
}

// A preempted or drained job stops at `at` and goes back to the queue.
void Simulation::stopped(const RunningJob& running, Seconds at) {
  const int index = index_of(running.request.id);
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
  close_run(index, running, at);
  // A resumable job told to checkpoint when its grace began keeps its work up
  // to then; the grace it spent saving is lost.
  Seconds safe = last_safe_point(running, at);
  if (running.contract.resumable && job.signalled >= running.started)
    safe = std::max(safe, std::min(at, job.signalled));
  job.signalled = -1;
  job.saved = running.contract.resumable ? job.saved + (safe - running.started) : 0;
  const double lost = held_gpus(running) * static_cast<double>(at - safe);
  outcome.lost_gpu_seconds += lost;
  outcome.stops += 1;
  timeline_.add_lost(at, lost);
  job.status = Status::waiting;
  ++waiting_by_class_[static_cast<std::size_t>(classes_[static_cast<std::size_t>(index)])];
  book_.add_load(job.account_node, job.pending_rate - job.rate, -job.rate);
}

void Simulation::complete(int index) {
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  const std::string& id = workload_.jobs[static_cast<std::size_t>(index)].id;
  const auto found = std::find_if(state_.running.begin(), state_.running.end(),
                                  [&](const RunningJob& running) { return running.request.id == id; });
  if (found == state_.running.end()) return;
  close_run(index, *found, now_);
  JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
  outcome.completed = now_;
  if (outcome.first_progress < 0 || outcome.first_progress > now_) outcome.first_progress = now_;
  job.status = Status::done;
  job.saved = workload_.jobs[static_cast<std::size_t>(index)].work;
  book_.add_load(job.account_node, -job.rate, -job.rate);
  state_.running.erase(found);
}

// Ends a run at `at`: charges it, counts its GPU-time and its first checkpoint.
void Simulation::close_run(int index, const RunningJob& running, Seconds at) {
  charge(index, running, at);
  JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
  outcome.gpu_seconds += held_gpus(running) * static_cast<double>(std::max<Seconds>(0, at - running.started));
  const Seconds every = running.contract.checkpoint_every;
  const Seconds first_checkpoint = running.started + every;
  if (running.contract.resumable && every > 0 && first_checkpoint <= at && outcome.first_progress < 0) {
    outcome.first_progress = first_checkpoint;
  }
}

void Simulation::charge(int index, const RunningJob& running, Seconds until) {
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  if (until <= job.charged_until) return;
  const runtime::ResourceUse use{*job.gpu_type, held_gpus(running), 0, 0};
  ledger_.charge(runtime::Charge{running.request.account, running.request.id, job.charged_until, until, use});
  job.charged_until = until;
}

// Charges every running job up to now and gives the cycle fresh usage and debt.
void Simulation::refresh_ledger() {
  for (const RunningJob& running : state_.running) charge(index_of(running.request.id), running, now_);
  state_.usage = ledger_.usage_by_account(now_);
  state_.debt = book_.debt(now_);
  last_refresh_ = now_;
}

// Periodic checkpoints written since the last cycle.
void Simulation::apply_checkpoints() {
  for (RunningJob& running : state_.running) {
    if (running.contract.resumable && running.contract.checkpoint_every > 0) {
      running.last_checkpoint = last_safe_point(running, now_);
    }
  }
}

// The replay ends: running jobs are charged and counted up to the end.
void Simulation::finish() {
  for (const RunningJob& running : state_.running) close_run(index_of(running.request.id), running, now_);
}

}  // namespace allot::simulator
