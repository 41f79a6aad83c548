// Applying a mapping file to one Slurm job: which leaf account it charges and
// which class (contract) it runs under. The first matching rule wins.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "allot/slurm.h"

namespace allot::slurm {

// The conditions a rule may set, by their names in the mapping file.
inline constexpr std::string_view kConditionKeys[] = {"slurm_account", "user", "partition", "qos", "name", "comment"};

// The condition named `key` (one of kConditionKeys) of `match`.
std::optional<std::string>& condition(JobMatch& match, std::string_view key);
const std::optional<std::string>& condition(const JobMatch& match, std::string_view key);

// Whether every condition set in `match` holds for `job`.
bool matches(const JobMatch& match, const SlurmJob& job);

// The leaf account of a job (`{user}` and `{account}` substituted), or nullopt when no rule matches.
std::optional<std::string> account_of(const JobMap& map, const SlurmJob& job);

// The class of a job, or nullopt when no rule matches.
std::optional<std::string> class_of(const JobMap& map, const SlurmJob& job);

}  // namespace allot::slurm
