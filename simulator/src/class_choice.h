// Which class of a policy a generated job runs as: the class named like its
// kind if it admits the job, else the class whose contract suits the kind best
// (debug: short and small; eval: deadline, run to completion; train:
// checkpointing and resumable; large: multi-node).
#pragma once

#include <optional>
#include <string>

#include "allot/simulator.h"

namespace allot::simulator {

// Why `info` cannot take `job` (GPUs, nodes, runtime, deadline), if it cannot.
std::optional<std::string> admission_problem(const ClassInfo& info, const WorkloadJob& job);

// The index of the class `job` runs as under `tables`, if any class admits it.
std::optional<int> class_for_kind(const PolicyTables& tables, const WorkloadJob& job);

// The class a job of `kind` would run as, ignoring its shape (for generators
// that size jobs to the class's limits); nullopt when the policy has none.
std::optional<int> preferred_class(const PolicyTables& tables, JobKind kind);

}  // namespace allot::simulator
