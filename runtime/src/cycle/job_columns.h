// Job tables for a compiled policy (abi::JobTable): pending jobs for `rank`
// and as `requester`, running jobs as `victim`. Only the columns the policy
// reads are kept; the rest stay null, as the ABI allows.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "allot/abi.h"
#include "allot/cycle.h"
#include "allot/policy.h"
#include "cycle_jobs.h"

namespace allot::runtime::cycle {

// Every field of one job, in abi units.
using JobValues = std::array<double, abi::kJobFieldCount>;

// A pending job's fields at `now` under its class (`job_class` indexes PolicyTables::classes).
JobValues pending_job_values(const JobRequest& job, int job_class, const ClassInfo& info, Seconds now);

// A running job's fields at `now` under the contract it started with; `info` is
// its class in the current policy (for the runtime estimate), null if it has none.
JobValues running_job_values(const RunningJob& job, int job_class, const ClassInfo* info, Seconds now);

// A job table that owns its columns.
class JobColumns {
 public:
  JobColumns(std::size_t rows, std::span<const abi::JobField> fields);
  JobColumns(const JobColumns&) = delete;
  JobColumns& operator=(const JobColumns&) = delete;
  // Moving keeps the columns' buffers, so table() stays valid.
  JobColumns(JobColumns&&) noexcept = default;
  JobColumns& operator=(JobColumns&&) noexcept = default;

  // Stores the read fields of `values` and the job's account row.
  void set_row(std::size_t row, const JobValues& values, int account);
  const abi::JobTable& table() const { return table_; }
  std::span<const abi::JobField> fields() const { return fields_; }
  // A read field's value (0 for a field the policy does not read).
  double value(abi::JobField field, std::size_t row) const;

 private:
  std::vector<abi::JobField> fields_;
  std::array<std::vector<double>, abi::kJobFieldCount> columns_;
  std::vector<std::int32_t> accounts_;
  abi::JobTable table_{};
};

// The pending jobs' table: rankable jobs only, numbered in state order (sets PendingJob::row).
JobColumns pending_job_table(std::vector<PendingJob>& pending, const PolicyTables& tables,
                             std::span<const abi::JobField> fields, Seconds now);

// One row per running job, in state order; a job the policy does not know gets account row 0.
JobColumns running_job_table(const std::vector<ActiveJob>& active, const PolicyTables& tables,
                             std::span<const abi::JobField> fields, Seconds now);

// The name a rank term is shown under: "job.wait", "account.fair_tree".
const char* job_field_name(abi::JobField field);
const char* account_field_name(abi::AccountField field);

}  // namespace allot::runtime::cycle
