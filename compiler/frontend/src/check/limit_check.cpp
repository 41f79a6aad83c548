// Resource limits (`resource_limit`, docs/DIAGNOSTICS.md): what a policy grows
// to once the compiler inlines its functions and the runtime keeps its window,
// bounded so that a policy that checks clean always compiles and runs in
// bounded time and memory. A running scheduler compiles every policy it is
// given; without these bounds 2 KB of source can ask for minutes and gigabytes.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "call_graph.h"
#include "check_context.h"
#include "schema.h"

namespace allot {
namespace {

// Expression nodes rank or preempt may reach with every call inlined. The
// largest policy we ship reaches a few hundred; LLVM compiles 20,000 in about
// a second.
constexpr std::uint64_t kMaxExpandedNodes = 20'000;
// The fair-share window: the ledger keeps an hourly bucket per account across it.
constexpr double kMaxWindowSeconds = 366.0 * 86400;
// Hourly buckets over the window times tree nodes (16 bytes each: 256 MiB).
constexpr std::uint64_t kMaxLedgerBuckets = std::uint64_t{1} << 24;

// Sizes saturate just above the limit, so no sum can overflow.
constexpr std::uint64_t kSaturated = kMaxExpandedNodes + 1;
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return std::min(kSaturated, a + b); }

// The operations each expression lowers to with every call to a user function
// inlined, as lowering does it: a name or a call is no operation of its own
// (a parameter is bound to its argument's value), and a call repeated in one
// body with the same argument text is inlined once (lowering remembers
// inlined calls by their arguments' values). An upper bound all the same: two
// calls of different text may lower to one.
class Expansion {
 public:
  explicit Expansion(const Scope& scope) : scope_(scope) {
    const CallGraph graph = build_call_graph(scope);
    // Callees first, so every callee's size is known when its callers are
    // measured. Recursion is the type checker's error; its calls count as 0.
    for (const auto& component : call_components(graph)) {
      for (std::size_t member : component.members) {
        const ast::FnDecl* function = graph.functions[member];
        if (function->body) sizes_[function] = size(*function->body);
      }
    }
  }

  std::uint64_t size(const ast::Expr& body) const {
    std::set<std::string> inlined;
    return size(body, inlined);
  }

 private:
  std::uint64_t size(const ast::Expr& expr, std::set<std::string>& inlined) const {
    const bool user_call = expr.kind == ast::ExprKind::call && !find_builtin(expr.text);
    std::uint64_t total = expr.kind == ast::ExprKind::name || user_call ? 0 : 1;
    for (const auto& operand : expr.operands) {
      if (operand) total = add(total, size(*operand, inlined));
    }
    for (const auto& arm : expr.arms) {
      if (arm.value) total = add(total, size(*arm.value, inlined));
    }
    if (user_call && inlined.insert(text_of(expr)).second) {
      const auto function = scope_.functions.find(expr.text);
      if (function != scope_.functions.end()) {
        const auto known = sizes_.find(function->second);
        if (known != sizes_.end()) total = add(total, known->second);
      }
    }
    return total;
  }

  // A canonical text of an expression, to tell repeated calls.
  static std::string text_of(const ast::Expr& expr) {
    std::string text = fmt::format("({} {} {}", static_cast<int>(expr.kind), expr.text, expr.number);
    for (const auto& operand : expr.operands) text += operand ? text_of(*operand) : "_";
    for (const auto& arm : expr.arms) text += arm.pattern + "=>" + (arm.value ? text_of(*arm.value) : "_");
    return text + ")";
  }

  const Scope& scope_;
  std::map<const ast::FnDecl*, std::uint64_t> sizes_;
};

void check_expansion(const char* what, const ast::Expr& body, const Span& span, const Expansion& expansion,
                     const CheckContext& context) {
  if (expansion.size(body) <= kMaxExpandedNodes) return;
  context.diagnostics
      .error(DiagnosticCode::resource_limit, span,
             fmt::format("`{}` grows to more than {} operations once its function calls are inlined", what,
                         kMaxExpandedNodes))
      .help(
          "a function that calls another twice doubles with every level; compute a value once with `let` and "
          "reuse it, or call with the same arguments");
}

std::uint64_t tree_nodes(const std::vector<ast::TreeNode>& nodes) {
  std::uint64_t count = nodes.size();
  for (const auto& node : nodes) count += tree_nodes(node.children);
  return count;
}

void check_window(const ast::Policy& policy, const ast::WindowDecl& window, const CheckContext& context) {
  if (window.seconds > kMaxWindowSeconds) {
    context.diagnostics
        .error(DiagnosticCode::resource_limit, window.span,
               "the fair-share window is longer than 366 days; the ledger keeps an hourly bucket per account "
               "across it")
        .help("Slurm sites decay usage over days or weeks: `window 14d half_life 7d`");
    return;
  }
  if (window.seconds <= 0) return;  // the declarations pass reports it
  std::uint64_t accounts = 0;
  for (const auto& tree : policy.trees) accounts += tree_nodes(tree.programs);
  const auto hours = static_cast<std::uint64_t>(window.seconds / 3600) + 1;
  if (accounts > 0 && hours > kMaxLedgerBuckets / accounts) {
    context.diagnostics
        .error(DiagnosticCode::resource_limit, window.span,
               fmt::format("a {}-hour window over {} accounts needs more than {} hourly ledger buckets", hours,
                           accounts, kMaxLedgerBuckets))
        .help("shorten the window, or group accounts so the tree has fewer nodes");
  }
}

}  // namespace

void check_limits(const Program& program, const Scope& scope, const CheckContext& context) {
  if (program.modules.empty()) return;
  const Expansion expansion(scope);
  for (const auto& policy : program.modules.front().policies) {
    for (const auto& window : policy.windows) check_window(policy, window, context);
    for (const auto& rank : policy.ranks) {
      if (rank.body) check_expansion("rank", *rank.body, rank.span, expansion, context);
    }
    for (const auto& preempt : policy.preempts) {
      if (preempt.body) check_expansion("preempt", *preempt.body, preempt.span, expansion, context);
    }
  }
}

}  // namespace allot
