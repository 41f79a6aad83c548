// Applying a mapping file to one Slurm job: which leaf account it charges and
// which class (contract) it runs under. The first matching rule wins.
#pragma once

#include <optional>
#include <string>

#include "allot/slurm.h"

namespace allot::slurm {

// Whether every condition set in `match` holds for `job`.
bool matches(const JobMatch& match, const SlurmJob& job);

// The leaf account of a job (`{user}` and `{account}` substituted), or nullopt when no rule matches.
std::optional<std::string> account_of(const JobMap& map, const SlurmJob& job);

// The class of a job, or nullopt when no rule matches.
std::optional<std::string> class_of(const JobMap& map, const SlurmJob& job);

}  // namespace allot::slurm
