// The seed's four scenarios: each generator's defining property, on the
// clusters and policies it must run on.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "replay_support.h"

namespace replay_test {
namespace {

Workload scenario(Scenario which, const runtime::Inventory& cluster, const CompiledPolicy& policy,
                  std::uint64_t seed = 1) {
  ScenarioOptions options;
  options.seed = seed;
  auto workload = generate_scenario(which, cluster, policy.tables(), options);
  if (!workload) FAIL(workload.error());
  return std::move(*workload);
}

bool in_program(const WorkloadJob& job, const std::string& program) {
  return job.account == program || job.account.rfind(program + "/", 0) == 0;
}

// Jobs of one GPU submitted in [from, until).
std::size_t one_gpu_jobs_between(const Workload& workload, Seconds from, Seconds until) {
  return static_cast<std::size_t>(
      std::count_if(workload.jobs.begin(), workload.jobs.end(), [&](const WorkloadJob& job) {
        return job.submitted >= from && job.submitted < until && job.nodes * job.gpus_per_node == 1;
      }));
}

}  // namespace

TEST_CASE("every scenario runs on every example cluster and policy", "[simulator][scenario]") {
  const std::vector<std::string> clusters = {"examples/clusters/saas-8gpu.toml",
                                             "examples/clusters/research-1000gpu.toml"};
  const std::vector<std::string> policies = {"policies/saas.allot", "policies/baseline_labels.allot",
                                             "policies/large_org.allot"};
  for (const std::string& cluster_path : clusters) {
    const auto cluster = cluster_file(cluster_path);
    for (const std::string& policy_path : policies) {
      const auto policy = compile_file(policy_path);
      for (Scenario which : {Scenario::normal, Scenario::burst, Scenario::large, Scenario::drain}) {
        INFO(cluster_path << " " << policy_path << " " << scenario_name(which));
        const Workload workload = scenario(which, cluster, *policy);
        CHECK_FALSE(workload.jobs.empty());
        CHECK(std::is_sorted(workload.jobs.begin(), workload.jobs.end(),
                             [](const WorkloadJob& a, const WorkloadJob& b) { return a.submitted < b.submitted; }));
        CHECK(resolve_jobs(workload, policy->tables()));  // every job fits a class of the policy
      }
    }
  }
}

TEST_CASE("the same seed gives the same arrivals; another seed other arrivals", "[simulator][scenario]") {
  const auto policy = compile_file("policies/saas.allot");
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  const Workload a = scenario(Scenario::normal, cluster, *policy, 7);
  const Workload b = scenario(Scenario::normal, cluster, *policy, 7);
  const Workload c = scenario(Scenario::normal, cluster, *policy, 8);
  REQUIRE(a.jobs.size() == b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    CHECK(a.jobs[i].submitted == b.jobs[i].submitted);
    CHECK(a.jobs[i].work == b.jobs[i].work);
    CHECK(a.jobs[i].account == b.jobs[i].account);
  }
  const bool same = a.jobs.size() == c.jobs.size() &&
                    std::equal(a.jobs.begin(), a.jobs.end(), c.jobs.begin(), [](const auto& x, const auto& y) {
                      return x.submitted == y.submitted && x.work == y.work;
                    });
  CHECK_FALSE(same);
}

TEST_CASE("normal: the largest program idles on day 2 and returns on day 3", "[simulator][scenario]") {
  const auto policy = compile_file("policies/saas.allot");
  const Workload workload = scenario(Scenario::normal, cluster_file("examples/clusters/saas-8gpu.toml"), *policy);
  const auto product_jobs_on = [&](int day) {
    return std::count_if(workload.jobs.begin(), workload.jobs.end(), [&](const WorkloadJob& job) {
      return in_program(job, "product") && (job.submitted - kDefaultStart) / kDay == day;
    });
  };
  CHECK(product_jobs_on(0) > 10);
  CHECK(product_jobs_on(1) == 0);
  CHECK(product_jobs_on(2) > 10);
  // Every program submits, and the eight-GPU cluster sees a week of work.
  for (const char* program : {"product", "platform", "exploration"}) {
    CHECK(std::any_of(workload.jobs.begin(), workload.jobs.end(),
                      [&](const WorkloadJob& job) { return in_program(job, program); }));
  }
}

TEST_CASE("burst: many small jobs in half an hour on top of the normal demand", "[simulator][scenario]") {
  const auto policy = compile_file("policies/saas.allot");
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  const Workload burst = scenario(Scenario::burst, cluster, *policy);
  const Workload normal = scenario(Scenario::large, cluster, *policy);  // the same background, no burst
  const Seconds from = kDefaultStart + kDay + 10 * kHour, until = from + 30 * kMinute;
  const std::size_t in_window = one_gpu_jobs_between(burst, from, until);
  CHECK(in_window >= 32);  // four jobs per GPU of the cluster
  CHECK(in_window >= 10 * std::max<std::size_t>(1, one_gpu_jobs_between(normal, from, until)));
  const auto burst_jobs = std::count_if(burst.jobs.begin(), burst.jobs.end(), [&](const WorkloadJob& job) {
    return job.submitted >= from && job.submitted < until && job.kind == JobKind::debug && job.work <= 15 * kMinute;
  });
  CHECK(burst_jobs >= 32);
}

TEST_CASE("large: one training run on half the nodes of the main GPU type", "[simulator][scenario]") {
  const auto policy = compile_file("policies/large_org.allot");
  const Workload workload = scenario(Scenario::large, cluster_file("examples/clusters/research-1000gpu.toml"), *policy);
  std::vector<const WorkloadJob*> multi_node;
  for (const WorkloadJob& job : workload.jobs) {
    if (job.nodes > 1) multi_node.push_back(&job);
  }
  REQUIRE(multi_node.size() == 1);
  CHECK(multi_node[0]->nodes == 32);  // half of the 64 H100 nodes
  CHECK(multi_node[0]->gpus_per_node == 8);
  CHECK(multi_node[0]->gpu_type == "h100");
  const auto classes = resolve_jobs(workload, policy->tables());
  REQUIRE(classes);
  const std::size_t index = static_cast<std::size_t>(multi_node[0] - workload.jobs.data());
  CHECK(policy->tables().classes[static_cast<std::size_t>((*classes)[index])].name == "pretrain");
}

TEST_CASE("drain: a quarter of the nodes, a rack at a time, drain with a deadline and come back",
          "[simulator][scenario]") {
  const auto policy = compile_file("policies/large_org.allot");
  const auto cluster = cluster_file("examples/clusters/research-1000gpu.toml");
  const Workload workload = scenario(Scenario::drain, cluster, *policy);
  REQUIRE(workload.maintenance.size() == 1);
  const Maintenance& maintenance = workload.maintenance[0];
  CHECK(maintenance.nodes.size() == 31);  // a quarter of the 124 up nodes
  std::set<int> blocks;
  for (int node : maintenance.nodes) blocks.insert(cluster.nodes[static_cast<std::size_t>(node)].block);
  CHECK(blocks.size() == 2);  // one rack of 16 and most of the next
  CHECK(maintenance.drain_at == kDefaultStart + kDay + 6 * kHour);
  CHECK(maintenance.deadline == maintenance.drain_at + 4 * kHour);
  CHECK(maintenance.back_at == maintenance.drain_at + 12 * kHour);
}

}  // namespace replay_test

