// What every checker pass sees: the program, the options, "today", the
// diagnostics, and the names the declaration pass collected.
//
// Passes live one per file (declarations, tree, exceptions, contracts, types,
// gates) and only report diagnostics; they never change the AST.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "../ast.h"
#include "../diagnostics.h"
#include "../load/loader.h"

namespace allot {

// The classes and functions visible from one file: its own and every imported one.
struct Scope {
  std::map<std::string, const ast::ClassDecl*> classes;
  std::map<std::string, const ast::FnDecl*> functions;
  // An import failed (Program::imports_complete): a function or class name not
  // found may be one of its, so it is not reported as unknown.
  bool incomplete = false;
};

struct CheckContext {
  const SourceManager& sources;
  const CheckOptions& options;
  Date today;
  DiagnosticSink& diagnostics;
};

// check.cpp: today from the system clock, when no `--now` is given.
Date system_today();

// check.cpp: a date that has passed (a review, an exception's expiry): an
// error, or a warning under CheckOptions::passed_dates_are_warnings.
DiagnosticBuilder passed_date(const CheckContext& context, DiagnosticCode code, Span span, std::string message);

// check.cpp: what CheckOptions::cluster finds wrong with the policy: an error,
// or a warning under CheckOptions::cluster_facts_are_warnings.
DiagnosticBuilder cluster_fact(const CheckContext& context, DiagnosticCode code, Span span, std::string message);

// declarations.cpp: required and duplicate declarations, unit, window and
// fairshare settings; returns the scope of the root module.
Scope check_declarations(const Program& program, const CheckContext& context);

// declarations.cpp: reports `seconds` at `span` unless it is a whole number of
// hours, at least one. The runtime keeps usage and measures share delivery in
// hourly buckets, and the ledger, the simulator and the gates each rounded a
// fraction their own way; whole hours leave nothing to round. `what` names the
// duration ("the fair-share window"), `keyword` is how it is written ("window").
void check_whole_hours(double seconds, Span span, std::string_view what, std::string_view keyword,
                       const CheckContext& context);

// tree_check.cpp: the budget tree (levels, shares, owners, review dates).
void check_tree(const ast::Policy& policy, const CheckContext& context);

// exception_check.cpp: temporary grants (expiry, horizon, nodes, resulting shares).
void check_exceptions(const ast::Policy& policy, const CheckContext& context);

// contract_check.cpp: class contracts that cannot keep their promise.
void check_contracts(const Scope& scope, const CheckContext& context);

// type_check.cpp: types and units of functions, rank, preempt and gates;
// unknown names and fields; recursion.
// Returns what it typed (typing.h), which lowering reads.
struct TypedProgram;
TypedProgram check_types(const Program& program, const Scope& scope, const CheckContext& context);

// limit_check.cpp: resource limits (inlined size of rank and preempt, the
// window's ledger buckets), so a policy that checks clean compiles and runs in
// bounded time and memory.
void check_limits(const Program& program, const Scope& scope, const CheckContext& context);

// gate_check.cpp: rollout gates (metric, threshold unit, class subject, window).
void check_gates(const Program& program, const Scope& scope, const CheckContext& context);

}  // namespace allot
