// Required and duplicate declarations, and the unit / window / fairshare settings.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "allot/unit_types.h"
#include "check_context.h"
#include "suggest.h"

namespace allot {
namespace {

const std::vector<std::string> kUnitKinds = {"gpu_hours", "dominant"};
const std::vector<std::string> kDominantResources = {"gpu", "cpu", "memory"};
const std::vector<std::string> kFairshareAlgorithms = {"fair_tree", "classic", "drf"};

// Reports every declaration after the first of a kind that may appear once.
template <typename Decl>
void check_single(const std::vector<Decl>& decls, const char* keyword, const CheckContext& context) {
  for (std::size_t i = 1; i < decls.size(); ++i) {
    context.diagnostics
        .error(DiagnosticCode::duplicate_declaration, decls[i].span, fmt::format("`{}` is declared twice", keyword))
        .note("first declared here", decls[0].span)
        .help(fmt::format("a policy has one `{}`; merge the two", keyword));
  }
}

template <typename Decl>
void check_required(const std::vector<Decl>& decls, const char* keyword, const ast::Policy& policy,
                    const CheckContext& context, const char* help) {
  if (!decls.empty()) return;
  context.diagnostics
      .error(DiagnosticCode::missing_declaration, policy.name_span,
             fmt::format("policy `{}` has no `{}`", policy.name, keyword))
      .help(help);
}

void check_unit(const ast::UnitDecl& unit, const CheckContext& context) {
  const bool dominant = unit.kind == "dominant";
  if (!dominant && unit.kind != "gpu_hours") {
    context.diagnostics.error(DiagnosticCode::unknown_name, unit.kind_span, fmt::format("unknown unit `{}`", unit.kind))
        .help(suggest(unit.kind, kUnitKinds));
    return;
  }
  std::map<std::string, const ast::UnitWeight*> seen;
  for (const auto& weight : unit.weights) {
    if (dominant &&
        std::find(kDominantResources.begin(), kDominantResources.end(), weight.name) == kDominantResources.end()) {
      context.diagnostics
          .error(DiagnosticCode::unknown_name, weight.span, fmt::format("unknown resource `{}`", weight.name))
          .help(suggest(weight.name, kDominantResources));
    }
    if (auto [it, inserted] = seen.emplace(weight.name, &weight); !inserted) {
      context.diagnostics
          .error(DiagnosticCode::duplicate_name, weight.span, fmt::format("weight `{}` is set twice", weight.name))
          .note("first set here", it->second->span);
    }
    if (weight.value <= 0) {
      context.diagnostics
          .error(DiagnosticCode::invalid_weight, weight.span,
                 fmt::format("weight of `{}` must be above 0", weight.name))
          .help("leave a resource out rather than weighting it 0");
    }
  }
  // With `--cluster`: a weight for a GPU type the cluster does not have, while a type
  // it has is left without one, is a misspelling (`a10O`), and the type it meant would
  // silently weigh 1 (support::unit_type_gaps, the rule every driver shares).
  if (!dominant && context.options.cluster) {
    const ClusterFacts& cluster = *context.options.cluster;
    std::vector<std::string> weighted;
    for (const auto& weight : unit.weights) weighted.push_back(weight.name);
    const support::UnitTypeGaps gaps = support::unit_type_gaps(weighted, cluster.gpu_types);
    for (const support::StrayWeight& stray : gaps.stray) {
      const auto weight = std::find_if(unit.weights.begin(), unit.weights.end(),
                                       [&](const auto& candidate) { return candidate.name == stray.type; });
      cluster_fact(context, DiagnosticCode::unknown_name, weight->span,
                   fmt::format("cluster `{}` has no GPU type `{}`", cluster.file, stray.type))
          .note(fmt::format("its GPU types without a weight, which count 1.0 per GPU-hour: {}",
                            fmt::join(gaps.unweighted, ", ")))
          .help(stray.nearest.empty()
                    ? fmt::format("weigh `{}` here, or drop `{}`", fmt::join(gaps.unweighted, "`, `"), stray.type)
                    : fmt::format("did you mean `{}`?", stray.nearest));
    }
  }
  if (dominant && !seen.count("gpu")) {
    context.diagnostics
        .error(DiagnosticCode::missing_declaration, unit.span, "a dominant-resource unit has no `gpu` weight")
        .help("add `gpu = 1.0`");
  }
}

void check_window(const ast::WindowDecl& window, const CheckContext& context) {
  if (window.seconds <= 0) {
    context.diagnostics
        .error(DiagnosticCode::invalid_duration, window.span, "the fair-share window must be longer than 0")
        .help("a 7-day window (`window 7d`) is the usual choice");
  } else {
    check_whole_hours(window.seconds, window.length_span, "the fair-share window", "window", context);
  }
  if (window.half_life_seconds && *window.half_life_seconds <= 0) {
    context.diagnostics
        .error(DiagnosticCode::invalid_duration, window.half_life_span, "the half-life must be longer than 0")
        .help("leave `half_life` out for no decay inside the window");
  } else if (window.half_life_seconds && window.seconds > 0 && *window.half_life_seconds > window.seconds) {
    context.diagnostics
        .warning(DiagnosticCode::half_life_exceeds_window, window.half_life_span,
                 "the half-life is longer than the fair-share window")
        .note(
            "usage a whole window old still counts more than half, then drops out at once: the decay barely "
            "matters and the window decides")
        .help(
            "write a half-life shorter than the window (a quarter to a half of it is usual), or leave "
            "`half_life` out for no decay inside the window");
  }
}

// "1h" or "2h": the whole hours on either side of `seconds`, at least one.
std::string nearest_hours(double seconds, std::string_view keyword) {
  const double below = std::max(1.0, std::floor(seconds / 3600));
  const double above = std::max(below + 1, std::ceil(seconds / 3600));
  return fmt::format("`{} {}h` or `{} {}h`", keyword, below, keyword, above);
}

void check_policy(const ast::Policy& policy, const CheckContext& context, bool has_classes) {
  check_required(policy.units, "unit", policy, context, "add `unit gpu_hours { h100 = 1.0 }`");
  check_required(policy.windows, "window", policy, context, "add `window 7d`");
  check_required(policy.trees, "tree", policy, context, "add a budget `tree { ... }` whose programs sum to 100%");
  check_required(policy.ranks, "rank", policy, context, "add `rank = ...`, for example `rank = fair_tree(account)`");
  if (!has_classes) {
    context.diagnostics
        .error(DiagnosticCode::missing_declaration, policy.name_span,
               fmt::format("policy `{}` has no job class", policy.name))
        .help("declare a `class` or import `stdlib/classes.allot`");
  }
  check_single(policy.units, "unit", context);
  check_single(policy.windows, "window", context);
  check_single(policy.fairshares, "fairshare", context);
  check_single(policy.trees, "tree", context);
  check_single(policy.ranks, "rank", context);
  check_single(policy.preempts, "preempt", context);
  check_single(policy.gates, "gates", context);
  for (const auto& unit : policy.units) check_unit(unit, context);
  for (const auto& window : policy.windows) check_window(window, context);
  for (const auto& fairshare : policy.fairshares) {
    if (std::find(kFairshareAlgorithms.begin(), kFairshareAlgorithms.end(), fairshare.algorithm) ==
        kFairshareAlgorithms.end()) {
      context.diagnostics
          .error(DiagnosticCode::unknown_name, fairshare.span,
                 fmt::format("unknown fair-share algorithm `{}`", fairshare.algorithm))
          .help(suggest(fairshare.algorithm, kFairshareAlgorithms));
    }
  }
  std::map<std::string, Span> exceptions;
  for (const auto& exception : policy.exceptions) {
    if (auto [it, inserted] = exceptions.emplace(exception.name, exception.name_span); !inserted) {
      context.diagnostics
          .error(DiagnosticCode::duplicate_name, exception.name_span,
                 fmt::format("exception `{}` is declared twice", exception.name))
          .note("first declared here", it->second);
    }
  }
}

template <typename Decl>
void add_to_scope(std::map<std::string, const Decl*>& scope, const Decl& decl, const char* what,
                  const CheckContext& context) {
  auto [it, inserted] = scope.emplace(decl.name, &decl);
  if (inserted) return;
  context.diagnostics
      .error(DiagnosticCode::duplicate_name, decl.name_span, fmt::format("{} `{}` is declared twice", what, decl.name))
      .note("first declared here", it->second->name_span)
      .help(fmt::format("rename one of them; names of {}s are shared with imported files", what));
}

}  // namespace

void check_whole_hours(double seconds, Span span, std::string_view what, std::string_view keyword,
                       const CheckContext& context) {
  if (seconds >= 3600 && std::fmod(seconds, 3600) == 0) return;
  context.diagnostics
      .error(DiagnosticCode::invalid_duration, span,
             fmt::format("{} must be a whole number of hours, at least 1", what))
      .help(fmt::format("usage is kept and share delivery measured in hourly buckets; write {}",
                        nearest_hours(seconds, keyword)));
}

Scope check_declarations(const Program& program, const CheckContext& context) {
  Scope scope;
  scope.incomplete = !program.imports_complete;
  const ast::Module& root = program.modules.front();
  // Imported declarations first, so a duplicate points at the root file.
  for (std::size_t i = program.modules.size(); i-- > 0;) {
    const ast::Module& module = program.modules[i];
    for (const auto& decl : module.classes) add_to_scope(scope.classes, decl, "class", context);
    for (const auto& decl : module.functions) add_to_scope(scope.functions, decl, "function", context);
    if (i != 0) continue;
    for (const auto& policy : module.policies) {
      for (const auto& decl : policy.classes) add_to_scope(scope.classes, decl, "class", context);
      for (const auto& decl : policy.functions) add_to_scope(scope.functions, decl, "function", context);
    }
  }
  for (std::size_t i = 1; i < root.policies.size(); ++i) {
    context.diagnostics.error(DiagnosticCode::multiple_policies, root.policies[i].name_span, "a file holds one policy")
        .note("the first policy is here", root.policies[0].name_span)
        .help("put each policy in its own file");
  }
  for (const auto& policy : root.policies) check_policy(policy, context, !scope.classes.empty());
  return scope;
}

}  // namespace allot
