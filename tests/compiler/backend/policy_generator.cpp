#include "policy_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "check/schema.h"

namespace allot::testing {
namespace {

const std::vector<Type> kScalarTypes = {Type::number, Type::boolean,   Type::duration, Type::percent,
                                        Type::date,   Type::job_class, Type::label};
const std::vector<Type> kQuantityTypes = {Type::number, Type::duration, Type::percent, Type::date};
const std::vector<std::string> kLabels = {"high", "medium", "low", "none"};

struct Binding {
  std::string name;
  Type type;
};

// Writes one expression at a time for a set of names in scope. Every
// compound expression is parenthesised, so precedence never changes meaning.
class ExpressionGenerator {
 public:
  ExpressionGenerator(std::mt19937_64& random, const std::vector<std::string>& classes,
                      const std::vector<CallableFunction>& functions, std::vector<Binding> scope, int& next_name)
      : random_(random), classes_(classes), functions_(functions), scope_(std::move(scope)), next_name_(next_name) {}

  // An expression of `type` at most `depth` levels deep.
  std::string expr(Type type, int depth);
  // True when a record of `type` can be written from the names in scope.
  bool can_write(Type type) const;

 private:
  using Production = std::function<std::string()>;
  std::string leaf(Type type);
  std::string literal(Type type);
  std::string record(Type type, int depth);
  std::string field_of_type(Type type, int depth);
  std::vector<Production> productions(Type type, int depth);
  void add_common(std::vector<Production>& out, Type type, int depth);
  void add_arithmetic(std::vector<Production>& out, Type type, int depth);
  void add_number(std::vector<Production>& out, int depth);
  void add_duration(std::vector<Production>& out, int depth);
  void add_percent(std::vector<Production>& out, int depth);
  void add_date(std::vector<Production>& out, int depth);
  void add_bool(std::vector<Production>& out, int depth);
  std::string builtin(const char* name, Type type, int arguments, int depth);
  std::string let(Type type, int depth);
  std::string match(Type type, int depth);
  std::string call(const CallableFunction& function, int depth);
  std::vector<const CallableFunction*> callable(Type result) const;
  std::string binary(Type left, const char* op, Type right, int depth);
  std::string one_of(const std::vector<std::string>& choices);
  int roll(int below) { return std::uniform_int_distribution<int>(0, below - 1)(random_); }

