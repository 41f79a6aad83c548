// One workload under every policy: the same arrivals, one simulation each.
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>

#include "allot/parallel.h"
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
                                                      const ReplayProgress& progress, std::size_t threads) {
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
  // Each policy's simulation and measures, in the policies' order whichever thread ran it.
  std::vector<std::optional<Expected<PolicyMetrics, std::string>>> reports(policies.size());
  std::mutex progress_mutex;
  const auto work = [&](std::size_t index) {
    const ReplayPolicy& policy = policies[index];
    SimulationOptions options = simulation;
    if (progress) {
      options.progress = [&, index](double fraction, std::uint64_t events) {
        const std::lock_guard lock(progress_mutex);
        progress(index, fraction, events);
      };
    }
    auto result = simulate(workload, inventory, *policy.policy, options);
    if (!result) {
      reports[index].emplace(unexpected(result.error()));
    } else {
      reports[index].emplace(measure(workload, *result, *policy.policy, policy.name, metrics));
    }
  };
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  support::parallel_for(policies.size(), threads, work);
  for (std::size_t index = 0; index < policies.size(); ++index) {
    if (!*reports[index]) return unexpected(reports[index]->error());
    report.policies.push_back(std::move(**reports[index]));
  }
  return report;
}

}  // namespace allot::simulator
