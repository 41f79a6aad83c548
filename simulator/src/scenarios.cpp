// The seed's four scenarios, each the background demand plus one event on the
// second day (the seed's Tuesday): the largest program's quiet day (normal), a
// flood of small jobs (burst), a training run that needs many nodes at once
// (large), and a maintenance that drains hosts (drain).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "demand.h"
#include "scenario_context.h"

namespace allot::simulator {
namespace {

constexpr Seconds kMinute = 60;
constexpr Seconds kHour = 3600;
constexpr Seconds kDay = 86400;

// The day the scenario's event happens: the second, or the first of a one-day replay.
Seconds event_day(const ScenarioOptions& options) { return options.start + (options.days >= 2 ? kDay : 0); }

std::string pick_leaf(const Program& program, Random& random) {
  return program.leaves[random.pick(std::vector<double>(program.leaves.size(), 1.0))];
}

bool in_program(const WorkloadJob& job, const Program& program) {
  return std::find(program.leaves.begin(), program.leaves.end(), job.account) != program.leaves.end();
}

// The largest program idles on the second day and returns on the third.
void normal(const ScenarioContext& context, const ScenarioOptions& options, Random&, Workload& workload) {
  const Program& quiet = largest_program(context);
  workload.description = fmt::format(
      "normal demand: {:.0f}% of capacity on weekdays, `{}` asking for 80% of its share and the others for more",
      100 * options.load, quiet.name);
  if (options.days < 3) return;
  const Seconds from = workload.start + kDay, until = workload.start + 2 * kDay;
  std::erase_if(workload.jobs, [&](const WorkloadJob& job) {
    return job.submitted >= from && job.submitted < until && in_program(job, quiet);
  });
  workload.description += fmt::format("; `{}` idles on day 2 and returns on day 3 (the seed's story)", quiet.name);
}

// The smallest program floods the queue with one-GPU jobs in half an hour.
void burst(const ScenarioContext& context, const ScenarioOptions& options, Random& random, Workload& workload) {
  const Program& sweep = smallest_program(context);
  const Seconds from = event_day(options) + 10 * kHour;
  const int count = std::max(20, 4 * context.capacity_gpus);
  for (int i = 0; i < count; ++i) {
    WorkloadJob job =
        sample_job(JobKind::debug, from + static_cast<Seconds>(random.uniform(0, 30 * kMinute)), context, random);
    job.account = pick_leaf(sweep, random);
    workload.jobs.push_back(std::move(job));
  }
  workload.description = fmt::format(
      "normal demand plus a burst: `{}` submits {} one-GPU jobs of 2-15 minutes within 30 minutes", sweep.name, count);
}

// The largest program submits one training run on half the nodes of the most common type.
void large(const ScenarioContext& context, const ScenarioOptions& options, Random& random, Workload& workload) {
  const Program& owner = largest_program(context);
  WorkloadJob job;
  job.kind = JobKind::large;
  job.submitted = event_day(options) + 9 * kHour;
  job.nodes = std::max(1, context.main_type_nodes / 2);
  job.gpus_per_node = context.node_gpus;
  job.gpu_type = context.several_types ? context.main_type : "";
  job.work = 24 * kHour;
  job.requested_protect = 4 * kHour;
  job.label = 3;
  job.account = pick_leaf(owner, random);
  workload.jobs.push_back(job);
  workload.description = fmt::format(
      "normal demand plus one training run of `{}` on {} node{} x {} GPUs{} for 24 hours", owner.name, job.nodes,
      job.nodes == 1 ? "" : "s", job.gpus_per_node, job.gpu_type.empty() ? "" : fmt::format(" ({})", job.gpu_type));
}

// A quarter of the up nodes, a block (rack) at a time, largest block first.
std::vector<int> maintenance_nodes(const runtime::Inventory& inventory) {
  std::vector<int> up_by_block(inventory.blocks.size(), 0), chosen;
  int up = 0;
  for (const runtime::Node& node : inventory.nodes) {
    if (node.state == runtime::NodeState::up) ++up_by_block[static_cast<std::size_t>(node.block)], ++up;
  }
  std::vector<int> blocks(inventory.blocks.size());
  for (std::size_t b = 0; b < blocks.size(); ++b) blocks[b] = static_cast<int>(b);
  std::stable_sort(blocks.begin(), blocks.end(), [&](int a, int b) {
    return up_by_block[static_cast<std::size_t>(a)] > up_by_block[static_cast<std::size_t>(b)];
  });
  const auto wanted = static_cast<std::size_t>(std::max(1, static_cast<int>(std::ceil(up / 4.0))));
  for (int block : blocks) {
    for (std::size_t n = 0; n < inventory.nodes.size() && chosen.size() < wanted; ++n) {
      const runtime::Node& node = inventory.nodes[n];
      if (node.block == block && node.state == runtime::NodeState::up) chosen.push_back(static_cast<int>(n));
    }
  }
  return chosen;
}

// A quarter of the hosts drain at 06:00 with a 4-hour deadline and come back at 18:00.
void drain(const ScenarioContext& context, const ScenarioOptions& options, Random&, Workload& workload) {
  Maintenance maintenance;
  maintenance.nodes = maintenance_nodes(*context.inventory);
  maintenance.drain_at = event_day(options) + 6 * kHour;
  maintenance.deadline = maintenance.drain_at + 4 * kHour;
  maintenance.back_at = maintenance.drain_at + 12 * kHour;
  workload.description = fmt::format(
      "normal demand plus a maintenance: {} of {} nodes drain at 06:00 on day {}, must be empty by 10:00 and "
      "return at 18:00",
      maintenance.nodes.size(), context.up_nodes, options.days >= 2 ? 2 : 1);
  workload.maintenance.push_back(std::move(maintenance));
}

// Sorts by submission (then kind and account for ties), drops what falls outside, names the jobs.
void finish_jobs(Workload& workload) {
  auto& jobs = workload.jobs;
  std::erase_if(
      jobs, [&](const WorkloadJob& job) { return job.submitted < workload.start || job.submitted >= workload.end; });
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const WorkloadJob& a, const WorkloadJob& b) { return a.submitted < b.submitted; });
  for (std::size_t i = 0; i < jobs.size(); ++i)
    jobs[i].id = fmt::format("{}-{:06}", job_kind_name(jobs[i].kind), i + 1);
}

}  // namespace

