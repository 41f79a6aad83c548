// Slurm's nodes and jobs as the scheduling cycle sees them: an Inventory and
// JobRequests in the policy's accounts and classes.
#pragma once

#include <string>
#include <vector>

#include "allot/inventory.h"
#include "allot/slurm.h"

namespace allot::slurm {

// One up-to-date block: Slurm's topology is not visible through the job API,
// so every node hangs off one block (placement then only packs nodes).
runtime::Inventory inventory_of(const std::vector<SlurmNode>& nodes, const AdapterSettings& settings);

// The request of a job: `account` and `job_class` from the mapping file,
// `first_submitted` its first submission (Slurm resets submit time on requeue).
runtime::JobRequest request_of(const SlurmJob& job, const std::string& account, const std::string& job_class,
                               Seconds first_submitted);

// GPUs a running job holds (all nodes), and its GPU type: the type of its first node.
double held_gpus(const SlurmJob& job);
const std::string& gpu_type_of(const SlurmJob& job, const runtime::Inventory& inventory);

}  // namespace allot::slurm
