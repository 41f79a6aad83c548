// Typing expressions: what the type checker reports and what the IR lowering
// reads back (the type of every expression node, every function's signature).
//
// `type_program` is the whole job; `ExpressionTyper` types one expression in
// a given environment. Both report into a DiagnosticSink; the lowering, which
// runs only on programs that checked cleanly, passes a scratch sink.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../ast.h"
#include "../diagnostics.h"
#include "check_context.h"
#include "types.h"

namespace allot {

// Where an expression stands; decides which inputs exist and the help for a
// misplaced one (`job` inside `preempt when`).
enum class ExpressionSite { rank, preempt, function };

// A name bound in an expression: an input, a parameter or a `let`.
struct Binding {
  std::string name;
  Type type = Type::error;
};

// The names an expression may use. Invariant: the innermost binding of a name
// is the last one, so `let` shadows by pushing and un-shadows by popping.
struct Environment {
  ExpressionSite site = ExpressionSite::function;
  std::vector<Binding> bindings;
  // The innermost binding of `name`, or nullptr.
  const Binding* find(std::string_view name) const;
};

// A user function as its callers see it.
struct FunctionSignature {
  const ast::FnDecl* decl = nullptr;
  std::vector<Type> parameters;  // `error` for an unknown parameter type
  Type result = Type::error;     // declared, or inferred from the body; `error` when recursive and undeclared
};

// User functions visible to the root file, by name.
using FunctionSignatures = std::map<std::string, FunctionSignature>;

// The type of each expression node, for the IR lowering.
using ExpressionTypes = std::unordered_map<const ast::Expr*, Type>;

// Types expressions and reports what is wrong with them. A subexpression
// that already failed has type `error` and causes no further diagnostic.
class ExpressionTyper {
 public:
  // `functions` may be filled in while typing: a call reads the callee's
  // signature when it is typed, so callees must be typed before callers.
  ExpressionTyper(const Scope& scope, const FunctionSignatures& functions, DiagnosticSink& diagnostics);

  // The type of `expr` where `environment` holds the names in scope.
  Type type_of(const ast::Expr& expr, Environment& environment);

  // The types of every expression typed so far.
  const ExpressionTypes& expression_types() const { return types_; }

 private:
  // Dispatches on the expression's kind; `type_of` records the result.
  Type infer(const ast::Expr& expr, Environment& environment);
  // One rule per expression kind (expression_typer.cpp, match_typer.cpp);
  // each reports its own diagnostics and returns `error` after one.
  Type type_of_string(const ast::Expr& expr);
  Type type_of_name(const ast::Expr& expr, const Environment& environment);
  Type type_of_field(const ast::Expr& expr, Environment& environment);
  Type type_of_call(const ast::Expr& expr, Environment& environment);
  Type type_of_builtin_call(const ast::Expr& expr, const std::vector<Type>& arguments);
  Type type_of_user_call(const ast::Expr& expr, const FunctionSignature& function, const std::vector<Type>& arguments);
  Type type_of_unary(const ast::Expr& expr, Environment& environment);
  Type type_of_binary(const ast::Expr& expr, Environment& environment);
  Type type_of_if(const ast::Expr& expr, Environment& environment);
  Type type_of_let(const ast::Expr& expr, Environment& environment);
  Type type_of_match(const ast::Expr& expr, Environment& environment);
  Type type_of_match_arms(const ast::Expr& expr, Environment& environment);
  // Unknown, repeated and unreachable patterns, and members left uncovered.
  void check_match_patterns(const ast::Expr& expr, Type subject);
  // `unknown_name` with the most useful help for where the name stands.
  void report_unknown_name(const ast::Expr& expr, const Environment& environment);
  // `unknown_function` with "did you mean", or the field it looks like.
  void report_unknown_function(const ast::Expr& expr);
  // The members of `class` (declared classes) or `label`.
  std::vector<std::string> member_names(Type enumeration) const;

  const Scope& scope_;
  const FunctionSignatures& functions_;
  DiagnosticSink& diagnostics_;
  ExpressionTypes types_;
};

// How to turn a value of type `found` into the `expected` one, when the fix is
// obvious ("divide by a unit: `job.wait / 1h`"); empty otherwise.
std::string conversion_help(Type expected, Type found, const ast::Expr& value);

// "write a duration such as `5m`" when `value` is a bare number literal where
// a duration or percentage is expected; empty otherwise.
std::string literal_unit_help(Type expected, Type found, const ast::Expr& value);

// "compare it with a value, such as `j.deadline_slack > 1h`" for a quantity
// used where a condition (`bool`) is expected; empty for other types.
std::string condition_help(Type found, const ast::Expr& value);

// True for a number literal, possibly negated: the value a user would give a unit.
bool is_number_literal(const ast::Expr& expr);

// Every user function and the policies' `rank` and `preempt`, typed.
struct TypedProgram {
  FunctionSignatures functions;
  ExpressionTypes expression_types;
};

// Types every function visible to the root file once (callees before callers,
// so inference never loops), then `rank` and `preempt` of the root policies.
// Reports unknown types and names, mismatches and recursion to `diagnostics`.
TypedProgram type_program(const Program& program, const Scope& scope, DiagnosticSink& diagnostics);

// A program that went through every check, as a value: the program, the scope
// of its root module and the types of its expressions. `allot compile` lowers
// it (ir/lower.h) without checking anything again. `clean` is false when a
// check reported an error (or the program did not parse); only a clean one may
// be lowered.
struct CheckedProgram {
  const Program* program = nullptr;  // not owned; outlives this value
  Scope scope;
  TypedProgram typed;
  bool clean = false;
};

// check.cpp: every pass, in order, over a loaded program (what `allot check`
// runs; `allot compile` runs it before lowering). `program` must outlive the result.
CheckedProgram check_program(const Program& program, const CheckContext& context);

}  // namespace allot
