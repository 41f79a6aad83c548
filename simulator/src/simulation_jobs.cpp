// Jobs moving through the simulation: arrival, start, stop (preemption or
// drain, then requeue), completion, a hung run's end at its time limit; the
// ledger charged as they run, and what they report (progress, checkpoints).
#include <algorithm>
#include <limits>
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

runtime::JobRequest Simulation::request_for(int job) {
  const auto index = static_cast<std::size_t>(job);
  runtime::JobRequest request =
      workload_request(workload_.jobs[index], policy_.tables().classes[static_cast<std::size_t>(classes_[index])].name);
  request.revision = ++last_revision_;
  return request;
}

int Simulation::index_of(const std::string& id) const { return index_.at(id); }

// Between two calls, jobs leave state_.running (their followers keep their
// order) and join at its end, so the memo's entry at a position is mostly
// right, or the next one is (the job there left). Each entry is checked
// against the running job's id; one that fails is looked up by hash.
const std::vector<int>& Simulation::running_indexes() {
  std::vector<int>& memo = running_indexes_;
  const auto holds = [&](std::size_t position, const std::string& id) {
    return workload_.jobs[static_cast<std::size_t>(memo[position])].id == id;
  };
  for (std::size_t p = 0; p < state_.running.size(); ++p) {
    const std::string& id = state_.running[p].request.id;
    if (p < memo.size() && holds(p, id)) continue;
    if (p + 1 < memo.size() && holds(p + 1, id)) {
      memo.erase(memo.begin() + static_cast<std::ptrdiff_t>(p));
    } else if (p < memo.size()) {
      memo[p] = index_of(id);
    } else {
      memo.push_back(index_of(id));
    }
  }
  memo.resize(state_.running.size());
  return memo;
}

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
  apply_reports();
  runtime::CycleResult result = runtime::run_cycle(state_, policy_, cycle_options_, cycle_cache_);
  ++result_.cycles;
  last_cycle_ = now_;
  if (options_.on_cycle) options_.on_cycle(state_, result);
  const bool requeued = handle_stops(result);
  runtime::apply_decisions(state_, result);
  // apply_decisions requeues at the back, with a revision no longer known.
  for (auto job = state_.pending.rbegin(); job != state_.pending.rend() && job->revision == 0; ++job) {
    job->revision = ++last_revision_;
  }
  for (const runtime::Decision& decision : result.decisions) {
    if (decision.kind == runtime::DecisionKind::start) started(decision);
  }
  cycle_cache_.give_back(std::move(result));
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
  for (RunningJob& job : state_.running) {
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
  const WorkloadJob& source = workload_.jobs[static_cast<std::size_t>(index)];
  job.hangs_at = -1;
  if (source.hangs_after && !job.hung_once && *source.hangs_after >= job.saved && *source.hangs_after < source.work) {
    job.hangs_at = now_ + (*source.hangs_after - job.saved);
    // Hung, it never completes: its time limit (its work, as its request
    // says) ends the run, unless the scheduler stops it first.
    push(Event{now_ + source.work, EventKind::completion, 0, index, job.run});
    // A scheduler that cycles all the time sees the stall when it begins.
    const auto running = std::find_if(state_.running.rbegin(), state_.running.rend(),
                                      [&](const RunningJob& run) { return run.request.id == decision.job_id; });
    if (running != state_.running.rend()) {
      RunningJob silent = *running;
      silent.last_progress = job.hangs_at;
      if (const auto stall = runtime::stalled_since(silent, std::numeric_limits<Seconds>::max()))
        push(Event{*stall, EventKind::stop, 0, index, job.run});
    }
    return;
  }
  const Seconds remaining = source.work - job.saved;
  push(Event{now_ + std::max<Seconds>(0, remaining), EventKind::completion, 0, index, job.run});
}

// A preempted or drained job stops at `at` and goes back to the queue
// (apply_decisions moves it there).
void Simulation::stopped(RunningJob& running, Seconds at) {
  const int index = index_of(running.request.id);
  requeue_run(index, running, at);
  outcomes_[static_cast<std::size_t>(index)].stops += 1;
  end_hang(index, running, at, true);
}

// Ends a run that goes back to the queue: what it keeps of its work, what it
// lost, and the job waiting again.
void Simulation::requeue_run(int index, RunningJob& running, Seconds at) {
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
  close_run(index, running, at);
  // A hung job did no work after it hung, and saved none.
  const Seconds worked = job.hung(at) ? job.hangs_at : at;
  // A resumable job told to checkpoint when its grace began keeps its work up
  // to then; the grace it spent saving is lost.
  Seconds safe = last_safe_point(running, worked);
  if (running.contract.resumable && job.signalled >= running.started && job.signalled <= worked)
    safe = std::max(safe, job.signalled);
  job.signalled = -1;
  job.saved = running.contract.resumable ? job.saved + (safe - running.started) : 0;
  const double lost = held_gpus(running) * static_cast<double>(worked - safe);
  outcome.lost_gpu_seconds += lost;
  if (job.hung(at)) outcome.hung_lost_gpu_seconds += lost;
  timeline_.add_lost(at, lost);
  job.status = Status::waiting;
  ++waiting_by_class_[static_cast<std::size_t>(classes_[static_cast<std::size_t>(index)])];
  book_.add_load(job.account_node, job.pending_rate - job.rate, -job.rate);
}

