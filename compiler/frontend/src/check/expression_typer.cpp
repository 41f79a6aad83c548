// The typing rules of expressions (spec: "Types and units"). Match
// expressions live in match_typer.cpp.
#include <fmt/format.h>

#include <algorithm>

#include "schema.h"
#include "suggest.h"
#include "typing.h"

namespace allot {
namespace {

bool is_input_name(std::string_view name) {
  for (auto inputs : {rank_inputs(), preempt_inputs()}) {
    for (const auto& input : inputs) {
      if (input.name == name) return true;
    }
  }
  return false;
}

// Help for an input name used where it does not exist.
std::string misplaced_input_help(std::string_view name, ExpressionSite site) {
  if (site == ExpressionSite::preempt && name == "job") return "use `victim` or `requester`";
  if (site == ExpressionSite::preempt && name == "account") return "use `victim.account` or `requester.account`";
  if (site == ExpressionSite::rank && (name == "victim" || name == "requester")) {
    return "`victim` and `requester` exist in `preempt when`; `rank` sees `job`, `account` and `cluster`";
  }
  if (site == ExpressionSite::function && is_input_name(name)) {
    return fmt::format("a function sees only its parameters: add `{}: {}` to them and pass it in", name,
                       name == "victim" || name == "requester" ? "job" : name);
  }
  return "";
}

// "`wait` is a field: did you mean `job.wait`?" for `wait(job)`-style slips.
std::string field_as_function_help(std::string_view name) {
  for (const auto& input : rank_inputs()) {
    if (find_field(input.type, name)) return fmt::format("did you mean the field `{}.{}`?", input.name, name);
  }
  return "";
}

std::string_view binary_verb_message(std::string_view op) {
  if (op == "+") return "cannot add `{0}` and `{1}`";
  if (op == "-") return "cannot subtract `{1}` from `{0}`";
  if (op == "*") return "cannot multiply `{0}` by `{1}`";
  if (op == "/") return "cannot divide `{0}` by `{1}`";
  if (op == "^") return "cannot raise `{0}` to the power of `{1}`";
  if (op == "and" || op == "or") return "cannot apply `{2}` to `{0}` and `{1}`";
  return "cannot compare `{0}` with `{1}`";
}

std::string binary_mismatch_message(std::string_view op, Type left, Type right) {
  if (left == right && (op == "==" || op == "!=")) {
    return fmt::format("cannot compare two `{}` values with `{}`", type_name(left), op);
  }
  if (left == right && op.size() <= 2 && (op[0] == '<' || op[0] == '>')) {
    return fmt::format("`{}` values have no order", type_name(left));
  }
  return fmt::format(fmt::runtime(binary_verb_message(op)), type_name(left), type_name(right), op);
}

std::string binary_mismatch_help(const ast::Expr& expr, Type left, Type right) {
  const std::string_view op = expr.text;
  if (op == "^")
    return "`^` works on plain numbers; divide a quantity by its unit first, such as `(job.wait / 1h) ^ 2`";
  if (left == right && (left == Type::job_class || left == Type::label)) {
    return fmt::format("a `{}` compares only with `==` and `!=`", type_name(left));
  }
  if (left == right && is_record(left)) return "compare one of their fields, such as `victim.class == requester.class`";
  if (op == "and" || op == "or") {
    const bool left_is_condition = left == Type::boolean;
    return condition_help(left_is_condition ? right : left, *expr.operands[left_is_condition ? 1 : 0]);
  }
  // A bare number next to a quantity: the user meant that quantity's unit.
  if (std::string help = literal_unit_help(right, left, *expr.operands[0]); !help.empty()) return help;
  return literal_unit_help(left, right, *expr.operands[1]);
}

}  // namespace

const Binding* Environment::find(std::string_view name) const {
  for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
    if (it->name == name) return &*it;
  }
  return nullptr;
}

bool is_number_literal(const ast::Expr& expr) {
  if (expr.kind == ast::ExprKind::number) return true;
  return expr.kind == ast::ExprKind::unary && expr.text == "-" && is_number_literal(*expr.operands[0]);
}

std::string literal_unit_help(Type expected, Type found, const ast::Expr& value) {
  if (found != Type::number || !is_number_literal(value)) return "";
  if (expected == Type::duration) return "write a duration such as `5m`";
  if (expected == Type::percent) return "write a percentage such as `50%`";
  return "";
}

