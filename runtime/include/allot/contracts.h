// Execution contracts: what a job is promised when it starts (protection,
// checkpoints, grace, resumability, preemptibility), and what stopping it costs. The promise is copied
// into the RunningJob, so a later policy swap cannot take it back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/cluster_state.h"
#include "allot/ledger.h"
#include "allot/policy.h"

namespace allot::runtime {

// The protected time a job gets: the class's `protect`, or for `protect up to
// D` the time the job asked for capped at D (D when it asked for nothing).
Seconds protection_for(const ClassInfo& info, const JobRequest& job);

// How long the job is expected to run: the user's estimate, else the class's
// `max_runtime`, else 0 (unknown).
Seconds runtime_estimate(const ClassInfo& info, const JobRequest& job);

// The contract of a job of class `info` starting at `started`.
Contract contract_at_start(const ClassInfo& info, const JobRequest& job, Seconds started,
                           const std::string& policy_hash);

// Why the class does not allow this job to start (too many GPUs or nodes, a
// runtime limit past its `max_runtime`, a missing deadline), or nullopt. A job
// without a runtime limit (expected_runtime 0) is held to `max_runtime` by
// whoever runs it, not refused here.
std::optional<std::string> class_limit_problem(const ClassInfo& info, const JobRequest& job);

// The time a job would resume from if it stopped at `at`: its last checkpoint
// when resumable (a `checkpoint every` job is taken to checkpoint on schedule
// after the last one the driver reported), else its start; never later than
// `at` (or its start, if it started after `at`). The cycle, explain and the
// replay's lost-work accounting all ask this one function.
Seconds last_safe_point(const RunningJob& job, Seconds at);

// The GPU-seconds a job loses if it stops at `stop`: everything since its last safe point.
double lost_gpu_seconds(const RunningJob& job, Seconds stop);

// The job's last sign of progress: the later of its last reported progress and
// its last reported checkpoint, else its start (`job.since_progress` counts from it).
Seconds last_progress_point(const RunningJob& job);

// When the job became stalled, if it is at `now`: it has a progress rule, and
// no progress (nor a checkpoint) was reported within `progress_every` of
// max(its start + `progress_after`, its last report). The stall starts at
// that report + the interval.
std::optional<Seconds> stalled_since(const RunningJob& job, Seconds now);

// One sentence each for the audit records of a job found stalled since
// `since`, and of one that reported progress again (its last report).
std::string stall_reason(const RunningJob& job, Seconds since);
std::string recovery_reason(const RunningJob& job);

// What `job` holding `use` over [from, until) is charged to `account`: one
// interval, or two when the job is stalled at `until` and was before it (the
// part from its stall on is marked `without_progress`).
std::vector<Charge> holding_charges(const RunningJob& job, const std::string& account, Seconds from, Seconds until,
                                    const ResourceUse& use);

// Why a running job may not be stopped now, in the order a person needs them.
enum class StopRefusal {
  stopping,         // its stop is decided already (RunningJob::stopping_at)
  not_preemptible,  // it started under a contract that runs it to completion
  not_requeueable,  // the job asked never to be requeued
  protected_now,    // its contract protects it until protected_until
};

// "May this running job be stopped now, and if not, why": the one rule the
// cycle (preemption candidates, taking back overruns), `allot explain`, the
// replay's shortfall classification and the Slurm adapter's check before it
// enacts a preemption all ask. nullopt when it may: whether it is stopped is
// then for `preempt`, the share rule, a fast lane or a hold to decide. A
// stalled job whose contract says `else preempt` has lost its protection.
std::optional<StopRefusal> stop_refusal(const Contract& contract, bool requeueable, bool stopping, Seconds now,
                                        bool stalled = false);
std::optional<StopRefusal> stop_refusal(const RunningJob& job, Seconds now);

// The refusal in words, for explain: "its contract protects it until
// 2026-12-02T11:00:00Z (another 1h30m)".
std::string stop_refusal_text(StopRefusal refusal, const RunningJob& job, Seconds now);

}  // namespace allot::runtime
