// The abstract syntax tree: what a policy file says, with a source span on
// everything a diagnostic may point at. Built from the ANTLR parse tree by
// parse/build_ast.cpp; nothing here knows about ANTLR.
//
// Singletons of the language (one `rank`, one `tree`, ...) are kept as lists so
// the checker can point at a duplicate instead of the parser losing it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/frontend.h"
#include "source.h"

namespace allot::ast {

// --- expressions ----------------------------------------------------------

enum class ExprKind {
  number,    // 42, 0.5
  duration,  // 15m, 2h, 7d (value in seconds)
  percent,   // 40% (value in percent, 40.0)
  date,      // 2026-12-31
  string,    // "text"
  boolean,   // true, false
  name,      // job, account, a let-bound or parameter name
  call,      // min(a, b), fair_tree(account)
  field,     // target.field
  unary,     // -x, not x
  binary,    // a + b, a and b, a < b
  if_then_else,
  let,    // let name = value in body
  match,  // match subject { a => x, _ => y }
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

// One arm of a `match`; `pattern` is empty for the wildcard `_`.
struct MatchArm {
  std::string pattern;
  Span pattern_span;
  ExprPtr value;
};

// A tagged node. Which members are meaningful depends on `kind`:
//   literals: number (seconds / percent / 0-1 / days since epoch), text (string
//             literal contents), source_text (as written, for messages);
//   name, call, field: text (the name); field: operands[0] is the target;
//   unary, binary: text is the operator ("-", "not", "+", "<=", "and", ...);
//   if_then_else: operands = condition, then, else;
//   let: text is the bound name, operands = value, body;
//   match: operands[0] is the subject, arms the arms.
struct Expr {
  ExprKind kind = ExprKind::number;
  Span span;
  Span name_span;  // name/call/field/let: the identifier alone
  double number = 0;
  std::string text;
  std::string source_text;
  std::vector<ExprPtr> operands;
  std::vector<MatchArm> arms;
};

// --- declarations -----------------------------------------------------------

struct Import {
  std::string path;  // as written, relative to the importing file
  Span span;
};

struct UnitWeight {
  std::string name;  // a GPU type (gpu_hours) or a resource (dominant)
  double value = 0;
  Span span;
};

struct UnitDecl {
  std::string kind;  // gpu_hours | dominant (validated by the checker)
  Span kind_span;
  std::vector<UnitWeight> weights;
  Span span;
};

struct WindowDecl {
  double seconds = 0;
  std::optional<double> half_life_seconds;
  Span half_life_span;
  Span span;
  Span length_span;  // the duration after `window`
};

struct FairshareDecl {
  std::string algorithm;  // fair_tree | classic | drf (validated by the checker)
  Span span;
};

enum class NodeLevel { program, project, user };

enum class AttributeKind { owner, review, hypothesis };

struct NodeAttribute {
  AttributeKind kind = AttributeKind::owner;
  std::string text;          // owner, hypothesis
  std::optional<Date> date;  // review (nullopt when the date is impossible)
  Span span;
};

struct Unallocated {
  double percent = 0;
  Span span;
};

// How a tree node states its share of its parent.
enum class ShareForm {
  percent,  // `40%`: percentage points of the parent (`0%` is no entitlement)
  raw,      // `shares 50`: Slurm's Fairshare=50, normalised among the siblings
  parent,   // `share parent`: Slurm's FairShare=parent, its children compete one level up
};

// A node of the budget tree. Its level is where it stands, not how it was
// spelled: `level_keyword` records the keyword written (if any) for the checker.
struct TreeNode {
  std::optional<NodeLevel> level_keyword;
  std::string name;
  Span name_span;
  ShareForm share_form = ShareForm::percent;
  double percent = 0;     // ShareForm::percent; 0 otherwise
  double raw_shares = 0;  // ShareForm::raw; 0 otherwise
  Span share_span;        // the whole share: `40%`, `shares 50`, `share parent`
  std::vector<NodeAttribute> attributes;
  std::vector<TreeNode> children;
  std::vector<Unallocated> unallocated;
  Span span;
};

struct TreeDecl {
  std::vector<TreeNode> programs;
  std::vector<Unallocated> unallocated;
  Span span;
};

enum class ClassPropertyKind {
  max_gpus,
  max_nodes,
  max_runtime,
  protect,
  checkpoint,
  grace,
  resumable,
  preemptible,
  deadline,
  slo,
  fast_lane,
  progress,
};

// One property line of a class. `value` holds the number, seconds or percent;
// `flag` the boolean of resumable / preemptible and `deadline required`.
struct ClassProperty {
  ClassPropertyKind kind = ClassPropertyKind::max_gpus;
  double value = 0;
  bool flag = true;
  bool up_to = false;  // `protect up to D`: the job chooses, capped at D
  Span span;
  // `fast_lane up to N gpus per program`: the words after N, and where they are.
  // `progress every D [after A] [else ACTION]`: `value` is D, `after` is A (0
  // when absent), `words` holds the word before A ("after") and `action` the action.
  std::vector<std::string> words;
  Span words_span;
  double after = 0;
  std::string action;
  Span action_span;
};

struct ClassDecl {
  std::string name;
  Span name_span;
  std::vector<ClassProperty> properties;
  Span span;
};

// A path in the budget tree, `exploration/ana`.
struct NodePath {
  std::vector<std::string> parts;
  Span span;
  std::string joined() const;
};

struct Grant {
  NodePath to;
  double percent = 0;  // signed
  Span amount_span;
  std::optional<NodePath> from;
  Span span;
};

enum class ExceptionFieldKind { owner, reason, starts, expires };

struct ExceptionField {
  ExceptionFieldKind kind = ExceptionFieldKind::owner;
  std::string text;
  std::optional<Date> date;
  Span span;
};

struct ExceptionDecl {
  std::string name;
  Span name_span;
  std::vector<Grant> grants;
  std::vector<ExceptionField> fields;
  Span span;
};

struct TypeRef {
  std::string name;
  Span span;
};

struct Param {
  std::string name;
  Span name_span;
  TypeRef type;
};

struct FnDecl {
  std::string name;
  Span name_span;
  std::vector<Param> params;
  std::optional<TypeRef> result;
  ExprPtr body;
  Span span;
};

struct RankDecl {
  ExprPtr body;
  Span span;
};

struct PreemptDecl {
  ExprPtr body;
  Span span;
};

// `share_delivery >= 95% over 7d`, `max_wait debug <= 1h`.
struct Gate {
  std::string metric;
  Span metric_span;
  std::optional<std::string> subject;
  Span subject_span;
  std::string op;
  Span op_span;
  ExprPtr threshold;  // always a literal
  std::optional<double> window_seconds;
  Span window_span;  // the duration after `over`
  Span span;
};

struct GatesDecl {
  std::vector<Gate> gates;
  Span span;
};

struct Policy {
  std::string name;
  Span name_span;
  std::vector<UnitDecl> units;
  std::vector<WindowDecl> windows;
  std::vector<FairshareDecl> fairshares;
  std::vector<TreeDecl> trees;
  std::vector<ClassDecl> classes;
  std::vector<ExceptionDecl> exceptions;
  std::vector<FnDecl> functions;
  std::vector<RankDecl> ranks;
  std::vector<PreemptDecl> preempts;
  std::vector<GatesDecl> gates;
  Span span;
};

// One parsed file: a policy file holds one `policy`; a library file holds
// top-level functions and classes only.
struct Module {
  FileId file = 0;
  std::vector<Import> imports;
  std::vector<Policy> policies;
  std::vector<FnDecl> functions;
  std::vector<ClassDecl> classes;
};

}  // namespace allot::ast