// What a hung run cost when it ends at `at`: the GPU-time it held while hung,
// and, when the scheduler stopped it, what it would still have held until its
// time limit (or the replay's end). Its next run does not hang.
void Simulation::end_hang(int index, const RunningJob& running, Seconds at, bool stopped) {
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  if (job.hung(at)) {
    JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
    const Seconds limit =
        std::min(running.started + workload_.jobs[static_cast<std::size_t>(index)].work, workload_.end);
    outcome.hung = true;
    outcome.hung_gpu_seconds += held_gpus(running) * static_cast<double>(at - job.hangs_at);
    if (stopped) {
      outcome.hung_stopped = true;
      outcome.recovered_gpu_seconds += held_gpus(running) * static_cast<double>(std::max<Seconds>(0, limit - at));
    }
    job.hung_once = true;
  }
  job.hangs_at = -1;
}

// A run completes, or a hung run reaches its time limit: then its owner
// resubmits the job, which resumes from its last checkpoint.
void Simulation::complete(int index) {
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  const std::string& id = workload_.jobs[static_cast<std::size_t>(index)].id;
  const auto found = std::find_if(state_.running.begin(), state_.running.end(),
                                  [&](const RunningJob& running) { return running.request.id == id; });
  if (found == state_.running.end()) return;
  if (job.hung(now_)) {
    requeue_run(index, *found, now_);
    end_hang(index, *found, now_, false);
    state_.running.erase(found);
    state_.pending.push_back(request_for(index));
    return;
  }
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
void Simulation::close_run(int index, RunningJob& running, Seconds at) {
  charge(index, running, at);
  const JobState& job = jobs_[static_cast<std::size_t>(index)];
  JobOutcome& outcome = outcomes_[static_cast<std::size_t>(index)];
  outcome.gpu_seconds += held_gpus(running) * static_cast<double>(std::max<Seconds>(0, at - running.started));
  const Seconds every = running.contract.checkpoint_every;
  const Seconds first_checkpoint = running.started + every;
  const Seconds worked = job.hung(at) ? job.hangs_at : at;
  if (running.contract.resumable && every > 0 && first_checkpoint <= worked && outcome.first_progress < 0) {
    outcome.first_progress = first_checkpoint;
  }
}

// Charged as every driver charges (runtime::holding_charges): from the moment a
// hung job is stalled under its class's progress rule, the time is also marked
// held without progress.
void Simulation::charge(int index, RunningJob& running, Seconds until) {
  JobState& job = jobs_[static_cast<std::size_t>(index)];
  if (until <= job.charged_until) return;
  report(job, running, until);
  const runtime::ResourceUse use{*job.gpu_type, held_gpus(running), 0, 0};
  for (const runtime::Charge& part :
       runtime::holding_charges(running, running.request.account, job.charged_until, until, use)) {
    ledger_.charge(part);
  }
  job.charged_until = until;
}

// What a running job has reported by `at`: progress all along, and its
// periodic checkpoints, up to `at` or up to the moment it hung; nothing after.
// The replay takes the reports as continuous; a real job's come every few minutes.
void Simulation::report(const JobState& job, RunningJob& running, Seconds at) const {
  const bool hung = job.hung(at);
  const Seconds until = hung ? job.hangs_at : at;
  if (running.contract.resumable && running.contract.checkpoint_every > 0 && !running.checkpoint_reported) {
    running.last_checkpoint = std::max(running.last_checkpoint, last_safe_point(running, until));
  }
  // Its checkpoints stop with it: none is assumed after the last one it wrote.
  if (hung) running.checkpoint_reported = true;
  running.last_progress = std::max(running.last_progress.value_or(until), until);
}

// Charges every running job up to now and gives the cycle fresh usage and debt.
void Simulation::refresh_ledger() {
  const std::vector<int>& indexes = running_indexes();
  for (std::size_t p = 0; p < indexes.size(); ++p) charge(indexes[p], state_.running[p], now_);
  state_.usage = ledger_.usage_by_account(now_);
  state_.debt = book_.debt(now_);
  last_refresh_ = now_;
}

// What the running jobs reported since the last cycle, before the cycle reads them.
void Simulation::apply_reports() {
  const std::vector<int>& indexes = running_indexes();
  for (std::size_t p = 0; p < indexes.size(); ++p) {
    report(jobs_[static_cast<std::size_t>(indexes[p])], state_.running[p], now_);
  }
}

// The replay ends: running jobs are charged and counted up to the end, and a
// hung one's time since it hung.
void Simulation::finish() {
  for (RunningJob& running : state_.running) {
    const int index = index_of(running.request.id);
    close_run(index, running, now_);
    end_hang(index, running, now_, false);
  }
}

}  // namespace allot::simulator
