#include "call_graph.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <tuple>

#include "schema.h"

namespace allot {
namespace {

// Adds an edge for every call to a user function in `expr`, first call per callee.
// Recursion depth is the expression depth, which the parser bounds.
void collect_calls(const ast::Expr& expr, const std::map<std::string, std::size_t>& index,
                   std::set<std::size_t>& called, std::vector<CallEdge>& edges) {
  if (expr.kind == ast::ExprKind::call && !find_builtin(expr.text)) {
    auto it = index.find(expr.text);
    if (it != index.end() && called.insert(it->second).second) edges.push_back({it->second, &expr});
  }
  for (const auto& operand : expr.operands) collect_calls(*operand, index, called, edges);
  for (const auto& arm : expr.arms) collect_calls(*arm.value, index, called, edges);
}

bool declared_before(const ast::FnDecl& a, const ast::FnDecl& b) {
  return std::tie(a.name_span.file, a.name_span.begin) < std::tie(b.name_span.file, b.name_span.begin);
}

// Tarjan's algorithm with an explicit stack of frames instead of recursion.
class ComponentFinder {
 public:
  explicit ComponentFinder(const CallGraph& graph)
      : graph_(graph), index_(graph.functions.size(), kUnvisited), lowlink_(index_.size()), on_stack_(index_.size()) {}

  std::vector<CallComponent> run() {
    for (std::size_t root = 0; root < index_.size(); ++root) {
      if (index_[root] == kUnvisited) visit_from(root);
    }
    return std::move(components_);
  }

 private:
  static constexpr std::size_t kUnvisited = static_cast<std::size_t>(-1);

  struct Frame {
    std::size_t node;
    std::size_t next_edge;
  };

  void enter(std::size_t node) {
    index_[node] = lowlink_[node] = counter_++;
    stack_.push_back(node);
    on_stack_[node] = true;
    frames_.push_back({node, 0});
  }

  void visit_from(std::size_t root) {
    enter(root);
    while (!frames_.empty()) {
      Frame& frame = frames_.back();
      const auto& edges = graph_.calls[frame.node];
      if (frame.next_edge < edges.size()) {
        const std::size_t callee = edges[frame.next_edge++].callee;
        if (index_[callee] == kUnvisited) {
          enter(callee);
        } else if (on_stack_[callee]) {
          lowlink_[frame.node] = std::min(lowlink_[frame.node], index_[callee]);
        }
        continue;
      }
      const std::size_t node = frame.node;
      frames_.pop_back();
      if (!frames_.empty()) lowlink_[frames_.back().node] = std::min(lowlink_[frames_.back().node], lowlink_[node]);
      if (lowlink_[node] == index_[node]) pop_component(node);
    }
  }

  void pop_component(std::size_t root) {
    CallComponent component;
    std::size_t member;
    do {
      member = stack_.back();
      stack_.pop_back();
      on_stack_[member] = false;
      component.members.push_back(member);
    } while (member != root);
    const auto& edges = graph_.calls[root];
    component.recursive = component.members.size() > 1 ||
                          std::any_of(edges.begin(), edges.end(), [&](const CallEdge& e) { return e.callee == root; });
    components_.push_back(std::move(component));
  }

  const CallGraph& graph_;
  std::vector<std::size_t> index_;
  std::vector<std::size_t> lowlink_;
  std::vector<bool> on_stack_;
  std::vector<std::size_t> stack_;
  std::vector<Frame> frames_;
  std::vector<CallComponent> components_;
  std::size_t counter_ = 0;
};

}  // namespace

CallGraph build_call_graph(const Scope& scope) {
  CallGraph graph;
  std::map<std::string, std::size_t> index;
  for (const auto& [name, decl] : scope.functions) {
    index.emplace(name, graph.functions.size());
    graph.functions.push_back(decl);
  }
  graph.calls.resize(graph.functions.size());
  for (std::size_t i = 0; i < graph.functions.size(); ++i) {
    std::set<std::size_t> called;
    if (graph.functions[i]->body) collect_calls(*graph.functions[i]->body, index, called, graph.calls[i]);
  }
  return graph;
}

std::vector<CallComponent> call_components(const CallGraph& graph) { return ComponentFinder(graph).run(); }

CallCycle find_cycle(const CallGraph& graph, const CallComponent& component) {
  const auto& members = component.members;
  const std::size_t start = *std::min_element(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
    return declared_before(*graph.functions[a], *graph.functions[b]);
  });
  // Breadth-first from `start` inside the component: the first edge back to
  // `start` closes a shortest cycle.
  std::vector<bool> inside(graph.functions.size());
  for (std::size_t member : members) inside[member] = true;
  std::map<std::size_t, std::size_t> parent{{start, start}};
  std::queue<std::size_t> queue;
  queue.push(start);
  while (!queue.empty()) {
    const std::size_t node = queue.front();
    queue.pop();
    for (const auto& edge : graph.calls[node]) {
      if (edge.callee == start) {
        CallCycle cycle{{}, edge.call};
        for (std::size_t at = node; at != start; at = parent[at]) cycle.path.push_back(at);
        cycle.path.push_back(start);
        std::reverse(cycle.path.begin(), cycle.path.end());
        return cycle;
      }
      if (inside[edge.callee] && parent.emplace(edge.callee, node).second) queue.push(edge.callee);
    }
  }
  return {{start}, nullptr};  // unreachable for a recursive component
}

}  // namespace allot