namespace replay_test {

TEST_CASE("a replayed drain stops jobs on the drained hosts at a checkpoint or at the deadline",
          "[simulator][scenario]") {
  const auto policy = compile_file("policies/saas.allot");
  const auto cluster = cluster_file("examples/clusters/saas-8gpu.toml");
  ScenarioOptions options;
  options.days = 3;
  auto workload = generate_scenario(Scenario::drain, cluster, policy->tables(), options);
  REQUIRE(workload);
  const Maintenance maintenance = workload->maintenance.at(0);
  std::vector<runtime::Decision> drained;
  bool ran_while_down = false;
  SimulationOptions simulation;
  simulation.on_cycle = [&](const runtime::ClusterState& state, const runtime::CycleResult& cycle) {
    const bool down = state.now >= maintenance.deadline && state.now < maintenance.back_at;
    for (const runtime::RunningJob& job : state.running) {
      ran_while_down |= down && !job.stopping_at;
    }
    for (const runtime::Decision& decision : cycle.decisions) {
      if (decision.kind == runtime::DecisionKind::preempt && decision.for_job.empty()) drained.push_back(decision);
    }
  };
  simulate_or_fail(*workload, cluster, *policy, simulation);

  REQUIRE_FALSE(drained.empty());
  for (const runtime::Decision& stop : drained) {
    INFO(stop.job_id << ": " << stop.reason);
    CHECK(stop.stops_at <= maintenance.deadline);
    const bool at_checkpoint = stop.lost_gpu_seconds == 0 && stop.stops_at < maintenance.deadline;
    CHECK((at_checkpoint || stop.stops_at == maintenance.deadline));
  }
  CHECK_FALSE(ran_while_down);
}

}  // namespace replay_test
