#include "replay_support.h"
#include "allot/compile.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

namespace replay_test {
namespace {

constexpr int kNovember29th2026 = 20786;  // days since 1970-01-01

std::shared_ptr<const CompiledPolicy> checked(CompileResult result) {
  std::string messages;
  for (const Diagnostic& diagnostic : result.diagnostics) messages += diagnostic.message + "\n";
  INFO(messages);
  REQUIRE(result.policy != nullptr);
  return result.policy;
}

CompileOptions interpreter() {
  CompileOptions options;
  options.engine = Engine::interpreter;
  options.check.today = Date{kNovember29th2026};
  return options;
}

}  // namespace

std::shared_ptr<const CompiledPolicy> compile_file(const std::string& relative_path) {
  return checked(compile_policy_file(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path, interpreter()));
}

std::shared_ptr<const CompiledPolicy> compile_text(const std::string& text) {
  return checked(compile_policy_source("test.allot", text, interpreter()));
}

std::shared_ptr<const CompiledPolicy> compile_file_edited(const std::string& relative_path, const std::string& from,
                                                          const std::string& to, int today) {
  std::string text = read_source(relative_path);
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  CompileOptions options = interpreter();
  options.check.today = Date{today};
  return checked(compile_policy_source(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path, text, options));
}

runtime::Inventory cluster_file(const std::string& relative_path) {
  auto inventory = runtime::load_inventory(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path);
  if (!inventory) FAIL(inventory.error().to_string());
  return *inventory;
}

runtime::Inventory cluster_text(const std::string& toml) {
  auto inventory = runtime::parse_inventory(toml, "test.toml");
  if (!inventory) FAIL(inventory.error().to_string());
  return *inventory;
}

runtime::Inventory two_nodes() {
  return cluster_text(R"([[group]]
prefix = "node-"
count = 2
digits = 2
gpu_type = "h100"
gpus = 2
cpus = 32
memory_gib = 256
nodes_per_block = 2
block_prefix = "rack-"
)");
}

std::string read_source(const std::string& relative_path) {
  std::ifstream file(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

WorkloadJob job(const std::string& id, const std::string& account, const std::string& job_class, int gpus, Seconds work,
                Seconds at) {
  WorkloadJob job;
  job.id = id;
  job.account = account;
  job.job_class = job_class;
  job.gpus_per_node = gpus;
  job.work = work;
  job.submitted = kDefaultStart + at;
  return job;
}

Workload workload_of(std::vector<WorkloadJob> jobs, int days) {
  Workload workload;
  workload.name = "test";
  workload.start = kDefaultStart;
  workload.end = kDefaultStart + days * kDay;
  workload.jobs = std::move(jobs);
  return workload;
}

SimulationResult simulate_or_fail(const Workload& workload, const runtime::Inventory& inventory,
                                  const CompiledPolicy& policy, const SimulationOptions& options) {
  auto result = simulate(workload, inventory, policy, options);
  if (!result) FAIL(result.error());
  return std::move(*result);
}

const JobOutcome& outcome(const Workload& workload, const SimulationResult& result, const std::string& id) {
  for (std::size_t i = 0; i < workload.jobs.size(); ++i) {
    if (workload.jobs[i].id == id) return result.jobs[i];
  }
  FAIL("no job " << id);
  throw std::logic_error("unreachable");
}

const GroupMetrics& program(const PolicyMetrics& metrics, const std::string& name) {
  for (const GroupMetrics& group : metrics.programs) {
    if (group.name == name) return group;
  }
  FAIL("no program " << name);
  throw std::logic_error("unreachable");
}

const GroupMetrics* job_class(const PolicyMetrics& metrics, const std::string& name) {
  for (const GroupMetrics& group : metrics.classes) {
    if (group.name == name) return &group;
  }
  return nullptr;
}

}  // namespace replay_test
