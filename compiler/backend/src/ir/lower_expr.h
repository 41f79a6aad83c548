// Lowering of expressions (lower_expr.cpp): an ast::Expr in an environment of
// bound names becomes IR nodes in a FunctionBuilder. Records (`job`,
// `account`, `cluster`) have no run-time value of their own: they stay
// symbolic until a field is read, so `if c then victim else requester`
// becomes a `select` of each field that is read from it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "builder.h"
#include "check/typing.h"

namespace allot::ir {

struct RecordValue;

// A record: a job or its account (by subject), the cluster, or a choice between two records.
using Record = std::shared_ptr<const RecordValue>;

struct RecordValue {
  Type type = Type::job;  // job, account or cluster
  Subject subject = Subject::job;
  // When set, the record is `condition ? when_true : when_false`.
  std::optional<NodeId> condition;
  Record when_true, when_false;
};

// The lowered value of an expression: a node, or a record.
struct Value {
  Value(NodeId scalar = 0) : node(scalar) {}                 // NOLINT: a node is a value
  Value(Record of_record) : record(std::move(of_record)) {}  // NOLINT: so is a record
  NodeId node = 0;
  Record record;  // set for record-typed values
};

// Names bound while lowering; the innermost binding of a name is the last.
using Bindings = std::vector<std::pair<std::string, Value>>;

// What expressions may refer to besides bound names.
struct LoweringScope {
  std::map<std::string, double> class_ids;
  std::map<std::string, const ast::FnDecl*> functions;
  const ExpressionTypes* types = nullptr;
};

class ExpressionLowerer {
 public:
  ExpressionLowerer(const LoweringScope& scope, FunctionBuilder& builder) : scope_(scope), builder_(builder) {}
  Value lower(const ast::Expr& expr, Bindings& bindings);
  // A record input of an entry point (`job`, `victim`, `cluster`).
  static Record input(Type type, Subject subject);

 private:
  Value lower_literal(const ast::Expr& expr);
  Value lower_name(const ast::Expr& expr, const Bindings& bindings);
  Value lower_field(const ast::Expr& expr, Bindings& bindings);
  Value field_of(const Record& record, const std::string& name);
  Value lower_call(const ast::Expr& expr, Bindings& bindings);
  Value lower_builtin(const ast::Expr& expr, const std::vector<Value>& arguments);
  Value inline_function(const ast::FnDecl& function, const std::vector<Value>& arguments);
  Value lower_unary(const ast::Expr& expr, Bindings& bindings);
  Value lower_binary(const ast::Expr& expr, Bindings& bindings);
  Value lower_if(const ast::Expr& expr, Bindings& bindings);
  Value lower_let(const ast::Expr& expr, Bindings& bindings);
  Value lower_match(const ast::Expr& expr, Bindings& bindings);
  NodeId account_row(const Record& record);
  Value choose(NodeId condition, const Value& when_true, const Value& when_false, SourceType type);
  SourceType type_of(const ast::Expr& expr) const;

  const LoweringScope& scope_;
  FunctionBuilder& builder_;
  // Inlined calls, by callee and arguments: a function called twice with the
  // same arguments is lowered once (and keeps lowering linear in the source).
  std::map<std::string, Value> inlined_;
};

// The IR type of a language type (records and strings map to number; never lowered as nodes).
SourceType source_type(Type type);

}  // namespace allot::ir
