// What a scenario generator needs to know about the cluster and the policy:
// the programs (top-level accounts) with their shares and leaf accounts, the
// capacity and the typical node, and how each kind of job is sized so the
// policy's classes admit it.
#pragma once

#include <string>
#include <vector>

#include "allot/simulator.h"
#include "random.h"

namespace allot::simulator {

// A top-level account and the leaves jobs are submitted under.
struct Program {
  std::string name;
  double share = 0;  // of the cluster, before exceptions
  std::vector<std::string> leaves;
};

struct ScenarioContext {
  const runtime::Inventory* inventory = nullptr;
  const PolicyTables* tables = nullptr;
  std::vector<Program> programs;  // in tree order, only those with a share and a leaf
  int capacity_gpus = 0;          // on up nodes
  int up_nodes = 0;
  int node_gpus = 1;        // GPUs of the most common up node
  std::string main_type;    // the most common GPU type of up nodes
  int main_type_nodes = 0;  // up nodes of that type with `node_gpus` GPUs
  bool several_types = false;
};

// The context for `inventory` and `tables`, or why no scenario can run there.
Expected<ScenarioContext, std::string> scenario_context(const runtime::Inventory& inventory,
                                                        const PolicyTables& tables);

// A job of `kind` submitted at `submitted`, sized within the limits of the
// class that kind maps to. The account and the id are left for the caller.
WorkloadJob sample_job(JobKind kind, Seconds submitted, const ScenarioContext& context, Random& random);

// The program with the largest share (the first one on ties), and the smallest.
const Program& largest_program(const ScenarioContext& context);
const Program& smallest_program(const ScenarioContext& context);

}  // namespace allot::simulator
