#include "fake_slurm.h"

#include <algorithm>
#include <chrono>

namespace slurm_test {

FakeSlurm::FakeSlurm(int nodes, int gpus) {
  for (int i = 0; i < nodes; ++i) {
    nodes_.push_back(SlurmNode{"n" + std::to_string(i + 1), "h100", gpus, 0, 32, 64.0, false, false, {}, {}});
  }
}

std::uint32_t FakeSlurm::submit(const std::string& account, int gpus, Seconds at, const std::string& partition) {
  SlurmJob job;
  job.id = next_id_++;
  job.name = "job" + std::to_string(job.id);
  job.account = account;
  job.user = account + "_user";
  job.partition = partition;
  job.priority = 1;  // priority/multifactor with zero weights
  job.gpus_per_node = gpus;
  job.cpus_per_node = 1;
  job.submitted = at;
  job.eligible = at;
  job.requeueable = true;
  jobs_[job.id] = job;
  return job.id;
}

void FakeSlurm::start(std::uint32_t id, int node, Seconds at) {
  SlurmJob& job = jobs_.at(id);
  job.phase = JobPhase::running;
  job.started = at;
  job.node_indexes = {node};
  nodes_[static_cast<std::size_t>(node)].gpus_used += job.gpus_per_node;
}

void FakeSlurm::finish(std::uint32_t id, Seconds at) {
  SlurmJob& job = jobs_.at(id);
  job.phase = JobPhase::finished;
  job.ended = at;
  for (int node : job.node_indexes) nodes_[static_cast<std::size_t>(node)].gpus_used -= job.gpus_per_node;
}

std::vector<Call> FakeSlurm::calls_of(const std::string& what) const {
  std::vector<Call> found;
  for (const Call& call : calls_) {
    if (call.what == what) found.push_back(call);
  }
  return found;
}

allot::Expected<std::vector<SlurmNode>, std::string> FakeSlurm::read_nodes() {
  if (unreachable_) return allot::unexpected(std::string("Socket timed out on send/recv operation"));
  return nodes_;
}

allot::Expected<std::vector<SlurmJob>, std::string> FakeSlurm::read_jobs() {
  if (unreachable_) return allot::unexpected(std::string("Socket timed out on send/recv operation"));
  std::vector<SlurmJob> jobs;
  for (const auto& [id, job] : jobs_) jobs.push_back(job);
  return jobs;
}

allot::Expected<std::vector<SlurmReservation>, std::string> FakeSlurm::read_reservations() {
  if (unreachable_) return allot::unexpected(std::string("Socket timed out on send/recv operation"));
  return reservations;
}

std::optional<std::string> FakeSlurm::set_admin_comment(std::uint32_t job, const std::string& text) {
  calls_.push_back(Call{"admin_comment", job, 0});
  const auto found = jobs_.find(job);
  if (found == jobs_.end()) return "Invalid job id specified";
  found->second.admin_comment = text;
  return std::nullopt;
}

std::optional<std::string> FakeSlurm::set_priority(std::uint32_t job, std::uint32_t priority) {
  std::unique_lock lock(priority_mutex_);
  peak_in_flight_ = std::max(peak_in_flight_, ++in_flight_);
  priority_changed_.notify_all();
  if (!priority_changed_.wait_for(lock, std::chrono::seconds(10),
                                  [&] { return peak_in_flight_ >= hold_priorities_until; })) {
    hold_priorities_until = 0;  // they never overlapped: hold no later call
  }
  --in_flight_;
  calls_.push_back(Call{"priority", job, priority});
  SlurmJob& target = jobs_.at(job);
  if (const auto refused = refusals_.find("priority"); refused != refusals_.end()) return refused->second;
  if (target.priority == 0) return std::string("Job is in held state, pending scheduler release");
  target.priority = priority;
  return std::nullopt;
}

std::optional<std::string> FakeSlurm::signal_batch(std::uint32_t job, int signal) {
  calls_.push_back(Call{"signal", job, signal});
  if (const auto refused = refusals_.find("signal"); refused != refusals_.end()) return refused->second;
  return jobs_.at(job).phase == JobPhase::running ? std::nullopt : std::optional<std::string>("Job not running");
}

std::optional<std::string> FakeSlurm::requeue(std::uint32_t job) {
  calls_.push_back(Call{"requeue", job, 0});
  SlurmJob& target = jobs_.at(job);
  if (!target.requeueable) return std::string("Requested operation is presently disabled");
  for (int node : target.node_indexes) nodes_[static_cast<std::size_t>(node)].gpus_used -= target.gpus_per_node;
  target.phase = JobPhase::pending;
  target.node_indexes.clear();
  target.started = 0;
  target.restarts += 1;
  target.submitted = clock;
  target.eligible = clock + requeue_delay;
  return std::nullopt;
}

}  // namespace slurm_test
