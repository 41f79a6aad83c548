// Every IR op, compiled by the JIT, on the values where arithmetic is
// undefined or surprising (division by zero, log of 0 and -1, sqrt(-1), pow
// overflow and NaN, min/max of -0.0, comparisons with NaN), bit for bit equal
// to the formulas in ir/ir.h. Each op is checked with its operands read from
// the job table (code computed at run time) and as constants (what LLVM may
// fold at compile time must fold to the same bits), through rank and rank_batch.
#include <cmath>
#include <limits>
#include <utility>

#include "jit_fixture.h"

namespace allot::jit_test {
namespace {

using ir::Op;

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Operands for every op: signed zeros, ±1, fractions, exp's overflow and
// underflow edges, the largest and smallest doubles, infinities and NaN.
const std::vector<double> kEdgeValues = {0.0,    -0.0,  1.0,    -1.0,   0.5,    -0.5, 2.0,   3.0,  1.0 / 3.0, 710.0,
                                         -745.5, 1e308, -1e308, 5e-324, 1e-310, kInf, -kInf, kNaN, 1024.0,    -1024.5};

// Truth values as the IR stores them, plus values a corrupt column might hold.
const std::vector<double> kTruthValues = {0.0, -0.0, 1.0, 2.0, -1.0, kNaN};

// The formulas of ir/ir.h, restated here as the specification.
double specified(Op op, double a, double b, double c) {
  switch (op) {
    case Op::add:
      return a + b;
    case Op::sub:
      return a - b;
    case Op::mul:
      return a * b;
    case Op::div:
      return b == 0 ? 0 : a / b;
    case Op::pow: {
      const double r = std::pow(a, b);
      return std::isnan(r) ? 0 : r;
    }
    case Op::neg:
      return -a;
    case Op::min:  // a NaN operand counts as 0
      a = std::isnan(a) ? 0 : a, b = std::isnan(b) ? 0 : b;
      return a < b ? a : b;
    case Op::max:
      a = std::isnan(a) ? 0 : a, b = std::isnan(b) ? 0 : b;
      return a > b ? a : b;
    case Op::abs:
      return a < 0 ? -a : a;
    case Op::log:
      return a > 0 ? std::log(a) : 0;
    case Op::exp:
      return std::exp(a);
    case Op::sqrt:
      return a >= 0 ? std::sqrt(a) : 0;
    case Op::lt:
      return a < b ? 1 : 0;
    case Op::le:
      return a <= b ? 1 : 0;
    case Op::gt:
      return a > b ? 1 : 0;
    case Op::ge:
      return a >= b ? 1 : 0;
    case Op::eq:
      return a == b ? 1 : 0;
    case Op::ne:
      return a != b ? 1 : 0;
    case Op::logical_and:
      return a != 0 && b != 0 ? 1 : 0;
    case Op::logical_or:
      return a != 0 || b != 0 ? 1 : 0;
    case Op::logical_not:
      return a == 0 ? 1 : 0;
    case Op::select:
      return a != 0 ? b : c;
    default:
      FAIL("no formula for op " << ir::op_name(op));
      return 0;
  }
}

// The rank the runtime sees.
double final_rank(double value) { return std::isnan(value) ? 0 : value; }

struct Operands {
  double a = 0, b = 0, c = 0;
};

// Every combination of `values` for an op of `arity` operands (select takes
// its condition from kTruthValues).
std::vector<Operands> combinations(Op op, const std::vector<double>& values) {
  const int arity = ir::arity(op);
  const std::vector<double>& first = op == Op::select ? kTruthValues : values;
  const std::vector<double> unused = {0.0};
  const std::vector<double>& second = arity > 1 ? values : unused;
  const std::vector<double>& third = arity > 2 ? values : unused;
  std::vector<Operands> result;
  for (double a : first)
    for (double b : second)
      for (double c : third) result.push_back({a, b, c});
  return result;
}

// Job rows holding each case's operands in wait, runtime and protect.
Tables rows_of(const std::vector<Operands>& cases) {
  Tables tables(cases.size(), 1);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    tables.job_columns[abi::job_wait][i] = cases[i].a;
    tables.job_columns[abi::job_runtime][i] = cases[i].b;
    tables.job_columns[abi::job_protect][i] = cases[i].c;
    tables.job_columns[abi::job_restarts][i] = static_cast<double>(i);
  }
  return tables;
}

// rank = op(job.wait, job.runtime, job.protect).
ir::Function op_on_fields(Op op) {
  Sketch sketch;
  const ir::NodeId a = sketch.job(abi::job_wait), b = sketch.job(abi::job_runtime), c = sketch.job(abi::job_protect);
  sketch.compute(op, a, b, c);
  return sketch.finish();
}

// rank = the case selected by job.restarts, each case op(constant, constant, constant).
ir::Function op_on_constants(Op op, const std::vector<Operands>& cases) {
  Sketch sketch;
  const ir::NodeId index = sketch.job(abi::job_restarts);
  ir::NodeId result = sketch.constant(-7.0);
  for (std::size_t i = cases.size(); i-- > 0;) {
    const ir::NodeId value =
        sketch.compute(op, sketch.constant(cases[i].a), sketch.constant(cases[i].b), sketch.constant(cases[i].c));
    const ir::NodeId chosen = sketch.compute(Op::eq, index, sketch.constant(static_cast<double>(i)));
    result = sketch.compute(Op::select, chosen, value, result);
  }
  return sketch.finish(result);
}

// Checks rank and rank_batch of `policy` against the formula on every case.
void check_cases(const CompiledPolicy& policy, Op op, const std::vector<Operands>& cases) {
  const Tables tables = rows_of(cases);
  const abi::JobTable jobs = tables.jobs();
  const abi::AccountTable accounts = tables.accounts();
  std::vector<double> batch(cases.size(), -1.0);
  policy.rank_batch(jobs, accounts, tables.cluster, 0, cases.size(), batch.data());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const double expected = final_rank(specified(op, cases[i].a, cases[i].b, cases[i].c));
    INFO(ir::op_name(op) << "(" << cases[i].a << ", " << cases[i].b << ", " << cases[i].c << ") should be "
                         << expected);
    CHECK(bits(policy.rank(jobs, i, accounts, tables.cluster)) == bits(expected));
    CHECK(bits(batch[i]) == bits(expected));
  }
}

