#include "lower_expr.h"

#include <fmt/format.h>

#include "check/schema.h"
#include "columns.h"

namespace allot::ir {
namespace {

constexpr double kSecondsPerDay = 86400.0;

// abi.h: label -> 0 none, 1 low, 2 medium, 3 high.
double label_code(const std::string& name) {
  if (name == "high") return 3;
  if (name == "medium") return 2;
  if (name == "low") return 1;
  return 0;
}

bool is_label(const std::string& name) { return name == "high" || name == "medium" || name == "low" || name == "none"; }

Op binary_op(const std::string& op) {
  static const std::map<std::string, Op> ops = {
      {"+", Op::add}, {"-", Op::sub},           {"*", Op::mul},         {"/", Op::div}, {"^", Op::pow},
      {"<", Op::lt},  {"<=", Op::le},           {">", Op::gt},          {">=", Op::ge}, {"==", Op::eq},
      {"!=", Op::ne}, {"and", Op::logical_and}, {"or", Op::logical_or},
  };
  return ops.at(op);
}

Op field_op(Type record) {
  if (record == Type::job) return Op::job_field;
  if (record == Type::account) return Op::account_field;
  return Op::cluster_field;
}

// A canonical text of a value, for remembering inlined calls.
std::string key_of(const Value& value);

std::string key_of(const Record& record) {
  if (!record->condition)
    return fmt::format("r{}.{}", static_cast<int>(record->type), static_cast<int>(record->subject));
  return fmt::format("(%{}?{}:{})", *record->condition, key_of(record->when_true), key_of(record->when_false));
}

std::string key_of(const Value& value) { return value.record ? key_of(value.record) : fmt::format("%{}", value.node); }

}  // namespace

SourceType source_type(Type type) {
  switch (type) {
    case Type::boolean:
      return SourceType::boolean;
    case Type::duration:
      return SourceType::duration;
    case Type::percent:
      return SourceType::percent;
    case Type::date:
      return SourceType::date;
    case Type::job_class:
      return SourceType::class_id;
    case Type::label:
      return SourceType::label;
    default:
      return SourceType::number;
  }
}

Record ExpressionLowerer::input(Type type, Subject subject) {
  auto record = std::make_shared<RecordValue>();
  record->type = type;
  record->subject = subject;
  return record;
}

SourceType ExpressionLowerer::type_of(const ast::Expr& expr) const {
  auto found = scope_.types->find(&expr);
  return found == scope_.types->end() ? SourceType::number : source_type(found->second);
}

Value ExpressionLowerer::lower(const ast::Expr& expr, Bindings& bindings) {
  using Kind = ast::ExprKind;
  switch (expr.kind) {
    case Kind::name:
      return lower_name(expr, bindings);
    case Kind::field:
      return lower_field(expr, bindings);
    case Kind::call:
      return lower_call(expr, bindings);
    case Kind::unary:
      return lower_unary(expr, bindings);
    case Kind::binary:
      return lower_binary(expr, bindings);
    case Kind::if_then_else:
      return lower_if(expr, bindings);
    case Kind::let:
      return lower_let(expr, bindings);
    case Kind::match:
      return lower_match(expr, bindings);
    default:
      return lower_literal(expr);
  }
}

// Literals in abi units: percent -> fraction, duration -> seconds, date -> epoch seconds.
Value ExpressionLowerer::lower_literal(const ast::Expr& expr) {
  switch (expr.kind) {
    case ast::ExprKind::percent:
      return {builder_.constant(expr.number / 100.0, SourceType::percent)};
    case ast::ExprKind::duration:
      return {builder_.constant(expr.number, SourceType::duration)};
    case ast::ExprKind::date:
      return {builder_.constant(expr.number * kSecondsPerDay, SourceType::date)};
    case ast::ExprKind::boolean:
      return {builder_.constant(expr.number, SourceType::boolean)};
    default:
      return {builder_.constant(expr.number, SourceType::number)};
  }
}

// Bound names first (they may shadow), then classes, then labels: the checker's order.
Value ExpressionLowerer::lower_name(const ast::Expr& expr, const Bindings& bindings) {
  for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
    if (it->first == expr.text) return it->second;
  }
  if (auto found = scope_.class_ids.find(expr.text); found != scope_.class_ids.end()) {
    return {builder_.constant(found->second, SourceType::class_id)};
  }
  return {builder_.constant(is_label(expr.text) ? label_code(expr.text) : 0, SourceType::label)};
}

Value ExpressionLowerer::lower_field(const ast::Expr& expr, Bindings& bindings) {
  const Value target = lower(*expr.operands[0], bindings);
  if (!target.record) return {builder_.constant(0, SourceType::number)};
  return field_of(target.record, expr.text);
}

Value ExpressionLowerer::field_of(const Record& record, const std::string& name) {
  if (record->condition) {
    const Value when_true = field_of(record->when_true, name);
    const Value when_false = field_of(record->when_false, name);
    const FieldSchema* field = find_field(record->type, name);
    return choose(*record->condition, when_true, when_false, source_type(field ? field->type : Type::number));
  }
  if (record->type == Type::job && name == "account") return input(Type::account, record->subject);
  const auto column = column_of(record->type, name);
  const Type type = column ? column_type(record->type, *column) : Type::number;
  return {builder_.load(field_op(record->type), column.value_or(0), record->subject, source_type(type))};
}

Value ExpressionLowerer::lower_call(const ast::Expr& expr, Bindings& bindings) {
  std::vector<Value> arguments;
  for (const auto& operand : expr.operands) arguments.push_back(lower(*operand, bindings));
  if (find_builtin(expr.text)) return lower_builtin(expr, arguments);
  auto function = scope_.functions.find(expr.text);
  if (function == scope_.functions.end()) return {builder_.constant(0, SourceType::number)};
  return inline_function(*function->second, arguments);
}

