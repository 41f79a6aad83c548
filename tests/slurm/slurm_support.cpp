#include "slurm_support.h"
#include "allot/compile.h"

#include <fmt/format.h>
#include <catch2/catch.hpp>

namespace slurm_test {

std::string two_team_policy(const std::string& protect, const std::string& grace) {
  return fmt::format(R"(policy two_teams {{
  unit gpu_hours {{ h100 = 1.0 }}
  window 7d
  tree {{
    alpha 50% {{ owner "a@example.com" review 2027-01-31 hypothesis "alpha's bet" }}
    beta 50% {{ owner "b@example.com" review 2027-01-31 hypothesis "beta's bet" }}
  }}
  class work {{
    checkpoint every 10m
    protect {}
    resumable
    {}
  }}
  class pinned {{
    preemptible false
  }}
  rank = 1000 * account.fair_tree - job.gpus
  preempt when victim.account.usage_ratio > 1.0 and requester.account.usage_ratio < 1.0
}}
)",
                     protect, grace.empty() ? "" : "grace " + grace);
}

std::string replaced_rank(const std::string& policy, const std::string& rank) {
  const std::size_t begin = policy.find("rank = ");
  const std::size_t end = policy.find('\n', begin);
  return policy.substr(0, begin) + "rank = " + rank + policy.substr(end);
}

namespace {

allot::CompileOptions options_for_tests() {
  allot::CompileOptions options;
  options.engine = allot::Engine::interpreter;
  options.check.today = allot::parse_date("2026-12-01");
  return options;
}

std::shared_ptr<const allot::CompiledPolicy> checked(const allot::CompileResult& result) {
  std::string messages;
  for (const allot::Diagnostic& diagnostic : result.diagnostics) messages += diagnostic.message + "\n";
  INFO(messages);
  REQUIRE(result.policy != nullptr);
  return result.policy;
}

}  // namespace

std::shared_ptr<const allot::CompiledPolicy> compile(const std::string& text) {
  return checked(allot::compile_policy_source("test.allot", text, options_for_tests()));
}

std::shared_ptr<const allot::CompiledPolicy> compile_file(const std::string& relative_path) {
  return checked(allot::compile_policy_file(std::string(ALLOT_SOURCE_DIR) + "/" + relative_path, options_for_tests()));
}

allot::slurm::JobMap two_team_map() {
  auto map = allot::slurm::parse_job_map(R"(
[adapter]
charge_every = "1m"
default_gpu_type = "h100"

[[account]]
account = "{account}"

[[class]]
partition = "pinned"
class = "pinned"

[[class]]
class = "work"
)",
                                         "map.toml");
  INFO((map ? "" : map.error().to_string()));
  REQUIRE(map);
  return *map;
}

std::unique_ptr<allot::slurm::Adapter> open_adapter(FakeSlurm& slurm, const std::string& state_path, bool dry_run,
                                                    const allot::slurm::JobMap& map) {
  allot::slurm::AdapterOptions options;
  options.state_path = state_path;
  options.dry_run = dry_run;
  auto adapter = allot::slurm::Adapter::open(slurm, map, options);
  INFO((adapter ? "" : adapter.error()));
  REQUIRE(adapter);
  return std::move(*adapter);
}

allot::slurm::PassReport pass(allot::slurm::Adapter& adapter, const allot::CompiledPolicy& policy, Seconds now) {
  auto report = adapter.reconcile(policy, now);
  INFO((report ? "" : report.error()));
  REQUIRE(report);
  return std::move(*report);
}

}  // namespace slurm_test
