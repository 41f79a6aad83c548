// exercise_policy (allot/explain.h) and explain::preempt_verdicts (parts.h):
// the values a state gives a policy's rank terms and preempt operands, for
// `allot test --coverage` and `allot eval`.
#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "allot/contracts.h"
#include "allot/explain.h"
#include "cycle/context.h"
#include "parts.h"

namespace allot::runtime {
namespace {

void record(TermExercise& term, double value) {
  if (std::isnan(value)) return;
  if (term.jobs == 0) {
    term.lowest = term.highest = value;
  } else {
    term.lowest = std::min(term.lowest, value);
    term.highest = std::max(term.highest, value);
  }
  ++term.jobs;
  term.nonzero |= value != 0;
}

// Whether running job `victim` (an index into the context's active jobs) is offered to `preempt` now.
bool offered(const cycle::CycleContext& context, std::size_t victim) {
  return context.jobs.active[victim].account >= 0 && !stop_refusal(context.state.running[victim], context.state.now);
}

}  // namespace

PreemptVerdicts explain::preempt_verdicts(const cycle::CycleContext& context, const std::string& job_id,
                                          std::size_t limit) {
  const ClusterState& state = context.state;
  const CompiledPolicy& policy = context.policy;
  PreemptVerdicts verdicts;
  if (!policy.has_preempt()) return verdicts;
  const std::size_t operands = policy.preempt_operands().size();
  const std::unique_ptr<bool[]> truth(new bool[std::max<std::size_t>(operands, 1)]);
  const auto ask = [&](std::size_t victim, const cycle::PendingJob& waiting) {
    if (verdicts.pairs.size() == limit) {
      ++verdicts.left_out;
      return;
    }
    PreemptVerdict verdict;
    verdict.victim = state.running[victim].request.id;
    verdict.requester = waiting.request->id;
    const abi::JobTable& victims = context.running_table.table();
    const abi::JobTable& requesters = context.pending_table.table();
    verdict.accepted =
        policy.preempt(victims, victim, requesters, waiting.row, context.accounts.table(), context.cluster);
    policy.preempt_operand_values(victims, victim, requesters, waiting.row, context.accounts.table(), context.cluster,
                                  truth.get());
    verdict.operands.assign(truth.get(), truth.get() + operands);
    verdicts.pairs.push_back(std::move(verdict));
  };
  for (std::size_t victim = 0; victim < context.jobs.active.size(); ++victim) {
    if (state.running[victim].request.id != job_id) continue;
    verdicts.as_victim = true;
    if (context.jobs.active[victim].account < 0) {
      verdicts.not_offered = fmt::format("policy `{}` does not know its account", policy.tables().name);
      return verdicts;
    }
    if (const auto refusal = stop_refusal(state.running[victim], state.now)) {
      verdicts.not_offered = stop_refusal_text(*refusal, state.running[victim], state.now);
      return verdicts;
    }
    for (const cycle::PendingJob& waiting : context.jobs.pending) {
      if (waiting.problem.empty() && waiting.account != context.jobs.active[victim].account) ask(victim, waiting);
    }
    return verdicts;
  }
  for (const cycle::PendingJob& waiting : context.jobs.pending) {
    if (waiting.request->id != job_id || !waiting.problem.empty()) continue;
    for (std::size_t victim = 0; victim < context.jobs.active.size(); ++victim) {
      if (offered(context, victim) && context.jobs.active[victim].account != waiting.account) ask(victim, waiting);
    }
    break;
  }
  return verdicts;
}

void exercise_policy(const ClusterState& state, const CompiledPolicy& policy, PolicyExercise& into) {
  into.terms.resize(policy.rank_terms().size());
  into.operands.resize(policy.preempt_operands().size());
  const cycle::CycleContext context(state, policy);
  std::vector<double> values(into.terms.size());
  for (const cycle::PendingJob& job : context.jobs.pending) {
    if (!job.problem.empty() || values.empty()) continue;
    policy.rank_contributions(context.pending_table.table(), job.row, context.accounts.table(), context.cluster,
                              values.data());
    for (std::size_t i = 0; i < values.size(); ++i) record(into.terms[i], values[i]);
  }
  if (into.operands.empty()) return;
  const std::unique_ptr<bool[]> truth(new bool[into.operands.size()]);
  std::size_t asked = 0;
  for (std::size_t victim = 0; victim < context.jobs.active.size(); ++victim) {
    const cycle::ActiveJob& active = context.jobs.active[victim];
    if (!offered(context, victim)) continue;
    for (const cycle::PendingJob& waiting : context.jobs.pending) {
      if (!waiting.problem.empty() || waiting.account == active.account) continue;
      if (++asked > kMaxExercisedPairs) return;
      policy.preempt_operand_values(context.running_table.table(), victim, context.pending_table.table(), waiting.row,
                                    context.accounts.table(), context.cluster, truth.get());
      for (std::size_t i = 0; i < into.operands.size(); ++i) {
        OperandExercise& operand = into.operands[i];
        ++operand.pairs;
        (truth[i] ? operand.seen_true : operand.seen_false) = true;
      }
    }
  }
}

}  // namespace allot::runtime
