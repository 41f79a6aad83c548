// The exact arithmetic of every IR op (the formulas in ir.h), shared by the
// reference interpreter and constant folding so a folded constant is bit for
// bit what evaluating the node would give. Booleans are 0.0 and 1.0.
#pragma once

#include <cmath>

#include "ir.h"

namespace allot::ir {

// A boolean as the interpreter stores it.
inline double truth(bool value) { return value ? 1.0 : 0.0; }

// `b == 0 ? 0 : a / b`: a policy never divides by zero into infinity.
inline double safe_div(double a, double b) { return b == 0 ? 0.0 : a / b; }

// `std::pow`, with NaN (a negative base to a fractional power) as 0.
inline double safe_pow(double a, double b) {
  const double r = std::pow(a, b);
  return std::isnan(r) ? 0.0 : r;
}

// The natural logarithm, 0 for 0 and negative numbers.
inline double safe_log(double a) { return a > 0 ? std::log(a) : 0.0; }

// The square root, 0 for negative numbers.
inline double safe_sqrt(double a) { return a >= 0 ? std::sqrt(a) : 0.0; }

// A NaN operand of min/max counts as 0. Without this, LLVM's select folds
// (min(min(2, x), 2) -> min(2, x)) would be exact only for numbers, and a NaN
// made inside an expression (inf - inf) would give the engines different results.
inline double nan_as_zero(double value) { return std::isnan(value) ? 0.0 : value; }

// A rank as returned to the runtime: NaN becomes 0 so ordering stays total.
inline double final_rank(double value) { return nan_as_zero(value); }

// The value of a computing op (not a constant, field or account row) on
// operand values `a`, `b`, `c`; operands beyond the op's arity are ignored.
inline double apply(Op op, double a, double b, double c) {
  switch (op) {
    case Op::add:
      return a + b;
    case Op::sub:
      return a - b;
    case Op::mul:
      return a * b;
    case Op::div:
      return safe_div(a, b);
    case Op::pow:
      return safe_pow(a, b);
    case Op::neg:
      return -a;
    case Op::min:
      a = nan_as_zero(a), b = nan_as_zero(b);
      return a < b ? a : b;
    case Op::max:
      a = nan_as_zero(a), b = nan_as_zero(b);
      return a > b ? a : b;
    case Op::abs:
      return a < 0 ? -a : a;
    case Op::log:
      return safe_log(a);
    case Op::exp:
      return std::exp(a);
    case Op::sqrt:
      return safe_sqrt(a);
    case Op::lt:
      return truth(a < b);
    case Op::le:
      return truth(a <= b);
    case Op::gt:
      return truth(a > b);
    case Op::ge:
      return truth(a >= b);
    case Op::eq:
      return truth(a == b);
    case Op::ne:
      return truth(a != b);
    case Op::logical_and:
      return truth(a != 0 && b != 0);
    case Op::logical_or:
      return truth(a != 0 || b != 0);
    case Op::logical_not:
      return truth(a == 0);
    case Op::select:
      return a != 0 ? b : c;
    default:
      return 0.0;
  }
}

}  // namespace allot::ir
