// The types of Allot expressions and the rules of its operators.
//
// Shared by the type checker and the IR lowering: both must agree on what
// `duration / duration` is, so the operator rules live here as plain functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allot {

// Every value an expression can have. Units are part of the type: a
// `duration` and a `percent` never mix.
enum class Type {
  error,      // an expression already reported; silences follow-on diagnostics
  number,     // a plain quantity (GPUs, ratios, factors)
  boolean,    // spelled `bool` in policies
  duration,   // seconds at run time: `15m`, `job.wait`
  percent,    // `40%`, `account.share`
  date,       // a calendar day: `2026-12-31`, `cluster.now`
  string,     // a literal only; usable nowhere in an expression
  job_class,  // spelled `class`: one of the classes the policy declares
  label,      // `high`, `medium`, `low` or `none`
  job,        // record: a job (pending or running)
  account,    // record: a node of the budget tree
  cluster,    // record: the whole cluster
};

// The name a policy writes for `type` (`bool`, `class`, ...).
std::string_view type_name(Type type);

// The type a parameter or result declaration names; nullopt for anything else
// (`string` and `error` cannot be declared).
std::optional<Type> declared_type(std::string_view name);

// The names `declared_type` accepts, for "did you mean" suggestions.
std::vector<std::string> declarable_type_names();

// True for `job`, `account` and `cluster`, the types with fields.
bool is_record(Type type);

// The members of the `label` enum, in order.
const std::vector<std::string>& label_names();

// The result of `left OP right` for a well-typed pair, nullopt when the
// operator does not apply. Both operands must be known (not `error`).
std::optional<Type> binary_result(std::string_view op, Type left, Type right);

// The result of `-x` or `not x`, nullopt when the operator does not apply.
std::optional<Type> unary_result(std::string_view op, Type operand);

// True when `==` and `!=` compare two values of `type`.
bool is_equatable(Type type);

// True when `<`, `<=`, `>` and `>=` order two values of `type`.
bool is_ordered(Type type);

}  // namespace allot