std::string conversion_help(Type expected, Type found, const ast::Expr& value) {
  if (expected == Type::number && found == Type::duration) return "divide by a unit: `job.wait / 1h`";
  if (expected == Type::number && found == Type::percent) {
    return "divide by a percentage to get a number: `account.share / 1%`";
  }
  return literal_unit_help(expected, found, value);
}

namespace {

bool is_field_chain(const ast::Expr& expr) {
  if (expr.kind == ast::ExprKind::name) return true;
  return expr.kind == ast::ExprKind::field && is_field_chain(*expr.operands[0]);
}

}  // namespace

std::string condition_help(Type found, const ast::Expr& value) {
  // A name or field chain is quoted as written (its source text has no spaces).
  const bool quote = is_field_chain(value);
  std::string example;
  switch (found) {
    case Type::number:
      example = (quote ? value.source_text : "job.gpus") + " > 1";
      break;
    case Type::duration:
      example = (quote ? value.source_text : "job.wait") + " > 1h";
      break;
    case Type::percent:
      example = (quote ? value.source_text : "account.share") + " > 50%";
      break;
    case Type::date:
      example = (quote ? value.source_text : "job.submitted") + " < 2026-12-31";
      break;
    default:
      return "";
  }
  return fmt::format("compare it with a value, such as `{}`", example);
}

ExpressionTyper::ExpressionTyper(const Scope& scope, const FunctionSignatures& functions, DiagnosticSink& diagnostics)
    : scope_(scope), functions_(functions), diagnostics_(diagnostics) {}

Type ExpressionTyper::type_of(const ast::Expr& expr, Environment& environment) {
  const Type type = infer(expr, environment);
  types_[&expr] = type;
  return type;
}

Type ExpressionTyper::infer(const ast::Expr& expr, Environment& environment) {
  using Kind = ast::ExprKind;
  switch (expr.kind) {
    case Kind::number:
      return Type::number;
    case Kind::duration:
      return Type::duration;
    case Kind::percent:
      return Type::percent;
    case Kind::date:
      return Type::date;
    case Kind::boolean:
      return Type::boolean;
    case Kind::string:
      return type_of_string(expr);
    case Kind::name:
      return type_of_name(expr, environment);
    case Kind::call:
      return type_of_call(expr, environment);
    case Kind::field:
      return type_of_field(expr, environment);
    case Kind::unary:
      return type_of_unary(expr, environment);
    case Kind::binary:
      return type_of_binary(expr, environment);
    case Kind::if_then_else:
      return type_of_if(expr, environment);
    case Kind::let:
      return type_of_let(expr, environment);
    case Kind::match:
      return type_of_match(expr, environment);
  }
  return Type::error;
}

Type ExpressionTyper::type_of_string(const ast::Expr& expr) {
  const auto& labels = label_names();
  const bool is_member =
      scope_.classes.count(expr.text) || std::find(labels.begin(), labels.end(), expr.text) != labels.end();
  diagnostics_.error(DiagnosticCode::type_mismatch, expr.span, "a string cannot be used in an expression")
      .help(is_member ? fmt::format("write `{}` without quotes", expr.text)
                      : "strings are only for `owner`, `reason` and `hypothesis`");
  return Type::error;
}

Type ExpressionTyper::type_of_name(const ast::Expr& expr, const Environment& environment) {
  if (const Binding* binding = environment.find(expr.text)) return binding->type;
  if (scope_.classes.count(expr.text)) return Type::job_class;
  const auto& labels = label_names();
  if (std::find(labels.begin(), labels.end(), expr.text) != labels.end()) return Type::label;
  report_unknown_name(expr, environment);
  return Type::error;
}

void ExpressionTyper::report_unknown_name(const ast::Expr& expr, const Environment& environment) {
  if (scope_.incomplete) return;  // a class of the import that failed: its error is the one report
  std::string help = misplaced_input_help(expr.text, environment.site);
  if (help.empty()) {
    std::vector<std::string> candidates;
    for (const auto& binding : environment.bindings) {
      if (std::find(candidates.begin(), candidates.end(), binding.name) == candidates.end())
        candidates.push_back(binding.name);
    }
    for (const auto& [name, decl] : scope_.classes) candidates.push_back(name);
    for (const auto& label : label_names()) candidates.push_back(label);
    help = suggest(expr.text, candidates);
  }
  diagnostics_.error(DiagnosticCode::unknown_name, expr.span, fmt::format("unknown name `{}`", expr.text)).help(help);
}

