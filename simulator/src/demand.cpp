#include "demand.h"

namespace allot::simulator {
namespace {

constexpr Seconds kHour = 3600;
const std::vector<double> kKindWeights = {0.3, 0.1, 0.6};  // debug, eval, train, by job count
const JobKind kKinds[] = {JobKind::debug, JobKind::eval, JobKind::train};

double gpu_hours(const WorkloadJob& job) {
  return static_cast<double>(job.nodes * job.gpus_per_node) * static_cast<double>(job.work) / 3600.0;
}

// The mean GPU-hours of one job of the mix, from a fixed sample (independent of the seed).
double mean_job_gpu_hours(const ScenarioContext& context) {
  Random sampler(0x5eedULL);
  double total = 0;
  constexpr int kSamples = 4000;
  for (int i = 0; i < kSamples; ++i) {
    total += gpu_hours(sample_job(kKinds[sampler.pick(kKindWeights)], 0, context, sampler));
  }
  return total / kSamples;
}

// The mean number of jobs program `p` submits in `hour` at `load` times its
// share: the rate of hour_of_arrivals, and what expected_background_jobs sums.
double arrivals_per_hour(const ScenarioContext& context, double load, std::size_t p, Seconds hour, double mean) {
  return load * context.programs[p].share * context.capacity_gpus * hour_factor(hour) / mean;
}

// Poisson arrivals of one program over one hour at `per_hour` jobs.
void hour_of_arrivals(const ScenarioContext& context, const Program& program, Seconds hour, double per_hour,
                      Random& random, std::vector<WorkloadJob>& jobs) {
  if (per_hour <= 0) return;
  double at = static_cast<double>(hour);
  while (true) {
    at += random.exponential(3600.0 / per_hour);
    if (at >= static_cast<double>(hour + kHour)) return;
    WorkloadJob job = sample_job(kKinds[random.pick(kKindWeights)], static_cast<Seconds>(at), context, random);
    job.account = program.leaves[random.pick(std::vector<double>(program.leaves.size(), 1.0))];
    jobs.push_back(std::move(job));
  }
}

}  // namespace

double hour_factor(Seconds time) {
  const Seconds days = time / 86400;
  const Seconds weekday = (days + 3) % 7;  // 1970-01-01 was a Thursday; 0 = Monday
  if (weekday >= 5) return 0.6;
  const Seconds hour = time % 86400 / 3600;
  return hour >= 8 && hour < 20 ? 1.3 : 0.7;
}

// Each program's demand as a multiple of its share: the largest asks for less,
// the others split the rest of the load by share.
std::vector<double> program_loads(const ScenarioContext& context, const DemandOptions& options) {
  const Program& largest = largest_program(context);
  double others = 0;
  for (const Program& program : context.programs) others += &program == &largest ? 0 : program.share;
  const double rest = options.load - options.largest_program_load * largest.share;
  std::vector<double> loads;
  for (const Program& program : context.programs) {
    const bool is_largest = &program == &largest || others <= 0;
    loads.push_back(is_largest ? options.largest_program_load : std::max(0.0, rest / others));
  }
  return loads;
}

double expected_background_jobs(const ScenarioContext& context, const DemandOptions& options) {
  const double mean = mean_job_gpu_hours(context);
  const std::vector<double> loads = program_loads(context, options);
  double jobs = 0;
  for (Seconds hour = options.start; hour < options.end; hour += kHour) {
    for (std::size_t p = 0; p < context.programs.size(); ++p)
      jobs += arrivals_per_hour(context, loads[p], p, hour, mean);
  }
  return jobs;
}

void add_background_demand(const ScenarioContext& context, const DemandOptions& options, Random& random,
                           std::vector<WorkloadJob>& jobs) {
  const double mean = mean_job_gpu_hours(context);
  const std::vector<double> loads = program_loads(context, options);
  for (Seconds hour = options.start; hour < options.end; hour += kHour) {
    for (std::size_t p = 0; p < context.programs.size(); ++p) {
      const Program& program = context.programs[p];
      hour_of_arrivals(context, program, hour, arrivals_per_hour(context, loads[p], p, hour, mean), random, jobs);
    }
  }
}

}  // namespace allot::simulator