// min/max fold left; clamp(x, lo, hi) is min(max(x, lo), hi).
Value ExpressionLowerer::lower_builtin(const ast::Expr& expr, const std::vector<Value>& arguments) {
  const SourceType type = type_of(expr);
  const std::string& name = expr.text;
  if (name == "min" || name == "max") {
    NodeId result = arguments[0].node;
    for (std::size_t i = 1; i < arguments.size(); ++i) {
      result = builder_.compute(name == "min" ? Op::min : Op::max, type, result, arguments[i].node);
    }
    return {result};
  }
  if (name == "clamp") {
    const NodeId low = builder_.compute(Op::max, type, arguments[0].node, arguments[1].node);
    return {builder_.compute(Op::min, type, low, arguments[2].node)};
  }
  static const std::map<std::string, Op> unary = {
      {"abs", Op::abs}, {"log", Op::log}, {"exp", Op::exp}, {"sqrt", Op::sqrt}};
  return {builder_.compute(unary.at(name), type, arguments[0].node)};
}

// A function body sees only its parameters, bound to the lowered arguments.
Value ExpressionLowerer::inline_function(const ast::FnDecl& function, const std::vector<Value>& arguments) {
  std::string key = function.name;
  for (const auto& argument : arguments)
    key.append(",").append(key_of(argument));  // not `"," + ...`: GCC 12 -O3 -Wrestrict
  if (auto found = inlined_.find(key); found != inlined_.end()) return found->second;
  Bindings parameters;
  for (std::size_t i = 0; i < function.params.size() && i < arguments.size(); ++i) {
    parameters.emplace_back(function.params[i].name, arguments[i]);
  }
  const Value result = lower(*function.body, parameters);
  inlined_.emplace(key, result);
  return result;
}

Value ExpressionLowerer::lower_unary(const ast::Expr& expr, Bindings& bindings) {
  const Value operand = lower(*expr.operands[0], bindings);
  return {builder_.compute(expr.text == "not" ? Op::logical_not : Op::neg, type_of(expr), operand.node)};
}

// Accounts compare by identity: their rows in the account table.
Value ExpressionLowerer::lower_binary(const ast::Expr& expr, Bindings& bindings) {
  const Value left = lower(*expr.operands[0], bindings);
  const Value right = lower(*expr.operands[1], bindings);
  const NodeId a = left.record ? account_row(left.record) : left.node;
  const NodeId b = right.record ? account_row(right.record) : right.node;
  return {builder_.compute(binary_op(expr.text), type_of(expr), a, b)};
}

NodeId ExpressionLowerer::account_row(const Record& record) {
  if (!record->condition) return builder_.load(Op::account_row, 0, record->subject, SourceType::number);
  const NodeId when_true = account_row(record->when_true);
  return builder_.compute(Op::select, SourceType::number, *record->condition, when_true,
                          account_row(record->when_false));
}

Value ExpressionLowerer::lower_if(const ast::Expr& expr, Bindings& bindings) {
  const Value condition = lower(*expr.operands[0], bindings);
  const Value when_true = lower(*expr.operands[1], bindings);
  const Value when_false = lower(*expr.operands[2], bindings);
  return choose(condition.node, when_true, when_false, type_of(expr));
}

Value ExpressionLowerer::choose(NodeId condition, const Value& when_true, const Value& when_false, SourceType type) {
  if (!when_true.record) return {builder_.compute(Op::select, type, condition, when_true.node, when_false.node)};
  if (auto known = builder_.constant_value(condition)) return *known != 0 ? when_true : when_false;
  if (key_of(when_true) == key_of(when_false)) return when_true;
  auto record = std::make_shared<RecordValue>();
  record->type = when_true.record->type;
  record->condition = condition;
  record->when_true = when_true.record;
  record->when_false = when_false.record;
  return Value(Record(record));
}

Value ExpressionLowerer::lower_let(const ast::Expr& expr, Bindings& bindings) {
  bindings.emplace_back(expr.text, lower(*expr.operands[0], bindings));
  const Value body = lower(*expr.operands[1], bindings);
  bindings.pop_back();
  return body;
}

// Arms are tested in order; the wildcard (or, in an exhaustive match without
// one, the last arm) is the default, so an out-of-range class id gets it too.
Value ExpressionLowerer::lower_match(const ast::Expr& expr, Bindings& bindings) {
  const Value subject = lower(*expr.operands[0], bindings);
  const SourceType subject_type = type_of(*expr.operands[0]);
  std::vector<const ast::MatchArm*> arms;
  for (const auto& arm : expr.arms) {
    arms.push_back(&arm);
    if (arm.pattern.empty()) break;  // arms after `_` never run
  }
  std::vector<Value> values;
  for (const auto* arm : arms) values.push_back(lower(*arm->value, bindings));
  Value result = values.back();
  for (std::size_t i = arms.size() - 1; i-- > 0;) {
    const std::string& pattern = arms[i]->pattern;
    const auto class_id = scope_.class_ids.find(pattern);
    const double code = subject_type == SourceType::label    ? label_code(pattern)
                        : class_id != scope_.class_ids.end() ? class_id->second
                                                             : -1;
    const NodeId member = builder_.constant(code, subject_type);
    const NodeId test = builder_.compute(Op::eq, SourceType::boolean, subject.node, member);
    result = choose(test, values[i], result, type_of(expr));
  }
  return result;
}

}  // namespace allot::ir
