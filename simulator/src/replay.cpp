// One workload under every policy: the same arrivals, one simulation each.
#include <fmt/format.h>

#include <algorithm>

#include "allot/simulator.h"

namespace allot::simulator {

std::optional<std::string> replay_too_large(const Workload& workload, const runtime::Inventory& inventory) {
  const auto jobs = static_cast<double>(workload.jobs.size());
  if (workload.jobs.size() > kMaxWorkloadJobs) {
    return fmt::format("`{}` has {} jobs, more than the {} a replay takes: replay fewer days", workload.name,
                       workload.jobs.size(), kMaxWorkloadJobs);
  }
  // Above a load of 1 the queue grows to about jobs x (1 - 1/load) by the end.
  const double load = offered_load(workload, inventory);
  const double backlog = load > 1 ? jobs * (1 - 1 / load) : 0;
  if (jobs * backlog > kMaxQueueWork) {
    return fmt::format(
        "`{}` offers {:.1f}x the capacity of {} GPUs: about {:.0f} of its {} jobs would still wait at the end, and "
        "a replay ranking that queue every cycle would take days; replay fewer days, a lower load or more GPUs",
        workload.name, load, inventory.schedulable_gpus(), backlog, workload.jobs.size());
  }
  return std::nullopt;
}

Expected<ScenarioReport, std::string> replay_workload(const Workload& workload, const runtime::Inventory& inventory,
                                                      const std::vector<ReplayPolicy>& policies,
                                                      const SimulationOptions& simulation, const MetricOptions& metrics,
                                                      const ReplayProgress& progress) {
  if (auto problem = replay_too_large(workload, inventory)) return unexpected(*problem);
  ScenarioReport report;
  report.workload = workload.name;
  report.description = workload.description;
  report.start = workload.start;
  report.end = workload.end;
  report.jobs = workload.jobs.size();
  report.notes = workload.notes;
  report.hanging_jobs = static_cast<std::size_t>(std::count_if(
      workload.jobs.begin(), workload.jobs.end(), [](const WorkloadJob& job) { return job.hangs_after.has_value(); }));
  for (std::size_t index = 0; index < policies.size(); ++index) {
    const ReplayPolicy& policy = policies[index];
    SimulationOptions options = simulation;
    if (progress) options.progress = [&](double fraction) { progress(index, fraction); };
    auto result = simulate(workload, inventory, *policy.policy, options);
    if (!result) return unexpected(result.error());
    report.policies.push_back(measure(workload, *result, *policy.policy, policy.name, metrics));
  }
  return report;
}

}  // namespace allot::simulator