Expected<Workload, std::string> generate_scenario(Scenario scenario, const runtime::Inventory& inventory,
                                                  const PolicyTables& tables, const ScenarioOptions& options) {
  if (options.days < 1) return unexpected(std::string("a scenario needs at least one day"));
  if (!(options.hang >= 0 && options.hang <= 1))
    return unexpected(std::string("the fraction of training jobs that hang must be between 0 and 1"));
  auto context = scenario_context(inventory, tables);
  if (!context) return unexpected(context.error());
  Workload workload;
  workload.name = scenario_name(scenario);
  workload.start = options.start;
  workload.end = options.start + options.days * kDay;
  // The background is the same in every scenario; each adds (or removes) its event.
  const DemandOptions demand{options.load, 0.8, workload.start, workload.end};
  // Bounded before a job is drawn: `--days 3660 --load 10` must not take all memory first.
  const double expected = expected_background_jobs(*context, demand);
  if (expected > static_cast<double>(kMaxWorkloadJobs)) {
    return unexpected(
        fmt::format("{} days at load {:g} on {} GPUs means about {:.0f} jobs, more than the {} a "
                    "replay takes: replay fewer days or a lower load",
                    options.days, options.load, context->capacity_gpus, expected, kMaxWorkloadJobs));
  }
  Random background(options.seed);
  add_background_demand(*context, demand, background, workload.jobs);
  Random random(options.seed ^ (0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(scenario) + 1)));
  switch (scenario) {
    case Scenario::normal:
      normal(*context, options, random, workload);
      break;
    case Scenario::burst:
      burst(*context, options, random, workload);
      break;
    case Scenario::large:
      large(*context, options, random, workload);
      break;
    case Scenario::drain:
      drain(*context, options, random, workload);
      break;
  }
  finish_jobs(workload);
  add_hangs(workload, options.hang, options.seed);
  return workload;
}

}  // namespace allot::simulator
