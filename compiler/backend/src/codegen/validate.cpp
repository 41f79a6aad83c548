// Structural checks on an IR function before it reaches LLVM, so a lowering
// bug is reported as an error instead of tripping an LLVM assertion.
#include <string>

#include "native_module.h"

namespace allot::codegen {
namespace {

constexpr std::uint32_t kLastOp = static_cast<std::uint32_t>(ir::Op::account_row);

// The number of columns the field op `op` may name (0 when `op` reads no field).
std::uint32_t column_count(ir::Op op) {
  switch (op) {
    case ir::Op::job_field:
      return abi::kJobFieldCount;
    case ir::Op::account_field:
      return abi::kAccountFieldCount;
    case ir::Op::cluster_field:
      return abi::kClusterFieldCount;
    default:
      return 0;
  }
}

bool reads_job(ir::Op op) {
  return op == ir::Op::job_field || op == ir::Op::account_field || op == ir::Op::account_row;
}

std::string check_node(const ir::Node& node, ir::NodeId id, bool is_preempt) {
  const std::string where = "node " + std::to_string(id);
  if (static_cast<std::uint32_t>(node.op) > kLastOp) return where + " has an unknown op";
  const ir::NodeId operands[] = {node.a, node.b, node.c};
  for (int k = 0; k < ir::arity(node.op); ++k) {
    if (operands[k] >= id) return where + " uses node " + std::to_string(operands[k]) + ", which is not before it";
  }
  const std::uint32_t columns = column_count(node.op);
  if (columns != 0 && node.field >= columns) return where + " reads field " + std::to_string(node.field);
  if (reads_job(node.op) && node.subject == ir::Subject::requester && !is_preempt)
    return where + " reads the requester outside preempt";
  if (reads_job(node.op) && static_cast<std::uint8_t>(node.subject) > 1) return where + " has an unknown subject";
  return "";
}

}  // namespace

std::string find_malformed_node(const ir::Function& function, bool is_preempt) {
  if (function.nodes.empty()) return "the function has no nodes";
  if (function.result >= function.nodes.size()) return "the result is not a node";
  for (ir::NodeId id = 0; id < function.nodes.size(); ++id) {
    if (std::string problem = check_node(function.nodes[id], id, is_preempt); !problem.empty()) return problem;
  }
  return "";
}

}  // namespace allot::codegen
