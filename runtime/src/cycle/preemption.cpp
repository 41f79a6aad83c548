#include "preemption.h"

#include <algorithm>

#include "allot/contracts.h"
#include "victims.h"

namespace allot::runtime::cycle {
namespace {

bool same_shape(const NodeRequest& a, const NodeRequest& b) {
  return a.gpu_type == b.gpu_type && a.nodes == b.nodes && a.gpus_per_node == b.gpus_per_node &&
         a.cpus_per_node == b.cpus_per_node && a.memory_gib_per_node == b.memory_gib_per_node &&
         a.eligible == b.eligible && a.node_set == b.node_set && a.exclusive == b.exclusive;
}

// Whether `preempt` is one operand whose value is fixed (a literal, or folded to one).
bool fixed_preempt(const CompiledPolicy& policy) {
  const std::vector<PolicyPart>& operands = policy.preempt_operands();
  return policy.has_preempt() && operands.size() == 1 && operands.front().constant;
}

}  // namespace

Preemption::Preemption(const CycleContext& context, std::size_t searches)
    : context_(context), searches_left_(searches), fixed_preempt_(fixed_preempt(context.policy)) {}

void Preemption::prepare(const std::vector<ActiveJob>& active) {
  if (!lost_now_.empty() || active.empty()) return;
  lost_now_.reserve(active.size());
  for (const ActiveJob& job : active) lost_now_.push_back(lost_gpu_seconds(*job.job, context_.state.now));
  candidates_on_node_ = preemption_candidates(active, context_.jobs.jobs_on_node, context_.state.now);
}

// One victim search of this cycle's: counted, and given what it reads.
VictimInputs Preemption::search_inputs(const std::vector<ActiveJob>& active, const Capacity& capacity,
                                       const ShareBalance& balance) {
  --searches_left_;
  prepare(active);
  return VictimInputs{context_.policy,
                      context_.running_table,
                      context_.pending_table,
                      context_.accounts.table(),
                      context_.cluster,
                      active,
                      candidates_on_node_,
                      capacity.pool(),
                      balance,
                      lost_now_,
                      context_.state.now};
}

std::optional<StopChoice> Preemption::share_rule(const PendingJob& job, const std::vector<ActiveJob>& active,
                                                 const Capacity& capacity, const ShareBalance& balance) {
  if (searches_left_ == 0 || !context_.policy.has_preempt() || !balance.any_below_share_on_path(job.account)) {
    return std::nullopt;
  }
  if (known_to_fail(job, capacity, balance)) {
    --searches_left_;
    return std::nullopt;
  }
  auto choice = find_victims(search_inputs(active, capacity, balance), job);
  if (!choice) {
    remember_failure(job, capacity, balance);
    return std::nullopt;
  }
  return StopChoice{std::move(choice->victims), std::move(choice->nodes)};
}

bool Preemption::known_to_fail(const PendingJob& job, const Capacity& capacity, const ShareBalance& balance) const {
  if (!fixed_preempt_ || capacity.pool().version() != failed_pool_version_ ||
      balance.version() != failed_balance_version_) {
    return false;
  }
  return std::any_of(failed_.begin(), failed_.end(), [&](const Failed& failed) {
    return failed.account == job.account && same_shape(failed.shape, job.shape);
  });
}

void Preemption::remember_failure(const PendingJob& job, const Capacity& capacity, const ShareBalance& balance) {
  if (!fixed_preempt_) return;
  if (capacity.pool().version() != failed_pool_version_ || balance.version() != failed_balance_version_) {
    failed_.clear();
    failed_pool_version_ = capacity.pool().version();
    failed_balance_version_ = balance.version();
  }
  failed_.push_back(Failed{job.account, job.shape});
}

std::optional<StopChoice> Preemption::fast_lane(const PendingJob& job, const std::vector<ActiveJob>& active,
                                                const Capacity& capacity, const ShareBalance& balance,
                                                const std::vector<Hold>& holds) {
  if (searches_left_ == 0) return std::nullopt;
  VictimInputs inputs = search_inputs(active, capacity, balance);
  inputs.fast_lane = true;
  std::vector<NodeAmounts> lendable(context_.state.inventory.nodes.size());
  for (const Hold& hold : holds) {
    for (int node : hold.claim.nodes) {
      NodeAmounts& held = lendable[static_cast<std::size_t>(node)];
      const NodeAmounts& amounts = hold.claim.amounts;
      held = {held.gpus + amounts.gpus, held.cpus + amounts.cpus, held.memory_gib + amounts.memory_gib};
    }
  }
  inputs.lendable = &lendable;
  auto choice = find_victims(inputs, job);
  if (!choice) return std::nullopt;
  return StopChoice{std::move(choice->victims), std::move(choice->nodes)};
}

// Those whose contract lets them be stopped (preemptible, requeueable, past
// their protection; a yielding job always is) stop, share rule or not: the
// capacity was only lent to them.
std::optional<StopChoice> Preemption::take_back(const std::vector<int>& nodes,
                                                const std::vector<ActiveJob>& active) const {
  const Seconds now = context_.state.now;
  StopChoice choice{{}, nodes};
  for (int node : nodes) {
    for (int index : context_.jobs.jobs_on_node[static_cast<std::size_t>(node)]) {
      const ActiveJob& held = active[static_cast<std::size_t>(index)];
      if (held.stopping || held.stopped) continue;
      if (std::find(choice.victims.begin(), choice.victims.end(), index) != choice.victims.end()) continue;
      const RunningJob& running = *held.job;
      const Seconds limit =
          held.job_class >= 0
              ? runtime_estimate(context_.tables.classes[static_cast<std::size_t>(held.job_class)], running.request)
              : running.request.expected_runtime;
      const bool past_limit = limit > 0 && running.started < now - limit;
      const bool past_yield = running.contract.yields_at && *running.contract.yields_at <= now;
      if (!past_limit && !past_yield) continue;  // within what it promised, or it promised nothing
      if (stop_refusal(running, now)) return std::nullopt;
      choice.victims.push_back(index);
    }
  }
  if (choice.victims.empty()) return std::nullopt;
  return choice;
}

}  // namespace allot::runtime::cycle
