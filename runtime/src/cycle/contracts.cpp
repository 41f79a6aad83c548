#include "allot/contracts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "allot/dates.h"
#include "allot/duration.h"

namespace allot::runtime {
namespace {

Seconds whole_seconds(double seconds) { return static_cast<Seconds>(std::llround(seconds)); }

}  // namespace

Seconds protection_for(const ClassInfo& info, const JobRequest& job) {
  const Seconds cap = whole_seconds(info.protect);
  if (!info.protect_up_to || job.requested_protect <= 0) return cap;
  return std::min(job.requested_protect, cap);
}

Seconds runtime_estimate(const ClassInfo& info, const JobRequest& job) {
  return job.expected_runtime > 0 ? job.expected_runtime : whole_seconds(info.max_runtime);
}

Contract contract_at_start(const ClassInfo& info, const JobRequest& job, Seconds started,
                           const std::string& policy_hash) {
  Contract contract;
  contract.protected_until = started + protection_for(info, job);
  contract.checkpoint_every = whole_seconds(info.checkpoint_every);
  contract.grace = whole_seconds(info.grace);
  contract.resumable = info.resumable;
  contract.preemptible = info.preemptible;
  contract.policy_hash = policy_hash;
  contract.progress_every = whole_seconds(info.progress_every);
  contract.progress_after = whole_seconds(info.progress_after);
  contract.on_stall = info.on_stall;
  return contract;
}

std::optional<std::string> class_limit_problem(const ClassInfo& info, const JobRequest& job) {
  const int gpus = job.nodes * job.gpus_per_node;
  if (job.nodes < 1) return fmt::format("asks for {} nodes; a job needs at least one", job.nodes);
  if (job.gpus_per_node < 0) return fmt::format("asks for {} GPUs per node", job.gpus_per_node);
  if (info.max_gpus > 0 && gpus > info.max_gpus) {
    return fmt::format("asks for {} GPUs; class `{}` allows at most {}", gpus, info.name, info.max_gpus);
  }
  if (info.max_nodes > 0 && job.nodes > info.max_nodes) {
    return fmt::format("asks for {} nodes; class `{}` allows at most {}", job.nodes, info.name, info.max_nodes);
  }
  if (info.max_runtime > 0 && job.expected_runtime > whole_seconds(info.max_runtime)) {
    return fmt::format("asks for a time limit of {}; class `{}` allows at most {}",
                       support::format_duration(job.expected_runtime), info.name,
                       support::format_duration(whole_seconds(info.max_runtime)));
  }
  if (info.deadline_required && !job.deadline) {
    return fmt::format("class `{}` requires a deadline and the job has none", info.name);
  }
  return std::nullopt;
}

Seconds last_safe_point(const RunningJob& job, Seconds at) {
  if (!job.contract.resumable) return job.started;
  Seconds safe = std::max(job.started, job.last_checkpoint);
  const Seconds every = job.contract.checkpoint_every;
  // A job that reports its checkpoints is taken at its word: none is assumed after the last.
  if (every > 0 && at > safe && !job.checkpoint_reported) safe += (at - safe) / every * every;
  return std::min(safe, std::max(at, job.started));
}

double lost_gpu_seconds(const RunningJob& job, Seconds stop) {
  const double gpus = static_cast<double>(job.nodes.size()) * job.request.gpus_per_node;
  return gpus * static_cast<double>(std::max<Seconds>(0, stop - last_safe_point(job, stop)));
}

Seconds last_progress_point(const RunningJob& job) {
  Seconds point = std::max(job.started, job.last_checkpoint);
  if (job.last_progress) point = std::max(point, *job.last_progress);
  return point;
}

std::optional<Seconds> stalled_since(const RunningJob& job, Seconds now) {
  const Contract& contract = job.contract;
  if (contract.progress_every <= 0) return std::nullopt;
  const Seconds allowance_end = job.started + std::max<Seconds>(0, contract.progress_after);
  const Seconds clock = std::max(allowance_end, last_progress_point(job));
  // Saturating: a contract read from a file is bounded, but a sum of two bounds need not be.
  const Seconds due = clock > std::numeric_limits<Seconds>::max() - contract.progress_every
                          ? std::numeric_limits<Seconds>::max()
                          : clock + contract.progress_every;
  if (now < due) return std::nullopt;
  return due;
}

std::string stall_reason(const RunningJob& job, Seconds since) {
  const Seconds last = last_progress_point(job);
  const std::string heard = last > job.started
                                ? fmt::format("no progress reported since {}", support::format_timestamp(last))
                                : std::string("no progress reported since it started");
  return fmt::format("{}; its class requires progress every {}: stalled since {}", heard,
                     support::format_duration(job.contract.progress_every), support::format_timestamp(since));
}

std::string recovery_reason(const RunningJob& job) {
  return fmt::format("progress reported at {}: no longer stalled", support::format_timestamp(last_progress_point(job)));
}

std::vector<Charge> holding_charges(const RunningJob& job, const std::string& account, Seconds from, Seconds until,
                                    const ResourceUse& use) {
  std::vector<Charge> charges;
  if (until <= from) return charges;
  const std::optional<Seconds> stalled = stalled_since(job, until);
  const Seconds split = stalled ? std::clamp(*stalled, from, until) : until;
  if (split > from) charges.push_back(Charge{account, job.request.id, from, split, use, false});
  if (split < until) charges.push_back(Charge{account, job.request.id, split, until, use, true});
  return charges;
}

std::optional<StopRefusal> stop_refusal(const Contract& contract, bool requeueable, bool stopping, Seconds now,
                                        bool stalled) {
  if (stopping) return StopRefusal::stopping;
  if (!contract.preemptible) return StopRefusal::not_preemptible;
  if (!requeueable) return StopRefusal::not_requeueable;
  const bool protection_lost = stalled && contract.on_stall == StallAction::preempt;
  if (now < contract.protected_until && !protection_lost) return StopRefusal::protected_now;
  return std::nullopt;
}

std::optional<StopRefusal> stop_refusal(const RunningJob& job, Seconds now) {
  return stop_refusal(job.contract, job.request.requeueable, job.stopping_at.has_value(), now,
                      stalled_since(job, now).has_value());
}

std::string stop_refusal_text(StopRefusal refusal, const RunningJob& job, Seconds now) {
  switch (refusal) {
    case StopRefusal::stopping:
      return fmt::format("it is already stopping, at {}", support::format_timestamp(job.stopping_at.value_or(now)));
    case StopRefusal::not_preemptible:
      return "it started under a contract that does not allow preemption; it runs to completion";
    case StopRefusal::not_requeueable:
      return "the job asked never to be requeued";
    case StopRefusal::protected_now:
      return fmt::format("its contract protects it until {} (another {})",
                         support::format_timestamp(job.contract.protected_until),
                         support::format_duration(job.contract.protected_until - now));
  }
  return "";
}

}  // namespace allot::runtime
