// Lookups shared by the table and HTML reports: groups (classes, programs,
// sizes) by name across the policies of one workload.
#pragma once

#include <string>
#include <vector>

#include "allot/simulator.h"

namespace allot::simulator {

// Which groups of PolicyMetrics: &PolicyMetrics::classes, ::programs or ::sizes.
using GroupList = std::vector<GroupMetrics> PolicyMetrics::*;

// The group named `name`, or null.
const GroupMetrics* find_group(const std::vector<GroupMetrics>& groups, const std::string& name);

// Every group name any policy has, in first-seen order.
std::vector<std::string> group_names(const ScenarioReport& scenario, GroupList list);

// "p50 / p90", plus how many jobs never started when some did not.
std::string wait_summary(const GroupMetrics& group);

// What hung jobs cost a group: "12.3 / 40.1 / 0.8 (3 of 4 stopped)", GPU-hours
// held while hung / recovered / work lost, and how many the scheduler stopped.
std::string hung_summary(const GroupMetrics& group);

}  // namespace allot::simulator
