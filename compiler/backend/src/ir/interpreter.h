// The reference interpreter: evaluates IR nodes in order into a small value
// array, with exactly the formulas of ir.h (semantics.h). Slow and obviously
// correct; the JIT must agree with it bit for bit (tests/compiler/backend/differential_test.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "ir.h"

namespace allot::ir {

// The rows one evaluation reads. `requesters` is used by `preempt` only.
struct EvaluationInputs {
  const abi::JobTable* jobs = nullptr;
  std::size_t job = 0;
  const abi::JobTable* requesters = nullptr;
  std::size_t requester = 0;
  const abi::AccountTable* accounts = nullptr;
  const abi::ClusterView* cluster = nullptr;
};

// The value of `function` (booleans as 0 or 1). `scratch` holds at least
// function.nodes.size() doubles.
double evaluate(const Function& function, const EvaluationInputs& inputs, double* scratch);

// The base of both engines: rank's terms and preempt's operands
// (CompiledPolicy::rank_terms and preempt_operands) evaluated by the
// interpreter whichever engine runs the policy: they explain decisions and
// measure test coverage, so they need no JIT.
class PolicyWithParts : public CompiledPolicy {
 public:
  PolicyWithParts(std::vector<Part> rank_terms, std::vector<Part> preempt_operands, bool preempt_operands_or);
  const std::vector<PolicyPart>& rank_terms() const final { return rank_info_; }
  void rank_contributions(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
                          const abi::ClusterView& cluster, double* out) const final;
  const std::vector<PolicyPart>& preempt_operands() const final { return preempt_info_; }
  bool preempt_operands_or() const final { return preempt_or_; }
  void preempt_operand_values(const abi::JobTable& victims, std::size_t victim, const abi::JobTable& requesters,
                              std::size_t requester, const abi::AccountTable& accounts, const abi::ClusterView& cluster,
                              bool* out) const final;

 private:
  std::vector<PolicyPart> rank_info_, preempt_info_;
  std::vector<Function> rank_functions_, preempt_functions_;
  bool preempt_or_ = false;
};

// A policy evaluated by the interpreter: the engine `--engine interp` selects,
// and the fallback when the JIT cannot start.
class InterpretedPolicy final : public PolicyWithParts {
 public:
  explicit InterpretedPolicy(LoweredPolicy policy);
  const PolicyTables& tables() const override { return policy_.tables; }
  Engine engine() const override { return Engine::interpreter; }
  const std::string& source_hash() const override { return policy_.source_hash; }
  const std::vector<abi::JobField>& job_fields_read() const override { return policy_.job_fields_read; }
  const std::vector<abi::AccountField>& account_fields_read() const override { return policy_.account_fields_read; }
  double rank(const abi::JobTable& jobs, std::size_t job, const abi::AccountTable& accounts,
              const abi::ClusterView& cluster) const override;
  void rank_batch(const abi::JobTable& jobs, const abi::AccountTable& accounts, const abi::ClusterView& cluster,
                  std::size_t begin, std::size_t end, double* out) const override;
  bool has_preempt() const override { return policy_.preempt.has_value(); }
  bool preempt(const abi::JobTable& victims, std::size_t victim, const abi::JobTable& requesters, std::size_t requester,
               const abi::AccountTable& accounts, const abi::ClusterView& cluster) const override;

 private:
  LoweredPolicy policy_;
};

}  // namespace allot::ir