Type ExpressionTyper::type_of_field(const ast::Expr& expr, Environment& environment) {
  const Type target = type_of(*expr.operands[0], environment);
  if (target == Type::error) return Type::error;
  if (!is_record(target)) {
    diagnostics_
        .error(DiagnosticCode::type_mismatch, expr.name_span,
               fmt::format("a `{}` has no field `{}`", type_name(target), expr.text))
        .help("only `job`, `account` and `cluster` have fields");
    return Type::error;
  }
  if (const FieldSchema* field = find_field(target, expr.text)) return field->type;
  std::vector<std::string> names;
  for (const auto& field : record_fields(target)) names.emplace_back(field.name);
  std::string help = closest_name(expr.text, names).empty() ? suggest_by_words(expr.text, names) : "";
  if (help.empty()) help = suggest(expr.text, names);
  diagnostics_
      .error(DiagnosticCode::unknown_field, expr.name_span,
             fmt::format("`{}` has no field `{}`", type_name(target), expr.text))
      .help(help);
  return Type::error;
}

Type ExpressionTyper::type_of_call(const ast::Expr& expr, Environment& environment) {
  std::vector<Type> arguments;
  for (const auto& operand : expr.operands) arguments.push_back(type_of(*operand, environment));
  if (find_builtin(expr.text)) return type_of_builtin_call(expr, arguments);
  if (auto it = functions_.find(expr.text); it != functions_.end())
    return type_of_user_call(expr, it->second, arguments);
  report_unknown_function(expr);
  return Type::error;
}

void ExpressionTyper::report_unknown_function(const ast::Expr& expr) {
  if (scope_.incomplete) return;  // a function of the import that failed: its error is the one report
  std::vector<std::string> names;
  for (const auto& builtin : builtin_functions()) names.emplace_back(builtin.name);
  for (const auto& [name, signature] : functions_) names.push_back(name);
  std::string help = closest_name(expr.text, names).empty() ? field_as_function_help(expr.text) : "";
  if (help.empty()) help = suggest(expr.text, names);
  diagnostics_.error(DiagnosticCode::unknown_function, expr.name_span, fmt::format("unknown function `{}`", expr.text))
      .help(help);
}

Type ExpressionTyper::type_of_builtin_call(const ast::Expr& expr, const std::vector<Type>& arguments) {
  const BuiltinSchema& builtin = *find_builtin(expr.text);
  const std::size_t count = arguments.size();
  if (count < builtin.min_arguments || (builtin.max_arguments && count > *builtin.max_arguments)) {
    const bool exact = builtin.max_arguments == builtin.min_arguments;
    diagnostics_
        .error(DiagnosticCode::wrong_argument_count, expr.span,
               fmt::format("`{}` takes {}{} argument{}, not {}", builtin.name, exact ? "" : "at least ",
                           builtin.min_arguments, builtin.min_arguments == 1 ? "" : "s", count))
        .help(fmt::format("write `{}`", builtin.usage));
    return Type::error;
  }
  if (std::find(arguments.begin(), arguments.end(), Type::error) != arguments.end()) return Type::error;
  const auto accepted = accepted_argument_types(builtin.rule);
  if (std::find(accepted.begin(), accepted.end(), arguments[0]) == accepted.end()) {
    std::string names;
    for (std::size_t i = 0; i < accepted.size(); ++i) {
      names += fmt::format("{}`{}`", i == 0 ? "" : i + 1 == accepted.size() ? " or " : ", ", type_name(accepted[i]));
    }
    diagnostics_
        .error(DiagnosticCode::type_mismatch, expr.operands[0]->span,
               fmt::format("`{}` takes {}, not `{}`", builtin.name, names, type_name(arguments[0])))
        .help(conversion_help(accepted[0], arguments[0], *expr.operands[0]));
    return Type::error;
  }
  for (std::size_t i = 1; i < count; ++i) {
    if (arguments[i] == arguments[0]) continue;
    diagnostics_
        .error(DiagnosticCode::type_mismatch, expr.operands[i]->span,
               fmt::format("arguments of `{}` must have the same type, not `{}` and `{}`", builtin.name,
                           type_name(arguments[0]), type_name(arguments[i])))
        .note(fmt::format("the first argument is `{}`", type_name(arguments[0])), expr.operands[0]->span)
        .help(conversion_help(arguments[0], arguments[i], *expr.operands[i]));
    return Type::error;
  }
  return arguments[0];
}

