#include "job_columns.h"

#include <algorithm>

#include "allot/contracts.h"
#include "cycle_jobs.h"

namespace allot::runtime::cycle {
namespace {

// `deadline_slack` of a job without a deadline (the language's 1000d).
constexpr double kNoDeadlineSlack = 1000.0 * 86400.0;

// In abi.h's order (compiler/frontend/src/check/schema.cpp names them the same way).
constexpr std::array<const char*, abi::kJobFieldCount> kJobFieldNames = {
    "job.class",     "job.label",        "job.gpus",           "job.nodes",     "job.gpus_per_node",
    "job.cpus",      "job.memory_gb",    "job.wait",           "job.runtime",   "job.since_checkpoint",
    "job.protect",   "job.has_deadline", "job.deadline_slack", "job.resumable", "job.restarts",
    "job.submitted", "job.stalled",      "job.since_progress"};

constexpr std::array<const char*, abi::kAccountFieldCount> kAccountFieldNames = {
    "account.share",        "account.level_share",  "account.norm_share", "account.usage",    "account.effective_usage",
    "account.usage_ratio",  "account.debt",         "account.fair_tree",  "account.level_fs", "account.dominant_share",
    "account.running_gpus", "account.pending_jobs", "account.depth"};

double as_double(Seconds seconds) { return static_cast<double>(seconds); }

Seconds queued_at(const JobRequest& job) { return job.queued > 0 ? job.queued : job.submitted; }

// The fields a job has whether it runs or waits.
JobValues request_values(const JobRequest& job, int job_class) {
  JobValues values{};
  values[abi::job_class] = job_class;
  values[abi::job_label] = job.label;
  values[abi::job_gpus] = static_cast<double>(job.nodes) * job.gpus_per_node;
  values[abi::job_nodes] = job.nodes;
  values[abi::job_gpus_per_node] = job.gpus_per_node;
  values[abi::job_cpus] = job.nodes * job.cpus_per_node;
  values[abi::job_memory_gb] = job.nodes * job.memory_gib_per_node;
  values[abi::job_has_deadline] = job.deadline ? 1.0 : 0.0;
  values[abi::job_deadline_slack] = kNoDeadlineSlack;
  values[abi::job_restarts] = job.restarts;
  values[abi::job_submitted] = as_double(job.submitted);
  return values;
}

}  // namespace

JobValues pending_job_values(const JobRequest& job, int job_class, const ClassInfo& info, Seconds now) {
  JobValues values = request_values(job, job_class);
  values[abi::job_wait] = as_double(std::max<Seconds>(0, now - queued_at(job)));
  values[abi::job_protect] = as_double(protection_for(info, job));
  values[abi::job_resumable] = info.resumable ? 1.0 : 0.0;
  if (job.deadline) values[abi::job_deadline_slack] = as_double(*job.deadline - now - runtime_estimate(info, job));
  return values;
}

JobValues running_job_values(const RunningJob& job, int job_class, const ClassInfo* info, Seconds now) {
  JobValues values = request_values(job.request, job_class);
  const Seconds runtime = std::max<Seconds>(0, now - job.started);
  values[abi::job_wait] = as_double(std::max<Seconds>(0, job.started - queued_at(job.request)));
  values[abi::job_runtime] = as_double(runtime);
  values[abi::job_since_checkpoint] = as_double(std::max<Seconds>(0, now - last_safe_point(job, now)));
  values[abi::job_protect] = as_double(job.contract.protected_until - job.started);
  values[abi::job_resumable] = job.contract.resumable ? 1.0 : 0.0;
  values[abi::job_stalled] = stalled_since(job, now) ? 1.0 : 0.0;
  values[abi::job_since_progress] = as_double(std::max<Seconds>(0, now - last_progress_point(job)));
  if (job.request.deadline) {
    const Seconds estimate = info ? runtime_estimate(*info, job.request) : job.request.expected_runtime;
    const Seconds remaining = std::max<Seconds>(0, estimate - runtime);
    values[abi::job_deadline_slack] = as_double(*job.request.deadline - now - remaining);
  }
  return values;
}

JobColumns::JobColumns(std::size_t rows, std::span<const abi::JobField> fields)
    : fields_(fields.begin(), fields.end()), accounts_(rows, 0) {
  table_.count = rows;
  for (abi::JobField field : fields_) {
    columns_[field].assign(rows, 0.0);
    table_.columns[field] = columns_[field].data();
  }
  table_.account = accounts_.data();
}

void JobColumns::set_row(std::size_t row, const JobValues& values, int account) {
  for (abi::JobField field : fields_) columns_[field][row] = values[field];
  accounts_[row] = account;
}

double JobColumns::value(abi::JobField field, std::size_t row) const {
  return columns_[field].empty() ? 0.0 : columns_[field][row];
}

JobColumns pending_job_table(std::vector<PendingJob>& pending, const PolicyTables& tables,
                             std::span<const abi::JobField> fields, Seconds now) {
  std::size_t rows = 0;
  for (PendingJob& job : pending) {
    if (job.problem.empty()) job.row = rows++;
  }
  JobColumns table(rows, fields);
  for (const PendingJob& job : pending) {
    if (!job.problem.empty()) continue;
    const ClassInfo& info = tables.classes[static_cast<std::size_t>(job.job_class)];
    table.set_row(job.row, pending_job_values(*job.request, job.job_class, info, now), job.account);
  }
  return table;
}

JobColumns running_job_table(const std::vector<ActiveJob>& active, const PolicyTables& tables,
                             std::span<const abi::JobField> fields, Seconds now) {
  JobColumns table(active.size(), fields);
  for (std::size_t i = 0; i < active.size(); ++i) {
    const ActiveJob& job = active[i];
    const ClassInfo* info = job.job_class >= 0 ? &tables.classes[static_cast<std::size_t>(job.job_class)] : nullptr;
    table.set_row(i, running_job_values(*job.job, job.job_class, info, now), std::max(job.account, 0));
  }
  return table;
}

const char* job_field_name(abi::JobField field) {
  return field < abi::kJobFieldCount ? kJobFieldNames[field] : "job.?";
}

const char* account_field_name(abi::AccountField field) {
  return field < abi::kAccountFieldCount ? kAccountFieldNames[field] : "account.?";
}

}  // namespace allot::runtime::cycle
