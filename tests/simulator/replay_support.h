// Helpers for the simulator's tests: compiled policies and clusters from the
// source tree, small hand-made workloads, and lookups in a replay's results.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "allot/simulator.h"

namespace replay_test {

using namespace allot;
using namespace allot::simulator;

constexpr Seconds kMinute = 60;
constexpr Seconds kHour = 3600;
constexpr Seconds kDay = 86400;

// A file of the source tree ("policies/saas.allot") compiled with the
// interpreter and "today" = 2026-11-29; fails the test on diagnostics.
std::shared_ptr<const CompiledPolicy> compile_file(const std::string& relative_path);
// Policy text compiled the same way.
std::shared_ptr<const CompiledPolicy> compile_text(const std::string& text);
// A file of the source tree with the text `from` (which it must hold) replaced
// by `to`, compiled with the interpreter at its own path (so its imports
// resolve) and "today" = `today` (days since 1970-01-01).
std::shared_ptr<const CompiledPolicy> compile_file_edited(const std::string& relative_path, const std::string& from,
                                                          const std::string& to, int today);
// An inventory of the source tree ("examples/clusters/saas-8gpu.toml").
runtime::Inventory cluster_file(const std::string& relative_path);
// An inventory from TOML text.
runtime::Inventory cluster_text(const std::string& toml);
// Two nodes of 2 H100s each, in one rack: small enough to count by hand.
runtime::Inventory two_nodes();
// The text of a file of the source tree.
std::string read_source(const std::string& relative_path);

// A job submitted at kDefaultStart + `at`.
WorkloadJob job(const std::string& id, const std::string& account, const std::string& job_class, int gpus, Seconds work,
                Seconds at = 0);

// A workload of `jobs` over `days` from kDefaultStart.
Workload workload_of(std::vector<WorkloadJob> jobs, int days = 1);

// Simulates and fails the test on errors.
SimulationResult simulate_or_fail(const Workload& workload, const runtime::Inventory& inventory,
                                  const CompiledPolicy& policy, const SimulationOptions& options = {});

// The outcome of the job named `id`.
const JobOutcome& outcome(const Workload& workload, const SimulationResult& result, const std::string& id);

// A program's metrics by name (fails the test when absent).
const GroupMetrics& program(const PolicyMetrics& metrics, const std::string& name);
// A class's metrics by name, or null.
const GroupMetrics* job_class(const PolicyMetrics& metrics, const std::string& name);

}  // namespace replay_test