  std::mt19937_64& random_;
  const std::vector<std::string>& classes_;
  const std::vector<CallableFunction>& functions_;
  std::vector<Binding> scope_;
  int& next_name_;
};

std::string ExpressionGenerator::one_of(const std::vector<std::string>& choices) {
  return choices[static_cast<std::size_t>(roll(static_cast<int>(choices.size())))];
}

std::string ExpressionGenerator::expr(Type type, int depth) {
  if (is_record(type)) return record(type, depth);
  if (depth <= 0 || roll(4) == 0) return leaf(type);
  auto choices = productions(type, depth - 1);
  return choices[static_cast<std::size_t>(roll(static_cast<int>(choices.size())))]();
}

bool ExpressionGenerator::can_write(Type type) const {
  for (const auto& binding : scope_) {
    if (binding.type == type || (type == Type::account && binding.type == Type::job)) return true;
  }
  return false;
}

std::string ExpressionGenerator::literal(Type type) {
  switch (type) {
    case Type::number:
      return one_of({"0", "1", "2", "0.5", "3", "10", "1000", "0.001", "1000000000000000", "7.25"});
    case Type::duration:
      return one_of({"0s", "1s", "15m", "2h", "1d", "1w", "90m", "1.5h", "10000d"});
    case Type::percent:
      return one_of({"0%", "1%", "50%", "12.5%", "100%", "250%"});
    case Type::date:
      return one_of({"2026-12-01", "1970-01-01", "2030-06-15", "2000-02-29"});
    case Type::boolean:
      return one_of({"true", "false"});
    case Type::job_class:
      return one_of(classes_);
    default:
      return one_of(kLabels);
  }
}

// A literal, a name of `type` in scope, or a field of that type.
std::string ExpressionGenerator::leaf(Type type) {
  std::vector<std::string> choices = {literal(type)};
  for (const auto& binding : scope_) {
    if (binding.type == type) choices.push_back(binding.name);
  }
  if (std::string field = field_of_type(type, 0); !field.empty()) {
    choices.push_back(field);
    choices.push_back(field);
  }
  return one_of(choices);
}

// `record.field` for a field of `type` on some record in scope; "" when none has one.
std::string ExpressionGenerator::field_of_type(Type type, int depth) {
  std::vector<std::pair<Type, std::string>> fields;
  for (Type record_type : {Type::job, Type::account, Type::cluster}) {
    if (!can_write(record_type)) continue;
    for (const auto& field : record_fields(record_type)) {
      if (field.type == type) fields.emplace_back(record_type, std::string(field.name));
    }
  }
  if (fields.empty()) return "";
  const auto& [record_type, name] = fields[static_cast<std::size_t>(roll(static_cast<int>(fields.size())))];
  return record(record_type, depth) + "." + name;
}

// A record: a name in scope, `j.account`, a choice between two, or a call.
std::string ExpressionGenerator::record(Type type, int depth) {
  std::vector<std::string> choices;
  for (const auto& binding : scope_) {
    if (binding.type == type) choices.push_back(binding.name);
  }
  if (type == Type::account && can_write(Type::job)) choices.push_back(record(Type::job, depth) + ".account");
  if (depth > 0 && roll(3) == 0) {
    choices.push_back(fmt::format("(if {} then {} else {})", expr(Type::boolean, depth - 1), record(type, depth - 1),
                                  record(type, depth - 1)));
  }
  for (const auto* function : callable(type)) {
    if (depth > 0) choices.push_back(call(*function, depth - 1));
  }
  return one_of(choices);
}

std::vector<ExpressionGenerator::Production> ExpressionGenerator::productions(Type type, int depth) {
  std::vector<Production> out;
  add_common(out, type, depth);
  switch (type) {
    case Type::number:
      add_number(out, depth);
      break;
    case Type::duration:
      add_duration(out, depth);
      break;
    case Type::percent:
      add_percent(out, depth);
      break;
    case Type::date:
      add_date(out, depth);
      break;
    case Type::boolean:
      add_bool(out, depth);
      break;
    default:
      out.push_back([this, type] { return leaf(type); });
      break;
  }
  return out;
}

void ExpressionGenerator::add_common(std::vector<Production>& out, Type type, int depth) {
  out.push_back([=, this] {
    return fmt::format("(if {} then {} else {})", expr(Type::boolean, depth), expr(type, depth), expr(type, depth));
  });
  out.push_back([=, this] { return let(type, depth); });
  out.push_back([=, this] { return match(type, depth); });
  for (const auto* function : callable(type)) out.push_back([=, this] { return call(*function, depth); });
}

std::string ExpressionGenerator::binary(Type left, const char* op, Type right, int depth) {
  return fmt::format("({} {} {})", expr(left, depth), op, expr(right, depth));
}

std::string ExpressionGenerator::builtin(const char* name, Type type, int arguments, int depth) {
  std::string text = std::string(name) + "(";
  for (int i = 0; i < arguments; ++i) text += (i ? ", " : "") + expr(type, depth);
  return text + ")";
}

// min, max, clamp and, for signed quantities, abs and unary minus.
void ExpressionGenerator::add_arithmetic(std::vector<Production>& out, Type type, int depth) {
  out.push_back([=, this] { return builtin(roll(2) ? "min" : "max", type, 2 + roll(2), depth); });
  out.push_back([=, this] { return builtin("clamp", type, 3, depth); });
  if (type == Type::date) return;
  out.push_back([=, this] { return builtin("abs", type, 1, depth); });
  out.push_back([=, this] { return "(-" + expr(type, depth) + ")"; });
}

void ExpressionGenerator::add_number(std::vector<Production>& out, int depth) {
  add_arithmetic(out, Type::number, depth);
  for (const char* op : {"+", "-", "*", "/", "^"}) {
    out.push_back([=, this] { return binary(Type::number, op, Type::number, depth); });
  }
  out.push_back([=, this] { return binary(Type::duration, "/", Type::duration, depth); });
  out.push_back([=, this] { return binary(Type::percent, "/", Type::percent, depth); });
  for (const char* name : {"log", "exp", "sqrt"}) {
    out.push_back([=, this] { return builtin(name, Type::number, 1, depth); });
  }
}

void ExpressionGenerator::add_duration(std::vector<Production>& out, int depth) {
  add_arithmetic(out, Type::duration, depth);
  const Type d = Type::duration, n = Type::number;
  out.push_back([=, this] { return binary(d, roll(2) ? "+" : "-", d, depth); });
  out.push_back([=, this] { return binary(d, "*", n, depth); });
  out.push_back([=, this] { return binary(n, "*", d, depth); });
  out.push_back([=, this] { return binary(d, "/", n, depth); });
  out.push_back([=, this] { return binary(Type::date, "-", Type::date, depth); });
}

void ExpressionGenerator::add_percent(std::vector<Production>& out, int depth) {
  add_arithmetic(out, Type::percent, depth);
  const Type p = Type::percent, n = Type::number;
  out.push_back([=, this] { return binary(p, roll(2) ? "+" : "-", p, depth); });
  out.push_back([=, this] { return binary(p, "*", n, depth); });
  out.push_back([=, this] { return binary(n, "*", p, depth); });
  out.push_back([=, this] { return binary(p, "/", n, depth); });
  out.push_back([=, this] { return binary(p, "*", p, depth); });
}

void ExpressionGenerator::add_date(std::vector<Production>& out, int depth) {
  add_arithmetic(out, Type::date, depth);
  out.push_back([=, this] { return binary(Type::date, roll(2) ? "+" : "-", Type::duration, depth); });
  out.push_back([=, this] { return binary(Type::duration, "+", Type::date, depth); });
}

void ExpressionGenerator::add_bool(std::vector<Production>& out, int depth) {
  out.push_back([=, this] {
    const Type type = kQuantityTypes[static_cast<std::size_t>(roll(4))];
    return binary(type, one_of({"<", "<=", ">", ">="}).c_str(), type, depth);
  });
  out.push_back([=, this] {
    std::vector<Type> equatable = kScalarTypes;
    if (can_write(Type::account)) equatable.push_back(Type::account);
    const Type type = equatable[static_cast<std::size_t>(roll(static_cast<int>(equatable.size())))];
    return binary(type, roll(2) ? "==" : "!=", type, depth);
  });
  out.push_back([=, this] { return binary(Type::boolean, roll(2) ? "and" : "or", Type::boolean, depth); });
  out.push_back([=, this] { return "(not " + expr(Type::boolean, depth) + ")"; });
}

// `let vN = value in body`, the value of any type (records included).
std::string ExpressionGenerator::let(Type type, int depth) {
  std::vector<Type> types = kScalarTypes;
  for (Type record_type : {Type::job, Type::account, Type::cluster}) {
    if (can_write(record_type)) types.push_back(record_type);
  }
  const Type bound = types[static_cast<std::size_t>(roll(static_cast<int>(types.size())))];
  const std::string name = fmt::format("v{}", next_name_++);
  const std::string value = expr(bound, depth);
  scope_.push_back({name, bound});
  const std::string body = expr(type, depth);
  scope_.pop_back();
  return fmt::format("(let {} = {} in {})", name, value, body);
}

// A match on a class or label: some members in random order, then `_` unless
// every member is covered (and sometimes even then).
std::string ExpressionGenerator::match(Type type, int depth) {
  const bool on_class = roll(2) == 0;
  std::vector<std::string> members = on_class ? classes_ : kLabels;
  std::shuffle(members.begin(), members.end(), random_);
  members.resize(static_cast<std::size_t>(1 + roll(static_cast<int>(members.size()))));
  const bool exhaustive = members.size() == (on_class ? classes_.size() : kLabels.size());
  std::string text = "(match " + expr(on_class ? Type::job_class : Type::label, depth) + " { ";
  for (const auto& member : members) text += member + " => " + expr(type, depth) + ", ";
  if (!exhaustive || roll(2) == 0) text += "_ => " + expr(type, depth);
  return text + " })";
}

std::vector<const CallableFunction*> ExpressionGenerator::callable(Type result) const {
  std::vector<const CallableFunction*> out;
  for (const auto& function : functions_) {
    if (function.result != result) continue;
    const bool writable = std::all_of(function.parameters.begin(), function.parameters.end(),
                                      [this](Type type) { return !is_record(type) || can_write(type); });
    if (writable) out.push_back(&function);
  }
  return out;
}

std::string ExpressionGenerator::call(const CallableFunction& function, int depth) {
  std::string text = function.name + "(";
  for (std::size_t i = 0; i < function.parameters.size(); ++i) {
    text += (i ? ", " : "") + expr(function.parameters[i], depth);
  }
  return text + ")";
}

// `value` of `type` as a number a rank can add.
std::string as_number(const std::string& value, Type type, const std::vector<std::string>& classes) {
  switch (type) {
    case Type::number:
      return value;
    case Type::boolean:
      return fmt::format("(if {} then 1 else 0)", value);
    case Type::duration:
      return fmt::format("({} / 1h)", value);
    case Type::percent:
      return fmt::format("({} / 1%)", value);
    case Type::date:
      return fmt::format("(({} - 2026-01-01) / 1d)", value);
    case Type::job_class:
      return fmt::format("(if {} == {} then 1 else 0)", value, classes.front());
    case Type::label:
      return fmt::format("(if {} == high then 1 else 0)", value);
    case Type::account:
      return fmt::format("({}.debt)", value);
    case Type::job:
      return fmt::format("({}.gpus)", value);
    default:
      return fmt::format("({}.free_gpus)", value);
  }
}

std::vector<Binding> rank_scope() {
  return {{"job", Type::job}, {"account", Type::account}, {"cluster", Type::cluster}};
}
std::vector<Binding> preempt_scope() {
  return {{"victim", Type::job}, {"requester", Type::job}, {"cluster", Type::cluster}};
}

}  // namespace

const std::vector<std::string>& generated_class_names() {
  static const std::vector<std::string> names = {"debug", "train", "batch"};
  return names;
}

PolicyGenerator::PolicyGenerator(std::uint64_t seed, Vocabulary vocabulary)
    : random_(seed), vocabulary_(std::move(vocabulary)) {
  if (vocabulary_.classes.empty()) vocabulary_.classes = generated_class_names();
}

std::string PolicyGenerator::policy() {
  std::vector<CallableFunction> callable = vocabulary_.library;
  const std::string functions = user_functions(callable);
  ExpressionGenerator rank(random_, vocabulary_.classes, callable, rank_scope(), next_name_);
  ExpressionGenerator preempt(random_, vocabulary_.classes, callable, preempt_scope(), next_name_);
  const std::string rank_text = rank.expr(Type::number, 5);
  return skeleton(functions, rank_text, preempt.expr(Type::boolean, 4));
}

std::string PolicyGenerator::user_functions(std::vector<CallableFunction>& callable) {
  std::string text;
  const int count = std::uniform_int_distribution<int>(0, 3)(random_);
  for (int i = 0; i < count; ++i) text += user_function(i, callable);
  return text;
}

// `fn fN(params): result = body`; the body sees its parameters and calls only earlier functions.
std::string PolicyGenerator::user_function(int index, std::vector<CallableFunction>& callable) {
  static const std::vector<Type> kParameterTypes = {Type::number, Type::duration, Type::percent,
                                                    Type::date,   Type::boolean,  Type::job_class,
                                                    Type::label,  Type::job,      Type::account};
  CallableFunction function{fmt::format("f{}", index), {}, Type::number};
  std::vector<Binding> parameters;
  std::string signature;
  const int arity = std::uniform_int_distribution<int>(0, 3)(random_);
  for (int k = 0; k < arity; ++k) {
    const Type type =
        kParameterTypes[std::uniform_int_distribution<std::size_t>(0, kParameterTypes.size() - 1)(random_)];
    const std::string name = fmt::format("p{}_{}", index, k);
    function.parameters.push_back(type);
    parameters.push_back({name, type});
    signature += fmt::format("{}{}: {}", k ? ", " : "", name, type_name(type));
  }
  ExpressionGenerator body(random_, vocabulary_.classes, callable, parameters, next_name_);
  std::vector<Type> results = kScalarTypes;
  if (body.can_write(Type::account)) results.push_back(Type::account);
  function.result = results[std::uniform_int_distribution<std::size_t>(0, results.size() - 1)(random_)];
  const std::string text = fmt::format("  fn {}({}): {} =\n    {}\n", function.name, signature,
                                       type_name(function.result), body.expr(function.result, 3));
  callable.push_back(function);
  return text;
}

std::string PolicyGenerator::skeleton(const std::string& functions, const std::string& rank,
                                      const std::string& preempt) const {
  std::string text;
  for (const auto& path : vocabulary_.imports) text += fmt::format("import \"{}\"\n", path);
  text += R"(
policy generated {
  unit gpu_hours { h100 = 1.0 }
  window 7d
  tree {
    product 60% {
      owner "a@example.com" review 2026-12-31 hypothesis "h"
      user ana 50%
      user bob 50%
    }
    research 40% { owner "b@example.com" review 2026-12-31 hypothesis "r" }
  }
)";
  if (vocabulary_.declare_classes) {
    text += "  class debug { max_gpus 1 max_runtime 15m protect 15m resumable }\n";
    text += "  class train { checkpoint every 30m protect up to 2h resumable grace 5m }\n";
    text += "  class batch { checkpoint every 20m protect 20m resumable }\n";
  }
  text += functions;
  text += "  rank =\n    " + rank + "\n";
  return text + "  preempt when\n    " + preempt + "\n}\n";
}

// `f(args)` for every library function returning `wanted` (any result when `wanted` is number).
std::string PolicyGenerator::every_library_call(Type wanted) {
  std::vector<CallableFunction> none;
  const auto scope = wanted == Type::number ? rank_scope() : preempt_scope();
  ExpressionGenerator arguments(random_, vocabulary_.classes, none, scope, next_name_);
  std::string text;
  for (const auto& function : vocabulary_.library) {
    if (wanted == Type::boolean && function.result != Type::boolean) continue;
    std::string call = function.name + "(";
    for (std::size_t i = 0; i < function.parameters.size(); ++i) {
      call += (i ? ", " : "") + arguments.expr(function.parameters[i], 2);
    }
    call += ")";
    if (wanted == Type::number) {
      text += (text.empty() ? "" : " + ") + as_number(call, function.result, vocabulary_.classes);
    } else {
      text += (text.empty() ? "" : " or ") + call;
    }
  }
  return text;
}

std::string PolicyGenerator::library_harness() {
  std::vector<CallableFunction> callable = vocabulary_.library;
  ExpressionGenerator rank(random_, vocabulary_.classes, callable, rank_scope(), next_name_);
  ExpressionGenerator preempt(random_, vocabulary_.classes, callable, preempt_scope(), next_name_);
  std::string rank_text = rank.expr(Type::number, 3);
  if (std::string calls = every_library_call(Type::number); !calls.empty()) rank_text += " + " + calls;
  std::string preempt_text = preempt.expr(Type::boolean, 3);
  if (std::string calls = every_library_call(Type::boolean); !calls.empty()) preempt_text += " or " + calls;
  return skeleton("", rank_text, preempt_text);
}

}  // namespace allot::testing
