#include "interpreter.h"

#include <vector>

#include "semantics.h"

namespace allot::ir {
namespace {

// Per-thread value array, so concurrent calls never share one and a call
// allocates only when a bigger function than before comes along.
double* scratch_for(const Function& function) {
  thread_local std::vector<double> scratch;
  if (scratch.size() < function.nodes.size()) scratch.resize(function.nodes.size());
  return scratch.data();
}

double load(const Node& node, const EvaluationInputs& in) {
  const bool requester = node.subject == Subject::requester;
  const abi::JobTable& jobs = requester ? *in.requesters : *in.jobs;
  const std::size_t row = requester ? in.requester : in.job;
  switch (node.op) {
    case Op::job_field:
      return jobs.columns[node.field][row];
    case Op::account_field:
      return in.accounts->columns[node.field][jobs.account[row]];
    case Op::cluster_field:
      return in.cluster->values[node.field];
    default:
      return static_cast<double>(jobs.account[row]);  // Op::account_row
  }
}

}  // namespace

double evaluate(const Function& function, const EvaluationInputs& inputs, double* values) {
  const std::size_t count = function.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Node& node = function.nodes[i];
    if (node.op == Op::constant) {
      values[i] = node.value;
    } else if (arity(node.op) == 0) {
      values[i] = load(node, inputs);
    } else {
      values[i] = apply(node.op, values[node.a], values[node.b], values[node.c]);
    }
  }
  return values[function.result];
}

PolicyWithParts::PolicyWithParts(std::vector<Part> rank_terms, std::vector<Part> preempt_operands,
                                 bool preempt_operands_or)
    : preempt_or_(preempt_operands_or) {
  for (Part& part : rank_terms) {
    rank_info_.push_back(std::move(part.info));
    rank_functions_.push_back(std::move(part.function));
  }
  for (Part& part : preempt_operands) {
    preempt_info_.push_back(std::move(part.info));
    preempt_functions_.push_back(std::move(part.function));
  }
}

void PolicyWithParts::rank_contributions(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
                                         const abi::ClusterView& cluster, double* out) const {
  const EvaluationInputs inputs{&jobs, job, nullptr, 0, &accounts, &cluster};
  for (std::size_t i = 0; i < rank_functions_.size(); ++i) {
    out[i] = evaluate(rank_functions_[i], inputs, scratch_for(rank_functions_[i]));
  }
}

void PolicyWithParts::preempt_operand_values(const abi::JobTable& victims, std::size_t victim,
                                             const abi::JobTable& requesters, std::size_t requester,
                                             const abi::AccountTable& accounts, const abi::ClusterView& cluster,
                                             bool* out) const {
  const EvaluationInputs inputs{&victims, victim, &requesters, requester, &accounts, &cluster};
  for (std::size_t i = 0; i < preempt_functions_.size(); ++i) {
    out[i] = evaluate(preempt_functions_[i], inputs, scratch_for(preempt_functions_[i])) != 0;
  }
}

// The base takes the parts (moved out before policy_ is built from the rest):
// one copy of each.
InterpretedPolicy::InterpretedPolicy(LoweredPolicy policy)
    : PolicyWithParts(std::move(policy.rank_terms), std::move(policy.preempt_operands), policy.preempt_operands_or),
      policy_(std::move(policy)) {}

double InterpretedPolicy::rank(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
                               const abi::ClusterView& cluster) const {
  const EvaluationInputs inputs{&jobs, job, nullptr, 0, &accounts, &cluster};
  return final_rank(evaluate(policy_.rank, inputs, scratch_for(policy_.rank)));
}

void InterpretedPolicy::rank_batch(const abi::JobTable& jobs, const abi::AccountTable& accounts,
                                   const abi::ClusterView& cluster, std::size_t begin, std::size_t end,
                                   double* out) const {
  double* scratch = scratch_for(policy_.rank);
  EvaluationInputs inputs{&jobs, begin, nullptr, 0, &accounts, &cluster};
  for (; inputs.job < end; ++inputs.job) out[inputs.job - begin] = final_rank(evaluate(policy_.rank, inputs, scratch));
}

bool InterpretedPolicy::preempt(const abi::JobTable& victims, std::size_t victim, const abi::JobTable& requesters,
                                std::size_t requester, const abi::AccountTable& accounts,
                                const abi::ClusterView& cluster) const {
  if (!policy_.preempt) return false;
  const EvaluationInputs inputs{&victims, victim, &requesters, requester, &accounts, &cluster};
  return evaluate(*policy_.preempt, inputs, scratch_for(*policy_.preempt)) != 0;
}

}  // namespace allot::ir
