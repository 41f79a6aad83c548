// Types and units of every function, `rank` and `preempt` (spec: "Types and
// units"): signatures first, then bodies callees-first so inference never
// loops, with recursion reported once per cycle.
#include <fmt/format.h>

#include <map>
#include <set>

#include "call_graph.h"
#include "schema.h"
#include "suggest.h"
#include "typing.h"

namespace allot {
namespace {

// A declared parameter or result type, reporting a name that is not a type.
Type resolve_type(const ast::TypeRef& ref, DiagnosticSink& diagnostics) {
  if (auto type = declared_type(ref.name)) return *type;
  if (ref.name == "string") {
    diagnostics.error(DiagnosticCode::unknown_type, ref.span, "type `string` cannot be declared")
        .help("strings are literals for `owner`, `reason` and `hypothesis` only");
  } else {
    diagnostics.error(DiagnosticCode::unknown_type, ref.span, fmt::format("unknown type `{}`", ref.name))
        .help(suggest(ref.name, declarable_type_names()));
  }
  return Type::error;
}

// Cycles longer than this are shortened in messages ("a, b, c and 7 others").
constexpr std::size_t kCycleNamesShown = 6;

std::string cycle_message(const CallGraph& graph, const CallCycle& cycle) {
  if (cycle.path.size() == 1) return fmt::format("function `{}` calls itself", graph.functions[cycle.path[0]]->name);
  const std::size_t shown = cycle.path.size() > kCycleNamesShown ? kCycleNamesShown - 1 : cycle.path.size();
  std::string names;
  for (std::size_t i = 0; i < shown; ++i) {
    const char* separator = i == 0 ? "" : (i + 1 == shown && shown == cycle.path.size()) ? " and " : ", ";
    names += fmt::format("{}`{}`", separator, graph.functions[cycle.path[i]]->name);
  }
  if (shown < cycle.path.size()) names += fmt::format(" and {} others", cycle.path.size() - shown);
  return fmt::format("functions {} call each other", names);
}

std::string cycle_note(const CallGraph& graph, const CallCycle& cycle) {
  std::string chain;
  for (std::size_t i = 0; i < cycle.path.size(); ++i) {
    if (cycle.path.size() > kCycleNamesShown && i == kCycleNamesShown - 2) {
      chain += "... -> ";
      i = cycle.path.size() - 1;
    }
    chain += graph.functions[cycle.path[i]]->name + " -> ";
  }
  return "the cycle: " + chain + graph.functions[cycle.path[0]]->name;
}

// Types one program: owns the signatures and the typer that reads them.
class ProgramTyper {
 public:
  ProgramTyper(const Scope& scope, DiagnosticSink& diagnostics)
      : scope_(scope), diagnostics_(diagnostics), typer_(scope, result_.functions, diagnostics) {}

  TypedProgram run(const Program& program) {
    if (program.modules.empty()) return {};
    const CallGraph graph = build_call_graph(scope_);
    for (const ast::FnDecl* decl : graph.functions) declare(*decl);
    for (const auto& component : call_components(graph)) type_component(graph, component);
    for (const auto& policy : program.modules.front().policies) type_policy(policy);
    result_.expression_types = typer_.expression_types();
    return std::move(result_);
  }

 private:
  // Records the parameter and declared result types of `decl`.
  void declare(const ast::FnDecl& decl) {
    FunctionSignature& signature = result_.functions[decl.name];
    signature.decl = &decl;
    std::map<std::string, Span> names;
    for (const auto& param : decl.params) {
      signature.parameters.push_back(resolve_type(param.type, diagnostics_));
      if (auto [it, inserted] = names.emplace(param.name, param.name_span); !inserted) {
        diagnostics_
            .error(DiagnosticCode::duplicate_name, param.name_span,
                   fmt::format("parameter `{}` of `{}` is declared twice", param.name, decl.name))
            .note("first declared here", it->second)
            .help("rename one of them");
      }
    }
    if (decl.result) declared_results_[&decl] = resolve_type(*decl.result, diagnostics_);
    if (find_builtin(decl.name)) {
      diagnostics_
          .error(DiagnosticCode::duplicate_name, decl.name_span,
                 fmt::format("function `{}` has the name of a builtin", decl.name))
          .help(fmt::format("rename it; a call to `{}` always means the builtin", decl.name));
    }
  }

