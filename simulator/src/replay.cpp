// One workload under every policy: the same arrivals, one simulation each.
#include "allot/simulator.h"

namespace allot::simulator {

Expected<ScenarioReport, std::string> replay_workload(const Workload& workload, const runtime::Inventory& inventory,
                                                      const std::vector<ReplayPolicy>& policies,
                                                      const SimulationOptions& simulation, const MetricOptions& metrics,
                                                      const ReplayProgress& progress) {
  ScenarioReport report;
  report.workload = workload.name;
  report.description = workload.description;
  report.start = workload.start;
  report.end = workload.end;
  report.jobs = workload.jobs.size();
  report.notes = workload.notes;
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
