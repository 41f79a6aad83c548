// Helpers for the JIT tests: hand-built IR functions and the abi tables they
// read, so codegen is tested without the front end.
#pragma once

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "allot/abi.h"
#include "allot/policy.h"
#include "codegen/jit.h"
#include "ir/ir.h"

namespace allot::jit_test {

// Struct-of-arrays job and account tables owning their columns.
struct Tables {
  std::vector<std::vector<double>> job_columns;
  std::vector<std::int32_t> account_rows;
  std::vector<std::vector<double>> account_columns;
  abi::ClusterView cluster{};

  // `jobs` zeroed job rows, each in account 0, and `accounts` zeroed accounts.
  Tables(std::size_t jobs, std::size_t accounts)
      : job_columns(abi::kJobFieldCount, std::vector<double>(jobs, 0.0)),
        account_rows(jobs, 0),
        account_columns(abi::kAccountFieldCount, std::vector<double>(accounts, 0.0)) {}

  // The abi view of the job rows (valid while this object lives).
  abi::JobTable jobs() const {
    abi::JobTable table{};
    table.count = account_rows.size();
    for (std::size_t f = 0; f < job_columns.size(); ++f) table.columns[f] = job_columns[f].data();
    table.account = account_rows.data();
    return table;
  }

  // The abi view of the accounts.
  abi::AccountTable accounts() const {
    abi::AccountTable table{};
    table.count = account_columns.front().size();
    for (std::size_t f = 0; f < account_columns.size(); ++f) table.columns[f] = account_columns[f].data();
    return table;
  }
};

// Builds an ir::Function node by node, without folding (codegen must handle
// whatever the lowering hands it, constants included).
class Sketch {
 public:
  ir::NodeId constant(double value) {
    ir::Node node;
    node.op = ir::Op::constant;
    node.value = value;
    return add(node);
  }
  ir::NodeId load(ir::Op op, std::uint32_t field, ir::Subject subject = ir::Subject::job) {
    ir::Node node;
    node.op = op;
    node.field = field;
    node.subject = subject;
    return add(node);
  }
  ir::NodeId job(abi::JobField field, ir::Subject subject = ir::Subject::job) {
    return load(ir::Op::job_field, field, subject);
  }
  ir::NodeId account(abi::AccountField field, ir::Subject subject = ir::Subject::job) {
    return load(ir::Op::account_field, field, subject);
  }
  ir::NodeId cluster(abi::ClusterField field) { return load(ir::Op::cluster_field, field); }
  ir::NodeId compute(ir::Op op, ir::NodeId a, ir::NodeId b = 0, ir::NodeId c = 0) {
    ir::Node node;
    node.op = op;
    node.a = a;
    node.b = b;
    node.c = c;
    return add(node);
  }
  // The function returning `result` (by default the last node).
  ir::Function finish(std::optional<ir::NodeId> result = std::nullopt) const {
    ir::Function function;
    function.nodes = nodes_;
    function.result = result.value_or(static_cast<ir::NodeId>(nodes_.size() - 1));
    return function;
  }

 private:
  ir::NodeId add(ir::Node node) {
    nodes_.push_back(node);
    return static_cast<ir::NodeId>(nodes_.size() - 1);
  }
  std::vector<ir::Node> nodes_;
};

// A policy with the given entry points and otherwise empty tables.
inline ir::LoweredPolicy policy_with(ir::Function rank, std::optional<ir::Function> preempt = std::nullopt) {
  ir::LoweredPolicy policy;
  policy.tables.name = "jit_test";
  policy.rank = std::move(rank);
  policy.preempt = std::move(preempt);
  policy.source_hash = "0000";
  return policy;
}

// The JIT-compiled policy; the test fails with LLVM's reason when it cannot compile.
inline std::unique_ptr<CompiledPolicy> compile(const ir::LoweredPolicy& policy, int optimization_level = 2) {
  std::string error;
  auto compiled = codegen::make_jit_policy(policy, optimization_level, error);
  INFO(error);
  REQUIRE(compiled != nullptr);
  CHECK(error.empty());
  return compiled;
}

// The exact bits of `value`, so -0.0 and 0.0 differ and NaNs compare.
inline std::uint64_t bits(double value) { return std::bit_cast<std::uint64_t>(value); }

}  // namespace allot::jit_test
