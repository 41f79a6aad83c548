// The policy's unit as the simulator counts it: the ledger's configuration,
// each job's cost per hour, and the cluster's capacity in the unit. Mirrors the
// runtime's own conversion (runtime/src/cycle/cycle_jobs.cpp), which is internal.
#pragma once

#include <string>
#include <vector>

#include "allot/inventory.h"
#include "allot/ledger.h"
#include "allot/policy.h"

namespace allot::simulator {

// The unit's weights, with the up nodes' resources as the dominant-share denominators.
runtime::UnitWeights unit_weights(const PolicyTables& tables, const runtime::Inventory& inventory);

// The ledger for a policy: its unit, window and half-life, hourly buckets.
runtime::LedgerConfig ledger_config(const PolicyTables& tables, const runtime::Inventory& inventory);

// What the up nodes deliver per hour, in the unit.
double capacity_rate(const runtime::UnitWeights& unit, const runtime::Inventory& inventory);

// What one GPU of an unknown type costs per hour: the up nodes' average, so
// demand that names no type is priced like the capacity it would get.
double average_gpu_rate(const runtime::UnitWeights& unit, const runtime::Inventory& inventory);

// The GPU type name of a node.
const std::string& node_gpu_type(const runtime::Inventory& inventory, int node);

// GPUs on up nodes.
int up_gpus(const runtime::Inventory& inventory);

}  // namespace allot::simulator
