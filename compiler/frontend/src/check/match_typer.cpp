// Typing `match`: the subject is a class or label, each pattern a member of
// it, every member covered unless `_` is there, and every arm of one type.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "suggest.h"
#include "typing.h"

namespace allot {
namespace {

bool is_enumeration(Type type) { return type == Type::job_class || type == Type::label; }

std::string quoted_list(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "`" : ", `") + name + "`";
  return list;
}

}  // namespace

Type ExpressionTyper::type_of_match(const ast::Expr& expr, Environment& environment) {
  const ast::Expr& subject = *expr.operands[0];
  Type subject_type = type_of(subject, environment);
  if (subject_type != Type::error && !is_enumeration(subject_type)) {
    diagnostics_
        .error(DiagnosticCode::type_mismatch, subject.span,
               fmt::format("`match` takes a `class` or `label`, not `{}`", type_name(subject_type)))
        .help("choose between values with `if ... then ... else`");
    subject_type = Type::error;
  }
  if (subject_type != Type::error) check_match_patterns(expr, subject_type);
  return type_of_match_arms(expr, environment);
}

void ExpressionTyper::check_match_patterns(const ast::Expr& expr, Type subject) {
  const std::vector<std::string> members = member_names(subject);
  std::map<std::string, Span> matched;
  const ast::MatchArm* wildcard = nullptr;
  bool unknown_pattern = false;
  for (const auto& arm : expr.arms) {
    if (wildcard && wildcard + 1 == &arm) {
      diagnostics_.warning(DiagnosticCode::unreachable_arm, arm.pattern_span, "this arm is never reached")
          .note("`_` above matches every value", wildcard->pattern_span)
          .help("move the `_` arm last");
    }
    if (arm.pattern.empty()) {
      if (!wildcard) wildcard = &arm;
      continue;
    }
    if (std::find(members.begin(), members.end(), arm.pattern) == members.end()) {
      unknown_pattern = true;
      if (subject == Type::job_class && scope_.incomplete) continue;  // a class of the import that failed
      diagnostics_
          .error(DiagnosticCode::unknown_name, arm.pattern_span,
                 fmt::format("`{}` is not a {}", arm.pattern, type_name(subject)))
          .help(suggest(arm.pattern, members));
    } else if (auto [it, inserted] = matched.emplace(arm.pattern, arm.pattern_span); !inserted) {
      diagnostics_
          .error(DiagnosticCode::duplicate_name, arm.pattern_span, fmt::format("`{}` is matched twice", arm.pattern))
          .note("first matched here", it->second)
          .help("remove one of the two arms");
    }
  }
  // A misspelt pattern would also show up as a missing member: one cause, one diagnostic.
  if (wildcard || unknown_pattern) return;
  std::vector<std::string> missing;
  for (const auto& member : members) {
    if (!matched.count(member)) missing.push_back(member);
  }
  if (missing.empty()) return;
  diagnostics_
      .error(DiagnosticCode::non_exhaustive_match, expr.operands[0]->span,
             fmt::format("`match` does not cover every {}", type_name(subject)))
      .note(fmt::format("missing: {}", quoted_list(missing)))
      .help(fmt::format("add an arm for {}, or a last arm `_ => ...`", missing.size() == 1 ? "it" : "each"));
}

Type ExpressionTyper::type_of_match_arms(const ast::Expr& expr, Environment& environment) {
  const ast::MatchArm* first = nullptr;
  Type result = Type::error;
  bool failed = false;
  for (const auto& arm : expr.arms) {
    const Type type = type_of(*arm.value, environment);
    if (type == Type::error) {
      failed = true;
    } else if (!first) {
      first = &arm;
      result = type;
    } else if (type != result && !failed) {
      diagnostics_
          .error(DiagnosticCode::type_mismatch, arm.value->span,
                 fmt::format("`match` arms have different types: `{}` and `{}`", type_name(result), type_name(type)))
          .note(fmt::format("the first arm is `{}`", type_name(result)), first->value->span)
          .help(literal_unit_help(result, type, *arm.value));
      failed = true;
    }
  }
  return failed ? Type::error : result;
}

}  // namespace allot
