#include "simulation.h"

#include <algorithm>

#include "allot/accounting.h"
#include "allot/contracts.h"
#include "capacity_levels.h"

namespace allot::simulator {

Simulation::Simulation(const Workload& workload, const runtime::Inventory& inventory, const CompiledPolicy& policy,
                       const SimulationOptions& options, std::vector<int> classes)
    : workload_(workload),
      policy_(policy),
      options_(options),
      classes_(std::move(classes)),
      cycle_options_(options.cycle),
      ledger_(runtime::ledger_config(policy.tables(), inventory)),
      unit_(runtime::unit_weights(policy.tables(), inventory)),
      capacity_rate_(runtime::capacity_rate(unit_, inventory)),
      average_gpu_rate_(runtime::average_gpu_rate(unit_, inventory)),
      book_(policy.tables(), ledger_.config().window),
      timeline_(workload.start, workload.end, options.bucket, book_.programs().size()) {
  if (!options.on_cycle) cycle_options_.record_skips = false;
  state_.inventory = inventory;
  state_.now = workload.start;
  jobs_.resize(workload.jobs.size());
  waiting_by_class_.assign(policy.tables().classes.size(), 0);
  result_.class_waits.assign(policy.tables().classes.size(), ShortfallHours{});
  outcomes_.resize(workload.jobs.size());
  for (std::size_t i = 0; i < workload.jobs.size(); ++i) {
    index_.emplace(workload.jobs[i].id, static_cast<int>(i));
    outcomes_[i].job_class = classes_[i];
  }
}

SimulationResult Simulation::run() {
  now_ = workload_.start;
  schedule_node_events();
  measure_levels();
  while (const auto next = next_time()) {
    if (*next >= workload_.end) break;
    advance_to(*next);
    const bool waiting = !state_.pending.empty();
    cycle_due_ |= handle_events();
    const bool periodic = waiting && now_ >= last_cycle_ + options_.cycle_interval;
    if ((cycle_due_ && now_ >= last_cycle_ + options_.min_cycle_gap) || periodic) {
      run_cycles();
      cycle_due_ = false;
    }
    measure_levels();
    report_progress();
  }
  advance_to(workload_.end);
  finish();
  result_.jobs = std::move(outcomes_);
  result_.timeline = timeline_.timeline();
  result_.programs = book_.programs();
  result_.used_unit_hours = book_.used_hours();
  result_.unassigned_unit_hours = book_.unassigned_hours();
  result_.beyond_user_share_unit_hours = book_.beyond_user_share_hours();
  return std::move(result_);
}

// The next arrival, event, or periodic cycle (only while jobs wait).
std::optional<Seconds> Simulation::next_time() const {
  std::optional<Seconds> next;
  const auto consider = [&](Seconds at) { next = next ? std::min(*next, at) : at; };
  if (next_arrival_ < workload_.jobs.size()) consider(workload_.jobs[next_arrival_].submitted);
  if (!events_.empty()) consider(events_.top().at);
  if (!state_.pending.empty()) consider(std::max(now_ + 1, last_cycle_ + options_.cycle_interval));
  if (cycle_due_) consider(std::max(now_ + 1, last_cycle_ + options_.min_cycle_gap));
  return next;
}

// Accounts for the interval since the last event at the levels it had.
void Simulation::advance_to(Seconds time) {
  time = std::max(time, now_);
  timeline_.add_levels(now_, time, levels_);
  book_.step(now_, time, capacity_rate_, held_, timeline_);
  double capacity = 0;
  for (double rate : cluster_held_) capacity += rate;
  if (capacity > 0 && time > now_) {
    const double hours = static_cast<double>(time - now_) / 3600.0;
    for (std::size_t k = 0; k < waiting_by_class_.size(); ++k) {
      if (waiting_by_class_[k] <= 0) continue;
      for (std::size_t c = 0; c < kShortfallCauses; ++c) {
        result_.class_waits[k][c] += waiting_by_class_[k] * hours * cluster_held_[c] / capacity;
      }
    }
  }
  now_ = time;
  state_.now = time;
}

// The cluster's levels, and what each program's running jobs hold by how
// preemption sees them, until the next event.
void Simulation::measure_levels() {
  levels_ = cluster_levels(state_);
  held_.assign(book_.programs().size(), ShortfallHours{});
  const std::vector<int>& indexes = running_indexes();
  for (std::size_t p = 0; p < indexes.size(); ++p) {
    const runtime::RunningJob& running = state_.running[p];
    const JobState& job = jobs_[static_cast<std::size_t>(indexes[p])];
    const int program = book_.program_of(job.account_node);
    if (program < 0) continue;
    Shortfall cause = Shortfall::not_taken;
    if (const auto refusal = runtime::stop_refusal(running, now_)) {
      cause = *refusal == runtime::StopRefusal::stopping        ? Shortfall::grace
              : *refusal == runtime::StopRefusal::protected_now ? Shortfall::protected_
                                                                : Shortfall::not_preemptible;
    }
    held_[static_cast<std::size_t>(program)][static_cast<std::size_t>(cause)] += job.rate;
  }
  cluster_held_ = ShortfallHours{};
  double used = 0;
  for (const ShortfallHours& program : held_) {
    for (std::size_t c = 0; c < kShortfallCauses; ++c) {
      cluster_held_[c] += program[c];
      used += program[c];
    }
  }
  cluster_held_[static_cast<std::size_t>(Shortfall::free)] = std::max(0.0, capacity_rate_ - used);
}

// Handles every event due now; true when the cluster changed so a cycle should run.
bool Simulation::handle_events() {
  bool changed = false;
  while (!events_.empty() && events_.top().at <= now_) {
    const Event event = events_.top();
    events_.pop();
    changed |= handle_event(event);
  }
  while (next_arrival_ < workload_.jobs.size() && workload_.jobs[next_arrival_].submitted <= now_) {
    arrive(static_cast<int>(next_arrival_++));
    ++result_.events;
    changed = true;
  }
  return changed;
}

bool Simulation::handle_event(const Event& event) {
  if (event.kind == EventKind::node_change) {
    ++result_.events;
    change_nodes(event);
    return true;
  }
  const JobState& job = jobs_[static_cast<std::size_t>(event.job)];
  if (job.status != Status::running || job.run != event.run) return false;  // stale
  ++result_.events;
  if (event.kind == EventKind::stop) return true;  // a stop due, or a stall begun: the cycle decides
  complete(event.job);
  return !state_.pending.empty();
}

void Simulation::change_nodes(const Event& event) {
  if (event.phase == 3) return;  // an inventory drain deadline: the cycle stops what is left
  const Maintenance& maintenance = workload_.maintenance[static_cast<std::size_t>(event.maintenance)];
  for (int node : maintenance.nodes) {
    runtime::Node& changed = state_.inventory.nodes[static_cast<std::size_t>(node)];
    changed.state = event.phase == 0   ? runtime::NodeState::drain
                    : event.phase == 1 ? runtime::NodeState::down
                                       : runtime::NodeState::up;
    changed.drain_deadline = event.phase == 0 ? std::optional<Seconds>(maintenance.deadline) : std::nullopt;
  }
  capacity_rate_ = runtime::capacity_rate(unit_, state_.inventory);
}

void Simulation::push(Event event) {
  event.sequence = sequence_++;
  events_.push(event);
}

void Simulation::schedule_node_events() {
  for (std::size_t m = 0; m < workload_.maintenance.size(); ++m) {
    const Maintenance& maintenance = workload_.maintenance[m];
    const Seconds times[] = {maintenance.drain_at, maintenance.deadline, maintenance.back_at};
    for (int phase = 0; phase < 3; ++phase) {
      push(Event{times[phase], EventKind::node_change, 0, -1, 0, static_cast<int>(m), phase});
    }
  }
  for (const runtime::Node& node : state_.inventory.nodes) {
    if (node.state == runtime::NodeState::drain && node.drain_deadline && *node.drain_deadline > now_) {
      push(Event{*node.drain_deadline, EventKind::node_change, 0, -1, 0, -1, 3});
    }
  }
}

void Simulation::report_progress() {
  if (!options_.progress) return;
  const double span = static_cast<double>(std::max<Seconds>(1, workload_.end - workload_.start));
  const double done = static_cast<double>(now_ - workload_.start) / span;
  if (done - reported_ < 0.005) return;
  reported_ = done;
  options_.progress(std::min(1.0, done), result_.events);
}

Expected<SimulationResult, std::string> simulate(const Workload& workload, const runtime::Inventory& inventory,
                                                 const CompiledPolicy& policy, const SimulationOptions& options) {
  auto classes = resolve_jobs(workload, policy.tables());
  if (!classes) return unexpected(classes.error());
  for (const Maintenance& maintenance : workload.maintenance) {
    for (int node : maintenance.nodes) {
      if (node < 0 || static_cast<std::size_t>(node) >= inventory.nodes.size()) {
        return unexpected(std::string("a maintenance names a node the cluster does not have"));
      }
    }
  }
  Simulation simulation(workload, inventory, policy, options, std::move(*classes));
  return simulation.run();
}

}  // namespace allot::simulator
