#include "types.h"

#include <array>
#include <utility>

namespace allot {
namespace {

// The types a policy may name in a declaration, with their spelling.
constexpr std::array<std::pair<std::string_view, Type>, 10> kDeclarableTypes = {{
    {"number", Type::number},
    {"bool", Type::boolean},
    {"duration", Type::duration},
    {"percent", Type::percent},
    {"date", Type::date},
    {"class", Type::job_class},
    {"label", Type::label},
    {"job", Type::job},
    {"account", Type::account},
    {"cluster", Type::cluster},
}};

bool is_arithmetic_op(std::string_view op) { return op == "+" || op == "-" || op == "*" || op == "/" || op == "^"; }
bool is_ordering_op(std::string_view op) { return op == "<" || op == "<=" || op == ">" || op == ">="; }
bool is_equality_op(std::string_view op) { return op == "==" || op == "!="; }
bool is_logic_op(std::string_view op) { return op == "and" || op == "or"; }

// `+` and `-`: same-unit sums, and moving a date by a duration.
std::optional<Type> additive_result(std::string_view op, Type left, Type right) {
  if (left == right && (left == Type::number || left == Type::duration || left == Type::percent)) return left;
  if (left == Type::date && right == Type::date && op == "-") return Type::duration;
  if (left == Type::date && right == Type::duration) return Type::date;
  if (left == Type::duration && right == Type::date && op == "+") return Type::date;
  return std::nullopt;
}

// `*`: scaling a quantity by a number; a percent of a percent is a percent.
std::optional<Type> multiply_result(Type left, Type right) {
  if (left == Type::number && right == Type::number) return Type::number;
  for (Type unit : {Type::duration, Type::percent}) {
    if ((left == unit && right == Type::number) || (left == Type::number && right == unit)) return unit;
  }
  if (left == Type::percent && right == Type::percent) return Type::percent;
  return std::nullopt;
}

// `/`: a quantity divided by a number keeps its unit; by its own unit it
// becomes a plain number (`job.wait / 1h`).
std::optional<Type> divide_result(Type left, Type right) {
  if (left == Type::number && right == Type::number) return Type::number;
  if ((left == Type::duration || left == Type::percent) && right == Type::number) return left;
  if ((left == Type::duration || left == Type::percent) && right == left) return Type::number;
  return std::nullopt;
}

std::optional<Type> arithmetic_result(std::string_view op, Type left, Type right) {
  if (op == "+" || op == "-") return additive_result(op, left, right);
  if (op == "*") return multiply_result(left, right);
  if (op == "/") return divide_result(left, right);
  if (left == Type::number && right == Type::number) return Type::number;  // `^`
  return std::nullopt;
}

}  // namespace

std::string_view type_name(Type type) {
  for (const auto& [name, declared] : kDeclarableTypes) {
    if (declared == type) return name;
  }
  return type == Type::string ? "string" : "error";
}

std::optional<Type> declared_type(std::string_view name) {
  for (const auto& [spelling, type] : kDeclarableTypes) {
    if (spelling == name) return type;
  }
  return std::nullopt;
}

std::vector<std::string> declarable_type_names() {
  std::vector<std::string> names;
  for (const auto& entry : kDeclarableTypes) names.emplace_back(entry.first);
  return names;
}

bool is_record(Type type) { return type == Type::job || type == Type::account || type == Type::cluster; }

const std::vector<std::string>& label_names() {
  static const std::vector<std::string> names = {"high", "medium", "low", "none"};
  return names;
}

bool is_equatable(Type type) {
  // Accounts compare by identity (`victim.account != requester.account`);
  // jobs and clusters have no useful identity to compare in a policy.
  return type != Type::error && type != Type::string && type != Type::job && type != Type::cluster;
}

bool is_ordered(Type type) {
  return type == Type::number || type == Type::duration || type == Type::percent || type == Type::date;
}

std::optional<Type> binary_result(std::string_view op, Type left, Type right) {
  if (is_arithmetic_op(op)) return arithmetic_result(op, left, right);
  if (is_ordering_op(op) && left == right && is_ordered(left)) return Type::boolean;
  if (is_equality_op(op) && left == right && is_equatable(left)) return Type::boolean;
  if (is_logic_op(op) && left == Type::boolean && right == Type::boolean) return Type::boolean;
  return std::nullopt;
}

std::optional<Type> unary_result(std::string_view op, Type operand) {
  if (op == "not") return operand == Type::boolean ? std::optional(Type::boolean) : std::nullopt;
  if (operand == Type::number || operand == Type::duration || operand == Type::percent) return operand;
  return std::nullopt;
}

}  // namespace allot
