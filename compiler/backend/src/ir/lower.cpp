#include "lower.h"

#include <algorithm>

#include "check/schema.h"
#include "lower_expr.h"
#include "lower_tables.h"
#include "sha256.h"

namespace allot::ir {
namespace {

// The names an entry point binds, as records (schema.h: rank_inputs, preempt_inputs).
Bindings entry_bindings(std::span<const InputSchema> inputs) {
  Bindings bindings;
  for (const auto& input : inputs) {
    const Subject subject = input.name == "requester" ? Subject::requester : Subject::job;
    bindings.emplace_back(std::string(input.name), Value(ExpressionLowerer::input(input.type, subject)));
  }
  return bindings;
}

Function lower_entry(const ast::Expr& body, std::span<const InputSchema> inputs, const LoweringScope& scope) {
  FunctionBuilder builder;
  ExpressionLowerer lowerer(scope, builder);
  Bindings bindings = entry_bindings(inputs);
  return builder.finish(lowerer.lower(body, bindings).node);
}

LoweringScope lowering_scope(const Program& program, const Scope& scope, const ExpressionTypes& types) {
  LoweringScope lowering;
  const auto classes = visible_classes(program);
  for (std::size_t i = 0; i < classes.size(); ++i) lowering.class_ids.emplace(classes[i]->name, static_cast<double>(i));
  lowering.functions = scope.functions;
  lowering.types = &types;
  return lowering;
}

void record_fields_read(const Function& function, LoweredPolicy& policy) {
  for (const auto& node : function.nodes) {
    if (node.op == Op::job_field) policy.job_fields_read.push_back(static_cast<abi::JobField>(node.field));
    if (node.op == Op::account_field) policy.account_fields_read.push_back(static_cast<abi::AccountField>(node.field));
  }
}

template <typename T>
void sort_unique(std::vector<T>& values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

}  // namespace

std::string source_hash(const SourceManager& sources) {
  Sha256 hash;
  for (FileId file = 0; file < sources.size(); ++file) {
    const std::string& text = sources.text(file);
    hash.update(std::to_string(text.size()) + "\n");
    hash.update(text);
  }
  return hash.hex_digest();
}

LoweredPolicy lower_program(const CheckedProgram& checked, const SourceManager& sources) {
  const Program& program = *checked.program;
  const ast::Policy& policy = program.modules.front().policies.front();
  const LoweringScope lowering = lowering_scope(program, checked.scope, checked.typed.expression_types);

  LoweredPolicy lowered;
  lowered.tables = lower_tables(program, policy);
  lowered.rank = lower_entry(*policy.ranks.front().body, rank_inputs(), lowering);
  if (!policy.preempts.empty())
    lowered.preempt = lower_entry(*policy.preempts.front().body, preempt_inputs(), lowering);
  lowered.source_hash = source_hash(sources);
  record_fields_read(lowered.rank, lowered);
  if (lowered.preempt) record_fields_read(*lowered.preempt, lowered);
  sort_unique(lowered.job_fields_read);
  sort_unique(lowered.account_fields_read);
  return lowered;
}

}  // namespace allot::ir