  // Fixes the results of a component's functions, then types their bodies.
  void type_component(const CallGraph& graph, const CallComponent& component) {
    if (component.recursive) report_recursion(graph, component);
    for (std::size_t member : component.members) {
      // A recursive function's result cannot be inferred from its own body.
      const ast::FnDecl& decl = *graph.functions[member];
      if (component.recursive) result_.functions[decl.name].result = declared_result(decl).value_or(Type::error);
    }
    for (std::size_t member : component.members) type_function(*graph.functions[member]);
  }

  void report_recursion(const CallGraph& graph, const CallComponent& component) {
    const CallCycle cycle = find_cycle(graph, component);
    if (!cycle.closing_call) return;
    diagnostics_.error(DiagnosticCode::recursive_function, cycle.closing_call->name_span, cycle_message(graph, cycle))
        .note(cycle_note(graph, cycle))
        .help("a policy must finish in bounded time, so functions cannot recurse: remove this call");
  }

  void type_function(const ast::FnDecl& decl) {
    if (!decl.body) return;
    FunctionSignature& signature = result_.functions[decl.name];
    Environment environment{ExpressionSite::function, {}};
    for (std::size_t i = 0; i < decl.params.size(); ++i) {
      environment.bindings.push_back({decl.params[i].name, signature.parameters[i]});
    }
    const Type body = typer_.type_of(*decl.body, environment);
    const std::optional<Type> declared = declared_result(decl);
    if (!declared) {
      signature.result = body;
      return;
    }
    signature.result = *declared;
    if (body == Type::error || *declared == Type::error || body == *declared) return;
    diagnostics_
        .error(DiagnosticCode::type_mismatch, decl.body->span,
               fmt::format("`{}` must return `{}`, but its body is `{}`", decl.name, type_name(*declared),
                           type_name(body)))
        .note("the result type is declared here", decl.result->span)
        .help(conversion_help(*declared, body, *decl.body));
  }

  std::optional<Type> declared_result(const ast::FnDecl& decl) const {
    auto it = declared_results_.find(&decl);
    return it == declared_results_.end() ? std::nullopt : std::optional(it->second);
  }

  static Environment inputs(ExpressionSite site, std::span<const InputSchema> schema) {
    Environment environment{site, {}};
    for (const auto& input : schema) environment.bindings.push_back({std::string(input.name), input.type});
    return environment;
  }

  void type_policy(const ast::Policy& policy) {
    for (const auto& rank : policy.ranks) type_rank(rank);
    for (const auto& preempt : policy.preempts) type_preempt(preempt);
  }

  void type_rank(const ast::RankDecl& rank) {
    if (!rank.body) return;
    Environment environment = inputs(ExpressionSite::rank, rank_inputs());
    const Type type = typer_.type_of(*rank.body, environment);
    if (type == Type::error || type == Type::number) return;
    diagnostics_
        .error(DiagnosticCode::type_mismatch, rank.body->span,
               fmt::format("`rank` must be a `number`, not `{}`", type_name(type)))
        .help(conversion_help(Type::number, type, *rank.body));
  }

  void type_preempt(const ast::PreemptDecl& preempt) {
    if (!preempt.body) return;
    Environment environment = inputs(ExpressionSite::preempt, preempt_inputs());
    const Type type = typer_.type_of(*preempt.body, environment);
    if (type == Type::error || type == Type::boolean) return;
    diagnostics_
        .error(DiagnosticCode::type_mismatch, preempt.body->span,
               fmt::format("`preempt when` needs a condition (`bool`), not `{}`", type_name(type)))
        .help(condition_help(type, *preempt.body));
  }

  const Scope& scope_;
  DiagnosticSink& diagnostics_;
  TypedProgram result_;
  ExpressionTyper typer_;
  std::map<const ast::FnDecl*, Type> declared_results_;  // `error` when the declared type is unknown
};

}  // namespace

TypedProgram type_program(const Program& program, const Scope& scope, DiagnosticSink& diagnostics) {
  return ProgramTyper(scope, diagnostics).run(program);
}

TypedProgram check_types(const Program& program, const Scope& scope, const CheckContext& context) {
  return type_program(program, scope, context.diagnostics);
}

}  // namespace allot
