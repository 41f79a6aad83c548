// The language's fields and the runtime ABI's columns stay in step: every
// scalar field of check/schema.h is exactly one abi column, with the name the
// abi enum gives it, and every column is a field.
#include <catch2/catch.hpp>

#include "allot/abi.h"
#include "check/schema.h"
#include "ir/columns.h"

namespace allot {
namespace {

struct Column {
  std::uint32_t column;
  const char* name;
};

// abi.h's enumerators, spelled out, so renaming one side fails here.
const Column kJobColumns[] = {
    {abi::job_class, "class"},
    {abi::job_label, "label"},
    {abi::job_gpus, "gpus"},
    {abi::job_nodes, "nodes"},
    {abi::job_gpus_per_node, "gpus_per_node"},
    {abi::job_cpus, "cpus"},
    {abi::job_memory_gb, "memory_gb"},
    {abi::job_wait, "wait"},
    {abi::job_runtime, "runtime"},
    {abi::job_since_checkpoint, "since_checkpoint"},
    {abi::job_protect, "protect"},
    {abi::job_has_deadline, "has_deadline"},
    {abi::job_deadline_slack, "deadline_slack"},
    {abi::job_resumable, "resumable"},
    {abi::job_restarts, "restarts"},
    {abi::job_submitted, "submitted"},
    {abi::job_stalled, "stalled"},
    {abi::job_since_progress, "since_progress"},
};
const Column kAccountColumns[] = {
    {abi::account_share, "share"},
    {abi::account_level_share, "level_share"},
    {abi::account_norm_share, "norm_share"},
    {abi::account_usage, "usage"},
    {abi::account_effective_usage, "effective_usage"},
    {abi::account_usage_ratio, "usage_ratio"},
    {abi::account_debt, "debt"},
    {abi::account_fair_tree, "fair_tree"},
    {abi::account_level_fs, "level_fs"},
    {abi::account_dominant_share, "dominant_share"},
    {abi::account_running_gpus, "running_gpus"},
    {abi::account_pending_jobs, "pending_jobs"},
    {abi::account_depth, "depth"},
};
const Column kClusterColumns[] = {
    {abi::cluster_now, "now"},
    {abi::cluster_total_gpus, "total_gpus"},
    {abi::cluster_free_gpus, "free_gpus"},
    {abi::cluster_utilization, "utilization"},
    {abi::cluster_pending_jobs, "pending_jobs"},
    {abi::cluster_running_jobs, "running_jobs"},
};

template <std::size_t N>
void check_record(Type record, const Column (&columns)[N], std::uint32_t count) {
  REQUIRE(N == count);
  for (const auto& column : columns) {
    INFO(type_name(record) << "." << column.name);
    CHECK(ir::column_of(record, column.name) == column.column);
    CHECK(ir::column_name(record, column.column) == column.name);
    CHECK(find_field(record, column.name) != nullptr);
  }
  std::size_t scalar_fields = 0;
  for (const auto& field : record_fields(record)) {
    if (is_record(field.type)) continue;
    ++scalar_fields;
    INFO(type_name(record) << "." << field.name);
    CHECK(ir::column_of(record, field.name).has_value());
  }
  CHECK(scalar_fields == count);
}

}  // namespace

TEST_CASE("every schema field maps to an abi column and back", "[ir][abi]") {
  check_record(Type::job, kJobColumns, abi::kJobFieldCount);
  check_record(Type::account, kAccountColumns, abi::kAccountFieldCount);
  check_record(Type::cluster, kClusterColumns, abi::kClusterFieldCount);
}

TEST_CASE("a link to another record is not a column", "[ir][abi]") {
  CHECK(find_field(Type::job, "account") != nullptr);
  CHECK_FALSE(ir::column_of(Type::job, "account").has_value());
  CHECK_FALSE(ir::column_of(Type::job, "no_such_field").has_value());
  CHECK(ir::column_name(Type::job, abi::kJobFieldCount).empty());
}

}  // namespace allot