void check_op(Op op, const std::vector<double>& values) {
  const std::vector<Operands> cases = combinations(op, values);
  SECTION(std::string(ir::op_name(op)) + " on values computed at run time") {
    check_cases(*compile(policy_with(op_on_fields(op))), op, cases);
  }
  SECTION(std::string(ir::op_name(op)) + " on constants") {
    check_cases(*compile(policy_with(op_on_constants(op, cases))), op, cases);
  }
}

}  // namespace

TEST_CASE("arithmetic ops give the formulas' exact bits on edge values", "[jit]") {
  for (Op op : {Op::add, Op::sub, Op::mul, Op::div, Op::pow, Op::min, Op::max}) check_op(op, kEdgeValues);
}

TEST_CASE("unary ops give the formulas' exact bits on edge values", "[jit]") {
  for (Op op : {Op::neg, Op::abs, Op::log, Op::exp, Op::sqrt}) check_op(op, kEdgeValues);
}

TEST_CASE("comparisons are IEEE ordered: NaN compares false, != true", "[jit]") {
  for (Op op : {Op::lt, Op::le, Op::gt, Op::ge, Op::eq, Op::ne}) check_op(op, kEdgeValues);
}

TEST_CASE("logic treats any nonzero value as true, as the interpreter does", "[jit]") {
  for (Op op : {Op::logical_and, Op::logical_or, Op::logical_not}) check_op(op, kTruthValues);
  check_op(Op::select, {1.5, -0.0, kNaN, kInf});
}

TEST_CASE("a NaN rank becomes 0 and -0.0 stays -0.0", "[jit]") {
  Sketch sketch;
  sketch.job(abi::job_wait);
  const auto policy = compile(policy_with(sketch.finish()));
  Tables tables(3, 1);
  tables.job_columns[abi::job_wait] = {kNaN, -0.0, -kInf};
  const abi::JobTable jobs = tables.jobs();
  const abi::AccountTable accounts = tables.accounts();
  CHECK(bits(policy->rank(jobs, 0, accounts, tables.cluster)) == bits(0.0));
  CHECK(bits(policy->rank(jobs, 1, accounts, tables.cluster)) == bits(-0.0));
  CHECK(bits(policy->rank(jobs, 2, accounts, tables.cluster)) == bits(-kInf));
}

TEST_CASE("pow, log, exp and sqrt call the same libm as the interpreter at every optimisation level", "[jit]") {
  // x^0.5 and x^2 are where a library-call simplifier would substitute sqrt(x)
  // and x*x; 2^x where it would call exp2.
  std::vector<Operands> cases;
  for (double x = 1e-3; x < 1e6; x *= 1.37) {
    for (double y : {0.5, 2.0, -1.0, 1.0 / 3.0, x / 7}) cases.push_back({x, y, 0});
    cases.push_back({2.0, x / 1000, 0});
  }
  for (int level = 0; level <= 3; ++level) {
    INFO("-O" << level);
    for (Op op : {Op::pow}) check_cases(*compile(policy_with(op_on_fields(op)), level), op, cases);
    for (Op op : {Op::log, Op::exp, Op::sqrt}) check_cases(*compile(policy_with(op_on_fields(op)), level), op, cases);
  }
}

}  // namespace allot::jit_test