Type ExpressionTyper::type_of_user_call(const ast::Expr& expr, const FunctionSignature& function,
                                        const std::vector<Type>& arguments) {
  const ast::FnDecl& decl = *function.decl;
  if (arguments.size() != decl.params.size()) {
    std::string names;
    for (const auto& param : decl.params) names += (names.empty() ? "" : ", ") + param.name;
    diagnostics_
        .error(DiagnosticCode::wrong_argument_count, expr.span,
               fmt::format("`{}` takes {} argument{}, not {}", decl.name, decl.params.size(),
                           decl.params.size() == 1 ? "" : "s", arguments.size()))
        .note(fmt::format("`{}` is declared here", decl.name), decl.name_span)
        .help(fmt::format("write `{}({})`", decl.name, names));
    return function.result;
  }
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const Type expected = function.parameters[i];
    if (arguments[i] == Type::error || expected == Type::error || arguments[i] == expected) continue;
    diagnostics_
        .error(DiagnosticCode::type_mismatch, expr.operands[i]->span,
               fmt::format("argument `{}` of `{}` must be `{}`, not `{}`", decl.params[i].name, decl.name,
                           type_name(expected), type_name(arguments[i])))
        .note("the parameter is declared here", decl.params[i].type.span)
        .help(conversion_help(expected, arguments[i], *expr.operands[i]));
  }
  return function.result;
}

Type ExpressionTyper::type_of_unary(const ast::Expr& expr, Environment& environment) {
  const Type operand = type_of(*expr.operands[0], environment);
  if (operand == Type::error) return Type::error;
  if (auto result = unary_result(expr.text, operand)) return *result;
  if (expr.text == "not") {
    diagnostics_
        .error(DiagnosticCode::type_mismatch, expr.span, fmt::format("cannot apply `not` to `{}`", type_name(operand)))
        .help(condition_help(operand, *expr.operands[0]));
  } else {
    diagnostics_.error(DiagnosticCode::type_mismatch, expr.span, fmt::format("cannot negate `{}`", type_name(operand)))
        .help(operand == Type::boolean ? "write `not` to negate a condition" : "");
  }
  return Type::error;
}

Type ExpressionTyper::type_of_binary(const ast::Expr& expr, Environment& environment) {
  const Type left = type_of(*expr.operands[0], environment);
  const Type right = type_of(*expr.operands[1], environment);
  if (left == Type::error || right == Type::error) return Type::error;
  if (auto result = binary_result(expr.text, left, right)) return *result;
  diagnostics_.error(DiagnosticCode::type_mismatch, expr.span, binary_mismatch_message(expr.text, left, right))
      .help(binary_mismatch_help(expr, left, right));
  return Type::error;
}

Type ExpressionTyper::type_of_if(const ast::Expr& expr, Environment& environment) {
  const ast::Expr& condition = *expr.operands[0];
  const Type condition_type = type_of(condition, environment);
  if (condition_type != Type::error && condition_type != Type::boolean) {
    diagnostics_
        .error(DiagnosticCode::type_mismatch, condition.span,
               fmt::format("the condition of `if` must be `bool`, not `{}`", type_name(condition_type)))
        .help(condition_help(condition_type, condition));
  }
  const Type then_type = type_of(*expr.operands[1], environment);
  const Type else_type = type_of(*expr.operands[2], environment);
  if (then_type == Type::error || else_type == Type::error) return Type::error;
  if (then_type == else_type) return then_type;
  diagnostics_
      .error(
          DiagnosticCode::type_mismatch, expr.operands[2]->span,
          fmt::format("`if` branches have different types: `{}` and `{}`", type_name(then_type), type_name(else_type)))
      .note(fmt::format("the `then` branch is `{}`", type_name(then_type)), expr.operands[1]->span)
      .help(literal_unit_help(then_type, else_type, *expr.operands[2]));
  return Type::error;
}

Type ExpressionTyper::type_of_let(const ast::Expr& expr, Environment& environment) {
  const Type value = type_of(*expr.operands[0], environment);
  environment.bindings.push_back({expr.text, value});
  const Type body = type_of(*expr.operands[1], environment);
  environment.bindings.pop_back();
  return body;
}

std::vector<std::string> ExpressionTyper::member_names(Type enumeration) const {
  if (enumeration == Type::label) return label_names();
  std::vector<std::string> names;
  if (enumeration == Type::job_class) {
    for (const auto& [name, decl] : scope_.classes) names.push_back(name);
  }
  return names;
}

}  // namespace allot
