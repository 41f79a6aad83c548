#include "ir.h"

namespace allot::ir {

int arity(Op op) {
  switch (op) {
    case Op::constant:
    case Op::job_field:
    case Op::account_field:
    case Op::cluster_field:
    case Op::account_row:
      return 0;
    case Op::neg:
    case Op::abs:
    case Op::log:
    case Op::exp:
    case Op::sqrt:
    case Op::logical_not:
      return 1;
    case Op::select:
      return 3;
    default:
      return 2;
  }
}

const char* op_name(Op op) {
  switch (op) {
    case Op::constant:
      return "const";
    case Op::job_field:
      return "job";
    case Op::account_field:
      return "account";
    case Op::cluster_field:
      return "cluster";
    case Op::add:
      return "add";
    case Op::sub:
      return "sub";
    case Op::mul:
      return "mul";
    case Op::div:
      return "div";
    case Op::pow:
      return "pow";
    case Op::neg:
      return "neg";
    case Op::min:
      return "min";
    case Op::max:
      return "max";
    case Op::abs:
      return "abs";
    case Op::log:
      return "log";
    case Op::exp:
      return "exp";
    case Op::sqrt:
      return "sqrt";
    case Op::lt:
      return "lt";
    case Op::le:
      return "le";
    case Op::gt:
      return "gt";
    case Op::ge:
      return "ge";
    case Op::eq:
      return "eq";
    case Op::ne:
      return "ne";
    case Op::logical_and:
      return "and";
    case Op::logical_or:
      return "or";
    case Op::logical_not:
      return "not";
    case Op::select:
      return "select";
    case Op::account_row:
      return "account_row";
  }
  return "?";
}

}  // namespace allot::ir
