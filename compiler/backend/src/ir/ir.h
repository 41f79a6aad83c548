// The policy IR: what a checked policy means, resolved, typed and folded, in a
// form both engines evaluate (ir/interpreter.cpp and codegen/). Lowered from the
// AST by ir/lower.cpp; printed by ir/print.cpp (`allot compile --emit=ir`).
//
// An expression is a DAG in a flat vector: operands always refer to earlier
// nodes, so evaluating nodes in order is a valid schedule. User functions and
// `let` are inlined at lowering (a `let` becomes a shared node); `match` becomes
// a chain of `select`s. Every expression is pure and total, so `select`, `and`
// and `or` may evaluate both sides: this keeps the code branch-free and lets
// LLVM vectorise the batch loop.
//
// Exact semantics (both engines MUST implement these formulas, bit for bit):
//   add/sub/mul  IEEE double a+b, a-b, a*b
//   div          b == 0 ? 0 : a / b
//   pow          r = std::pow(a, b); r is NaN ? 0 : r
//   neg          -a
//   min / max    a < b ? a : b   /   a > b ? a : b, a NaN operand taken as 0
//   abs          a < 0 ? -a : a
//   log          a > 0 ? std::log(a) : 0
//   exp          std::exp(a)
//   sqrt         a >= 0 ? std::sqrt(a) : 0
//   lt..ne       IEEE ordered comparisons (NaN compares false, != true)
//   and/or/not   on booleans
//   select       c ? a : b
//   account_row  (double)jobs->account[i] of the subject's table
// The final rank value is NaN ? 0 : value. No fast-math, no FMA contraction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <optional>

#include "allot/abi.h"
#include "allot/policy.h"

namespace allot::ir {

// How a value is represented: doubles (number, duration, percent, date, class,
// label; see abi.h for units) or booleans.
enum class Repr : std::uint8_t { f64, boolean };

// The language type a value had, kept for printing and explaining.
enum class SourceType : std::uint8_t { number, boolean, duration, percent, date, class_id, label };

enum class Op : std::uint8_t {
  constant,       // value
  job_field,      // field (abi::JobField) of job `subject`
  account_field,  // field (abi::AccountField) of the account of job `subject`
  cluster_field,  // field (abi::ClusterField)
  add,
  sub,
  mul,
  div,
  pow,
  neg,
  min,
  max,
  abs,
  log,
  exp,
  sqrt,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logical_and,
  logical_or,
  logical_not,
  select,  // operands: condition, if-true, if-false
  // The row of job `subject`'s account in the AccountTable (jobs->account[i]),
  // as f64: how `victim.account == requester.account` compares accounts.
  account_row,
};

// Which job a field reads: the ranked job (rank) or victim (preempt), or the requester (preempt).
enum class Subject : std::uint8_t { job = 0, requester = 1 };

using NodeId = std::uint32_t;

struct Node {
  Op op = Op::constant;
  Repr repr = Repr::f64;
  SourceType type = SourceType::number;
  NodeId a = 0, b = 0, c = 0;  // operands, by op arity
  double value = 0;            // constant
  std::uint32_t field = 0;     // *_field
  Subject subject = Subject::job;
};

// One entry point's expression. `result` is the node whose value is returned.
struct Function {
  std::vector<Node> nodes;
  NodeId result = 0;
};

// A piece of rank or preempt (policy.h's PolicyPart) lowered as a function of
// its own, with the `let`s around it: a rank term's value (negated when written
// after `-`), or a preempt operand's truth.
struct Part {
  PolicyPart info;
  Function function;
};

// A whole policy after lowering: its tables, its two entry points, and their parts.
struct LoweredPolicy {
  PolicyTables tables;
  Function rank;
  std::optional<Function> preempt;
  std::vector<Part> rank_terms;
  std::vector<Part> preempt_operands;
  bool preempt_operands_or = false;
  std::string source_hash;
  std::vector<abi::JobField> job_fields_read;
  std::vector<abi::AccountField> account_fields_read;
};

// The number of operands an op takes (0 for constants and fields).
int arity(Op op);

// The op's name as printed in the IR text (`add`, `select`, ...); fields print
// as `job`, `account`, `cluster` followed by the field (ir/print.cpp).
const char* op_name(Op op);

// The readable, stable text of a lowered policy (`allot compile --emit=ir`).
std::string print(const LoweredPolicy& policy);

}  // namespace allot::ir
