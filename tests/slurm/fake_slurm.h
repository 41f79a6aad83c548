// A fake Slurm behind the adapter's backend interface, for unit tests of the
// reconcile logic: jobs and nodes are plain values the test moves through
// their lives, and every write the adapter makes is recorded.
#pragma once

#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "allot/slurm.h"

namespace slurm_test {

using allot::slurm::JobPhase;
using allot::slurm::Seconds;
using allot::slurm::SlurmJob;
using allot::slurm::SlurmNode;
using allot::slurm::SlurmReservation;

// One call the adapter made.
struct Call {
  std::string what;  // "priority", "signal", "requeue", "admin_comment"
  std::uint32_t job = 0;
  std::int64_t value = 0;  // the priority or the signal
};

class FakeSlurm : public allot::slurm::SlurmBackend {
 public:
  // `nodes` nodes of `gpus` GPUs each.
  FakeSlurm(int nodes, int gpus);

  // Queues a job of `account` asking for `gpus` GPUs on one node; returns its id.
  std::uint32_t submit(const std::string& account, int gpus, Seconds at, const std::string& partition = "gpu");
  // Starts a pending job on node `node` (what slurmctld would do).
  void start(std::uint32_t id, int node, Seconds at);
  // Ends a running job.
  void finish(std::uint32_t id, Seconds at);
  SlurmJob& job(std::uint32_t id) { return jobs_.at(id); }
  SlurmNode& node(int index) { return nodes_.at(static_cast<std::size_t>(index)); }
  std::vector<SlurmReservation> reservations;  // what read_reservations() answers
  // Reads fail until cleared (slurmctld down or timing out).
  void set_unreachable(bool unreachable) { unreachable_ = unreachable; }
  // Calls of this kind ("signal") are refused with `error` from now on.
  void refuse(const std::string& what, const std::string& error) { refusals_[what] = error; }
  // Seconds a requeued job waits before it may start again (Slurm's cred_expire).
  Seconds requeue_delay = 120;
  Seconds clock = 0;  // what the fake takes as "now" for requeues

  // set_priority holds its calls until this many have been in flight at once (or,
  // once, 10 s pass), so a test sees the adapter overlap its writes; 0: no holding.
  int hold_priorities_until = 0;
  int peak_priorities_in_flight() const { return peak_in_flight_; }

  const std::vector<Call>& calls() const { return calls_; }
  std::vector<Call> calls_of(const std::string& what) const;
  void clear_calls() { calls_.clear(); }

  allot::Expected<std::vector<SlurmNode>, std::string> read_nodes() override;
  allot::Expected<std::vector<SlurmJob>, std::string> read_jobs() override;
  allot::Expected<std::vector<SlurmReservation>, std::string> read_reservations() override;
  std::optional<std::string> set_priority(std::uint32_t job, std::uint32_t priority) override;
  std::optional<std::string> signal_batch(std::uint32_t job, int signal) override;
  std::optional<std::string> requeue(std::uint32_t job) override;
  std::optional<std::string> set_admin_comment(std::uint32_t job, const std::string& text) override;

 private:
  std::vector<SlurmNode> nodes_;
  std::map<std::uint32_t, SlurmJob> jobs_;
  std::vector<Call> calls_;
  std::uint32_t next_id_ = 100;
  bool unreachable_ = false;
  std::map<std::string, std::string> refusals_;
  // set_priority is called from several threads (AdapterSettings::write_threads).
  std::mutex priority_mutex_;
  std::condition_variable priority_changed_;
  int in_flight_ = 0, peak_in_flight_ = 0;
};

}  // namespace slurm_test
