// Slurm's nodes and jobs as the scheduling cycle sees them: an Inventory and
// JobRequests in the policy's accounts and classes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allot/inventory.h"
#include "allot/slurm.h"

namespace allot::slurm {

// One up-to-date block: Slurm's topology is not visible through the job API,
// so every node hangs off one block (placement then only packs nodes).
// Partitions are the nodes' own lists; advance reservations those in force at `now`.
runtime::Inventory inventory_of(const std::vector<SlurmNode>& nodes, const std::vector<SlurmReservation>& reservations,
                                const AdapterSettings& settings, Seconds now);

// The request of a job: `account` and `job_class` from the mapping file,
// `first_submitted` its first submission (Slurm resets submit time on requeue),
// where Slurm would run it and why it cannot start at `now` whatever its
// priority (JobRequest::blocked: a dependency, a hold, a begin time, a limit).
runtime::JobRequest request_of(const SlurmJob& job, const std::string& account, const std::string& job_class,
                               Seconds first_submitted, Seconds now);

// Why a pending job cannot start at `now` whatever its priority; "" when only
// priority and free resources hold it back.
std::string blocked_reason(const SlurmJob& job, Seconds now);

// The features of a --constraint that asks for all of them ("a100&ib",
// "a100,ib"); nullopt for what Allot does not model (`|`, counts, brackets, `!`).
std::optional<std::vector<std::string>> required_features(const std::string& constraint);

// GPUs a running job holds (all nodes), and its GPU type: the type of its first node.
double held_gpus(const SlurmJob& job);
const std::string& gpu_type_of(const SlurmJob& job, const runtime::Inventory& inventory);

}  // namespace allot::slurm
