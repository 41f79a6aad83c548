#include "report_groups.h"

#include <fmt/format.h>

#include <algorithm>

#include "report_format.h"

namespace allot::simulator {

const GroupMetrics* find_group(const std::vector<GroupMetrics>& groups, const std::string& name) {
  for (const GroupMetrics& group : groups) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

std::vector<std::string> group_names(const ScenarioReport& scenario, GroupList list) {
  std::vector<std::string> names;
  for (const PolicyMetrics& metrics : scenario.policies) {
    for (const GroupMetrics& group : metrics.*list) {
      if (std::find(names.begin(), names.end(), group.name) == names.end()) names.push_back(group.name);
    }
  }
  return names;
}

std::string wait_summary(const GroupMetrics& group) {
  std::string text = fmt::format("{} / {}", support::format_duration_rounded(group.p50_wait),
                                 support::format_duration_rounded(group.p90_wait));
  const int waiting = group.jobs - group.started;
  if (waiting > 0) text += fmt::format(" ({} never started)", waiting);
  return text;
}

std::string hung_summary(const GroupMetrics& group) {
  return fmt::format("{:.1f} / {:.1f} / {:.1f} ({} of {} stopped)", group.hung_gpu_hours, group.recovered_gpu_hours,
                     group.hung_lost_gpu_hours, group.hung_stopped, group.hung);
}

}  // namespace allot::simulator
