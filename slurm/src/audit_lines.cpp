// The adapter's own audit records, beside the cycle's (runtime/audit.h, with
// the same time and policy fields): what it did to Slurm, and the contract it
// recorded for each run it saw start. docs/SLURM.md "Audit log" lists them.
#include "allot/audit_json.h"
#include "allot/contracts.h"
#include "allot/dates.h"
#include "allot/duration.h"
#include "allot/slurm.h"
#include "allot/snapshot.h"

namespace allot::slurm {
using runtime::audit::Json;

const char* action_kind_name(Action::Kind kind) {
  switch (kind) {
    case Action::Kind::set_priority:
      return "set_priority";
    case Action::Kind::checkpoint_signal:
      return "checkpoint_signal";
    case Action::Kind::requeue:
      return "requeue";
    case Action::Kind::class_limit:
      return "class_limit";
  }
  return "unknown";
}

std::string action_json(const Action& action, Seconds now, const std::string& policy_hash, bool dry_run) {
  Json record{{"time", support::format_timestamp(now)},
              {"policy", policy_hash},
              {"source", "slurm"},
              {"kind", action_kind_name(action.kind)},
              {"job", std::to_string(action.job)}};
  if (action.kind == Action::Kind::set_priority) record["priority"] = action.priority;
  if (action.kind == Action::Kind::checkpoint_signal || action.kind == Action::Kind::requeue) {
    record["for_job"] = action.for_job;
  }
  if (action.kind == Action::Kind::class_limit) record["comment"] = action.text;
  if (action.kind == Action::Kind::requeue)
    record["lost_gpu_seconds"] = runtime::audit::finite(action.lost_gpu_seconds);
  if (dry_run) {
    record["dry_run"] = true;  // what would have been written; nothing was
  } else {
    record["ok"] = action.error.empty();
    if (!action.error.empty()) record["error"] = action.error;
  }
  return runtime::audit::dump(record, -1);
}

std::string start_json(const ObservedStart& start, Seconds now) {
  const Json record{{"time", support::format_timestamp(now)},
                    {"policy", start.contract.policy_hash},
                    {"source", "slurm"},
                    {"kind", "contract"},
                    {"job", std::to_string(start.job)},
                    {"started", support::format_timestamp(start.started)},
                    {"account", start.account},
                    {"class", start.job_class},
                    {"contract", runtime::audit::contract_json(start.contract)}};
  if (!start.class_limit.empty()) {
    Json with_limit = record;
    with_limit["class_limit"] = start.class_limit;  // why the contract promises nothing
    return runtime::audit::dump(with_limit, -1);
  }
  return runtime::audit::dump(record, -1);
}

std::string progress_json(const ProgressChange& change, Seconds now, const std::string& policy_hash) {
  const runtime::RunningJob& run = change.run;
  Json record{{"time", support::format_timestamp(now)},
              {"policy", policy_hash},
              {"source", "slurm"},
              {"kind", change.stalled ? "stalled" : "recovered"},
              {"job", std::to_string(change.job)},
              {"started", support::format_timestamp(run.started)},
              {"account", run.request.account},
              {"class", run.request.job_class}};
  if (change.stalled) {
    record["since"] = support::format_timestamp(change.since);
    record["progress_every"] = support::format_duration(run.contract.progress_every);
    record["on_stall"] = stall_action_name(run.contract.on_stall);
    record["reason"] = runtime::stall_reason(run, change.since);
  } else {
    record["progress_at"] = support::format_timestamp(runtime::last_progress_point(run));
    record["reason"] = runtime::recovery_reason(run);
  }
  return runtime::audit::dump(record, -1);
}

std::string reload_json(const ReloadRecord& reload, Seconds now) {
  const bool only_map = reload.swapped && !reload.policy_changed;
  Json record{{"time", support::format_timestamp(now)},
              {"policy", reload.swapped ? reload.to_hash : reload.from_hash},
              {"source", "slurm"},
              {"kind", !reload.swapped ? "reload_refused"
                       : only_map      ? "map_reload"
                                       : "policy_swap"},
              {"policy_file", reload.policy_file},
              {"map_file", reload.map_file},
              {"policy_changed", reload.policy_changed},
              {"map_changed", reload.map_changed},
              {"generation", reload.generation}};
  if (reload.swapped) {
    record["from"] = reload.from_hash;
  } else {
    record["reason"] = reload.reason;
    record["diagnostics"] = reload.diagnostics;
  }
  return runtime::audit::dump(record, -1);
}

std::string governance_json(const runtime::GovernanceNotice& notice, Seconds now, const std::string& policy_hash) {
  const Json record{{"time", support::format_timestamp(now)},
                    {"policy", policy_hash},
                    {"source", "slurm"},
                    {"kind", "governance"},
                    {"code", notice.code},
                    {"subject", notice.subject},
                    {"date", support::format_date(notice.day)},
                    {"message", notice.message}};
  return runtime::audit::dump(record, -1);
}

}  // namespace allot::slurm
