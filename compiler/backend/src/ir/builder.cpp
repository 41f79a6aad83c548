#include "builder.h"

#include <bit>

#include "semantics.h"

namespace allot::ir {
namespace {

Repr repr_of(SourceType type) { return type == SourceType::boolean ? Repr::boolean : Repr::f64; }

// The operands `node` uses, by its op's arity.
std::vector<NodeId> operands(const Node& node) {
  const NodeId all[] = {node.a, node.b, node.c};
  return std::vector<NodeId>(all, all + arity(node.op));
}

}  // namespace

NodeId FunctionBuilder::constant(double value, SourceType type) {
  Node node;
  node.op = Op::constant;
  node.type = type;
  node.repr = repr_of(type);
  node.value = value;
  return intern(node);
}

NodeId FunctionBuilder::load(Op op, std::uint32_t field, Subject subject, SourceType type) {
  Node node;
  node.op = op;
  node.type = type;
  node.repr = repr_of(type);
  node.field = op == Op::account_row ? 0 : field;
  node.subject = op == Op::cluster_field ? Subject::job : subject;
  return intern(node);
}

NodeId FunctionBuilder::compute(Op op, SourceType type, NodeId a, NodeId b, NodeId c) {
  const int count = arity(op);
  if (count < 2) b = 0;
  if (count < 3) c = 0;
  if (auto simpler = simplify(op, type, a, b, c)) return *simpler;
  Node node;
  node.op = op;
  node.type = type;
  node.repr = repr_of(type);
  node.a = a;
  node.b = b;
  node.c = c;
  return intern(node);
}

std::optional<double> FunctionBuilder::constant_value(NodeId id) const {
  if (nodes_[id].op != Op::constant) return std::nullopt;
  return nodes_[id].value;
}

NodeId FunctionBuilder::intern(Node node) {
  const Key key{node.op,    node.type,   node.a, node.b, node.c, std::bit_cast<std::uint64_t>(node.value),
                node.field, node.subject};
  auto [it, inserted] = interned_.emplace(key, static_cast<NodeId>(nodes_.size()));
  if (inserted) nodes_.push_back(node);
  return it->second;
}

// Folds ops whose operands are all constants, with the engines' exact formulas.
std::optional<NodeId> FunctionBuilder::simplify(Op op, SourceType type, NodeId a, NodeId b, NodeId c) {
  const int count = arity(op);
  const auto va = constant_value(a), vb = count > 1 ? constant_value(b) : 0.0, vc = count > 2 ? constant_value(c) : 0.0;
  if (va && vb && vc) return constant(apply(op, *va, *vb, *vc), type);
  if (op == Op::select && va) return *va != 0 ? b : c;
  if (op == Op::select && b == c) return b;
  if (op == Op::logical_not && nodes_[a].op == Op::logical_not) return nodes_[a].a;
  return simplify_logic(op, a, b);
}

// `false and x` is false, `true and x` is x; `or` alike. Exact on booleans (0 or 1).
std::optional<NodeId> FunctionBuilder::simplify_logic(Op op, NodeId a, NodeId b) {
  if (op != Op::logical_and && op != Op::logical_or) return std::nullopt;
  const double absorbing = op == Op::logical_and ? 0.0 : 1.0;
  for (auto [known, other] : {std::pair{a, b}, std::pair{b, a}}) {
    const auto value = constant_value(known);
    if (!value) continue;
    return *value == absorbing ? known : other;
  }
  return std::nullopt;
}

Function FunctionBuilder::finish(NodeId result) const {
  std::vector<bool> live(nodes_.size(), false);
  live[result] = true;
  for (NodeId id = result + 1; id-- > 0;) {
    if (!live[id]) continue;
    for (NodeId operand : operands(nodes_[id])) live[operand] = true;
  }
  Function function;
  std::vector<NodeId> renumbered(nodes_.size(), 0);
  for (NodeId id = 0; id <= result; ++id) {
    if (!live[id]) continue;
    Node node = nodes_[id];
    node.a = renumbered[node.a];
    node.b = renumbered[node.b];
    node.c = renumbered[node.c];
    renumbered[id] = static_cast<NodeId>(function.nodes.size());
    function.nodes.push_back(node);
  }
  function.result = renumbered[result];
  return function;
}

}  // namespace allot::ir
